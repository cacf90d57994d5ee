/**
 * `soak --engine postgres [--runners N] [--database-url URL] [--approvals]`: the soak across
 * runner processes sharing a Postgres database (the one `--database-url` names, else
 * `$DATABASE_URL`), reported as the local soak is (with `--json` the last line is exactly
 * `{"runs","kills","duplicated","unknown","replayed"}`). With `--approvals` its conversations run
 * behind the soak's permission policy, their asked calls answered by the soak's answering child,
 * and the summary adds the approvals' figures (`asks`, `approved`, `denied`, `denied_ran`,
 * `approved_twice`, `lost`, and where the kills landed). Exit 0 only when nothing ran twice, no
 * denied call ran, no ask was lost and nothing else went wrong (the violations on stderr); 2 for
 * bad options or an unusable database, or one lost while the soak runs (a line on stderr naming
 * it: nothing was judged).
 *
 * @since 0.1.0
 */
import process from "node:process"
import { Database } from "@agent-harness/durable"
import { Console, Effect, Result } from "effect"
import * as ExitCode from "../ExitCode.ts"
import * as Soak from "../local/Soak.ts"
import * as PgSoak from "./PgSoak.ts"

/** Exit 2 after saying why on stderr. */
const refuse = (message: string): Effect.Effect<never, ExitCode.ExitCode> =>
  Effect.andThen(Console.error(message), Effect.fail(ExitCode.invalid))

/**
 * The database: `--database-url`, else a non-empty `$DATABASE_URL`; or why there is none to use
 * (none given, or one that is not a Postgres URL, named with its password hidden).
 *
 * @since 0.1.0
 */
export const chooseUrl = (given: string | undefined, fromEnv: string | undefined): Result.Result<string, string> => {
  const url = given ?? (fromEnv === "" ? undefined : fromEnv)
  if (url === undefined) {
    return Result.fail(
      "--engine postgres needs a database: --database-url postgres://user@host:port/database, or DATABASE_URL"
    )
  }
  const problem = Database.urlProblem(url)
  if (problem === undefined) return Result.succeed(url)
  return Result.fail(`${given === undefined ? "DATABASE_URL" : "--database-url"} ${Database.redact(url)}: ${problem}`)
}

/**
 * A run's progress line.
 *
 * @since 0.1.0
 */
export const runLine = (report: PgSoak.RunReport, runs: number): string =>
  `run ${report.run}/${runs} (${report.kind}, seed ${report.seed}, ${report.calls} calls): ` +
  `${report.unknown} unknown, ${report.replayed} replayed` +
  (report.asks === undefined ? "" : `, ${report.asks.parked} asks (${report.asks.approved} approved)`) +
  ` (${(report.millis / 1000).toFixed(1)} s)`

/**
 * The summary line.
 *
 * @since 0.1.0
 */
export const summaryLine = (summary: PgSoak.Summary): string => {
  const a = summary.approvals
  const approvals =
    a === undefined
      ? ""
      : `; ${a.asks} asks (${a.approved} approved, ${a.denied} denied): ${a.deniedRan} denied ran, ` +
        `${a.approvedTwice} approved twice, ${a.lost} lost; kills while calls waited ${a.killsWaiting}, ` +
        `between an answer's write and its wake ${a.killsAnswering}, right after it ${a.killsAnswered}; ` +
        `${a.wakesLost} answers taken with their wake-up lost, ${a.pendingKept} pending approvals the same after a kill, ` +
        `${a.reparked} waiting calls found waiting again by a later runner`
  return (
    `${summary.runs} runs on ${summary.runners} runners, ${summary.kills} kills (${summary.held} inside an append): ` +
    `${summary.duplicated} duplicated, ${summary.unknown} unknown, ${summary.replayed} replayed${approvals}, ` +
    `${summary.violations.length} violations (${(summary.millis / 1000).toFixed(1)} s)`
  )
}

/**
 * The summary line of `--json`: the local soak's (`runs`, `kills`, `duplicated`, `unknown`,
 * `replayed`), then with approvals `asks`, `approved`, `denied`, `denied_ran`,
 * `approved_twice`, `lost`, `kills_waiting`, `kills_answering`, `kills_answered`.
 *
 * @since 0.1.0
 */
export const summaryJson = (summary: PgSoak.Summary): string => {
  const a = summary.approvals
  if (a === undefined) return Soak.summaryJson(summary)
  return JSON.stringify({
    ...JSON.parse(Soak.summaryJson(summary)),
    asks: a.asks,
    approved: a.approved,
    denied: a.denied,
    denied_ran: a.deniedRan,
    approved_twice: a.approvedTwice,
    lost: a.lost,
    kills_waiting: a.killsWaiting,
    kills_answering: a.killsAnswering,
    kills_answered: a.killsAnswered
  })
}

/**
 * Whether the soak passed: nothing ran twice, no denied call ran, no ask was lost, nothing else
 * went wrong.
 *
 * @since 0.1.0
 */
export const passed = (summary: PgSoak.Summary): boolean =>
  Soak.passed(summary) &&
  (summary.approvals === undefined ||
    (summary.approvals.deniedRan === 0 && summary.approvals.approvedTwice === 0 && summary.approvals.lost === 0))

/**
 * Once the database is lost and the soak has said so, the engine's shutdown cannot finish
 * (effect/cluster waits for its storage): the process ends with exit 2 at most 2 s later. The
 * timer does not keep the process alive on its own.
 */
const leaveSoon = Effect.sync(() => {
  setTimeout(() => process.exit(ExitCode.invalid.code), 2000).unref()
})

/**
 * Runs the Postgres soak and reports it.
 *
 * @since 0.1.0
 */
export const soak = (options: {
  readonly runs: number
  readonly json: boolean
  readonly seed: number
  readonly engine: "local" | "postgres"
  readonly kills: number | undefined
  readonly runners: number | undefined
  readonly databaseUrl: string | undefined
  readonly approvals: boolean
}): Effect.Effect<void, ExitCode.ExitCode> =>
  Effect.gen(function* () {
    if (options.engine === "local") {
      const flag = options.runners !== undefined ? "--runners" : options.approvals ? "--approvals" : "--database-url"
      return yield* refuse(`${flag} is for --engine postgres: add --engine postgres, or drop ${flag}`)
    }
    if (options.kills !== undefined) {
      return yield* refuse(
        "--kills is for the local soak: the postgres soak kills runner processes at random instants while sessions run"
      )
    }
    const runners = options.runners ?? 2
    if (!Number.isSafeInteger(options.runs) || options.runs < 1) {
      return yield* refuse(`--runs must be a whole number of at least 1, not ${options.runs}`)
    }
    if (!Number.isSafeInteger(runners) || runners < 1 || runners > 16) {
      return yield* refuse(`--runners must be a whole number from 1 to 16, not ${runners}`)
    }
    const url = yield* Effect.fromResult(chooseUrl(options.databaseUrl, process.env.DATABASE_URL)).pipe(
      Effect.catch(refuse)
    )
    const summary = yield* PgSoak.run({
      runs: options.runs,
      runners,
      url,
      seed: options.seed,
      approvals: options.approvals,
      onRun: (report) => (options.json ? Effect.void : Console.log(runLine(report, options.runs)))
    }).pipe(
      Effect.catchTags({
        DatabaseUnavailable: (error) => refuse(error.message),
        SetupError: (error) => refuse(error.message),
        ConnectionLost: (lost) =>
          Effect.andThen(
            leaveSoon,
            refuse(`soak: ${lost.message}; the soak stopped, its runners were killed, nothing was judged`)
          )
      })
    )
    for (const violation of summary.violations) yield* Console.error(violation)
    if (summary.bundleError !== undefined) {
      yield* Console.error(`the soak runner could not be bundled (${summary.bundleError}); it ran from the sources`)
    }
    yield* Console.log(options.json ? summaryJson(summary) : summaryLine(summary))
    if (!passed(summary)) return yield* ExitCode.failed
  })
