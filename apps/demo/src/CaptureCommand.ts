/**
 * `harness capture TRACE.jsonl [--out FILE]`: a recorded conversation trace becomes a scenario
 * that replays it. Exit 0, or 2 with the line (and JSON path) of the first problem.
 *
 * @since 0.1.0
 */
import { Capture, Report } from "@agent-harness/scenario"
import { Console, Effect, FileSystem, Result } from "effect"
import * as ExitCode from "./ExitCode.ts"
import * as Style from "./Style.ts"

/**
 * Captures a trace into a scenario, printed or written to `out`.
 *
 * @since 0.1.0
 */
export const capture = (
  trace: string,
  out: string | undefined
): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const invalid = (message: string) => Effect.andThen(Console.error(message), Effect.fail(ExitCode.invalid))
    const text = yield* Effect.catch(fs.readFileString(trace), (error) =>
      invalid(`INVALID ${trace}: cannot be read: ${error.message}`)
    )
    const captured = Capture.capture(trace, text)
    if (Result.isFailure(captured)) return yield* invalid(Report.invalid(captured.failure, Style.current()))
    const json = `${JSON.stringify(captured.success, null, 2)}\n`
    if (out === undefined) return yield* Console.log(json.trimEnd())
    yield* Effect.catch(fs.writeFileString(out, json), (error) => invalid(`--out ${out}: ${error.message}`))
    yield* Console.error(`wrote ${out}: ${captured.success.turns.length} turns`)
  })
