/**
 * `harness run FILE` and `harness test PATH...` over scenario files.
 *
 * @since 0.1.0
 */
import { Trace } from "@agent-harness/executor"
import { Report, Suite, Variant } from "@agent-harness/scenario"
import { Console, Effect, type FileSystem, type Path, Result } from "effect"
import * as ExitCode from "./ExitCode.ts"
import * as Outputs from "./Outputs.ts"
import * as Style from "./Style.ts"

/** Under a variant other than the default, the human report opens with a line naming it. */
const announce = (variant: Variant.Variant, json: boolean, style: Report.Style) =>
  json || variant.name === Variant.defaultVariant.name ? Effect.void : Console.log(Report.variantLine(variant, style))

/**
 * Runs one scenario file under a harness variant: its verdict (or why the file is invalid),
 * exit 0 / 1 / 2.
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
    if (trace !== undefined && loaded.success.kind !== "conversation") {
      yield* Console.error(`--trace records conversations; ${file} is a '${loaded.success.kind}' scenario`)
      return yield* ExitCode.invalid
    }
    yield* announce(variant, json, style)
    const running = Suite.run(loaded.success, file, variant)
    const verdict =
      trace === undefined
        ? yield* running
        : yield* Effect.provide(running, Trace.jsonl(trace)).pipe(
            Effect.catchTag("PlatformError", (error) =>
              Effect.andThen(Console.error(`--trace ${trace}: ${error.message}`), Effect.fail(ExitCode.invalid))
            )
          )
    yield* Console.log(json ? Report.json(verdict) : Report.verdict(verdict, style))
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
