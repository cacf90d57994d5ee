/**
 * The judge of the soak's approvals on made-up evidence: a conversation where all went well
 * passes; a denied call that ran, an approved call that ran twice, an ask left pending, a call
 * asked about with no approval, a waiting line of an approval the table does not hold, and a
 * conversation given up with every ask answered are each found and counted. Also the policy's
 * share, the soak's answers and the lines the children print.
 */
import { Approvals } from "@agent-harness/idempotency"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Result } from "effect"
import * as PgSoakAnswerer from "../src/postgres/PgSoakAnswerer.ts"
import type * as PgSoakAnswering from "../src/postgres/PgSoakAnswering.ts"
import * as PgSoakApprovals from "../src/postgres/PgSoakApprovals.ts"
import * as PgSoakApprovalsJudge from "../src/postgres/PgSoakApprovalsJudge.ts"
import type * as PgSoakJudge from "../src/postgres/PgSoakJudge.ts"
import * as PgSoakWorkflows from "../src/postgres/PgSoakWorkflows.ts"

const run = PgSoakWorkflows.runOf(2, 77)
const calls = PgSoakWorkflows.turns(run.run, run.seed).flat()
const asked = calls.filter(PgSoakApprovals.asks)
const denial = `not executed: denied: ${PgSoakApprovals.denyReason}`

/** The approval row of an asked call, answered as the soak answers it (or pending). */
const rowOf = (call: (typeof calls)[number], state: "answered" | "pending" = "answered"): Approvals.Approval => {
  const made = Approvals.prepare("test", { session: run.id, toolUseId: call.id, name: call.name, input: call.input }, 1)
  if (Result.isFailure(made)) throw made.failure
  return state === "pending"
    ? made.success
    : Approvals.answered(made.success, PgSoakApprovals.answerFor(run.seed, call.id), 2)
}

const givenOf = (row: Approvals.Approval): PgSoakAnswering.Given => ({
  id: row.id,
  session: row.session,
  call: row.toolUseId,
  approve: PgSoakApprovals.approves(run.seed, row.toolUseId),
  hold: false,
  answered: Deferred.makeUnsafe<void>(),
  held: Deferred.makeUnsafe<void>(),
  woken: Deferred.makeUnsafe<boolean>(),
  sends: 1,
  wakeLost: false
})

/** A conversation where all went well: every asked call answered, approved ones ran once. */
const healthy = () => {
  const rows = asked.map((call) => rowOf(call))
  const marks = new Map(
    calls
      .filter((c) => c.name === "append" && (!PgSoakApprovals.asks(c) || PgSoakApprovals.approves(run.seed, c.id)))
      .map((c) => [c.id, 1])
  )
  const observed = new Map<string, PgSoakJudge.Observed>(
    calls.map((c) => [
      c.id,
      PgSoakApprovals.asks(c) && !PgSoakApprovals.approves(run.seed, c.id)
        ? { content: denial, isError: true }
        : { content: "appended", isError: false }
    ])
  )
  const parked = rows.map((row) => ({
    line: { id: row.id, session: row.session, call: row.toolUseId, digest: row.digest, askedAt: row.askedAt },
    runner: "runner :1 #1"
  }))
  return {
    ended: { run, observed, millis: 1, problem: undefined } as PgSoakJudge.Ended,
    rows,
    marks,
    lines: [],
    record: { parked, given: new Map(rows.map((row) => [row.id, givenOf(row)])) }
  }
}

const denied = asked.find((c) => !PgSoakApprovals.approves(run.seed, c.id))
const approved = asked.find((c) => PgSoakApprovals.approves(run.seed, c.id))

describe("the approvals judge", () => {
  it("the seed's conversation asks about some appends, and the soak approves some and denies others", () => {
    assert.isAbove(asked.length, 0)
    assert.isTrue(asked.every((c) => c.name === "append" && c.input.path === "r2/log-1.txt"))
    assert.isDefined(denied)
    assert.isDefined(approved)
    assert.deepStrictEqual(PgSoakApprovals.answerFor(run.seed, denied?.id ?? ""), {
      approve: false,
      by: PgSoakApprovals.answerer,
      reason: PgSoakApprovals.denyReason
    })
  })

  it("all well: no violation, the counts", () => {
    const found = PgSoakApprovalsJudge.check(healthy())
    assert.deepStrictEqual(found.violations, [])
    assert.deepStrictEqual(found.counts, {
      asks: asked.length,
      approved: asked.filter((c) => PgSoakApprovals.approves(run.seed, c.id)).length,
      denied: asked.filter((c) => !PgSoakApprovals.approves(run.seed, c.id)).length,
      deniedRan: 0,
      approvedTwice: 0,
      lost: 0,
      reparked: 0
    })
  })

  it("a denied call whose mark is in the files ran: denied_ran", () => {
    const evidence = healthy()
    const found = PgSoakApprovalsJudge.check({
      ...evidence,
      marks: new Map([...evidence.marks, [denied?.id ?? "", 1]])
    })
    assert.strictEqual(found.counts.deniedRan, 1)
    assert.include(found.violations.join("\n"), `${denied?.id} was denied and ran: its mark is in the files 1 times`)
  })

  it("an approved call whose mark is there twice: approved_twice", () => {
    const evidence = healthy()
    const found = PgSoakApprovalsJudge.check({
      ...evidence,
      marks: new Map([...evidence.marks, [approved?.id ?? "", 2]])
    })
    assert.strictEqual(found.counts.approvedTwice, 1)
    assert.include(found.violations.join("\n"), `${approved?.id} was approved once and ran 2 times`)
  })

  it("an approval still pending when the conversation finished, a call asked about with no approval: lost", () => {
    const evidence = healthy()
    const [first, second] = asked
    const rows = evidence.rows.flatMap((row) =>
      row.toolUseId === first?.id
        ? []
        : row.toolUseId === second?.id && second !== undefined
          ? [rowOf(second, "pending")]
          : [row]
    )
    const found = PgSoakApprovalsJudge.check({ ...evidence, rows, record: { ...evidence.record, parked: [] } })
    assert.strictEqual(found.counts.lost, 2)
    assert.include(found.violations.join("\n"), `${first?.id} was asked about and answered`)
    assert.include(found.violations.join("\n"), `is still pending, and the conversation finished`)
  })

  it("a waiting line of an approval the table does not hold is lost; one that differs from the table is said", () => {
    const evidence = healthy()
    const [one, two] = evidence.record.parked
    if (one === undefined || two === undefined) throw new Error("two parked lines expected")
    const parked = [
      one,
      { line: { ...one.line, id: "ffffffffffffffff" }, runner: "runner :1 #1" },
      { line: { ...two.line, askedAt: 99 }, runner: "runner :1 #2" }
    ]
    const found = PgSoakApprovalsJudge.check({ ...evidence, record: { ...evidence.record, parked } })
    assert.strictEqual(found.counts.lost, 1)
    assert.include(found.violations.join("\n"), "ffffffffffffffff, which the table does not hold")
    assert.include(
      found.violations.join("\n"),
      `runner :1 #2 saw approval ${two.line.id} as ${two.line.call} asked at 99`
    )
  })

  it("the same waiting approval seen again by a later runner counts as reparked", () => {
    const evidence = healthy()
    const [one] = evidence.record.parked
    if (one === undefined) throw new Error("a parked line expected")
    const parked = [...evidence.record.parked, { line: one.line, runner: "runner :2 #3" }]
    const found = PgSoakApprovalsJudge.check({ ...evidence, record: { ...evidence.record, parked } })
    assert.deepStrictEqual(found.violations, [])
    assert.strictEqual(found.counts.reparked, 1)
  })

  it("a conversation given up with every ask answered is a lost ask; an approval for an allowed call is said", () => {
    const evidence = healthy()
    const allowed = calls.find((c) => !PgSoakApprovals.asks(c))
    if (allowed === undefined) throw new Error("an allowed call expected")
    const extra = rowOf(allowed)
    const found = PgSoakApprovalsJudge.check({
      ...evidence,
      ended: { run, observed: undefined, millis: 1, problem: "given up", stalled: true },
      rows: [...evidence.rows, extra]
    })
    assert.strictEqual(found.counts.lost, 1)
    assert.include(found.violations.join("\n"), "it never ended, although every ask of it was answered")
    assert.include(
      found.violations.join("\n"),
      `${allowed.id} was parked (approval ${extra.id}), and the policy allows it`
    )
  })
})

describe("the children's lines", () => {
  it("the answering child reads answers and go-aheads, nothing else", () => {
    assert.deepStrictEqual(PgSoakAnswerer.readCommand('{"answer":"ab12","approve":false,"hold":true}'), {
      _tag: "Answer",
      id: "ab12",
      approve: false,
      hold: true
    })
    assert.deepStrictEqual(PgSoakAnswerer.readCommand('{"go":"ab12"}'), { _tag: "Go", id: "ab12" })
    assert.isUndefined(PgSoakAnswerer.readCommand('{"answer":"ab12"}'))
    assert.isUndefined(PgSoakAnswerer.readCommand("hold"))
  })

  it("a runner's parked line reads back", () => {
    const row = rowOf(
      asked[0] ?? calls[0] ?? { id: "a1", name: "append", input: { path: "r2/log-1.txt", content: "" } },
      "pending"
    )
    const line = JSON.parse(JSON.stringify(PgSoakApprovals.parkedLine(row)))
    assert.deepStrictEqual(PgSoakApprovals.readParked(line), {
      id: row.id,
      session: run.id,
      call: row.toolUseId,
      digest: row.digest,
      askedAt: row.askedAt
    })
    assert.isUndefined(PgSoakApprovals.readParked({ parked: { id: 1 } }))
    assert.deepStrictEqual(PgSoakApprovals.runOfSession(run.id), run)
  })
})
