/**
 * `soak --runs N [--json] [--commands]`: the crash-safety soak at any size. A line per run
 * (unless `--json`), then a summary; with `--json` the last line is exactly
 * `{"runs","kills","duplicated","unknown","replayed"}`, and with `--commands` (the appends made by
 * sandboxed commands) it adds `commands`, `kills_in_command`, `held_in_command`, `orphaned`,
 * `left_running` and `cgroups_left`. Exit 0 only when nothing ran twice and nothing else went
 * wrong (the violations go to stderr; a sandbox that outlived its killed child is one); 2 for
 * bad options, or `--commands` where
 * no sandbox can run (saying why: nothing runs unsandboxed).
 *
 * @since 0.1.0
 */
import { Console, Effect, Result } from "effect"
import * as ExitCode from "../ExitCode.ts"
import * as Soak from "./Soak.ts"
import * as SoakSandbox from "./SoakSandbox.ts"

const seconds = (millis: number): string => `${(millis / 1000).toFixed(1)} s`

/**
 * A run's progress line.
 *
 * @since 0.1.0
 */
export const runLine = (report: Soak.RunReport, runs: number): string =>
  `run ${report.run}/${runs} (seed ${report.seed}, ${report.calls} calls): ${report.kills} kills` +
  (report.commands === undefined ? "" : ` (${commandKills(report.commands)})`) +
  `, ${report.unknown} unknown, ${report.replayed} replayed, ${report.duplicated} duplicated` +
  `${report.violations.length === 0 ? "" : `, ${report.violations.length} violations`} (${seconds(report.millis)})`

/** Where the commands soak's kills landed: `3 in a command, 1 held inside one`. */
const commandKills = (c: Soak.CommandCounts): string =>
  `${c.killsInCommand} in a command, ${c.heldInCommand} held inside one, ${c.orphaned} orphaned`

/**
 * The summary line.
 *
 * @since 0.1.0
 */
export const summaryLine = (summary: Soak.Summary): string => {
  const c = summary.commands
  return c === undefined
    ? `${summary.runs} runs, ${summary.kills} kills: ${summary.duplicated} duplicated, ${summary.unknown} unknown, ` +
        `${summary.replayed} replayed, ${summary.violations.length} violations (${seconds(summary.millis)})`
    : `${summary.runs} runs, ${c.started} sandboxed commands, ${summary.kills} kills (${commandKills(c)}): ` +
        `${summary.duplicated} duplicated, ${summary.unknown} unknown, ${summary.replayed} replayed, ` +
        `${c.leftRunning} processes and ${c.cgroupsLeft} cgroups left, ${summary.violations.length} violations ` +
        `(${seconds(summary.millis)})`
}

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
  readonly commands?: boolean | undefined
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
    if (options.commands === true) {
      // Never a command unsandboxed: where no sandbox can run, nothing runs.
      const sandbox = yield* Effect.result(SoakSandbox.available)
      if (Result.isFailure(sandbox)) {
        yield* Console.error(`--commands needs the command sandbox: ${sandbox.failure.message}`)
        return yield* ExitCode.invalid
      }
    }
    const summary = yield* Soak.run({
      runs: options.runs,
      seed: options.seed,
      killsPerRun: options.kills,
      commands: options.commands,
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
