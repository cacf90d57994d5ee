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
import { Effect, Result, Schema } from "effect"
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

const decodeObservation = Schema.decodeUnknownResult(Journal.Observation)

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** The columns the journal's table must have, with their Postgres types. */
const expectedColumns: ReadonlyArray<readonly [string, string]> = [
  ["id", "text"],
  ["input", "text"],
  ["observation", "text"],
  ["seq", "bigint"],
  ["state", "text"],
  ["tool", "text"]
]

interface Row {
  readonly id: string
  readonly tool: string
  readonly input: string
  readonly state: string
  readonly observation: string | null
}

const isRow = (u: unknown): u is Row =>
  typeof u === "object" &&
  u !== null &&
  "id" in u &&
  typeof u.id === "string" &&
  "tool" in u &&
  typeof u.tool === "string" &&
  "input" in u &&
  typeof u.input === "string" &&
  "state" in u &&
  typeof u.state === "string" &&
  "observation" in u &&
  (u.observation === null || typeof u.observation === "string")

/** A row as an entry, or why it is not one. */
const toEntry = (location: string, row: unknown): Result.Result<Journal.Entry, Journal.JournalError> => {
  const fail = (problem: string) => Result.fail(new Journal.JournalError({ file: location, problem }))
  if (!isRow(row)) return fail("a row of the journal is not a call")
  const bad = (problem: string) => fail(`call '${row.id}': ${problem}`)
  let input: unknown
  try {
    input = JSON.parse(row.input)
  } catch (error) {
    return bad(`its input is not JSON (${messageOf(error)})`)
  }
  if (row.state !== "started" && row.state !== "done") return bad(`unknown state ${JSON.stringify(row.state)}`)
  if (row.observation === null) {
    return row.state === "done"
      ? bad("done, but no observation is recorded")
      : Result.succeed({ id: row.id, tool: row.tool, input, state: "started" })
  }
  let json: unknown
  try {
    json = JSON.parse(row.observation)
  } catch (error) {
    return bad(`its observation is not JSON (${messageOf(error)})`)
  }
  const observation = decodeObservation(json)
  if (Result.isFailure(observation)) return bad(`its observation is not valid (${observation.failure.message})`)
  return Result.succeed({ id: row.id, tool: row.tool, input, state: row.state, observation: observation.success })
}

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
        return yield* Effect.fromResult(toEntry(location, row))
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
        Effect.flatMap((rows) => Effect.forEach(rows, (row) => Effect.fromResult(toEntry(location, row))))
      )
    }
    return store
  })
