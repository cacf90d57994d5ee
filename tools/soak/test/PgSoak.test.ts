/**
 * The Postgres soak, for real: two runner processes sharing a database, killed with SIGKILL
 * while plan sessions and conversations run (every other kill inside an append that ran, before
 * its outcome was recorded), their sessions taken over and resumed. No append runs twice, every
 * call the journal holds as started and never finished is reported outcome unknown, finished
 * calls are replayed, never run again. Run once more without the journal, the soak must find
 * the appends a takeover runs twice. Needs Postgres (a throwaway cluster, or DATABASE_URL):
 * without it the tests say why and are skipped (in CI, where a skip would pass unseen, they fail).
 */
import * as Testing from "@agent-harness/postgres-tool/testing"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as PgSoak from "../src/postgres/PgSoak.ts"
import * as PgSoakRunner from "../src/postgres/PgSoakRunner.ts"
import * as PgSoakWorkflows from "../src/postgres/PgSoakWorkflows.ts"
import * as Soak from "../src/local/Soak.ts"
import * as SoakConversation from "../src/local/SoakConversation.ts"

const timeout = 600_000
/** The database's URL; without one the test is skipped, saying why (in CI it fails). */
const urlOr = Testing.suiteDatabase({ beforeAll, afterAll }, timeout).url

describe("the Postgres soak", () => {
  it(
    "on two runners killed at random and inside appends: nothing ran twice, every unfinished call reported unknown",
    async (ctx) => {
      const url = urlOr(ctx)
      const reports: Array<PgSoak.RunReport> = []
      const summary = await Effect.runPromise(
        PgSoak.run({
          // Long enough for kills in the middle of runs: the first round's kills land in the
          // first appends, where a takeover has next to nothing to replay (12 runs of 0.5–1.5 s
          // gaps replayed 3 or 4 calls, once none); these replayed 300 to 1,200.
          runs: 24,
          runners: 2,
          url,
          seed: 500,
          killEvery: { min: 300, max: 800 },
          onRun: (report) => Effect.sync(() => void reports.push(report))
        })
      )
      assert.deepStrictEqual(summary.violations, [])
      assert.isUndefined(summary.bundleError)
      assert.strictEqual(summary.runs, 24)
      assert.strictEqual(summary.runners, 2)
      assert.isAbove(summary.kills, 0)
      // Every other kill was asked to land inside an append: at least one did, and left a call
      // whose outcome is unknown.
      assert.isAbove(summary.held, 0)
      assert.strictEqual(summary.duplicated, 0)
      assert.strictEqual(summary.unknown, summary.unfinished)
      assert.isAtLeast(summary.unknown, summary.held)
      assert.isAbove(summary.replayed, 0)
      assert.deepStrictEqual(
        reports.map((r) => r.run).sort((a, b) => a - b),
        Array.from({ length: 24 }, (_, i) => i + 1)
      )
      assert.deepStrictEqual([...new Set(reports.map((r) => r.kind))].sort(), ["conversation", "session"])
      assert.deepStrictEqual(JSON.parse(Soak.summaryJson(summary)), {
        runs: 24,
        kills: summary.kills,
        duplicated: 0,
        unknown: summary.unknown,
        replayed: summary.replayed
      })
    },
    timeout
  )

  it(
    "without the journal, the soak finds the appends a takeover runs twice",
    async (ctx) => {
      const url = urlOr(ctx)
      const summary = await Effect.runPromise(
        PgSoak.run({
          runs: 8,
          runners: 2,
          url,
          seed: 900,
          killEvery: { min: 500, max: 1500 },
          withoutJournal: true,
          keepFailed: false
        })
      )
      assert.isAbove(summary.held, 0)
      assert.isAbove(summary.duplicated, 0)
      assert.isFalse(Soak.passed(summary))
      // Twice or more: a kill in the first round and another later can both hit the same append.
      assert.isTrue(
        summary.violations.some((v) => /ran ([2-9]|\d{2,}) times: its mark is in the files \1 times/.test(v))
      )
    },
    timeout
  )
})

describe("the Postgres soak's sessions", () => {
  it("odd runs are plan sessions, even runs conversations, each in its own folder", () => {
    assert.deepStrictEqual(PgSoakWorkflows.runOf(3, 12), { run: 3, seed: 12, kind: "session", id: "run-3-seed-12" })
    assert.strictEqual(PgSoakWorkflows.runOf(4, 13).kind, "conversation")
    const turns = PgSoakWorkflows.turns(3, 12)
    const calls = SoakConversation.calls(SoakConversation.conversation(12))
    assert.deepStrictEqual(
      turns.flat().map((c) => [c.id, c.input.path]),
      calls.map((c) => [c.id, `r3/${c.input.path}`])
    )
    // The plan: a step per call, numbered as the call, each turn one concurrent group.
    const plan = PgSoakWorkflows.plan(3, 12)
    assert.deepStrictEqual(
      plan.map((s) => s.id),
      calls.map((c) => Number(c.id.slice(1)))
    )
    assert.deepStrictEqual(
      [...new Set(plan.map((s) => s.group))],
      turns.map((_, t) => `turn-${t + 1}`)
    )
  })

  it("a runner's line names the soak's call id of a plan step or a conversation call", () => {
    const step = { _tag: "Succeeded", id: "run-3-seed-12/step-0-17", name: "append", value: "", content: "ok" } as const
    assert.deepStrictEqual(PgSoakRunner.lineOf(step, "run-3-seed-12"), {
      session: "run-3-seed-12",
      id: "a17",
      outcome: "Succeeded"
    })
    const unknown = {
      _tag: "Failed",
      id: "w4",
      name: "write",
      failure: { _tag: "OutcomeUnknown" },
      content: "unknown"
    } as const
    assert.deepStrictEqual(PgSoakRunner.lineOf(unknown, "run-4-seed-13"), {
      session: "run-4-seed-13",
      id: "w4",
      outcome: "Failed",
      failure: "OutcomeUnknown"
    })
  })

  it("the soak's paths are r<run>/<file>: anything else is refused as a defect", async () => {
    const files = PgSoakWorkflows.folders("/nonexistent-root")
    const exit = await Effect.runPromiseExit(files.append("log.txt", "x"))
    assert.strictEqual(exit._tag, "Failure")
  })
})
