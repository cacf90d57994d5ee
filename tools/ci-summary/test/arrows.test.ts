/**
 * The arrows checker: it passes on this repository, and it fails, naming the file, the import
 * and the rule, on a small workspace built with each kind of broken arrow.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import { check, type Floors, format, specifiersOf } from "../arrows.ts"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const script = fileURLToPath(new URL("../arrows.ts", import.meta.url))

const made: Array<string> = []
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A workspace in a temporary folder: each key a root-relative path, each value its text. */
const workspace = (files: Record<string, string>): string => {
  const dir = mkdtempSync(join(tmpdir(), "arrows-"))
  made.push(dir)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return dir
}

const manifest = (name: string, dependencies: ReadonlyArray<string> = [], dev: ReadonlyArray<string> = []) =>
  `${JSON.stringify(
    {
      name,
      dependencies: Object.fromEntries(dependencies.map((d) => [d, "workspace:*"])),
      devDependencies: Object.fromEntries(dev.map((d) => [d, "workspace:*"]))
    },
    null,
    2
  )}\n`

const small: Floors = { core: [["low"], ["mid", "twin"], ["high"]], edges: ["edge"] }

/** A sound little house: every arrow points down. */
const sound = (): Record<string, string> => ({
  "packages/low/package.json": manifest("@x/low"),
  "packages/low/src/index.ts": `export const low = 1\n`,
  "packages/mid/package.json": manifest("@x/mid", ["@x/low"]),
  "packages/mid/src/index.ts": `import { low } from "@x/low"\nexport const mid = low\n`,
  "packages/twin/package.json": manifest("@x/twin", ["@x/mid"]),
  "packages/twin/src/index.ts": `export * from "@x/mid"\n`,
  "packages/high/package.json": manifest("@x/high", ["@x/mid", "@x/low"]),
  "packages/high/src/index.ts": `import type { mid } from "@x/mid"\nexport const high = import("@x/low")\n`,
  "packages/edge/package.json": manifest("@x/edge", ["@x/high"]),
  "packages/edge/src/index.ts": `import "@x/high"\n`,
  "apps/cli/package.json": manifest("@x/cli", ["@x/edge", "@x/high"]),
  "apps/cli/src/main.ts": `import "@x/edge"\n`,
  "tools/t/package.json": manifest("@x/t")
})

describe("arrows: this repository", () => {
  it("has no upward import, no core-to-edge import, no cycle", () => {
    expect(format(check(root))).toBe("")
  })

  it("the command says so and exits 0", () => {
    const out = execFileSync(process.execPath, ["--disable-warning=ExperimentalWarning", script, root], {
      encoding: "utf8",
      timeout: 45_000
    })
    expect(out).toContain("every arrow points down")
  })
})

describe("arrows: the checker", () => {
  it("passes a sound workspace", () => {
    expect(check(workspace(sound()), small)).toEqual([])
  })

  it("an upward import in src names the file, the line, the import and the rule", () => {
    const dir = workspace({
      ...sound(),
      "packages/low/src/index.ts": `// a comment\nimport { mid } from "@x/mid/sub"\nexport const low = mid\n`,
      "packages/low/package.json": manifest("@x/low", ["@x/mid"])
    })
    const broken = check(dir, small)
    expect(broken).toContainEqual(
      expect.objectContaining({ file: "packages/low/src/index.ts", line: 2, target: "@x/mid", rule: "upward" })
    )
    expect(format(broken)).toContain(
      "packages/low/src/index.ts:2: [upward] low → mid: an upward import, from floor 0 (low) to floor 1 (mid, twin)"
    )
    // The dependency in package.json is an upward arrow too.
    expect(broken).toContainEqual(expect.objectContaining({ file: "packages/low/package.json", rule: "upward" }))
  })

  it("a core package importing an edge is refused, even from below", () => {
    const dir = workspace({
      ...sound(),
      "packages/high/package.json": manifest("@x/high", ["@x/mid", "@x/low", "@x/edge"]),
      "packages/high/src/more.ts": `export { edge } from "@x/edge"\n`
    })
    const broken = check(dir, small)
    expect(format(broken)).toContain(
      "packages/high/src/more.ts:1: [core-to-edge] high → edge: the core (high, floor 2 (high)) never imports an edge (edge)"
    )
    expect(broken).toContainEqual(expect.objectContaining({ file: "packages/high/package.json", rule: "core-to-edge" }))
  })

  it("a dependency alone (no import) is an arrow", () => {
    const dir = workspace({ ...sound(), "packages/mid/package.json": manifest("@x/mid", ["@x/low", "@x/high"]) })
    expect(check(dir, small)).toContainEqual(
      expect.objectContaining({ file: "packages/mid/package.json", line: 5, target: "@x/high", rule: "upward" })
    )
  })

  it("a package importing an app or a tool is refused", () => {
    const dir = workspace({
      ...sound(),
      "packages/edge/package.json": manifest("@x/edge", ["@x/high", "@x/cli"]),
      "packages/edge/src/index.ts": `import "@x/high"\nimport x = require("@x/t")\n`
    })
    const rules = check(dir, small).map((b) => [b.file, b.rule, b.target])
    expect(rules).toContainEqual(["packages/edge/package.json", "to-app-or-tool", "@x/cli"])
    expect(rules).toContainEqual(["packages/edge/src/index.ts", "to-app-or-tool", "@x/t"])
  })

  it("a cycle on one floor is refused", () => {
    const dir = workspace({
      ...sound(),
      "packages/mid/package.json": manifest("@x/mid", ["@x/low", "@x/twin"]),
      "packages/mid/src/index.ts": `import "@x/twin"\n`
    })
    expect(format(check(dir, small))).toContain("[cycle] an import cycle: @x/mid → @x/twin → @x/mid")
  })

  it("an import not declared in dependencies (or only in devDependencies) is refused", () => {
    const dir = workspace({
      ...sound(),
      "packages/mid/package.json": manifest("@x/mid", [], ["@x/low"]),
      "packages/twin/src/index.ts": `export * from "@x/mid"\nimport "@x/low"\n`
    })
    const text = format(check(dir, small))
    expect(text).toContain(
      `packages/mid/src/index.ts:1: [undeclared] imports "@x/low" but packages/mid/package.json has it only in devDependencies`
    )
    expect(text).toContain(
      `packages/twin/src/index.ts:2: [undeclared] imports "@x/low" but packages/twin/package.json does not depend on it`
    )
  })

  it("a relative import out of the package is refused; one inside is not", () => {
    const dir = workspace({
      ...sound(),
      "packages/low/src/internal/a.ts": `import { b } from "../b.ts"\nimport { mid } from "../../../mid/src/index.ts"\n`,
      "packages/low/src/b.ts": `export const b = 1\n`
    })
    const broken = check(dir, small)
    expect(broken).toEqual([
      expect.objectContaining({
        file: "packages/low/src/internal/a.ts",
        line: 2,
        target: "../../../mid/src/index.ts",
        rule: "outside-package"
      })
    ])
  })

  it("a package on no floor is named, and an unreadable package.json is reported", () => {
    const dir = workspace({
      ...sound(),
      "packages/new/package.json": manifest("@x/new"),
      "packages/bad/package.json": "{ not json"
    })
    const text = format(check(dir, small))
    expect(text).toContain("packages/new/package.json:1: [no-floor] packages/new is on no floor and is no edge")
    expect(text).toContain("packages/bad/package.json:0: [unreadable] packages/bad/package.json could not be read")
  })

  it("symbolic links and FIFOs under src are not followed", () => {
    const dir = workspace(sound())
    const outside = workspace({ "evil.ts": `import "@x/edge"\n` })
    symlinkSync(join(outside, "evil.ts"), join(dir, "packages/low/src/evil.ts"))
    symlinkSync(outside, join(dir, "packages/low/src/linked"))
    execFileSync("mkfifo", [join(dir, "packages/low/src/pipe.ts")], { timeout: 10_000 })
    expect(check(dir, small)).toEqual([])
  })

  it("the command exits 1 and prints each broken arrow", () => {
    const dir = workspace({ ...sound(), "packages/low/src/index.ts": `import "@x/edge"\n` })
    let status = 0
    let stderr = ""
    try {
      execFileSync(process.execPath, ["--disable-warning=ExperimentalWarning", script, dir], {
        encoding: "utf8",
        stdio: "pipe",
        timeout: 45_000
      })
    } catch (error) {
      const failed = error as { status: number; stderr: string }
      status = failed.status
      stderr = failed.stderr
    }
    // The real floors: `low` is on none of them.
    expect(status).toBe(1)
    expect(stderr).toContain("[no-floor] packages/low is on no floor")
  })
})

describe("arrows: reading imports", () => {
  const specs = (text: string) => specifiersOf(text).map((s) => [s.specifier, s.line])

  it("reads every import form", () => {
    expect(
      specs(
        [
          `import { a } from "a"`,
          `import type { B } from 'b'`,
          `import * as C from "c"`,
          `import "d"`,
          `export * from "e"`,
          `export { f } from "f"`,
          `const g = await import("g")`,
          `import h = require("h")`,
          `import {`,
          `  i,`,
          `} from "i"`
        ].join("\n")
      )
    ).toEqual([
      ["a", 1],
      ["b", 2],
      ["c", 3],
      ["d", 4],
      ["e", 5],
      ["f", 6],
      ["g", 7],
      ["h", 8],
      ["i", 11]
    ])
  })

  it("skips comments, strings, templates and regular expressions", () => {
    const text = [
      `/**`,
      ` * @example`,
      ` * import { Loop } from "@agent-harness/executor"`,
      ` */`,
      `// import "line-comment"`,
      `const s = 'import "not-an-import"'`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal's text, on purpose
      'const t = `from "template" ${ { a: `import("nested")` }.a } from "still-template"`',
      `const r = /from "regex"/g`,
      `const x = Array.from("abc")`,
      `const y = obj.import("prop")`,
      `const d = 4 / 2 / 1`,
      `import { z } from "real"`
    ].join("\n")
    expect(specs(text)).toEqual([["real", 12]])
  })

  it("never throws on unterminated text", () => {
    for (const text of [`/* open`, `"open`, "`open ${", `/open`, `import`, `import("`]) {
      expect(() => specifiersOf(text)).not.toThrow()
    }
  })
})
