/**
 * The approvals of a journal file: its `approvals` table as an `Approvals.Store`. Parking is
 * `INSERT … ON CONFLICT DO NOTHING` then a read (the row already there wins); answering is a
 * conditional `UPDATE … WHERE state = 'pending'`, so of two answers given at once exactly one is
 * taken. Each is one commit (WAL, `synchronous = FULL`): on disk before it returns.
 */
import type * as Sqlite from "node:sqlite"
import { Effect, Option, Result } from "effect"
import * as Approvals from "../Approvals.ts"

const columns =
  "id, session, tool_use_id, tool, input, digest, reason, rule, asked_at, state, answered_by, answer_reason, answered_at, wake"

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isSafeInteger(value)
    ? value
    : typeof value === "bigint"
      ? Number(value)
      : undefined

/** A row as an approval, or what is wrong with it. */
const approvalOfRow = (row: Record<string, unknown>): Result.Result<Approvals.Approval, string> => {
  const id = text(row.id)
  const session = text(row.session)
  const toolUseId = text(row.tool_use_id)
  const name = text(row.tool)
  const input = text(row.input)
  const digest = text(row.digest)
  const askedAt = count(row.asked_at)
  const state = row.state
  if (
    id === undefined ||
    session === undefined ||
    toolUseId === undefined ||
    name === undefined ||
    input === undefined ||
    digest === undefined ||
    askedAt === undefined ||
    (state !== "pending" && state !== "approved" && state !== "denied")
  ) {
    return Result.fail(`approval row ${JSON.stringify(row.id ?? null)} does not read as an approval`)
  }
  return Result.succeed({
    id,
    session,
    toolUseId,
    name,
    input,
    digest,
    reason: text(row.reason),
    rule: count(row.rule),
    askedAt,
    state,
    by: text(row.answered_by),
    answerReason: text(row.answer_reason),
    answeredAt: count(row.answered_at),
    wake: text(row.wake)
  })
}

/** The approvals store over an open journal database. */
export const make = (file: string, db: Sqlite.DatabaseSync): Approvals.Store => {
  const insert = db.prepare(
    `INSERT INTO approvals (id, session, tool_use_id, tool, input, digest, reason, rule, asked_at, state, wake)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?) ON CONFLICT (id) DO NOTHING`
  )
  const byId = db.prepare(`SELECT ${columns} FROM approvals WHERE id = ?`)
  const all = db.prepare(`SELECT ${columns} FROM approvals ORDER BY asked_at, id`)
  const update = db.prepare(
    `UPDATE approvals SET state = ?, answered_by = ?, answer_reason = ?, answered_at = ?
     WHERE id = ? AND state = 'pending'`
  )
  const fail = (problem: string) => new Approvals.ApprovalError({ store: file, problem })
  const attempt = <A>(what: string, f: () => A): Effect.Effect<A, Approvals.ApprovalError> =>
    Effect.try({ try: f, catch: (error) => fail(`${what}: ${messageOf(error)}`) })
  const read = (id: string): Effect.Effect<Option.Option<Approvals.Approval>, Approvals.ApprovalError> =>
    Effect.flatMap(
      attempt("read", () => byId.get(id)),
      (row) => {
        if (row === undefined) return Effect.succeed(Option.none())
        const approval = approvalOfRow(row)
        return Result.isSuccess(approval)
          ? Effect.succeed(Option.some(approval.success))
          : Effect.fail(fail(approval.failure))
      }
    )
  return {
    location: file,
    park: (ask) =>
      Effect.gen(function* () {
        const fresh = yield* Effect.fromResult(Approvals.prepare(file, ask, Date.now()))
        const a = fresh
        yield* attempt("write", () =>
          insert.run(
            a.id,
            a.session,
            a.toolUseId,
            a.name,
            a.input,
            a.digest,
            a.reason ?? null,
            a.rule ?? null,
            a.askedAt,
            a.wake ?? null
          )
        )
        const kept = yield* read(a.id)
        if (Option.isNone(kept)) return yield* fail(`approval ${a.id} was written and is not there`)
        return Approvals.sameCall(kept.value, a) ? kept.value : yield* Approvals.mismatch(kept.value, a)
      }),
    get: (id) => (typeof id === "string" ? read(id) : Effect.succeed(Option.none())),
    list: (filter) =>
      Effect.flatMap(
        attempt("read", () => all.all()),
        (rows) =>
          Effect.forEach(rows, (row) => {
            const approval = approvalOfRow(row)
            return Result.isSuccess(approval) ? Effect.succeed(approval.success) : Effect.fail(fail(approval.failure))
          }).pipe(
            Effect.map((approvals) =>
              approvals.filter(
                (a) =>
                  (filter?.state === undefined || a.state === filter.state) &&
                  (filter?.session === undefined || a.session === filter.session)
              )
            )
          )
      ),
    answer: (id, answer) =>
      Effect.gen(function* () {
        const problem = Approvals.checkAnswer(answer)
        if (problem !== undefined) return yield* new Approvals.AnswerRefused({ id: String(id), problem })
        const kept = yield* read(id)
        if (Option.isNone(kept)) return yield* new Approvals.AnswerRefused({ id, problem: "there is no such approval" })
        const refused = Approvals.refusal(kept.value, answer)
        if (refused !== undefined) return yield* new Approvals.AnswerRefused({ id, problem: refused })
        const done = Approvals.answered(kept.value, answer, Date.now())
        const changed = yield* attempt("write", () =>
          update.run(done.state, done.by ?? null, done.answerReason ?? null, done.answeredAt ?? null, id)
        )
        if (Number(changed.changes) === 1) return done
        // Another answer was taken between the read and the write: say whose.
        const now = yield* read(id)
        const after = Option.isSome(now) ? Approvals.refusal(now.value, answer) : undefined
        return yield* new Approvals.AnswerRefused({ id, problem: after ?? "it was answered by someone else meanwhile" })
      })
  }
}
