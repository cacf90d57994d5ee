/**
 * `harness demo regress [--variant before|fixed]`: the failures-become-regression-tests cycle for a person — from an agent
 * failure to a regression test, step by step: 1 the trace, 2 the criterion written down first,
 * 3 the four cases fixed before any run, 4 the baseline (`before`), 5 the change, 6 the
 * re-evaluation (`fixed`) on the same cases, the reserved one on its own line. The chosen
 * variant runs on all four cases from the shipped `response-cases` scenario; its verdict is the
 * exit code (before: 1, fixed: 0).
 *
 * @since 0.1.0
 */
import { Report, ResponseCases, ScenarioFile, Suite, Variant, type Verdict } from "@agent-harness/scenario"
import { Console, Effect, FileSystem, Result, Schema, SchemaParser } from "effect"
import * as ExitCode from "../common/ExitCode.ts"
import * as Style from "../printing/Style.ts"
import * as Package from "../common/Package.ts"
import * as Shipped from "./Shipped.ts"

/** The idea's synthetic trace fixture. @since 0.1.0 */
export const traceFile: string = Package.file("regress/trace.json")

/** The idea's four cases, a `response-cases` scenario. @since 0.1.0 */
export const casesFile: string = Package.file("scenarios/regress/catalogo.json")

/**
 * The trace fixture: the request, the call, the tool's response, and `observed_baseline`, an
 * illustration derived from reading the `before` parser (not an observation).
 *
 * @since 0.1.0
 */
export const TraceFixture = Schema.Struct({
  nature: Schema.String,
  request: Schema.String,
  call: Schema.Struct({ id: Schema.String, tool: Schema.String, input: Schema.Unknown }),
  response: Schema.Record(Schema.String, Schema.Unknown),
  observed_baseline: Schema.Struct({ note: Schema.String, parsed: Schema.Unknown })
})

/** @since 0.1.0 */
export type TraceFixture = typeof TraceFixture.Type

const decodeTrace = SchemaParser.decodeUnknownResult(TraceFixture)

/**
 * Reads the trace fixture, or says which JSON path of it is wrong.
 *
 * @since 0.1.0
 */
export const loadTrace = (
  file: string
): Effect.Effect<TraceFixture, ScenarioFile.InvalidScenario, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const text = yield* Effect.mapError(fs.readFileString(file), (error) => Suite.unreadable(file, error.message))
    const json = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: (error) =>
        new ScenarioFile.InvalidScenario({
          file,
          path: "(root)",
          problem: `invalid JSON: ${error instanceof Error ? error.message : String(error)}`
        })
    })
    const decoded = decodeTrace(json, ScenarioFile.parseOptions)
    if (Result.isFailure(decoded)) {
      return yield* new ScenarioFile.InvalidScenario({ file, ...ScenarioFile.firstProblem(decoded.failure) })
    }
    return decoded.success
  })

/**
 * The criterion, as the idea writes it down before running anything.
 *
 * @since 0.1.0
 */
export const criterion: ReadonlyArray<string> = [
  `The parser returns { "ok": true, "answer": <content> } only if the tool declares status == "ok".`,
  `With any other status, or none, it returns { "ok": false, "error_code": <error_code or "UNKNOWN">,`,
  `"message": <content or ""> }. The verdict depends on the structured status field, never on the`,
  `text of content. An empty result with status ok ("no results") is a valid answer, not a failure.`,
  `The cases' expected values are written from this contract, not from the output of any variant.`
]

/**
 * The change from `before` to `fixed`, as the idea describes it.
 *
 * @since 0.1.0
 */
export const change: ReadonlyArray<string> = [
  `fixed adds one general guard at the start of the parser; the rest is unchanged:`,
  `  if status != "ok": return { "ok": false, "error_code": error_code or "UNKNOWN", "message": content or "" }`,
  `It does not read the text of content and does not list particular error codes.`
]

const show = ResponseCases.show
const indent = (lines: ReadonlyArray<string>, by = "   "): ReadonlyArray<string> => lines.map((l) => by + l)

const roleNote = (role: ScenarioFile.Role): string =>
  role === "reserved" ? "reserved: held out, run and reported, never used to tune the change" : role

/** The closing line of a run: `2 passed, 2 failed (reserved: 0 passed, 1 failed) → exit 1`. */
const result = (verdict: Verdict.Verdict<Verdict.CasesOutcome>, style: Report.Style): string => {
  const all = verdict.outcome.cases
  const count = (cs: ReadonlyArray<Verdict.CaseVerdict>) =>
    `${cs.filter((c) => c.passed).length} passed, ${cs.filter((c) => !c.passed).length} failed`
  const reserved = all.filter((c) => c.role === "reserved")
  const mark = verdict.passed ? style.pass("exit 0") : style.fail("exit 1")
  return `${count(all)} (reserved: ${count(reserved)}) → ${mark}`
}

/**
 * The walkthrough's lines and the verdict of the chosen variant on the four cases.
 *
 * @since 0.1.0
 */
export const walkthrough = (
  trace: TraceFixture,
  scenario: ScenarioFile.ResponseCases,
  variant: Variant.Variant,
  style: Report.Style = Report.plain
) =>
  Effect.gen(function* () {
    const verdict = yield* ResponseCases.run(scenario, casesFile, { variant })
    const beforeReading = Variant.before.parser()(trace.response)
    const fixedReading = Variant.fixed.parser()(trace.response)
    const cases = scenario.file.cases
    const width = Math.max(...cases.map((c) => c.id.length))
    const isBaseline = variant.name === Variant.before.name
    const run = [...indent(Report.cases(verdict.outcome, style)), ...indent([result(verdict, style)])]
    const lines: Array<string> = [
      `From an agent failure to a regression test — variant: ${variant.name}`,
      style.dim("Synthetic data written by hand: no LLM, no real agent run, no NVIDIA NeMo trace."),
      "",
      `1. Trace (${trace.call.tool}, a synthetic fixture: regress/trace.json)`,
      ...indent([
        `request:  ${trace.request}`,
        `call:     ${trace.call.id} ${trace.call.tool}(${show(trace.call.input)})`,
        `response: ${show(trace.response)}`,
        `the before parser made of it: ${show(beforeReading)}`,
        `The tool failed (status ${show(trace.response.status)}, error_code ${show(trace.response.error_code)}), yet its text`,
        "reached the agent as if it were the catalogue's answer.",
        style.dim(`observed_baseline: ${trace.observed_baseline.note}`)
      ]),
      "",
      "2. Criterion, written down before running anything",
      ...indent(criterion),
      "",
      `3. Cases, fixed before the first run (${scenario.file.cases.length}, expected values from the contract)`,
      ...indent(
        cases.flatMap((c) => [
          `${c.id.padEnd(width)}  ${roleNote(c.role)}`,
          ...(c.purpose === undefined ? [] : [`${" ".repeat(width + 2)}${c.purpose}`])
        ])
      ),
      "",
      `4. Baseline: the before variant on all ${cases.length} cases`,
      ...(isBaseline ? run : indent([`run it: harness demo regress --variant before (${Variant.before.summary})`])),
      "",
      "5. Change in the harness, not in a model",
      ...indent(change),
      ...indent([`fixed reads the trace's response as: ${show(fixedReading)}`]),
      "",
      `6. Re-evaluation: the ${isBaseline ? "fixed" : variant.name} variant on the same ${cases.length} cases`,
      ...(isBaseline
        ? indent([
            "run it: harness demo regress --variant fixed",
            "The reserved case is not looked at to tune the change; if it fails, that is reported as is."
          ])
        : run),
      "",
      style.dim(
        `${cases.length} cases check this one contract only: passing them does not show that a parser is robust in general.`
      )
    ]
    return { lines, verdict }
  })

/**
 * The walkthrough under a variant: exit 1 if any of the four cases fails (before), 0 if all pass
 * (fixed), 2 if a shipped file is invalid.
 *
 * @since 0.1.0
 */
export const regress = ({
  variant
}: {
  readonly variant: Variant.Variant
}): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const invalid = (error: ScenarioFile.InvalidScenario) =>
      Effect.andThen(Console.error(Report.invalid(error, Style.current())), Effect.fail(ExitCode.invalid))
    const trace = yield* Effect.catch(loadTrace(traceFile), invalid)
    const scenario = yield* Shipped.load(casesFile, "response-cases", (error) => Report.invalid(error, Style.current()))
    const { lines, verdict } = yield* walkthrough(trace, scenario, variant, Style.current())
    for (const line of lines) yield* Console.log(line)
    if (!verdict.passed) return yield* ExitCode.failed
  })
