/**
 * The packages of this repository that publish to JSR without `--allow-slow-types` stay so: a
 * change that gives one of them a slow type (an export whose type JSR must infer), an untyped
 * error base, an export without JSDoc, or a test file in its upload fails here. Every package
 * passes today, so a new package is listed here too (the last test fails until it is): give it a
 * `deno.json` (`packages/budgets/deno.json` is one) and make `node tools/jsr-check/check.ts
 * <package>` pass.
 */
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { beforeAll, describe, expect, it } from "vitest"
import * as Manifest from "../Manifest.ts"

const script = fileURLToPath(new URL("../check.ts", import.meta.url))

/**
 * Every package: `deno publish --dry-run` passes (fast check, type check, manifest, the files
 * uploaded) and so does `deno doc --lint` (every export documented, with an explicit type).
 */
const packages = [
  "ai-sdk",
  "budgets",
  "command",
  "compaction",
  "diff",
  "durable",
  "executor",
  "file-tools",
  "idempotency",
  "mcp",
  "permission",
  "planner",
  "scenario",
  "scripted-model",
  "testing",
  "telemetry",
  "tokenizer",
  "tool-schema",
  "trials",
  "viewer"
] as const

interface Step {
  readonly ok: boolean
  readonly problems: ReadonlyArray<{ readonly code: string; readonly at?: string; readonly message: string }>
}

interface Checked {
  readonly dir: string
  readonly manifest: ReadonlyArray<string>
  readonly publish?: Step
  readonly doc?: Step
}

let results: ReadonlyArray<Checked> = []
let progress = ""

/** How long the checks may take: each package's Deno type check is slow on a loaded 2-core machine. */
const limit = 1_500_000

/** `check.ts --json` over some packages, in a process of its own: its results, and what it said on stderr. */
const check = (
  dirs: ReadonlyArray<string>
): Promise<{ readonly packages: ReadonlyArray<Checked>; readonly said: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [script, "--json", ...dirs], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let said = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (said += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), limit - 10_000)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      try {
        resolve({ packages: (JSON.parse(out) as { readonly packages: ReadonlyArray<Checked> }).packages, said })
      } catch {
        resolve({
          packages: [],
          said: `${said}\ncheck.ts ${dirs.join(" ")}: exit ${code ?? signal}, no JSON on stdout`
        })
      }
    })
  })

// Two halves at once, one process each: the machine's two cores, half the wall time.
beforeAll(async () => {
  const half = Math.ceil(packages.length / 2)
  const done = await Promise.all([check(packages.slice(0, half)), check(packages.slice(half))])
  results = done.flatMap((d) => d.packages)
  progress = done.map((d) => d.said).join("\n")
}, limit)

/** A step's problems as lines, so a failure names them. */
const shown = (step: Step | undefined): ReadonlyArray<string> =>
  step === undefined ? ["not run"] : step.problems.map((p) => `${p.code} ${p.at ?? "-"} ${p.message}`)

describe("the packages publish to JSR without slow types", () => {
  it.each(packages)("%s: deno.json agrees with package.json and deno publish --dry-run passes", (dir) => {
    const checked = results.find((r) => r.dir === dir)
    expect(checked, progress).toBeDefined()
    expect(checked?.manifest).toStrictEqual([])
    expect(checked?.publish?.ok ? [] : shown(checked?.publish)).toStrictEqual([])
  })

  it.each(packages)("%s: deno doc --lint passes on its entry points", (dir) => {
    const checked = results.find((r) => r.dir === dir)
    expect(checked?.doc?.ok ? [] : shown(checked?.doc)).toStrictEqual([])
  })

  it("lists every package of the workspace", () => {
    const root = fileURLToPath(new URL("../../../", import.meta.url))
    const listed: ReadonlyArray<string> = packages
    expect(Manifest.packageDirs(root).filter((dir) => !listed.includes(dir))).toStrictEqual([])
  })
})
