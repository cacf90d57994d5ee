/**
 * The Postgres database a cluster keeps its state in: the URL checked (a `postgres://` or
 * `postgresql://` URL), a connection pool (`@effect/sql-pg`), and a first query answered before
 * anything else runs, so a missing or unreachable database is one typed error that names it
 * (with any password hidden) instead of a hang or a crash later.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { type Cause, Duration, Effect, type Layer, Redacted, Schema } from "effect"
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
}

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
