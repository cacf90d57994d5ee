/**
 * The Postgres database a cluster keeps its state in: the URL checked (a `postgres://` or
 * `postgresql://` URL), a connection pool (`@effect/sql-pg`), and a first query answered before
 * anything else runs, so a missing or unreachable database is one typed error that names it
 * (with any password hidden) instead of a hang or a crash later. A database that goes away later
 * (the server stopped or killed, the connections cut) is noticed by {@link watch}: the engine's
 * runs then fail with `ConnectionLost` within a bounded time instead of waiting for it forever.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { type Cause, Clock, Deferred, Duration, Effect, type Layer, Redacted, Schema, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient, SqlError } from "effect/sql"

const DatabaseUnavailableBase: Schema.Class<
  DatabaseUnavailable,
  Schema.TaggedStruct<"DatabaseUnavailable", { readonly url: Schema.String; readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<DatabaseUnavailable>()("DatabaseUnavailable", {
  url: Schema.String,
  problem: Schema.String
})

/**
 * The database cannot be used: its URL (password hidden) and what is wrong.
 *
 * @since 0.1.0
 */
export class DatabaseUnavailable extends DatabaseUnavailableBase {
  /** `database <url>: <problem>`. */
  override get message(): string {
    return `database ${this.url}: ${this.problem}`
  }
}

const ConnectionLostBase: Schema.Class<
  ConnectionLost,
  Schema.TaggedStruct<"ConnectionLost", { readonly url: Schema.String; readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<ConnectionLost>()("ConnectionLost", {
  url: Schema.String,
  problem: Schema.String
})

/**
 * The database answered once and then stopped answering for longer than the engine waits
 * (`Options.lostAfter`): its URL (password hidden) and what the last attempt said. A run that
 * ends with it may have left a call started and not finished: the journal reports that call
 * outcome unknown when the run is resumed, and does not run it again.
 *
 * @since 0.1.0
 */
export class ConnectionLost extends ConnectionLostBase {
  /** `database <url>: connection lost: <problem>`. */
  override get message(): string {
    return `database ${this.url}: connection lost: ${this.problem}`
  }
}

/**
 * A database URL fit for messages: the password, when there is one, replaced by `***`. Text
 * that is not a URL is shown as given, cut to 200 characters.
 *
 * @since 0.1.0
 */
export const redact = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password !== "") parsed.password = "***"
    return parsed.toString()
  } catch {
    return url.length > 200 ? `${url.slice(0, 200)}…` : url
  }
}

/**
 * Why a text is not a Postgres URL, or `undefined` when it is one.
 *
 * @since 0.1.0
 */
export const urlProblem = (url: string): string | undefined => {
  if (url.trim() === "") return "no database URL was given (postgres://user@host:port/database)"
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "not a URL (postgres://user@host:port/database)"
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    return `not a Postgres URL: it starts with ${parsed.protocol}// (postgres://user@host:port/database)`
  }
  if (parsed.hostname === "") return "the URL names no host (postgres://user@host:port/database)"
  return undefined
}

/**
 * What a driver error says, with its cause (`connect ECONNREFUSED 127.0.0.1:5432`, `database
 * "x" does not exist`) when it has one.
 *
 * @since 0.1.0
 */
export const sqlProblem = (error: SqlError.SqlError): string => {
  const cause: unknown = error.reason.cause
  const detail = cause instanceof Error ? cause.message : undefined
  return detail === undefined || error.message.includes(detail) ? error.message : `${error.message} (${detail})`
}

/**
 * Options of the connection.
 *
 * @since 0.1.0
 */
export interface Options {
  /** How long to wait for the first connection; default 10 seconds. */
  readonly connectTimeout?: Duration.Input | undefined
  /** The pool's size; default 10. */
  readonly maxConnections?: number | undefined
  /**
   * How long the database may go without answering before the engine's runs fail with
   * `ConnectionLost` (see {@link watch}); default {@link defaultLostAfter}.
   */
  readonly lostAfter?: Duration.Input | undefined
}

/**
 * How long a database may go without answering before it is lost: 15 seconds, longer than a
 * server's restart takes, well under the minute after which a run looks hung.
 *
 * @since 0.1.0
 */
export const defaultLostAfter: Duration.Duration = Duration.seconds(15)

/**
 * A database being watched (see {@link watch}).
 *
 * @since 0.1.0
 */
export interface Watch {
  /** Waits until the database is lost, then fails with `ConnectionLost`; never succeeds. */
  readonly lost: Effect.Effect<never, ConnectionLost>
  /** Whether it is lost already. */
  readonly isLost: Effect.Effect<boolean>
}

/**
 * Watches the database at `url` for as long as the scope is open, over a connection of its own
 * (so a busy pool is never mistaken for a lost database): a `SELECT 1` about every second,
 * each given `lostAfter` to answer. The database is lost once it has not answered for
 * `lostAfter`; it stays lost.
 *
 * @since 0.1.0
 */
export const watch = (url: string, options?: Options): Effect.Effect<Watch, never, Scope.Scope> =>
  Effect.gen(function* () {
    const shown = redact(url)
    const lostAfter = Duration.fromInputUnsafe(options?.lostAfter ?? defaultLostAfter)
    const limit = Duration.toMillis(lostAfter)
    const every = Duration.millis(Math.max(50, Math.min(1000, limit / 5)))
    const lost = yield* Deferred.make<never, ConnectionLost>()
    const client = yield* PgClient.make({
      url: Redacted.make(url),
      connectTimeout: lostAfter,
      maxConnections: 1
    }).pipe(Effect.provide(Reactivity.layer), Effect.result)
    if (client._tag === "Failure") {
      yield* Deferred.fail(
        lost,
        new ConnectionLost({ url: shown, problem: `it cannot be watched: ${sqlProblem(client.failure)}` })
      )
      return { lost: Deferred.await(lost), isLost: Deferred.isDone(lost) }
    }
    const sql = client.success
    const loop = Effect.gen(function* () {
      let answered = yield* Clock.currentTimeMillis
      let problem = "no answer"
      while (true) {
        const ping = yield* sql`SELECT 1`.pipe(
          Effect.mapError(sqlProblem),
          Effect.timeoutOrElse({ duration: lostAfter, orElse: () => Effect.fail("no answer in time") }),
          Effect.result
        )
        const now = yield* Clock.currentTimeMillis
        if (ping._tag === "Success") answered = now
        else problem = ping.failure
        if (now - answered >= limit) {
          const seconds = Math.round((now - answered) / 100) / 10
          return yield* Deferred.fail(
            lost,
            new ConnectionLost({ url: shown, problem: `no answer for ${seconds} s (${problem})` })
          )
        }
        yield* Effect.sleep(every)
      }
    })
    yield* Effect.forkScoped(loop)
    const watching: Watch = { lost: Deferred.await(lost), isLost: Deferred.isDone(lost) }
    return watching
  })

/**
 * Moves a `ConnectionLost` that ended an engine's run (the engine gives it as a defect, since a
 * workflow's own error type cannot name it) into the error channel, where it can be handled
 * by its tag.
 *
 * @since 0.1.0
 */
export const lostAsFailure = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | ConnectionLost, R> =>
  Effect.catchDefect(self, (defect) => (defect instanceof ConnectionLost ? Effect.fail(defect) : Effect.die(defect)))

/**
 * The database as an effect/sql `SqlClient` (and `PgClient`): fails with `DatabaseUnavailable`
 * when the URL is not a Postgres URL or the server does not answer a first query in time.
 *
 * @since 0.1.0
 */
export const layer = (
  url: string,
  options?: Options
): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, DatabaseUnavailable> => {
  const shown = redact(url)
  const unavailable = (problem: string) => new DatabaseUnavailable({ url: shown, problem })
  const problem = urlProblem(url)
  const connectTimeout = options?.connectTimeout ?? Duration.seconds(10)
  const connect =
    problem !== undefined
      ? Effect.fail(unavailable(problem))
      : PgClient.make({
          url: Redacted.make(url),
          connectTimeout,
          maxConnections: options?.maxConnections ?? 10
        }).pipe(
          Effect.tap((client) => client`SELECT 1`),
          Effect.mapError((error) => unavailable(sqlProblem(error)))
        )
  return PgClient.layerFrom(
    connect.pipe(
      Effect.timeoutOrElse({
        duration: Duration.sum(Duration.fromInputUnsafe(connectTimeout), Duration.seconds(5)),
        orElse: () => Effect.fail(unavailable("no answer in time"))
      })
    )
  )
}
