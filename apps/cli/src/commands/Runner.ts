/**
 * `harness runner [--database-url URL] [--port P] [--host H]`: one runner of the durable
 * engine's cluster over Postgres (effect/cluster's socket runner), running the trials that
 * `harness test --trials N --model P:M --engine postgres --cluster` starts on the same database.
 * Start as many as you like, on one machine (other ports) or several; the shards, and so the
 * trials, spread over the runners that are up, and a runner that dies leaves its trials to the
 * others. Each runner builds the model from its own environment (`ANTHROPIC_API_KEY`,
 * `OPENAI_API_KEY`) and reads a case's `root` folder at the path the case names, so run runners
 * where the cases are.
 *
 * Says `runner HOST:PORT ready on DATABASE` on stderr once it has joined, and runs until SIGINT or
 * SIGTERM (exit 0). Exit 2: no database, a malformed or unreachable one, or a port it cannot
 * listen on.
 *
 * @since 0.1.0
 */
import { Database, Engine } from "@agent-harness/durable"
import { Console, Effect, Layer, Logger, References } from "effect"
import * as ExitCode from "../common/ExitCode.ts"
import * as Signal from "../common/Signal.ts"
import * as PgTrials from "../engine/PgTrials.ts"
import * as Postgres from "../engine/Postgres.ts"
import * as Warnings from "../printing/Warnings.ts"

/**
 * The flags of `harness runner`.
 *
 * @since 0.1.0
 */
export interface Options {
  /** `--database-url` (default `$DATABASE_URL`). */
  readonly databaseUrl?: string | undefined
  /** `--port`: where the other processes of the cluster reach this runner. */
  readonly port: number
  /** `--host`: the address they reach it at (default `127.0.0.1`). */
  readonly host?: string | undefined
}

/** The port when `--port` is not given: effect/cluster's own default. @since 0.1.0 */
export const defaultPort = 34431

/**
 * Runs this process as a runner until SIGINT or SIGTERM (see the module).
 *
 * @since 0.1.0
 */
export const runner = (options: Options): Effect.Effect<void, ExitCode.ExitCode> =>
  Effect.gen(function* () {
    if (!Number.isSafeInteger(options.port) || options.port < 1 || options.port > 65535) {
      yield* Console.error(`harness runner: --port must be a whole number from 1 to 65535, got ${options.port}`)
      return yield* ExitCode.invalid
    }
    const url = yield* Postgres.databaseUrl(options.databaseUrl, "harness runner")
    const host = options.host ?? "127.0.0.1"
    const address = `${host}:${options.port}`
    const serving = PgTrials.layer(address).pipe(Layer.provideMerge(Engine.runner({ url, port: options.port, host })))
    yield* Effect.scoped(
      Effect.gen(function* () {
        yield* Layer.build(serving)
        yield* Console.error(
          `runner ${address} ready on ${Database.redact(url)}: it runs the trials of harness test --trials N --model P:M --engine postgres --cluster; Ctrl-C stops it`
        )
        const signal = yield* Signal.untilSignal
        yield* Console.error(`runner ${address}: ${signal}, leaving the cluster (its trials go to the other runners)`)
      })
    ).pipe(
      // The engine's warnings and errors (a shard moved, a retry), once each, on stderr.
      Effect.provide(Logger.layer([Warnings.stderrOnce("runner")])),
      Effect.provideService(References.MinimumLogLevel, "Warn"),
      Effect.catchTags({
        DatabaseUnavailable: (error) => Effect.andThen(Console.error(error.message), Effect.fail(ExitCode.invalid)),
        RunnerUnavailable: (error) =>
          Effect.andThen(Console.error(`harness runner: ${error.message}`), Effect.fail(ExitCode.invalid))
      })
    )
  })
