/**
 * The Postgres soak's judge of one conversation's approvals (`--approvals`), once every runner
 * has stopped: the approvals table's rows of the conversation, the marks in its folder, its
 * result, what the runners said and what the answering side did.
 *
 * - `denied_ran`: a call whose approval was denied and whose mark is in the files (or that a
 *   runner ran);
 * - `approved_twice`: an approved call whose mark is in the files more than once;
 * - `lost`: an approval still pending at the end of a conversation that finished or was given
 *   up, a call the policy asks about (or a `parked` line) with no approval row, and a
 *   conversation given up although no answer to it was still to come;
 * - and, as violations: an approval row for a call the policy allows, an approval whose input is
 *   not its call's, an answer that is not the soak's, a denied call the model was not told was
 *   denied, and a `parked` line whose approval is not the one the table holds (a run resumed on
 *   another runner must find the same pending approval, not a new one).
 *
 * @since 0.1.0
 */
import type { Approvals } from "@agent-harness/idempotency"
import { Canonical } from "@agent-harness/tool-schema"
import { Result } from "effect"
import type * as PgSoakAnswering from "./PgSoakAnswering.ts"
import * as PgSoakApprovals from "./PgSoakApprovals.ts"
import type * as PgSoakJudge from "./PgSoakJudge.ts"
import type * as PgSoakRunner from "./PgSoakRunner.ts"
import * as PgSoakWorkflows from "./PgSoakWorkflows.ts"

/**
 * What the approvals of one conversation (or of the whole soak) come to.
 *
 * @since 0.1.0
 */
export interface Counts {
  /** Approvals parked (rows in the table). */
  readonly asks: number
  readonly approved: number
  readonly denied: number
  /** Denied calls that ran: must be 0. */
  readonly deniedRan: number
  /** Approved calls that ran more than once: must be 0. */
  readonly approvedTwice: number
  /** Asks lost: must be 0. */
  readonly lost: number
  /** `parked` lines of a pending approval printed by a later runner life than the first one's. */
  readonly reparked: number
}

/**
 * No approvals.
 *
 * @since 0.1.0
 */
export const zero: Counts = { asks: 0, approved: 0, denied: 0, deniedRan: 0, approvedTwice: 0, lost: 0, reparked: 0 }

/**
 * Two counts added.
 *
 * @since 0.1.0
 */
export const add = (a: Counts, b: Counts): Counts => ({
  asks: a.asks + b.asks,
  approved: a.approved + b.approved,
  denied: a.denied + b.denied,
  deniedRan: a.deniedRan + b.deniedRan,
  approvedTwice: a.approvedTwice + b.approvedTwice,
  lost: a.lost + b.lost,
  reparked: a.reparked + b.reparked
})

/**
 * What the judge reads of one conversation.
 *
 * @since 0.1.0
 */
export interface Evidence {
  readonly ended: PgSoakJudge.Ended
  /** The approvals table's rows of its session. */
  readonly rows: ReadonlyArray<Approvals.Approval>
  /** Each append's mark count in its folder. */
  readonly marks: ReadonlyMap<string, number>
  /** The runners' outcome lines of its session. */
  readonly lines: ReadonlyArray<PgSoakRunner.OutcomeLine>
  /** What the answering side did (all sessions). */
  readonly record: PgSoakAnswering.Record
}

/**
 * Judges the approvals of one conversation: its violations and counts.
 *
 * @since 0.1.0
 */
export const check = (evidence: Evidence): { readonly violations: ReadonlyArray<string>; readonly counts: Counts } => {
  const { ended, rows, marks, lines, record } = evidence
  const { run } = ended
  const violations: Array<string> = []
  const violation = (text: string) => violations.push(`run ${run.run} (${run.kind}, seed ${run.seed}): ${text}`)
  let deniedRan = 0
  let approvedTwice = 0
  let lost = 0
  const calls = PgSoakWorkflows.turns(run.run, run.seed).flat()
  const asked = calls.filter(PgSoakApprovals.asks)
  const byCall = new Map(rows.map((row) => [row.toolUseId, row]))
  for (const row of rows) {
    if (!asked.some((call) => call.id === row.toolUseId)) {
      violation(`${row.toolUseId} was parked (approval ${row.id}), and the policy allows it`)
    }
  }
  const over = ended.observed !== undefined || ended.problem !== undefined
  for (const call of asked) {
    const row = byCall.get(call.id)
    const count = marks.get(call.id) ?? 0
    const result = ended.observed?.get(call.id)
    const ran = lines.filter((line) => line.id === call.id && line.outcome !== "Replayed")
    if (row === undefined) {
      if (result !== undefined) {
        lost += 1
        violation(`${call.id} was asked about and answered (${result.content}), and has no approval`)
      }
      if (count > 0 || ran.length > 0) violation(`${call.id} ran without an approval`)
      continue
    }
    const input = Canonical.encode(call.input)
    if (Result.isFailure(input) || row.input !== input.success) {
      violation(`approval ${row.id} of ${call.id} is for ${row.input}, not for its call`)
    }
    const given = record.given.get(row.id)
    if (row.state === "pending") {
      if (over) {
        lost += 1
        violation(
          `approval ${row.id} of ${call.id} is still pending, and the conversation ${ended.observed === undefined ? "was given up" : "finished"}`
        )
      }
      if (count > 0 || ran.length > 0) violation(`${call.id} ran, and its approval ${row.id} is pending`)
      continue
    }
    if (row.by !== PgSoakApprovals.answerer || given === undefined || given.approve !== (row.state === "approved")) {
      violation(
        `approval ${row.id} of ${call.id} was ${row.state} by ${row.by ?? "someone"}, and the soak ${given === undefined ? "did not answer it" : given.approve ? "approved it" : "denied it"}`
      )
    }
    if (row.state === "denied") {
      if (count > 0 || ran.length > 0) {
        deniedRan += 1
        violation(
          `${call.id} was denied and ran: its mark is in the files ${count} times, runners ran it ${ran.length} times`
        )
      }
      if (result !== undefined && !(result.isError && result.content.includes(PgSoakApprovals.denyReason))) {
        violation(`${call.id} was denied, and the model read ${JSON.stringify(result.content)}`)
      }
    } else if (count > 1) {
      approvedTwice += 1
      violation(`${call.id} was approved once and ran ${count} times`)
    } else if (result?.content.includes(PgSoakApprovals.denyReason) === true) {
      violation(`${call.id} was approved, and the model read that it was denied`)
    }
  }
  // What the runners said of the approvals they saw waiting: the table's, every time.
  const firstRunner = new Map<string, string>()
  let reparked = 0
  for (const { line, runner } of record.parked) {
    if (line.session !== run.id) continue
    const row = rows.find((r) => r.id === line.id)
    if (row === undefined) {
      lost += 1
      violation(`${runner} said ${line.call} waits for approval ${line.id}, which the table does not hold`)
      continue
    }
    if (row.toolUseId !== line.call || row.digest !== line.digest || row.askedAt !== line.askedAt) {
      violation(
        `${runner} saw approval ${line.id} as ${line.call} asked at ${line.askedAt}, digest ${line.digest.slice(0, 16)}; the table holds ${row.toolUseId} asked at ${row.askedAt}, digest ${row.digest.slice(0, 16)}`
      )
    }
    const first = firstRunner.get(line.id)
    if (first === undefined) firstRunner.set(line.id, runner)
    else if (first !== runner) reparked += 1
  }
  if (ended.stalled === true) {
    lost += 1
    violation("it never ended, although every ask of it was answered")
  }
  return {
    violations,
    counts: {
      asks: rows.length,
      approved: rows.filter((r) => r.state === "approved").length,
      denied: rows.filter((r) => r.state === "denied").length,
      deniedRan,
      approvedTwice,
      lost,
      reparked
    }
  }
}
