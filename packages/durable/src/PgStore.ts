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

/** What the catalogue says of a relation: its kind, its columns, whether its id is a key. */
interface Shape {
  /** `pg_class.relkind`: `r` for an ordinary table. */
  readonly kind: string
  readonly columns: ReadonlyArray<{
    readonly name: string
    readonly type: string
    readonly defaulted: boolean
  }>
  /** A valid, immediate, unique index on `id` alone, neither partial nor on an expression. */
  readonly idIsKey: boolean
}

const kinds: Readonly<Record<string, string>> = {
  v: "a view",
  m: "a materialized view",
  p: "a partitioned table",
  f: "a foreign table"
}

/**
 * Why a table is not the journal's, or `undefined` when it is. Each thing the journal relies on
 * is named: the kind of relation, missing, extra and mistyped columns, a `seq` without a
 * default, and above all the key on `id` (without it one call id could be started twice, and so
 * run twice).
 */
const shapeProblem = (shape: Shape): string | undefined => {
  const kind = kinds[shape.kind]
  if (shape.kind !== "r") return `it is ${kind ?? `a relation of kind ${JSON.stringify(shape.kind)}`}, not a table`
  const has = new Map(shape.columns.map((c) => [c.name, c]))
  const wanted = new Map(expectedColumns)
  const problems: Array<string> = []
  const missing = expectedColumns.filter(([name]) => !has.has(name)).map(([name]) => name)
  if (missing.length > 0) problems.push(`${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} missing`)
  const extra = shape.columns.filter((c) => !wanted.has(c.name)).map((c) => c.name)
  if (extra.length > 0) problems.push(`${extra.join(", ")} ${extra.length === 1 ? "is" : "are"} not the journal's`)
  for (const column of shape.columns) {
    const type = wanted.get(column.name)
    if (type !== undefined && type !== column.type) problems.push(`${column.name} is ${column.type}, not ${type}`)
  }
  if (problems.length > 0) {
    const columns = shape.columns.map((c) => `${c.name} ${c.type}`).join(", ")
    return `not an agent-harness journal (its columns are ${columns === "" ? "none" : columns}: ${problems.join("; ")})`
  }
  if (!shape.idIsKey) {
    return "not an agent-harness journal (no primary key on id, nor a unique index on id alone, so one call id could be started, and run, twice)"
  }
  if (has.get("seq")?.defaulted !== true) {
    return "not an agent-harness journal (seq has no default: the journal numbers its rows in order)"
  }
  return undefined
}

/**
 * A journal store in a Postgres table, created when missing. A table of that name that is not
 * the journal's — other columns or types, no primary key (or unique index) on `id`, a view — is
 * refused with a `JournalError` naming the table and what is wrong, and nothing is changed; so is
 * a table name that is not a plain lower-case identifier.
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
    const shapeOf = Effect.gen(function* () {
      const relations = yield* sql<{ readonly oid: string; readonly kind: string }>`
        SELECT c.oid::text AS oid, c.relkind::text AS kind FROM pg_catalog.pg_class c
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relname = ${table}`
      const relation = relations[0]
      if (relation === undefined) return undefined
      const columns = yield* sql<{
        readonly name: string
        readonly type: string
        readonly defaulted: boolean
      }>`
        SELECT a.attname AS name, format_type(a.atttypid, NULL) AS type, (a.atthasdef OR a.attidentity <> '') AS defaulted
        FROM pg_catalog.pg_attribute a
        WHERE a.attrelid = ${relation.oid}::oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attname`
      const keys = yield* sql<{ readonly n: number }>`
        SELECT count(*)::int AS n FROM pg_catalog.pg_index i
        JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
        WHERE i.indrelid = ${relation.oid}::oid AND i.indisunique AND i.indimmediate AND i.indisvalid
          AND i.indnkeyatts = 1 AND i.indpred IS NULL AND i.indexprs IS NULL AND a.attname = 'id'`
      const shape: Shape = { kind: relation.kind, columns, idIsKey: (keys[0]?.n ?? 0) > 0 }
      return shape
    })
    // Two runners starting at once must not both create the table: one waits for the other. A
    // table that is there already is checked before anything is written, and left as it is.
    const refusal = yield* sql
      .withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`agent-harness-journal:${table}`}))`
          const before = yield* shapeOf
          if (before !== undefined) return shapeProblem(before)
          yield* sql`CREATE TABLE ${name} (
            seq BIGSERIAL NOT NULL,
            id TEXT PRIMARY KEY,
            tool TEXT NOT NULL,
            input TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('started', 'done')),
            observation TEXT
          )`
          const created = yield* shapeOf
          return created === undefined ? "it cannot be found after it was created" : shapeProblem(created)
        })
      )
      .pipe(Effect.mapError(problem("cannot be set up")))
    if (refusal !== undefined) return yield* fail(`${refusal}; it was not changed`)
    const entryOf = (rows: ReadonlyArray<unknown>) =>
      Effect.gen(function* () {
        const row = rows[0]
        if (row === undefined) return undefined
        return yield* Effect.fromResult(Journal.entryOfRow(location, row))
      })
    const inputOf = (id: string, input: unknown) => Effect.fromResult(Journal.inputText(location, id, input))
    const get = (id: string) =>
      sql`SELECT id, tool AS name, input, state, observation FROM ${name} WHERE id = ${id}`.pipe(
        Effect.mapError(problem(`call '${id}' cannot be read`)),
        Effect.flatMap(entryOf)
      )
    const store: Journal.Store = {
      location,
      get,
      claim: (id, tool, input) =>
        Effect.gen(function* () {
          const text = yield* inputOf(id, input)
          // One statement, committed on its own: the key decides, and a row already there is
          // left as it is (read after, in a statement of its own, so it is seen once committed).
          const inserted = yield* sql`INSERT INTO ${name} (id, tool, input, state)
            VALUES (${id}, ${tool}, ${text}, 'started') ON CONFLICT (id) DO NOTHING RETURNING seq`.pipe(
            Effect.mapError((error) =>
              fail(`call '${id}' cannot be recorded as started: ${Database.sqlProblem(error)}`)
            )
          )
          if (inserted.length > 0) return undefined
          const there = yield* get(id)
          if (there === undefined) return yield* fail(`call '${id}' was in the journal and is gone: it was not started`)
          return there
        }),
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
      entries: sql`SELECT id, tool AS name, input, state, observation FROM ${name} ORDER BY seq`.pipe(
        Effect.mapError(problem("cannot be read")),
        Effect.flatMap((rows) => Effect.forEach(rows, (row) => Effect.fromResult(Journal.entryOfRow(location, row))))
      )
    }
    return store
  })
