/**
 * `harness run|test|soak --engine postgres [--database-url URL]`: the commands on the durable
 * engine (effect/workflow on effect/cluster, state in Postgres). The database is the one
 * `--database-url` names, else `$DATABASE_URL`; a missing, malformed or unreachable one exits 2
 * naming it (its password hidden) before anything runs.
 *
 * @since 0.1.0
 */
import { Database } from "@agent-harness/durable"
import type { Variant } from "@agent-harness/scenario"
import { Console, Effect, type FileSystem, type Path } from "effect"
import * as ExitCode from "./ExitCode.ts"
import * as PgScenario from "./PgScenario.ts"
import * as PgSoak from "./PgSoak.ts"
import * as ScenarioCommands from "./ScenarioCommands.ts"
import * as Soak from "./Soak.ts"

/**
 * The database URL: `--database-url`, else `$DATABASE_URL`; exit 2 naming what is wrong when
 * there is none or it is not a Postgres URL.
 *
 * @since 0.1.0
 */
export const databaseUrl = (given: string | undefined): Effect.Effect<string, ExitCode.ExitCode> =>
  Effect.gen(function* () {
    const fromEnv = process.env.DATABASE_URL
    const url = given ?? (fromEnv === "" ? undefined : fromEnv)
    if (url === undefined) {
      yield* Console.error(
        "--engine postgres needs a database: --database-url postgres://user@host:port/database, or DATABASE_URL"
      )
      return yield* ExitCode.invalid
    }
    const problem = Database.urlProblem(url)
    if (problem !== undefined) {
      yield* Console.error(
        `${given === undefined ? "DATABASE_URL" : "--database-url"} ${Database.redact(url)}: ${problem}`
      )
      return yield* ExitCode.invalid
    }
    return url
  })

/** The engines `--engine` names. @since 0.1.0 */
export type EngineName = "local" | "postgres"

/** Exit 2: a flag of the Postgres engine given without `--engine postgres`. */
const postgresOnly = (flag: string) =>
  Effect.andThen(
    Console.error(`${flag} is for --engine postgres: add --engine postgres, or drop ${flag}`),
    Effect.fail(ExitCode.invalid)
  )

/** Exit 2 with the reason the database cannot be used. */
const unavailable = (error: Database.DatabaseUnavailable) =>
  Effect.andThen(Console.error(error.message), Effect.fail(ExitCode.invalid))

/** Recording is for runs in this process: exit 2 saying so. */
const noTraces = (flag: string) =>
  Effect.andThen(
    Console.error(`${flag} records runs of the local engine; with --engine postgres nothing is recorded: drop ${flag}`),
    Effect.fail(ExitCode.invalid)
  )

/**
 * `harness run FILE --engine postgres`: the scenario as a workflow on the engine, its verdict
 * and exit code as with the local engine.
 *
 * @since 0.1.0
 */
export const run = (
  file: string,
  json: boolean,
  variant: Variant.Variant,
  trace: string | undefined,
  engine: EngineName,
  given: string | undefined
): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    if (engine === "local") return yield* postgresOnly("--database-url")
    if (trace !== undefined) return yield* noTraces("--trace")
    const url = yield* databaseUrl(given)
    yield* PgScenario.withEngine(url, (runner) => ScenarioCommands.run(file, json, variant, undefined, runner)).pipe(
      Effect.catchTag("DatabaseUnavailable", unavailable)
    )
  })

/**
 * `harness test PATH… --engine postgres`: every scenario as a workflow on the engine, the
 * report and exit code as with the local engine.
 *
 * @since 0.1.0
 */
export const test = (
  paths: ReadonlyArray<string>,
  json: boolean,
  variant: Variant.Variant,
  traces: string | undefined,
  engine: EngineName,
  given: string | undefined,
  workers?: number | undefined
): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    if (engine === "local") return yield* postgresOnly("--database-url")
    if (traces !== undefined) return yield* noTraces("--traces")
    if (workers !== undefined) {
      yield* Console.error(
        "--workers runs the local engine's files on threads; with --engine postgres every scenario is a workflow on the engine: drop --workers"
      )
      return yield* ExitCode.invalid
    }
    const url = yield* databaseUrl(given)
    yield* PgScenario.withEngine(url, (runner) => ScenarioCommands.test(paths, json, variant, undefined, runner)).pipe(
      Effect.catchTag("DatabaseUnavailable", unavailable)
    )
  })

/**
 * A run's progress line.
 *
 * @since 0.1.0
 */
export const runLine = (report: PgSoak.RunReport, runs: number): string =>
  `run ${report.run}/${runs} (${report.kind}, seed ${report.seed}, ${report.calls} calls): ` +
  `${report.unknown} unknown, ${report.replayed} replayed (${(report.millis / 1000).toFixed(1)} s)`

/**
 * The summary line.
 *
 * @since 0.1.0
 */
export const summaryLine = (summary: PgSoak.Summary): string =>
  `${summary.runs} runs on ${summary.runners} runners, ${summary.kills} kills (${summary.held} inside an append): ` +
  `${summary.duplicated} duplicated, ${summary.unknown} unknown, ${summary.replayed} replayed, ` +
  `${summary.violations.length} violations (${(summary.millis / 1000).toFixed(1)} s)`

/**
 * `harness soak --engine postgres --runners N --runs N`: the soak across runner processes,
 * reported as the local soak is (with `--json` the last line is exactly
 * `{"runs","kills","duplicated","unknown","replayed"}`). Exit 0 only when nothing ran twice and
 * nothing else went wrong (the violations on stderr); 2 for bad options or an unusable database.
 *
 * @since 0.1.0
 */
export const soak = (options: {
  readonly runs: number
  readonly json: boolean
  readonly seed: number
  readonly engine: EngineName
  readonly kills: number | undefined
  readonly runners: number | undefined
  readonly databaseUrl: string | undefined
}): Effect.Effect<void, ExitCode.ExitCode> =>
  Effect.gen(function* () {
    if (options.engine === "local") {
      return yield* postgresOnly(options.runners !== undefined ? "--runners" : "--database-url")
    }
    if (options.kills !== undefined) {
      yield* Console.error(
        "--kills is for the local soak: the postgres soak kills runner processes at random instants while sessions run"
      )
      return yield* ExitCode.invalid
    }
    const runners = options.runners ?? 2
    if (!Number.isSafeInteger(options.runs) || options.runs < 1) {
      yield* Console.error(`--runs must be a whole number of at least 1, not ${options.runs}`)
      return yield* ExitCode.invalid
    }
    if (!Number.isSafeInteger(runners) || runners < 1 || runners > 16) {
      yield* Console.error(`--runners must be a whole number from 1 to 16, not ${runners}`)
      return yield* ExitCode.invalid
    }
    const url = yield* databaseUrl(options.databaseUrl)
    const summary = yield* PgSoak.run({
      runs: options.runs,
      runners,
      url,
      seed: options.seed,
      onRun: (report) => (options.json ? Effect.void : Console.log(runLine(report, options.runs)))
    }).pipe(
      Effect.catchTags({
        DatabaseUnavailable: unavailable,
        SetupError: (error) => Effect.andThen(Console.error(error.message), Effect.fail(ExitCode.invalid))
      })
    )
    for (const violation of summary.violations) yield* Console.error(violation)
    if (summary.bundleError !== undefined) {
      yield* Console.error(`the soak runner could not be bundled (${summary.bundleError}); it ran from the sources`)
    }
    yield* Console.log(options.json ? Soak.summaryJson(summary) : summaryLine(summary))
    if (!Soak.passed(summary)) return yield* ExitCode.failed
  })
