/**
 * The approvals store over Postgres (any effect/sql `SqlClient` on a Postgres server): parked
 * calls shared by every runner of a cluster and by whoever answers them (`harness approve ID
 * --database-url …`). The same contract as the journal file's (`Approvals.Store` of
 * `@agent-harness/idempotency`): parking is `INSERT … ON CONFLICT DO NOTHING` then a read (the
 * row already there wins: a resumed run finds its approval); an answer is one conditional
 * `UPDATE … WHERE state = 'pending'`, so of two answers given at once exactly one is taken;
 * each is committed before it returns.
 *
 * @since 0.2.0
 */
import { Approvals } from "@agent-harness/idempotency"
import { Effect, Option, Result } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import * as Database from "./Database.ts"

/**
 * The table approvals live in unless told otherwise.
 *
 * @since 0.2.0
 */
export const defaultTable: string = "agent_harness_approvals"

/**
 * Options of a store.
 *
 * @since 0.2.0
 */
export interface Options {
  /** The table (created when missing): lower-case letters, digits and `_`. Default {@link defaultTable}. */
  readonly table?: string | undefined
}

/** The columns the table must have, with their Postgres types. */
const expectedColumns: ReadonlyArray<readonly [string, string]> = [
  ["answer_reason", "text"],
  ["answered_at", "bigint"],
  ["answered_by", "text"],
  ["asked_at", "bigint"],
  ["digest", "text"],
  ["id", "text"],
  ["input", "text"],
  ["reason", "text"],
  ["rule", "integer"],
  ["session", "text"],
  ["state", "text"],
  ["tool", "text"],
  ["tool_use_id", "text"],
  ["wake", "text"]
]

interface Row {
  readonly id: string
  readonly session: string
  readonly tool_use_id: string
  readonly tool: string
  readonly input: string
  readonly digest: string
  readonly reason: string | null
  readonly rule: number | null
  readonly asked_at: string | number
  readonly state: string
  readonly answered_by: string | null
  readonly answer_reason: string | null
  readonly answered_at: string | number | null
  readonly wake: string | null
}

const millis = (value: string | number | null): number | undefined => {
  if (value === null) return undefined
  const n = typeof value === "number" ? value : Number(value)
  return Number.isSafeInteger(n) ? n : undefined
}

/** A row as an approval, or what is wrong with it. */
const approvalOf = (row: Row): Result.Result<Approvals.Approval, string> => {
  const askedAt = millis(row.asked_at)
  if (
    typeof row.id !== "string" ||
    askedAt === undefined ||
    (row.state !== "pending" && row.state !== "approved" && row.state !== "denied")
  ) {
    return Result.fail(`approval row ${JSON.stringify(row.id ?? null)} does not read as an approval`)
  }
  return Result.succeed({
    id: row.id,
    session: row.session,
    toolUseId: row.tool_use_id,
    name: row.tool,
    input: row.input,
    digest: row.digest,
    reason: row.reason ?? undefined,
    rule: row.rule ?? undefined,
    askedAt,
    state: row.state,
    by: row.answered_by ?? undefined,
    answerReason: row.answer_reason ?? undefined,
    answeredAt: millis(row.answered_at),
    wake: row.wake ?? undefined
  })
}

/**
 * An approvals store in a Postgres table, created when missing (two processes creating it at
 * once: one waits for the other). A table of that name whose columns are not an approvals
 * table's is refused with an `ApprovalError` naming it, and nothing is changed.
 *
 * @since 0.2.0
 */
export const make = (options?: Options): Effect.Effect<Approvals.Store, Approvals.ApprovalError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const table = options?.table ?? defaultTable
    const location = `postgres table ${table}`
    const fail = (problem: string) => new Approvals.ApprovalError({ store: location, problem })
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(table)) {
      return yield* fail(
        `${JSON.stringify(table)} is not a table name approvals use: lower-case letters, digits and _, at most 63, not starting with a digit`
      )
    }
    const sql = yield* SqlClient.SqlClient
    const problem = (what: string) => (error: SqlError.SqlError) => fail(`${what}: ${Database.sqlProblem(error)}`)
    const name = sql(table)
    const columnsOf = sql<{ readonly name: string; readonly type: string }>`
      SELECT a.attname AS name, format_type(a.atttypid, NULL) AS type
      FROM pg_catalog.pg_attribute a
      JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relname = ${table} AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attname`
    const refusal = yield* sql
      .withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`agent-harness-approvals:${table}`}))`
          const before = yield* columnsOf
          if (before.length === 0) {
            yield* sql`CREATE TABLE ${name} (
              id TEXT PRIMARY KEY,
              session TEXT NOT NULL,
              tool_use_id TEXT NOT NULL,
              tool TEXT NOT NULL,
              input TEXT NOT NULL,
              digest TEXT NOT NULL,
              reason TEXT,
              rule INTEGER,
              asked_at BIGINT NOT NULL,
              state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied')),
              answered_by TEXT,
              answer_reason TEXT,
              answered_at BIGINT,
              wake TEXT
            )`
            return undefined
          }
          const has = before.map((c) => `${c.name} ${c.type}`).join(", ")
          const wanted = expectedColumns.map(([n, t]) => `${n} ${t}`).join(", ")
          return has === wanted ? undefined : `not an agent-harness approvals table (its columns are ${has})`
        })
      )
      .pipe(Effect.mapError(problem("cannot be set up")))
    if (refusal !== undefined) return yield* fail(`${refusal}; it was not changed`)
    const read = (id: string) =>
      sql<Row>`SELECT * FROM ${name} WHERE id = ${id}`.pipe(
        Effect.mapError(problem(`approval ${id} cannot be read`)),
        Effect.flatMap((rows) => {
          const row = rows[0]
          if (row === undefined) return Effect.succeed(Option.none<Approvals.Approval>())
          const approval = approvalOf(row)
          return Result.isSuccess(approval)
            ? Effect.succeed(Option.some(approval.success))
            : Effect.fail(fail(approval.failure))
        })
      )
    const store: Approvals.Store = {
      location,
      park: (ask) =>
        Effect.gen(function* () {
          const a = yield* Effect.fromResult(Approvals.prepare(location, ask, Date.now()))
          yield* sql`INSERT INTO ${name} (id, session, tool_use_id, tool, input, digest, reason, rule, asked_at, state, wake)
            VALUES (${a.id}, ${a.session}, ${a.toolUseId}, ${a.name}, ${a.input}, ${a.digest}, ${a.reason ?? null},
              ${a.rule ?? null}, ${a.askedAt}, 'pending', ${a.wake ?? null})
            ON CONFLICT (id) DO NOTHING`.pipe(Effect.mapError(problem(`call '${a.toolUseId}' cannot be parked`)))
          const kept = yield* read(a.id)
          if (Option.isNone(kept)) return yield* fail(`approval ${a.id} was written and is not there`)
          return Approvals.sameCall(kept.value, a) ? kept.value : yield* Approvals.mismatch(kept.value, a)
        }),
      get: read,
      list: (filter) =>
        sql<Row>`SELECT * FROM ${name}
          WHERE (${filter?.state ?? null}::text IS NULL OR state = ${filter?.state ?? null})
            AND (${filter?.session ?? null}::text IS NULL OR session = ${filter?.session ?? null})
          ORDER BY asked_at, id`.pipe(
          Effect.mapError(problem("cannot be read")),
          Effect.flatMap((rows) =>
            Effect.forEach(rows, (row) => {
              const approval = approvalOf(row)
              return Result.isSuccess(approval) ? Effect.succeed(approval.success) : Effect.fail(fail(approval.failure))
            })
          )
        ),
      answer: (id, answer) =>
        Effect.gen(function* () {
          const refused = (problem: string) => new Approvals.AnswerRefused({ id: String(id), problem })
          const checked = Approvals.checkAnswer(answer)
          if (checked !== undefined) return yield* refused(checked)
          const kept = yield* read(id)
          if (Option.isNone(kept)) return yield* refused("there is no such approval")
          const refusal = Approvals.refusal(kept.value, answer)
          if (refusal !== undefined) return yield* refused(refusal)
          const done = Approvals.answered(kept.value, answer, Date.now())
          const changed = yield* sql<{ readonly id: string }>`UPDATE ${name}
            SET state = ${done.state}, answered_by = ${done.by ?? null}, answer_reason = ${done.answerReason ?? null},
              answered_at = ${done.answeredAt ?? null}
            WHERE id = ${id} AND state = 'pending' RETURNING id`.pipe(
            Effect.mapError(problem(`the answer to approval ${id} cannot be recorded`))
          )
          if (changed.length === 1) return done
          // Another answer was taken between the read and the write: say whose.
          const now = yield* read(id)
          const after = Option.isSome(now) ? Approvals.refusal(now.value, answer) : undefined
          return yield* refused(after ?? "it was answered by someone else meanwhile")
        })
    }
    return store
  })
