import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const script = fileURLToPath(new URL("../sync-versions.ts", import.meta.url))
const base = mkdtempSync(join(tmpdir(), "jsr-check-sync-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))

const denoText = (version: string) => `{
  "name": "@x/NAME",
  "version": "${version}",
  "license": "MIT",
  "exports": "./src/index.ts",
  "publish": {
    "include": ["src", "README.md", "LICENSE"]
  }
}
`

/** A workspace with one package per entry: its package.json version, and its deno.json text (none: no file). */
const workspace = (
  name: string,
  packages: Record<string, { readonly npm: string; readonly deno?: string }>
): string => {
  const root = join(base, name)
  for (const [dir, { npm, deno }] of Object.entries(packages)) {
    mkdirSync(join(root, "packages", dir), { recursive: true })
    writeFileSync(join(root, "packages", dir, "package.json"), JSON.stringify({ name: `@x/${dir}`, version: npm }))
    if (deno !== undefined) writeFileSync(join(root, "packages", dir, "deno.json"), deno.replace("NAME", dir))
  }
  return root
}

const run = (...args: Array<string>) => {
  const result = spawnSync(process.execPath, [script, ...args], { encoding: "utf8", timeout: 30_000 })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

const denoOf = (root: string, dir: string) => readFileSync(join(root, "packages", dir, "deno.json"), "utf8")

describe("sync-versions", () => {
  it("--check fails naming each deno.json whose version differs, and changes nothing", () => {
    const root = workspace("check", {
      a: { npm: "0.2.0", deno: denoText("0.1.0") },
      b: { npm: "0.2.0", deno: denoText("0.2.0") }
    })
    const result = run("--check", "--root", root)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain('sync-versions: packages/a/deno.json has version "0.1.0", package.json "0.2.0"')
    expect(result.stderr).not.toContain("packages/b")
    expect(result.stderr).toContain("1 deno.json version(s) differ from package.json")
    expect(denoOf(root, "a")).toBe(denoText("0.1.0").replace("NAME", "a"))
  })

  it("copies package.json's version into deno.json, keeping its layout; --check then passes", () => {
    const root = workspace("write", {
      a: { npm: "1.0.0", deno: denoText("0.1.0") },
      b: { npm: "1.0.0", deno: denoText("1.0.0") }
    })
    const written = run("--root", root)
    expect(written.status).toBe(0)
    expect(written.stdout).toContain('sync-versions: packages/a/deno.json: "0.1.0" -> "1.0.0"')
    expect(denoOf(root, "a")).toBe(denoText("1.0.0").replace("NAME", "a"))
    expect(denoOf(root, "b")).toBe(denoText("1.0.0").replace("NAME", "b"))
    const checked = run("--check", "--root", root)
    expect(checked.status).toBe(0)
    expect(checked.stdout).toContain("sync-versions: 2 deno.json version(s) match their package.json")
  })

  it("fails on a package without deno.json or with one that is not JSON, and still fixes the others", () => {
    const root = workspace("broken", {
      a: { npm: "1.0.0", deno: denoText("0.1.0") },
      b: { npm: "1.0.0" },
      c: { npm: "1.0.0", deno: "{ not json" }
    })
    const result = run("--root", root)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain("sync-versions: packages/b: no deno.json: JSR cannot publish it")
    expect(result.stderr).toMatch(/sync-versions: packages\/c: deno\.json is not JSON \(/)
    expect(result.stderr).toContain("2 package(s) cannot have their version kept")
    expect(denoOf(root, "a")).toBe(denoText("1.0.0").replace("NAME", "a"))
  })

  it("refuses an unknown argument, and a workspace without packages", () => {
    const unknown = run("--chek")
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('sync-versions: unknown argument "--chek"')
    expect(unknown.stderr).toContain("usage: node tools/jsr-check/sync-versions.ts [--check] [--root DIR]")
    const missingRoot = run("--root")
    expect(missingRoot.status).toBe(2)
    expect(missingRoot.stderr).toContain("sync-versions: --root needs a folder")
    const empty = run("--check", "--root", join(base, "empty"))
    expect(empty.status).toBe(1)
    expect(empty.stderr).toContain("sync-versions: no package (a folder with a package.json) under")
  })
})
