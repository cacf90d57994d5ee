import { describe, expect, it } from "vitest"
import type * as Manifest from "../Manifest.ts"
import * as Versions from "../Versions.ts"

const denoText = `{
  "name": "@x/a",
  "version": "0.1.0",
  "license": "MIT",
  "exports": "./src/index.ts",
  "publish": {
    "include": ["src", "README.md", "LICENSE"]
  }
}
`

const read = (text: string): Manifest.Read => ({
  _tag: "Read",
  file: "f",
  text,
  json: JSON.parse(text) as Manifest.Json
})
const pkg = (npm: Manifest.Read, deno: Manifest.Read): Manifest.Package => ({ dir: "a", path: "/p/a", npm, deno })

describe("Versions.withVersion", () => {
  it("replaces the version in place, keeping the layout", () => {
    expect(Versions.withVersion(denoText, "0.2.0")).toBe(denoText.replace('"0.1.0"', '"0.2.0"'))
  })

  it("never touches a nested version: the object is written again instead", () => {
    const nested = `{"name": "@x/a", "imports": {"version": "1"}, "version": "0.1.0"}`
    const text = Versions.withVersion(nested, "0.2.0")
    expect(JSON.parse(text)).toStrictEqual({ name: "@x/a", imports: { version: "1" }, version: "0.2.0" })
    expect(text.endsWith("}\n")).toBe(true)
  })

  it("adds a missing version", () => {
    expect(JSON.parse(Versions.withVersion(`{"name": "@x/a"}`, "1.0.0"))).toStrictEqual({
      name: "@x/a",
      version: "1.0.0"
    })
  })
})

describe("Versions.verdict", () => {
  const npm = read(`{"name": "@x/a", "version": "0.2.0"}`)

  it("says Same when the versions agree", () => {
    expect(Versions.verdict(pkg(read(`{"version": "0.2.0"}`), read(`{"version": "0.2.0"}`)))).toStrictEqual({
      _tag: "Same",
      dir: "a",
      version: "0.2.0"
    })
  })

  it("gives the new deno.json text when they differ", () => {
    expect(Versions.verdict(pkg(npm, read(denoText)))).toStrictEqual({
      _tag: "Differs",
      dir: "a",
      from: "0.1.0",
      to: "0.2.0",
      text: denoText.replace('"0.1.0"', '"0.2.0"')
    })
  })

  it("says what is broken: no deno.json, an unreadable one, a package.json without version", () => {
    expect(Versions.verdict(pkg(npm, { _tag: "Missing", file: "deno.json" }))).toStrictEqual({
      _tag: "Broken",
      dir: "a",
      problem: "no deno.json: JSR cannot publish it"
    })
    expect(
      Versions.verdict(pkg(npm, { _tag: "Invalid", file: "deno.json", problem: "is not a JSON object" }))
    ).toStrictEqual({ _tag: "Broken", dir: "a", problem: "deno.json is not a JSON object" })
    expect(Versions.verdict(pkg(read(`{"name": "@x/a"}`), read(denoText)))).toStrictEqual({
      _tag: "Broken",
      dir: "a",
      problem: "package.json has no version"
    })
  })
})
