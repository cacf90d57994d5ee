/**
 * Sums vitest JSON reports (`--reporter=json --outputFile.json=.vitest-results.json`) and prints the
 * plain `N passed, N failed` line (`, N skipped` only when something was skipped) as the last line.
 *
 *   node tools/ci-summary/summary.ts [--extra-passed N] [--extra-failed N] [--extra-skipped N]
 *                                    [--require-all] [--command-failed] FILE...
 *
 * Missing files are skipped (with a note), unless `--require-all` is given: then each missing file
 * counts as one failed test (a package whose test run died before writing its report). It is an
 * error if no report exists at all. A test file that failed without any failed test in it (a load
 * error, a failing hook) counts as one failed test, and so does a report of an unsuccessful run
 * with no failed test at all (vitest's "No test files found"). `--command-failed` says the test
 * command itself exited non-zero: when no report holds a failed test (vitest reports an unhandled
 * error outside any test as a successful run), that counts as one failed test. Exits 1 if anything failed, if zero tests ran,
 * or on bad usage; the final line is printed in every case except bad usage.
 *
 * With `CI` set (`CI=true`; not empty, `false` or `0`), a skipped test is a failure: every test
 * vitest marks `skipped`, `pending` or `todo` (and every `--extra-skipped`) counts as failed, each
 * named on a `FAIL … (skipped in CI)` line, and the last line is `N passed, N failed`.
 *
 * Runs on Node 22 type stripping: erasable TypeScript only.
 */
import { existsSync, readFileSync } from "node:fs"
import { relative } from "node:path"

interface AssertionResult {
  readonly fullName?: string
  readonly title?: string
  readonly status?: string
  readonly failureMessages?: ReadonlyArray<string> | null
}

interface FileResult {
  readonly name?: string
  readonly status?: string
  readonly message?: string
  readonly assertionResults?: ReadonlyArray<AssertionResult>
}

interface Report {
  readonly numPassedTests?: number
  readonly numFailedTests?: number
  readonly numPendingTests?: number
  readonly numTodoTests?: number
  readonly success?: boolean
  readonly testResults?: ReadonlyArray<FileResult>
}

interface Totals {
  passed: number
  failed: number
  skipped: number
}

interface Options {
  readonly files: ReadonlyArray<string>
  readonly extra: Totals
  readonly requireAll: boolean
  readonly commandFailed: boolean
  /** Whether this is CI, where a skipped test is a failure. */
  readonly ci: boolean
}

/** Whether `CI` says this is CI: set, and neither empty, `false` nor `0`. */
const inCI = (ci: string | undefined): boolean => ci !== undefined && ci !== "" && ci !== "false" && ci !== "0"

/** How vitest's JSON report marks a test that did not run. */
const skippedStatuses: ReadonlySet<string> = new Set(["skipped", "pending", "todo", "disabled"])

const usage =
  "usage: node tools/ci-summary/summary.ts [--extra-passed N] [--extra-failed N] [--extra-skipped N] [--require-all] [--command-failed] FILE..."

const parseCount = (flag: string, value: string | undefined): number => {
  if (value === undefined || !/^\d+$/.test(value)) throw new Error(`${flag} needs a non-negative integer, got ${value}`)
  return Number(value)
}

const parseArgs = (argv: ReadonlyArray<string>): Options => {
  const files: Array<string> = []
  const extra: Totals = { passed: 0, failed: 0, skipped: 0 }
  let requireAll = false
  let commandFailed = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1
    const flag = eq === -1 ? arg : arg.slice(0, eq)
    const inline = eq === -1 ? undefined : arg.slice(eq + 1)
    const value = (): string | undefined => (inline !== undefined ? inline : argv[++i])
    switch (flag) {
      case "--extra-passed":
        extra.passed += parseCount(flag, value())
        break
      case "--extra-failed":
        extra.failed += parseCount(flag, value())
        break
      case "--extra-skipped":
        extra.skipped += parseCount(flag, value())
        break
      case "--require-all":
        requireAll = true
        break
      case "--command-failed":
        commandFailed = true
        break
      case "-h":
      case "--help":
        throw new Error(usage)
      default:
        if (arg.startsWith("--")) throw new Error(`unknown option ${arg}`)
        files.push(arg)
    }
  }
  return { files, extra, requireAll, commandFailed, ci: inCI(process.env.CI) }
}

const count = (n: unknown): number => (typeof n === "number" && Number.isFinite(n) ? n : 0)

const firstLine = (text: string): string => {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? ""
  return line.trim().slice(0, 300)
}

const display = (path: string): string => {
  const rel = relative(process.cwd(), path)
  return rel === "" || rel.startsWith("..") ? path : rel
}

/** Prints the failures of one report and returns its counts; in CI, skipped tests are failures. */
const summarizeReport = (path: string, report: Report, out: Array<string>, ci: boolean): Totals => {
  let failed = count(report.numFailedTests)
  let skippedNamed = 0
  for (const file of report.testResults ?? []) {
    const name = display(file.name ?? "(unknown file)")
    const failures = (file.assertionResults ?? []).filter((a) => a.status === "failed")
    for (const failure of failures) {
      out.push(`FAIL ${name} > ${failure.fullName ?? failure.title ?? "(unnamed test)"}`)
      const message = failure.failureMessages?.[0]
      if (message !== undefined) out.push(`     ${firstLine(message)}`)
    }
    if (ci) {
      for (const skipped of (file.assertionResults ?? []).filter((a) => skippedStatuses.has(a.status ?? ""))) {
        out.push(
          `FAIL ${name} > ${skipped.fullName ?? skipped.title ?? "(unnamed test)"} (${skipped.status} in CI: a test that skips in CI is a failure)`
        )
        skippedNamed += 1
      }
    }
    if (file.status === "failed" && failures.length === 0) {
      // The file failed without a failed test: it did not load, or a hook threw.
      out.push(`FAIL ${name} (file failed${file.message ? `: ${firstLine(file.message)}` : ""})`)
      failed += 1
    }
  }
  if (report.success === false && failed === 0) {
    // vitest failed the run without a failing test, e.g. "No test files found".
    const empty = (report.testResults ?? []).length === 0
    out.push(`FAIL ${display(path)} (vitest reported an unsuccessful run${empty ? ": no test files" : ""})`)
    failed += 1
  }
  const skipped = count(report.numPendingTests) + count(report.numTodoTests)
  if (!ci) return { passed: count(report.numPassedTests), failed, skipped }
  if (skipped > skippedNamed) {
    out.push(
      `FAIL ${display(path)} (${skipped - skippedNamed} more skipped in CI, not named in the report: a test that skips in CI is a failure)`
    )
  }
  return { passed: count(report.numPassedTests), failed: failed + Math.max(skipped, skippedNamed), skipped: 0 }
}

const finalLine = (totals: Totals): string =>
  `${totals.passed} passed, ${totals.failed} failed${totals.skipped > 0 ? `, ${totals.skipped} skipped` : ""}`

const main = (argv: ReadonlyArray<string>): number => {
  let options: Options
  try {
    options = parseArgs(argv)
  } catch (error) {
    console.log(`ci-summary: ${error instanceof Error ? error.message : String(error)}`)
    if (!(error instanceof Error && error.message === usage)) console.log(usage)
    return 2
  }
  const out: Array<string> = []
  const totals: Totals = options.ci
    ? { passed: options.extra.passed, failed: options.extra.failed + options.extra.skipped, skipped: 0 }
    : { ...options.extra }
  if (options.ci && options.extra.skipped > 0) {
    out.push(`FAIL --extra-skipped ${options.extra.skipped} (skipped in CI: a test that skips in CI is a failure)`)
  }
  let found = 0
  let broken = false
  for (const file of options.files) {
    if (!existsSync(file)) {
      if (options.requireAll) {
        out.push(`FAIL ${display(file)} (no report: the test run did not write it)`)
        totals.failed += 1
      } else {
        out.push(`ci-summary: skipping missing ${display(file)}`)
      }
      continue
    }
    found += 1
    let report: Report
    try {
      report = JSON.parse(readFileSync(file, "utf8")) as Report
    } catch (error) {
      out.push(`FAIL ${display(file)} (unreadable report: ${error instanceof Error ? error.message : String(error)})`)
      totals.failed += 1
      broken = true
      continue
    }
    const counts = summarizeReport(file, report, out, options.ci)
    totals.passed += counts.passed
    totals.failed += counts.failed
    totals.skipped += counts.skipped
  }
  if (options.commandFailed && totals.failed === 0) {
    out.push(
      "FAIL the test command failed, but no report holds a failed test (an unhandled error outside any test, or a crash: see its output above)"
    )
    totals.failed += 1
  }
  const extras = options.extra
  if (extras.passed + extras.failed + extras.skipped > 0) {
    out.push(`ci-summary: extra counts: ${extras.passed} passed, ${extras.failed} failed, ${extras.skipped} skipped`)
  }
  let error = broken
  if (found === 0) {
    out.push(`ci-summary: error: none of the ${options.files.length} report file(s) exist`)
    error = true
  }
  if (totals.passed + totals.failed === 0) {
    out.push("ci-summary: error: zero tests ran")
    error = true
  }
  out.push(finalLine(totals))
  // One write, so the final line really is last even when stdout and stderr share a log.
  process.stdout.write(`${out.join("\n")}\n`)
  return error || totals.failed > 0 ? 1 : 0
}

process.exitCode = main(process.argv.slice(2))
