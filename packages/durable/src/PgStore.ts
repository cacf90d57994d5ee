/**
 * The idempotency journal's store over Postgres (any effect/sql `SqlClient` on a Postgres
 * server): the same contract as `SqliteStore`, shared by every runner of a cluster. A call's
 * "started" row is committed before `start` returns and its outcome before `finish` returns;
 * `start` inserts, so of two runners racing on one call id exactly one gets the row (the other
 * is refused, and never runs the call).
 *
 * @since 0.1.0
 */
import { Journal } from "@agent-harness/idempotency"
import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Database from "./Database.ts"

/**
 * The table the journal lives in unless told otherwise.
 *
 * @since 0.1.0
 */
export const defaultTable: string = "agent_harness_journal"

/**
 * Options of a store.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The table (created when missing): lower-case letters, digits and `_`. Default {@link defaultTable}. */
  readonly table?: string | undefined
}

/** The columns the journal's table must have, with their Postgres types. */
const expectedColumns: ReadonlyArray<readonly [string, string]> = [
  ["id", "text"],
  ["input", "text"],
  ["observation", "text"],
  ["seq", "bigint"],
  ["state", "text"],
  ["tool", "text"]
]

/**
 * A journal store in a Postgres table, created when missing. A table of that name with other
 * columns is refused (nothing is changed), and so is a table name that is not a plain
 * lower-case identifier.
 *
 * @since 0.1.0
 */
export const make = (options?: Options): Effect.Effect<Journal.Store, Journal.JournalError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const table = options?.table ?? defaultTable
    const location = `postgres table ${table}`
    const fail = (problem: string) => new Journal.JournalError({ file: location, problem })
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(table)) {
      return yield* fail(
        `${JSON.stringify(table)} is not a table name the journal uses: lower-case letters, digits and _, at most 63, not starting with a digit`
      )
    }
    const sql = yield* SqlClient.SqlClient
    const problem = (what: string) => (error: SqlError.SqlError) => fail(`${what}: ${Database.sqlProblem(error)}`)
    const name = sql(table)
    // Two runners starting at once must not both create the table: one waits for the other.
    yield* sql
      .withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`agent-harness-journal:${table}`}))`
          yield* sql`CREATE TABLE IF NOT EXISTS ${name} (
            seq BIGSERIAL NOT NULL,
            id TEXT PRIMARY KEY,
            tool TEXT NOT NULL,
            input TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('started', 'done')),
            observation TEXT
          )`
        })
      )
      .pipe(Effect.mapError(problem("cannot be set up")))
    const columns = yield* sql<{ readonly column_name: string; readonly data_type: string }>`
      SELECT column_name, data_type FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY column_name`.pipe(
      Effect.mapError(problem("cannot be read"))
    )
    const shape = columns.map((c) => `${c.column_name} ${c.data_type}`).join(", ")
    if (shape !== expectedColumns.map(([column, type]) => `${column} ${type}`).join(", ")) {
      return yield* fail(`not an agent-harness journal (its columns are ${shape}); it was not changed`)
    }
    const entryOf = (rows: ReadonlyArray<unknown>) =>
      Effect.gen(function* () {
        const row = rows[0]
        if (row === undefined) return undefined
        return yield* Effect.fromResult(Journal.entryOfRow(location, row))
      })
    const inputOf = (id: string, input: unknown) => Effect.fromResult(Journal.inputText(location, id, input))
    const store: Journal.Store = {
      location,
      get: (id) =>
        sql`SELECT id, tool, input, state, observation FROM ${name} WHERE id = ${id}`.pipe(
          Effect.mapError(problem(`call '${id}' cannot be read`)),
          Effect.flatMap(entryOf)
        ),
      start: (id, tool, input) =>
        Effect.gen(function* () {
          const text = yield* inputOf(id, input)
          yield* sql`INSERT INTO ${name} (id, tool, input, state) VALUES (${id}, ${tool}, ${text}, 'started')`.pipe(
            Effect.mapError((error) =>
              error.reason._tag === "UniqueViolation"
                ? fail(`call '${id}' is already in the journal: at most one start of it may run`)
                : fail(`call '${id}' cannot be recorded as started: ${Database.sqlProblem(error)}`)
            )
          )
        }),
      finish: (id, tool, input, observation) =>
        Effect.gen(function* () {
          const text = yield* inputOf(id, input)
          yield* sql`INSERT INTO ${name} (id, tool, input, state, observation)
            VALUES (${id}, ${tool}, ${text}, 'done', ${JSON.stringify(observation)})
            ON CONFLICT (id) DO UPDATE SET state = 'done', observation = excluded.observation`.pipe(
            Effect.mapError(problem(`the outcome of call '${id}' cannot be recorded`))
          )
        }),
      entries: sql`SELECT id, tool, input, state, observation FROM ${name} ORDER BY seq`.pipe(
        Effect.mapError(problem("cannot be read")),
        Effect.flatMap((rows) => Effect.forEach(rows, (row) => Effect.fromResult(Journal.entryOfRow(location, row))))
      )
    }
    return store
  })
