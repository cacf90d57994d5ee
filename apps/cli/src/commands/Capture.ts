/**
 * `harness capture TRACE.jsonl [--out FILE]`: a recorded conversation trace becomes a scenario
 * that replays it (checked: it is run under the trace's variant and must pass). Exit 0, or 2
 * with the line (and JSON path) of the first problem; `--out` may not be the trace itself.
 *
 * @since 0.1.0
 */
import { InputFile, Report, type ScenarioFile } from "@agent-harness/scenario"
import { Console, Effect, FileSystem } from "effect"
import * as ExitCode from "../common/ExitCode.ts"
import * as Outputs from "../printing/Outputs.ts"
import * as Style from "../printing/Style.ts"
import * as CaptureRoot from "../scenarios/CaptureRoot.ts"

/**
 * The trace to capture, and where the scenario goes.
 *
 * @since 0.1.0
 */
export interface Options {
  /** A JSON Lines trace from `harness run --trace` or `harness agent --trace`. */
  readonly trace: string
  /** Write the scenario here (refusing to overwrite the trace) instead of stdout. */
  readonly out?: string | undefined
}

/**
 * Captures a trace into a scenario, printed or written to `out`.
 *
 * @since 0.1.0
 */
export const capture = (options: Options): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const { trace, out } = options
    const fs = yield* FileSystem.FileSystem
    const invalid = (error: ScenarioFile.InvalidScenario) =>
      Effect.andThen(Console.error(Report.invalid(error, Style.current())), Effect.fail(ExitCode.invalid))
    if (out !== undefined) yield* Outputs.refuseOverwrite("--out", out, { path: trace, what: "the trace" })
    const text = yield* Effect.catch(InputFile.read(trace), invalid)
    // A run that had commands replays only over a real folder: the scenario over `<out>.root`.
    const captured = yield* Effect.catch(CaptureRoot.checked(trace, text, out), invalid)
    const json = `${JSON.stringify(captured, null, 2)}\n`
    if (out === undefined) return yield* Console.log(json.trimEnd())
    yield* Effect.catch(fs.writeFileString(out, json), (error) =>
      Effect.andThen(Console.error(`--out ${out}: ${error.message}`), Effect.fail(ExitCode.invalid))
    )
    yield* Console.error(`wrote ${out}: ${captured.turns.length} turns`)
  })
