/**
 * Checks that every package publishes to JSR as it is, without `--allow-slow-types`: for each
 * folder under `packages/` with a `package.json`, its `deno.json` must agree with npm's manifest
 * (name, version, licence, entry point), `deno publish --dry-run` must pass (JSR's fast check of
 * the public types, the type check, the manifest) without uploading tests, fixtures or
 * artifacts, and `deno doc --lint` must pass on its entry points (every export documented, with
 * an explicit type). The packages are checked one at a time; the summary names every problem
 * with its place.
 *
 *   node tools/jsr-check/check.ts [--json] [--root DIR] [PACKAGE...]
 *
 * PACKAGE is a folder name under `packages/` (`file-tools`) or a package name; default every
 * package. `--json` prints the results as one JSON object on stdout (progress goes to stderr).
 * `--root` checks another workspace (the tests use it). Uses the pinned Deno from this
 * repository's `node_modules/.bin/deno`. Exits 0 when every package passes, 1 when one fails, 2
 * on a usage error or when Deno cannot be found. Runs on Node 22 type stripping: erasable
 * TypeScript only.
 */
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import * as DenoOutput from "./DenoOutput.ts"
import * as Manifest from "./Manifest.ts"

const usage = "usage: node tools/jsr-check/check.ts [--json] [--root DIR] [PACKAGE...]"
const repository = fileURLToPath(new URL("../../", import.meta.url))
const deno = join(repository, "node_modules", ".bin", "deno")
/** The most problems listed per step; the command that shows them all is printed above them. */
const shown = 25

interface Options {
  readonly json: boolean
  readonly root: string
  readonly only: ReadonlyArray<string>
}

const parse = (args: ReadonlyArray<string>): Options | { readonly error: string } => {
  let json = false
  let root = repository
  const only: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    if (arg === "--json") json = true
    else if (arg === "--root") {
      const dir = args[++i]
      if (dir === undefined || dir === "") return { error: "--root needs a folder" }
      root = resolve(dir)
    } else if (arg.startsWith("-")) return { error: `unknown option ${JSON.stringify(arg)}` }
    else only.push(arg)
  }
  return { json, root, only }
}

/** The outcome of one Deno command on one package. */
interface Step {
  /** What ran, in the package's folder: `deno publish --dry-run --allow-dirty`. */
  readonly command: string
  readonly ok: boolean
  readonly problems: ReadonlyArray<DenoOutput.Problem>
  /** Deno's last lines, when it failed without a problem this script can read. */
  readonly output?: string
}

/** The results of one package. */
interface Checked {
  readonly dir: string
  readonly name: string | undefined
  readonly ok: boolean
  /** What is wrong with its `deno.json` (none when it agrees with `package.json`). */
  readonly manifest: ReadonlyArray<string>
  /** Absent when the step could not run: the package has no readable `deno.json`. */
  readonly publish?: Step
  readonly doc?: Step
  readonly seconds: number
}

const problem = (message: string): DenoOutput.Problem => ({ severity: "error", code: "error", message, at: undefined })

const tail = (text: string, count: number): string => text.trimEnd().split("\n").slice(-count).join("\n")

/** Runs Deno in a package's folder: the step, and everything Deno printed. */
const runDeno = (
  args: ReadonlyArray<string>,
  cwd: string,
  root: string,
  timeoutSeconds: number
): { readonly step: Step; readonly output: string } => {
  const command = `deno ${args.join(" ")}`
  const result = spawnSync(deno, args, {
    cwd,
    encoding: "utf8",
    timeout: timeoutSeconds * 1000,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" }
  })
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`
  if (result.error !== undefined) {
    const timedOut = "code" in result.error && result.error.code === "ETIMEDOUT"
    const message = timedOut ? `timed out after ${timeoutSeconds} s` : `could not run deno: ${result.error.message}`
    return { step: { command, ok: false, problems: [problem(message)] }, output }
  }
  const problems = DenoOutput.problems(output, root)
  const ok = result.status === 0
  if (ok || problems.some((p) => p.severity === "error")) return { step: { command, ok, problems }, output }
  const last = tail(output, 20)
  return {
    step: { command, ok, problems, output: last === "" ? `exit ${result.status ?? result.signal}` : last },
    output
  }
}

/** `deno publish --dry-run`, which also fails when it would upload tests, fixtures or artifacts. */
const publish = (pkg: Manifest.Package, root: string): Step => {
  const { step, output } = runDeno(["publish", "--dry-run", "--allow-dirty"], pkg.path, root, 600)
  if (!step.ok) return step
  const unwanted = DenoOutput.unwantedFiles(DenoOutput.publishedFiles(output, pkg.path))
  if (unwanted.length === 0) return step
  return {
    ...step,
    ok: false,
    problems: [
      ...step.problems,
      ...unwanted.map((file) => ({
        severity: "error" as const,
        code: "published-test-file",
        message: "would be published (publish.exclude it in deno.json)",
        at: `packages/${pkg.dir}/${file}`
      }))
    ]
  }
}

/**
 * Whether a `private-type-ref` diagnostic names a type another workspace package declares: Deno's
 * doc lint calls such types private when a package has a second entry point that uses them
 * (denoland/deno#27364), though they are the other package's public API. A type this package
 * declares itself is never excused.
 */
const foreignTypeRef = (pkg: Manifest.Package, found: DenoOutput.Problem): boolean => {
  if (found.code !== "private-type-ref") return false
  const name = /references private type '([^']+)'/.exec(found.message)?.[1]
  if (name === undefined) return false
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  const declares = new RegExp(
    `^\\s*(?:export\\s+)?(?:(?:declare|abstract)\\s+)?(?:interface|class|type|const|let|function|namespace|enum)\\s+${escaped}\\b|^export \\* as ${escaped}\\b`,
    "m"
  )
  const src = join(pkg.path, "src")
  const own = existsSync(src)
    ? readdirSync(src)
        .filter((file) => file.endsWith(".ts"))
        .some((file) => declares.test(readFileSync(join(src, file), "utf8")))
    : true
  return !own
}

/** `deno doc --lint` on the package's entry points. */
const docLint = (pkg: Manifest.Package, deno: Manifest.Json, root: string): Step => {
  const entries = Manifest.entryPoints(deno)
  if (entries.length === 0) {
    return { command: "deno doc --lint", ok: false, problems: [problem("deno.json exports no entry point")] }
  }
  const step = runDeno(["doc", "--lint", ...entries], pkg.path, root, 300).step
  if (step.ok) return step
  const problems = step.problems.filter((found) => !foreignTypeRef(pkg, found))
  const excused = step.problems.length - problems.length
  if (excused === 0 || problems.length > 0 || step.output !== undefined) return { ...step, problems }
  return { command: step.command, ok: true, problems: [] }
}

const checkPackage = (pkg: Manifest.Package, root: string): Checked => {
  const started = Date.now()
  const manifest = Manifest.problems(pkg)
  const name = pkg.npm._tag === "Read" && typeof pkg.npm.json.name === "string" ? pkg.npm.json.name : undefined
  const seconds = () => Math.round((Date.now() - started) / 100) / 10
  if (pkg.deno._tag !== "Read") return { dir: pkg.dir, name, ok: false, manifest, seconds: seconds() }
  const published = publish(pkg, root)
  const documented = docLint(pkg, pkg.deno.json, root)
  return {
    dir: pkg.dir,
    name,
    ok: manifest.length === 0 && published.ok && documented.ok,
    manifest,
    publish: published,
    doc: documented,
    seconds: seconds()
  }
}

const errorsOf = (step: Step): ReadonlyArray<DenoOutput.Problem> => step.problems.filter((p) => p.severity === "error")

/** A step in a few words: `ok`, `3 problems`, `failed`, `not run`. */
const cell = (step: Step | undefined): string => {
  if (step === undefined) return "not run"
  if (step.ok) return "ok"
  const count = errorsOf(step).length
  return count === 0 ? "failed" : `${count} problem${count === 1 ? "" : "s"}`
}

const pad = (text: string, width: number): string => text.padEnd(width)

const printStep = (print: (line: string) => void, dir: string, what: string, step: Step | undefined): void => {
  if (step === undefined || step.ok) return
  print(`packages/${dir}: ${what} failed (cd packages/${dir} && ${step.command})`)
  const errors = errorsOf(step)
  for (const p of errors.slice(0, shown)) print(`  ${p.code}  ${p.at ?? "-"}  ${p.message}`)
  if (errors.length > shown) print(`  ... and ${errors.length - shown} more (the command above shows them all)`)
  if (step.output !== undefined) for (const line of step.output.split("\n")) print(`  | ${line}`)
}

const main = (): number => {
  const options = parse(process.argv.slice(2))
  if ("error" in options) {
    console.error(`jsr-check: ${options.error}\n${usage}`)
    return 2
  }
  if (!existsSync(deno)) {
    console.error(`jsr-check: ${deno} not found (run pnpm install)`)
    return 2
  }
  const all = Manifest.packages(options.root)
  if (all.length === 0) {
    console.error(`jsr-check: no package (a folder with a package.json) under ${join(options.root, "packages")}`)
    return 2
  }
  const nameOf = (pkg: Manifest.Package): unknown => (pkg.npm._tag === "Read" ? pkg.npm.json.name : undefined)
  const unknown = options.only.filter(
    (wanted) => !all.some((pkg) => pkg.dir === wanted || `packages/${pkg.dir}` === wanted || nameOf(pkg) === wanted)
  )
  if (unknown.length > 0) {
    console.error(
      `jsr-check: no package ${unknown.map((u) => JSON.stringify(u)).join(", ")} (there are ${all.map((pkg) => pkg.dir).join(", ")})`
    )
    return 2
  }
  const selected =
    options.only.length === 0
      ? all
      : all.filter((pkg) =>
          options.only.some(
            (wanted) => pkg.dir === wanted || `packages/${pkg.dir}` === wanted || nameOf(pkg) === wanted
          )
        )

  // Human-readable lines go to stderr under --json, so stdout holds the JSON alone.
  const print = options.json ? (line: string) => console.error(line) : (line: string) => console.log(line)
  const results: Array<Checked> = []
  for (const pkg of selected) {
    const checked = checkPackage(pkg, options.root)
    results.push(checked)
    const verdict = checked.ok ? "ok" : "FAIL"
    print(
      `jsr-check: ${verdict} packages/${pkg.dir}: manifest ${checked.manifest.length === 0 ? "ok" : "FAIL"}, publish ${cell(checked.publish)}, doc lint ${cell(checked.doc)} (${checked.seconds} s)`
    )
  }

  const failed = results.filter((r) => !r.ok)
  if (failed.length > 0) {
    print("")
    for (const r of failed) {
      for (const m of r.manifest) print(`packages/${r.dir}: ${m}`)
      printStep(print, r.dir, "deno publish --dry-run", r.publish)
      printStep(print, r.dir, "deno doc --lint", r.doc)
    }
  }
  const width = Math.max(7, ...results.map((r) => r.dir.length)) + 2
  print("")
  print(`${pad("package", width)}${pad("manifest", 10)}${pad("publish", 14)}doc lint`)
  for (const r of results) {
    print(
      `${pad(r.dir, width)}${pad(r.manifest.length === 0 ? "ok" : "FAIL", 10)}${pad(cell(r.publish), 14)}${cell(r.doc)}`
    )
  }
  print(
    failed.length === 0
      ? `jsr-check: ${results.length} package(s) publish to JSR`
      : `jsr-check: ${failed.length} of ${results.length} package(s) fail: ${failed.map((r) => r.dir).join(", ")}`
  )
  if (options.json) console.log(JSON.stringify({ ok: failed.length === 0, packages: results }, null, 2))
  return failed.length === 0 ? 0 : 1
}

process.exit(main())
