/**
 * `harness soak --runs N [--json]`: the crash-safety soak at any size. A line per run (unless
 * `--json`), then a summary; with `--json` the last line is exactly
 * `{"runs","kills","duplicated","unknown","replayed"}`. Exit 0 only when nothing ran twice and
 * nothing else went wrong (the violations go to stderr).
 *
 * @since 0.1.0
 */
import { Console, Effect } from "effect"
import * as ExitCode from "../ExitCode.ts"
import * as Soak from "./Soak.ts"

const seconds = (millis: number): string => `${(millis / 1000).toFixed(1)} s`

/**
 * A run's progress line.
 *
 * @since 0.1.0
 */
export const runLine = (report: Soak.RunReport, runs: number): string =>
  `run ${report.run}/${runs} (seed ${report.seed}, ${report.calls} calls): ${report.kills} kills, ` +
  `${report.unknown} unknown, ${report.replayed} replayed, ${report.duplicated} duplicated` +
  `${report.violations.length === 0 ? "" : `, ${report.violations.length} violations`} (${seconds(report.millis)})`

/**
 * The summary line.
 *
 * @since 0.1.0
 */
export const summaryLine = (summary: Soak.Summary): string =>
  `${summary.runs} runs, ${summary.kills} kills: ${summary.duplicated} duplicated, ${summary.unknown} unknown, ` +
  `${summary.replayed} replayed, ${summary.violations.length} violations (${seconds(summary.millis)})`

/**
 * Runs the soak and reports it.
 *
 * @since 0.1.0
 */
export const soak = (options: {
  readonly runs: number
  readonly json: boolean
  readonly seed: number
  readonly kills?: number | undefined
}): Effect.Effect<void, ExitCode.ExitCode> =>
  Effect.gen(function* () {
    if (!Number.isSafeInteger(options.runs) || options.runs < 1) {
      yield* Console.error(`--runs must be a whole number of at least 1, not ${options.runs}`)
      return yield* ExitCode.invalid
    }
    if (options.kills !== undefined && (!Number.isSafeInteger(options.kills) || options.kills < 0)) {
      yield* Console.error(`--kills must be a whole number of at least 0, not ${options.kills}`)
      return yield* ExitCode.invalid
    }
    const summary = yield* Soak.run({
      runs: options.runs,
      seed: options.seed,
      killsPerRun: options.kills,
      onRun: (report) =>
        Effect.andThen(
          options.json ? Effect.void : Console.log(runLine(report, options.runs)),
          Effect.forEach(report.violations, (v) => Console.error(v), { discard: true })
        )
    })
    if (summary.bundleError !== undefined) {
      yield* Console.error(`the soak child could not be bundled (${summary.bundleError}); it ran from the sources`)
    }
    yield* Console.log(options.json ? Soak.summaryJson(summary) : summaryLine(summary))
    if (!Soak.passed(summary)) return yield* ExitCode.failed
  })
