/**
 * `harness run|test --engine postgres [--database-url URL]`: the commands on the durable
 * engine (effect/workflow on effect/cluster, state in Postgres). The database is the one
 * `--database-url` names, else `$DATABASE_URL`; a missing, malformed or unreachable one exits 2
 * naming it (its password hidden) before anything runs.
 *
 * @since 0.1.0
 */
import process from "node:process"
import { Database } from "@agent-harness/durable"
import { Report, type ScenarioFile, Suite, type Variant, type Verdict } from "@agent-harness/scenario"
import { Console, Effect, type FileSystem, type Path, Result } from "effect"
import * as ExitCode from "../common/ExitCode.ts"
import * as PgScenario from "./PgScenario.ts"
import type * as Engine from "./Engine.ts"
import * as Local from "./Local.ts"
import * as Style from "../printing/Style.ts"

/**
 * The database URL: `--database-url`, else `$DATABASE_URL`; exit 2 naming what is wrong when
 * there is none (saying `who` needs one) or it is not a Postgres URL.
 *
 * @since 0.1.0
 */
export const databaseUrl = (
  given: string | undefined,
  who = "--engine postgres"
): Effect.Effect<string, ExitCode.ExitCode> =>
  Effect.gen(function* () {
    const fromEnv = process.env.DATABASE_URL
    const url = given ?? (fromEnv === "" ? undefined : fromEnv)
    if (url === undefined) {
      yield* Console.error(
        `${who} needs a database: --database-url postgres://user@host:port/database, or DATABASE_URL`
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
export type EngineName = Engine.Choice["engine"]

/** Exit 2: a flag of the Postgres engine given without `--engine postgres`. */
const postgresOnly = (flag: string) =>
  Effect.andThen(
    Console.error(`${flag} is for --engine postgres: add --engine postgres, or drop ${flag}`),
    Effect.fail(ExitCode.invalid)
  )

/** Exit 2 with the reason the database cannot be used. */
const unavailable = (error: Database.DatabaseUnavailable) =>
  Effect.andThen(Console.error(error.message), Effect.fail(ExitCode.invalid))

/**
 * What a scenario that the database's loss cut short (`started`), or kept from starting, is
 * reported with.
 *
 * @since 0.1.0
 */
export const lostProblem = (started: boolean): string =>
  started
    ? "the database connection was lost while it ran: it was not run to the end, nothing of it was judged"
    : "not run: the database connection was lost before it started"

/**
 * The line of a scenario the database's loss cut short, or kept from starting: `INVALID <file>:
 * <why>` (`--json`: the fields of an invalid file's line, at `(database)`).
 *
 * @since 0.1.0
 */
export const lostLine = (
  file: string,
  started: boolean,
  lost: Database.ConnectionLost,
  json: boolean,
  variant: string,
  style: Report.Style = Report.plain
): string => {
  const problem = lostProblem(started)
  if (!json) return `${style.fail("INVALID")} ${Report.printable(file)}: ${problem}`
  return JSON.stringify({
    name: file,
    file,
    kind: null,
    variant,
    passed: false,
    reserved: false,
    valid: false,
    outcome: null,
    failures: [
      {
        kind: "invalid",
        path: "(database)",
        expected: "a database that answers until the scenario ends",
        seen: `${problem} (${lost.message})`,
        message: `${file}: ${problem}`
      }
    ]
  })
}

/**
 * Once the database is lost and the command has said so, the engine's shutdown cannot finish
 * (effect/cluster waits for its storage, and 15 s for each workflow still running): the process
 * ends with exit 2 at most 2 s later, instead of waiting for it. The timer does not keep the
 * process alive on its own.
 */
const leaveSoon = Effect.sync(() => {
  setTimeout(() => process.exit(ExitCode.invalid.code), 2000).unref()
})

/** The line on stderr when the database was lost: what it last said, and how much was cut. */
export const lostSummary = (command: string, lost: Database.ConnectionLost, what: string): string =>
  `harness ${command}: ${lost.message}; ${what}`

/** Recording is for runs in this process: exit 2 saying so. */
const noTraces = (flag: string) =>
  Effect.andThen(
    Console.error(`${flag} records runs of the local engine; with --engine postgres nothing is recorded: drop ${flag}`),
    Effect.fail(ExitCode.invalid)
  )

/**
 * `harness run FILE --engine postgres`: the scenario as a workflow on the engine, its verdict
 * and exit code as with the local engine. A database lost while it runs: exit 2, with one line on
 * stderr naming the database and what it last said (with `--json`, also the scenario's line, as
 * an invalid file's, at `(database)`).
 *
 * @since 0.1.0
 */
export const run = (
  options: Engine.RunOptions & Engine.Choice
): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const { file, json, variant, trace, engine, databaseUrl: given } = options
    if (engine === "local") return yield* postgresOnly("--database-url")
    if (trace !== undefined) return yield* noTraces("--trace")
    const url = yield* databaseUrl(given)
    yield* PgScenario.withEngine(url, (runner) =>
      // The local engine's runners cannot fail: the loss goes through it as a defect, and back.
      Database.lostAsFailure(
        Local.run({ file, json, variant, runner: (scenario, name, v) => Effect.orDie(runner(scenario, name, v)) })
      ).pipe(
        Effect.catchTag("ConnectionLost", (lost) =>
          Effect.gen(function* () {
            if (json) yield* Console.log(lostLine(file, true, lost, true, variant.name))
            yield* Console.error(
              lostSummary("run", lost, `${Report.printable(file)} was not run to the end, nothing of it was judged`)
            )
            yield* leaveSoon
            return yield* ExitCode.invalid
          })
        )
      )
    ).pipe(Effect.catchTag("DatabaseUnavailable", unavailable))
  })

/** One file of `harness test` on the engine: its entry, or the loss of the database that cut it short or kept it from starting. */
type Ran =
  | { readonly _tag: "Entry"; readonly entry: Suite.Entry }
  | { readonly _tag: "Lost"; readonly file: string; readonly started: boolean; readonly lost: Database.ConnectionLost }

/**
 * `harness test PATH…` on the engine's runner, reported as the local engine reports it
 * (`Local.test`: the same lines, the same `--json` lines, the same exit codes), one
 * file at a time. Once the database is lost, the scenario it cut short and every one after it
 * are reported INVALID naming the loss (nothing of theirs was judged), the closing lines count
 * them, a line on stderr names the database and what it last said, and the exit code is 2.
 *
 * @since 0.1.0
 */
export const testOn = (
  paths: ReadonlyArray<string>,
  json: boolean,
  variant: Variant.Variant,
  runner: PgScenario.Runner
): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const style = Style.current()
    const found = yield* Effect.result(Suite.find(paths))
    if (Result.isFailure(found)) return yield* Local.refuseInvalid(found.failure, json, variant, style)
    yield* Local.announce(variant, json, style)
    const { files, skipped } = found.success
    for (const entry of skipped) {
      yield* Console.log(json ? Report.skippedJson(entry, variant.name) : Report.skipped(entry, style))
    }
    let lost: Database.ConnectionLost | undefined
    const runs = yield* Suite.eachLoaded(
      files,
      (loaded: Result.Result<ScenarioFile.Scenario, ScenarioFile.InvalidScenario>, i): Effect.Effect<Ran> => {
        const file = files[i] as string
        if (Result.isFailure(loaded)) return Effect.succeed({ _tag: "Entry", entry: Result.fail(loaded.failure) })
        if (lost !== undefined) return Effect.succeed({ _tag: "Lost", file, started: false, lost })
        return runner(loaded.success, file, variant).pipe(
          Effect.map((verdict): Ran => ({ _tag: "Entry", entry: Result.succeed(verdict) })),
          Effect.catchTag("ConnectionLost", (error) => {
            lost = error
            return Effect.succeed<Ran>({ _tag: "Lost", file, started: true, lost: error })
          })
        )
      }
    )
    const verdicts: Array<Verdict.Verdict> = []
    let invalid = 0
    let cut = 0
    for (const ran of runs) {
      if (ran._tag === "Lost") {
        cut++
        yield* Console.log(lostLine(ran.file, ran.started, ran.lost, json, variant.name, style))
      } else if (Result.isSuccess(ran.entry)) {
        verdicts.push(ran.entry.success)
        yield* Console.log(json ? Report.json(ran.entry.success) : Report.verdict(ran.entry.success, style))
      } else {
        invalid++
        yield* Console.log(
          json ? Report.invalidJson(ran.entry.failure, variant.name) : Report.invalid(ran.entry.failure, style)
        )
      }
    }
    const totals = { ...Report.totals(verdicts, invalid + cut, skipped.length), invalid }
    if (!json) {
      const closing = Report.closing(totals)
      for (const line of closing.slice(0, -1)) yield* Console.log(line)
      if (cut > 0) {
        yield* Console.log(`${cut} not run to the end: the database connection was lost (counted as failed)`)
      }
      for (const line of closing.slice(-1)) yield* Console.log(line)
    }
    if (lost !== undefined) {
      const not = cut === 1 ? "1 scenario was" : `${cut} scenarios were`
      yield* Console.error(lostSummary("test", lost, `${not} not run to the end, nothing of them was judged`))
      yield* leaveSoon
    }
    if (invalid > 0 || cut > 0) return yield* ExitCode.invalid
    if (totals.failed > 0) return yield* ExitCode.failed
  })

/**
 * `harness test PATH… --engine postgres`: every scenario as a workflow on the engine, the
 * report and exit code as with the local engine (see {@link testOn} for a database lost on
 * the way).
 *
 * @since 0.1.0
 */
export const test = (
  options: Engine.TestOptions & Engine.Choice
): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const { paths, json, variant, traces, engine, databaseUrl: given, workers } = options
    if (engine === "local") return yield* postgresOnly("--database-url")
    if (traces !== undefined) return yield* noTraces("--traces")
    if (workers !== undefined) {
      yield* Console.error(
        "--workers runs the local engine's files on threads; with --engine postgres every scenario is a workflow on the engine: drop --workers"
      )
      return yield* ExitCode.invalid
    }
    const url = yield* databaseUrl(given)
    yield* PgScenario.withEngine(url, (runner) => testOn(paths, json, variant, runner)).pipe(
      Effect.catchTag("DatabaseUnavailable", unavailable)
    )
  })

/**
 * The Postgres engine with the flags that chose it (`--engine`, `--database-url`).
 *
 * @since 0.1.0
 */
export const engine = (choice: Engine.Choice): Engine.Engine => ({
  run: (options) => run({ ...options, ...choice }),
  test: (options) => test({ ...options, ...choice })
})
