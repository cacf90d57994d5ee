/**
 * Verdicts for people and for machines: one line per scenario with its failures under it,
 * reserved cases on their own line, the closing `N passed, N failed`; or one JSON object per
 * scenario.
 *
 * @since 0.1.0
 */
import type * as ScenarioFile from "./ScenarioFile.ts"
import type * as Suite from "./Suite.ts"
import type * as Verdict from "./Verdict.ts"

/**
 * Colours, or none (`NO_COLOR`, or output that is not a terminal).
 *
 * @since 0.1.0
 */
export interface Style {
  /** Colours a pass. */
  readonly pass: (s: string) => string
  /** Colours a failure. */
  readonly fail: (s: string) => string
  /** Dims a detail. */
  readonly dim: (s: string) => string
}

/** No colour. @since 0.1.0 */
export const plain: Style = { pass: (s) => s, fail: (s) => s, dim: (s) => s }

/** ANSI colour. @since 0.1.0 */
export const ansi: Style = {
  pass: (s) => `\u001b[32m${s}\u001b[39m`,
  fail: (s) => `\u001b[31m${s}\u001b[39m`,
  dim: (s) => `\u001b[2m${s}\u001b[22m`
}

/** C0 and C1 control characters, DEL, and the Unicode line and paragraph separators. */
const isControl = (code: number): boolean =>
  code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029

/** Every control character of `text` as `\u001b`, but line breaks when `keepNewlines`. */
const escapeControls = (text: string, keepNewlines: boolean): string => {
  let out = ""
  let from = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (!isControl(code) || (keepNewlines && code === 0x0a)) continue
    out += `${text.slice(from, i)}\\u${code.toString(16).padStart(4, "0")}`
    from = i + 1
  }
  return from === 0 ? text : out + text.slice(from)
}

/**
 * A text from a scenario file (a name, a case id, a path) as it may be printed on one line: every
 * control character escaped as `\u001b`, so a file cannot colour, move or clear the terminal,
 * nor forge a line of the report (`\n` is escaped too).
 *
 * @since 0.1.0
 */
export const printable = (text: string): string => escapeControls(text, false)

/** A message of several lines: its line breaks kept, every other control character escaped. */
const printableLines = (text: string): string => escapeControls(text, true)

const indent = (text: string, by: string): string =>
  text
    .split("\n")
    .map((line) => by + line)
    .join("\n")

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

/**
 * A short description of how a run ended: `end, 4 model calls` or
 * `completed/goal_met, 5 steps, 1 replan`.
 *
 * @since 0.1.0
 */
export const summary = (outcome: Verdict.Outcome): string => {
  if ("cases" in outcome) {
    const failed = outcome.cases.filter((c) => !c.passed).length
    return `${plural(outcome.cases.length, "case")}, ${failed} failed`
  }
  return "stop" in outcome
    ? `${outcome.stop}, ${plural(outcome.turns, "model call")}`
    : `${outcome.status}/${outcome.reason}, ${plural(outcome.steps, "step")}, ${plural(outcome.replans, "replan")}`
}

const mark = (passed: boolean, style: Style): string => (passed ? style.pass("PASS") : style.fail("FAIL"))

const show = (value: unknown): string => JSON.stringify(value) ?? "undefined"

/**
 * The lines for the cases of a `response-cases` verdict: `PASS id role` (or `FAIL`, with the
 * expected and the seen reading under it), one per case in file order, then each reserved case
 * on its own `reserved: PASS id` line.
 *
 * @since 0.1.0
 */
export const cases = (outcome: Verdict.CasesOutcome, style: Style = plain): ReadonlyArray<string> => {
  const line = (c: Verdict.CaseVerdict, head: string): ReadonlyArray<string> =>
    c.passed ? [head] : [head, `  expected: ${show(c.expected)}`, `  seen:     ${show(c.seen)}`]
  return [
    ...outcome.cases
      .filter((c) => c.role !== "reserved")
      .flatMap((c) => line(c, `${mark(c.passed, style)} ${printable(c.id)} ${c.role}`)),
    ...outcome.cases
      .filter((c) => c.role === "reserved")
      .flatMap((c) => line(c, `reserved: ${mark(c.passed, style)} ${printable(c.id)}`))
  ]
}

/**
 * The lines for one verdict: `PASS name` or `FAIL name`, then each failure indented; for a
 * `response-cases` scenario, a line per case instead (`cases`); for a scenario that did not run
 * (`notRun`), `SKIP name: why`.
 *
 * @since 0.1.0
 */
export const verdict = (v: Verdict.Verdict, style: Style = plain): string => {
  const reserved = v.reserved ? " [reserved]" : ""
  if (v.notRun !== undefined) return `${style.dim("SKIP")} ${printable(v.name)}${reserved}: ${printable(v.notRun)}`
  const detail = style.dim(`(${summary(v.outcome)})`)
  const head = `${mark(v.passed, style)} ${printable(v.name)}${reserved} ${detail}`
  const body = "cases" in v.outcome ? cases(v.outcome, style) : v.failures.map((f) => printableLines(f.message))
  return [head, ...body.map((text) => indent(text, "    "))].join("\n")
}

/**
 * The line that opens a report under a variant other than the default: `variant: before (...)`.
 *
 * @since 0.1.0
 */
export const variantLine = (
  variant: { readonly name: string; readonly summary: string },
  style: Style = plain
): string => style.dim(`variant: ${variant.name} — ${variant.summary}`)

/**
 * The line for an invalid file.
 *
 * @since 0.1.0
 */
export const invalid = (error: ScenarioFile.InvalidScenario, style: Style = plain): string =>
  `${style.fail("INVALID")} ${printableLines(error.message)}`

/**
 * The line for something `harness test` skipped under a folder: `SKIP path: reason`.
 *
 * @since 0.1.0
 */
export const skipped = (entry: Suite.Skipped, style: Style = plain): string =>
  `${style.dim("SKIP")} ${printable(entry.file)}: ${entry.reason}`

/**
 * The `--json` object of something skipped: `{ "file", "skipped": true, "reason" }` (not a
 * scenario: it has no verdict fields).
 *
 * @since 0.1.0
 */
export const skippedJson = (entry: Suite.Skipped, variant?: string): string =>
  JSON.stringify({
    file: entry.file,
    skipped: true,
    reason: entry.reason,
    ...(variant === undefined ? {} : { variant })
  })

/**
 * Counts of a run of many scenarios.
 *
 * @since 0.1.0
 */
export interface Totals {
  /** Scenarios that passed. */
  readonly passed: number
  /** Scenarios that failed, invalid files included. */
  readonly failed: number
  /** Files that are not valid scenarios. */
  readonly invalid: number
  /** Reserved (held-out) scenarios and cases that passed. */
  readonly reservedPassed: number
  /** Reserved (held-out) scenarios and cases that failed. */
  readonly reservedFailed: number
  /** Entries skipped under the folders (not scenarios: counted apart); `totals` always sets it. */
  readonly skipped?: number | undefined
}

/**
 * Counts verdicts (reserved scenarios count in the totals and again on their own; so do the
 * reserved cases of a `response-cases` scenario that is not itself reserved, whose file counts
 * in the totals). A verdict that did not run (`notRun`: a live case without a live model) is
 * neither passed nor failed: it counts as skipped.
 *
 * @since 0.1.0
 */
export const totals = (verdicts: ReadonlyArray<Verdict.Verdict>, invalidCount: number, skippedCount = 0): Totals => {
  let passed = 0
  let reservedPassed = 0
  let reservedFailed = 0
  let notRun = 0
  for (const v of verdicts) {
    if (v.notRun !== undefined) {
      notRun++
      continue
    }
    if (v.passed) passed++
    if (v.reserved) v.passed ? reservedPassed++ : reservedFailed++
    else if ("cases" in v.outcome) {
      for (const c of v.outcome.cases) if (c.role === "reserved") c.passed ? reservedPassed++ : reservedFailed++
    }
  }
  return {
    passed,
    failed: verdicts.length - notRun - passed + invalidCount,
    invalid: invalidCount,
    reservedPassed,
    reservedFailed,
    skipped: skippedCount + notRun
  }
}

/**
 * The closing lines: reserved cases on their own line (when there are any), invalid files and
 * skipped entries (when there are any), then `N passed, N failed`.
 *
 * @since 0.1.0
 */
export const closing = (t: Totals): ReadonlyArray<string> => [
  ...(t.reservedPassed + t.reservedFailed > 0
    ? [`reserved: ${t.reservedPassed} passed, ${t.reservedFailed} failed`]
    : []),
  ...(t.invalid > 0 ? [`${t.invalid} invalid file${t.invalid === 1 ? "" : "s"} (counted as failed)`] : []),
  ...((t.skipped ?? 0) > 0 ? [`${t.skipped} skipped (not run: see the SKIP lines)`] : []),
  `${t.passed} passed, ${t.failed} failed`
]

/**
 * The `--json` object of a verdict.
 *
 * @since 0.1.0
 */
export const json = (v: Verdict.Verdict): string => JSON.stringify(v)

/**
 * The `--json` object of an invalid file: the same fields as a verdict (it did not pass, nothing
 * ran), plus `valid: false` and the JSON path of the first bad field.
 *
 * @since 0.1.0
 */
export const invalidJson = (error: ScenarioFile.InvalidScenario, variant?: string): string =>
  JSON.stringify({
    name: error.file,
    file: error.file,
    kind: null,
    ...(variant === undefined ? {} : { variant }),
    passed: false,
    reserved: false,
    valid: false,
    outcome: null,
    failures: [
      {
        kind: "invalid",
        path: error.path,
        expected: "a valid scenario file",
        seen: error.problem,
        message: error.message
      }
    ]
  })
