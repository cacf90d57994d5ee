import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as Manifest from "../Manifest.ts"

const root = mkdtempSync(join(tmpdir(), "jsr-check-manifest-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const npm = { name: "@x/a", version: "1.2.3", license: "MIT", exports: { ".": "./src/index.ts" } }
const deno = { name: "@x/a", version: "1.2.3", license: "MIT", exports: "./src/index.ts" }

const read = (json: unknown): Manifest.Read => ({
  _tag: "Read",
  file: "f",
  text: JSON.stringify(json),
  json: json as Manifest.Json
})
const pkg = (npmRead: Manifest.Read, denoRead: Manifest.Read): Manifest.Package => ({
  dir: "a",
  path: join(root, "packages", "a"),
  npm: npmRead,
  deno: denoRead
})

describe("Manifest.problems", () => {
  it("finds nothing when deno.json agrees with package.json (an exports map too)", () => {
    expect(Manifest.problems(pkg(read(npm), read(deno)))).toStrictEqual([])
    expect(Manifest.problems(pkg(read(npm), read({ ...deno, exports: { ".": "./src/index.ts" } })))).toStrictEqual([])
  })

  it("names a missing or unreadable deno.json", () => {
    expect(Manifest.problems(pkg(read(npm), { _tag: "Missing", file: "deno.json" }))).toStrictEqual([
      "no deno.json: JSR cannot publish it (packages/budgets/deno.json is one)"
    ])
    expect(
      Manifest.problems(pkg(read(npm), { _tag: "Invalid", file: "deno.json", problem: "is not a JSON object" }))
    ).toStrictEqual(["deno.json is not a JSON object"])
  })

  it("names each field that is not npm's: name, version, licence, entry point", () => {
    const stale = { name: "@x/b", version: "1.2.2", license: "Apache-2.0", exports: "./mod.ts" }
    expect(Manifest.problems(pkg(read(npm), read(stale)))).toStrictEqual([
      `deno.json's name is "@x/b", package.json's "@x/a"`,
      `deno.json's version is "1.2.2", package.json's "1.2.3" (node tools/jsr-check/sync-versions.ts copies it)`,
      `deno.json's license is "Apache-2.0", package.json's "MIT"`,
      `deno.json exports "./mod.ts", package.json "./src/index.ts"`
    ])
  })

  it("names a deno.json without licence or entry point", () => {
    expect(Manifest.problems(pkg(read(npm), read({ name: "@x/a", version: "1.2.3" })))).toStrictEqual([
      "deno.json has no license",
      'deno.json exports no "." entry point'
    ])
  })
})

describe("Manifest.read and packages", () => {
  it("reads every folder with a package.json, and tells a missing, broken or non-object manifest apart", () => {
    const at = (...parts: Array<string>) => join(root, "packages", ...parts)
    for (const dir of ["a", "b", "c", "d", "no-manifest"]) mkdirSync(at(dir), { recursive: true })
    writeFileSync(at("a", "package.json"), JSON.stringify(npm))
    writeFileSync(at("a", "deno.json"), JSON.stringify(deno))
    writeFileSync(at("b", "package.json"), JSON.stringify(npm))
    writeFileSync(at("c", "package.json"), JSON.stringify(npm))
    writeFileSync(at("c", "deno.json"), "{ not json")
    writeFileSync(at("d", "package.json"), JSON.stringify(npm))
    writeFileSync(at("d", "deno.json"), "[1]")
    const found = Manifest.packages(root)
    expect(found.map((p) => [p.dir, p.deno._tag])).toStrictEqual([
      ["a", "Read"],
      ["b", "Missing"],
      ["c", "Invalid"],
      ["d", "Invalid"]
    ])
    const [, , c, d] = found
    expect(c?.deno._tag === "Invalid" && c.deno.problem.startsWith("is not JSON (")).toBe(true)
    expect(d?.deno).toStrictEqual({ _tag: "Invalid", file: at("d", "deno.json"), problem: "is not a JSON object" })
  })

  it("finds no package where there is no packages folder", () => {
    expect(Manifest.packages(join(root, "nowhere"))).toStrictEqual([])
  })
})

describe("Manifest.entryPoints", () => {
  it("reads a single entry point, an exports map, or none", () => {
    expect(Manifest.entryPoints({ exports: "./src/index.ts" })).toStrictEqual(["./src/index.ts"])
    expect(Manifest.entryPoints({ exports: { ".": "./src/index.ts", "./cli": "./src/cli.ts" } })).toStrictEqual([
      "./src/index.ts",
      "./src/cli.ts"
    ])
    expect(Manifest.entryPoints({})).toStrictEqual([])
  })
})
