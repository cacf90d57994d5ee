/**
 * `harness run FILE` and `harness test PATH...` over scenario files.
 *
 * @since 0.1.0
 */
import { Trace } from "@agent-harness/executor"
import { SessionTrace } from "@agent-harness/planner"
import { PlanScenario, Report, type ScenarioFile, Suite, Variant, type Verdict } from "@agent-harness/scenario"
import { Console, Effect, type FileSystem, type Path, type PlatformError, Result } from "effect"
import * as ExitCode from "./ExitCode.ts"
import * as Outputs from "./Outputs.ts"
import * as Style from "./Style.ts"

/** Under a variant other than the default, the human report opens with a line naming it. */
const announce = (variant: Variant.Variant, json: boolean, style: Report.Style) =>
  json || variant.name === Variant.defaultVariant.name ? Effect.void : Console.log(Report.variantLine(variant, style))

/**
 * Runs a scenario and records it as JSON Lines in `trace`: a conversation as the executor's
 * `Trace` events (what `harness capture` reads), a plan session as the planner's `SessionTrace`
 * (start, events, result). Fails only when the trace file cannot be written at the start.
 */
const traced = (
  scenario: ScenarioFile.Conversation | ScenarioFile.Plan,
  file: string,
  variant: Variant.Variant,
  trace: string
): Effect.Effect<Verdict.Verdict, PlatformError.PlatformError, FileSystem.FileSystem> => {
  if (scenario.kind === "conversation") return Effect.provide(Suite.run(scenario, file, variant), Trace.jsonl(trace))
  const spec = scenario.file
  return Effect.flatMap(
    SessionTrace.jsonl(
      trace,
      SessionTrace.startOf({
        goal: spec.goal,
        maxSteps: spec.budgets.maxSteps,
        maxReplans: spec.budgets.maxReplans,
        onFailure: spec.onFailure,
        toolset: PlanScenario.toolset(spec)
      })
    ),
    (recorder) => PlanScenario.run(scenario, file, { variant, onEvent: recorder.onEvent, onResult: recorder.finish })
  )
}

/**
 * Runs one scenario file under a harness variant: its verdict (or why the file is invalid),
 * exit 0 / 1 / 2. With `trace`, the run is recorded there (a conversation or a plan session; a
 * `response-cases` scenario runs no model and no tools, so there is nothing to record: exit 2),
 * and the `--json` line names it in a `trace` field.
 *
 * @since 0.1.0
 */
export const run = (
  file: string,
  json: boolean,
  variant: Variant.Variant = Variant.defaultVariant,
  trace?: string | undefined
): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const style = Style.current()
    if (trace !== undefined) yield* Outputs.refuseOverwrite("--trace", trace, { path: file, what: "the scenario" })
    const loaded = yield* Effect.result(Suite.load(file))
    if (Result.isFailure(loaded)) {
      yield* json
        ? Console.log(Report.invalidJson(loaded.failure, variant.name))
        : Console.error(Report.invalid(loaded.failure, style))
      return yield* ExitCode.invalid
    }
    const scenario = loaded.success
    if (trace !== undefined && scenario.kind === "response-cases") {
      yield* Console.error(
        `--trace records conversations and plan sessions; ${file} is a 'response-cases' scenario, which runs no model and no tools: its verdict (harness run --json) holds every case; nothing was run or written`
      )
      return yield* ExitCode.invalid
    }
    yield* announce(variant, json, style)
    const verdict =
      trace === undefined || scenario.kind === "response-cases"
        ? yield* Suite.run(scenario, file, variant)
        : yield* traced(scenario, file, variant, trace).pipe(
            Effect.catchTag("PlatformError", (error) =>
              Effect.andThen(Console.error(`--trace ${trace}: ${error.message}`), Effect.fail(ExitCode.invalid))
            )
          )
    const line = json && trace !== undefined ? JSON.stringify({ ...verdict, trace }) : Report.json(verdict)
    yield* Console.log(json ? line : Report.verdict(verdict, style))
    if (!verdict.passed) return yield* ExitCode.failed
  })

/**
 * Runs every scenario under the paths under a harness variant: a `SKIP` line for each entry
 * not run (not a regular file, a link to a folder), a line per scenario, reserved cases on their
 * own line, then `N passed, N failed`. Exit 2 if any file is invalid, else 1 if any failed.
 *
 * @since 0.1.0
 */
export const test = (
  paths: ReadonlyArray<string>,
  json: boolean,
  variant: Variant.Variant = Variant.defaultVariant
): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const style = Style.current()
    const found = yield* Effect.result(Suite.find(paths))
    if (Result.isFailure(found)) {
      yield* json
        ? Console.log(Report.invalidJson(found.failure, variant.name))
        : Console.error(Report.invalid(found.failure, style))
      return yield* ExitCode.invalid
    }
    yield* announce(variant, json, style)
    const { files, skipped } = found.success
    for (const entry of skipped) {
      yield* Console.log(json ? Report.skippedJson(entry, variant.name) : Report.skipped(entry, style))
    }
    const entries = yield* Suite.runAll(files, variant)
    const verdicts = []
    let invalid = 0
    for (const entry of entries) {
      if (Result.isSuccess(entry)) {
        verdicts.push(entry.success)
        yield* Console.log(json ? Report.json(entry.success) : Report.verdict(entry.success, style))
      } else {
        invalid++
        yield* Console.log(
          json ? Report.invalidJson(entry.failure, variant.name) : Report.invalid(entry.failure, style)
        )
      }
    }
    const totals = Report.totals(verdicts, invalid, skipped.length)
    if (!json) for (const line of Report.closing(totals)) yield* Console.log(line)
    if (invalid > 0) return yield* ExitCode.invalid
    if (totals.failed > 0) return yield* ExitCode.failed
  })
