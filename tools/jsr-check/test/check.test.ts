import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const script = fileURLToPath(new URL("../check.ts", import.meta.url))
const root = mkdtempSync(join(tmpdir(), "jsr-check-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const write = (path: string, content: unknown): void => {
  const file = join(root, path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`)
}

/** A package of the fixture workspace: manifests that agree, and the given sources. */
const fixture = (
  dir: string,
  files: Record<string, string>,
  deno: Record<string, unknown> | null = { publish: { include: ["src"] } }
): void => {
  const name = `@fixture/${dir}`
  write(`packages/${dir}/package.json`, { name, version: "0.1.0", license: "MIT", exports: { ".": "./src/index.ts" } })
  if (deno !== null) {
    write(`packages/${dir}/deno.json`, { name, version: "0.1.0", license: "MIT", exports: "./src/index.ts", ...deno })
  }
  for (const [path, text] of Object.entries(files)) write(`packages/${dir}/${path}`, text)
}

const typed = "/** A greeting. */\nexport const hello: string = 'hi'\n"

interface Report {
  readonly ok: boolean
  readonly packages: ReadonlyArray<{
    readonly dir: string
    readonly ok: boolean
    readonly manifest: ReadonlyArray<string>
    readonly publish?: { readonly ok: boolean; readonly problems: ReadonlyArray<{ code: string; at?: string }> }
    readonly doc?: { readonly ok: boolean; readonly problems: ReadonlyArray<{ code: string; at?: string }> }
  }>
}

const run = (...args: Array<string>) => {
  const result = spawnSync(process.execPath, [script, "--root", root, ...args], {
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, NO_COLOR: "1" }
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

let report: Report
let status: number | null
let progress: string

beforeAll(() => {
  write("deno.json", { workspace: ["./packages/*"] })
  fixture("clean", { "src/index.ts": typed, "test/index.test.ts": "export {}\n" })
  fixture("slow", { "src/index.ts": "/** Doubled. */\nexport const doubled = [1, 2].map((n) => n * 2)\n" })
  fixture("undocumented", { "src/index.ts": "export const hello: string = 'hi'\n" })
  fixture("leaky", { "src/index.ts": typed, "test/index.test.ts": "export {}\n" }, {})
  fixture("stale", { "src/index.ts": typed }, { version: "0.0.9", publish: { include: ["src"] } })
  fixture("npm-only", { "src/index.ts": typed }, null)
  const result = run("--json")
  status = result.status
  progress = result.stderr
  report = JSON.parse(result.stdout) as Report
}, 300_000)

const find = (dir: string) => report.packages.find((p) => p.dir === dir)

describe("jsr-check on a workspace", () => {
  it("passes a typed, documented package that publishes its sources only", () => {
    expect(find("clean")).toMatchObject({ ok: true, manifest: [], publish: { ok: true }, doc: { ok: true } })
    expect(progress).toContain("jsr-check: ok packages/clean: manifest ok, publish ok, doc lint ok")
  })

  it("fails a package with a slow type, naming JSR's diagnostic and its place", () => {
    const slow = find("slow")
    expect(slow?.ok).toBe(false)
    expect(slow?.publish?.problems).toContainEqual(
      expect.objectContaining({ code: "missing-explicit-type", at: "packages/slow/src/index.ts:2:14" })
    )
  })

  it("fails a package whose export has no JSDoc, in the doc lint only", () => {
    const undocumented = find("undocumented")
    expect(undocumented).toMatchObject({ ok: false, publish: { ok: true }, doc: { ok: false } })
    expect(undocumented?.doc?.problems).toContainEqual(
      expect.objectContaining({ code: "missing-jsdoc", at: "packages/undocumented/src/index.ts:1:14" })
    )
  })

  it("fails a package that would publish its tests", () => {
    expect(find("leaky")?.publish).toMatchObject({
      ok: false,
      problems: [{ code: "published-test-file", at: "packages/leaky/test/index.test.ts" }]
    })
  })

  it("fails a deno.json whose version is not package.json's, and a package without deno.json", () => {
    expect(find("stale")?.manifest).toStrictEqual([
      `deno.json's version is "0.0.9", package.json's "0.1.0" (node tools/jsr-check/sync-versions.ts copies it)`
    ])
    expect(find("npm-only")).toMatchObject({
      ok: false,
      manifest: ["no deno.json: JSR cannot publish it (packages/budgets/deno.json is one)"]
    })
    expect(find("npm-only")?.publish).toBeUndefined()
  })

  it("exits 1 and sums up which packages fail", () => {
    expect(status).toBe(1)
    expect(report.ok).toBe(false)
    expect(progress).toContain("jsr-check: 5 of 6 package(s) fail: leaky, npm-only, slow, stale, undocumented")
    expect(progress).toMatch(/packages\/slow: deno publish --dry-run failed \(cd packages\/slow && deno publish/)
  })

  it("checks only the packages named, by folder or by name, and exits 0 when they pass", () => {
    const result = run("clean", "@fixture/clean")
    expect(result.status).toBe(0)
    expect(result.stdout).toContain("jsr-check: 1 package(s) publish to JSR")
  })

  it("refuses an unknown package or option, naming it (exit 2)", () => {
    const unknown = run("nope")
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain(
      'jsr-check: no package "nope" (there are clean, leaky, npm-only, slow, stale, undocumented)'
    )
    const option = run("--fast")
    expect(option.status).toBe(2)
    expect(option.stderr).toContain('jsr-check: unknown option "--fast"')
  })
})
