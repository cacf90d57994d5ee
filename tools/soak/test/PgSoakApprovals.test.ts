/**
 * The Postgres soak with approvals, for real: two runner processes whose conversations park the
 * calls the soak's policy asks about, an answering child that answers them (approve or deny, by
 * the seed) from another process, and a killer that SIGKILLs runners while calls wait, runners
 * and the answering child between an answer's write and its wake, and runners right after it.
 * No denied call runs, no approved call runs twice, no ask is lost, the pending approvals are the
 * same after every restart. Run once more with runners that read denied approvals as approved,
 * the soak must find the denied calls that ran. Needs Postgres (a throwaway cluster, or
 * DATABASE_URL): without it the tests say why and are skipped (in CI, where a skip would pass
 * unseen, they fail).
 */
import * as Testing from "@agent-harness/postgres-tool/testing"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as PgSoak from "../src/postgres/PgSoak.ts"
import * as PgSoakCommand from "../src/postgres/PgSoakCommand.ts"
import { soakAsync } from "./fixtures/soak.ts"

const timeout = 600_000
/** The database's URL; without one the test is skipped, saying why (in CI it fails). */
const urlOr = Testing.suiteDatabase({ beforeAll, afterAll }, timeout).url

describe("the Postgres soak with approvals", () => {
  it(
    "asks answered from another process, kills while they wait, while the answer arrives and right after: no denied call ran, none ran twice, none lost",
    async (ctx) => {
      const url = urlOr(ctx)
      const reports: Array<PgSoak.RunReport> = []
      const summary = await Effect.runPromise(
        PgSoak.run({
          runs: 6,
          runners: 2,
          url,
          seed: 300,
          approvals: true,
          killEvery: { min: 500, max: 1500 },
          onRun: (report) => Effect.sync(() => void reports.push(report))
        })
      )
      const a = summary.approvals
      assert.deepStrictEqual(summary.violations, [])
      assert.isDefined(a)
      if (a === undefined) return
      console.log(`approvals soak: ${PgSoakCommand.summaryLine(summary)}`)
      assert.isUndefined(summary.bundleError)
      assert.strictEqual(summary.runs, 6)
      assert.isAbove(summary.kills, 0)
      assert.strictEqual(summary.duplicated, 0)
      assert.strictEqual(summary.unknown, summary.unfinished)
      assert.isAbove(a.asks, 0)
      assert.isAbove(a.approved, 0)
      assert.isAbove(a.denied, 0)
      assert.strictEqual(a.approved + a.denied, a.asks)
      assert.deepStrictEqual([a.deniedRan, a.approvedTwice, a.lost], [0, 0, 0])
      // The kills landed where an answer can be caught: while calls waited, between an answer's
      // write and its wake (answering child or runner), right after it.
      assert.isAbove(a.killsWaiting, 0)
      assert.isAbove(a.killsAnswering, 0)
      assert.isAbove(a.killsAnswered, 0)
      // An answering child killed after its write, before its wake: no one woke the conversation,
      // and it took the answer all the same (nothing was lost).
      assert.isAbove(a.wakesLost, 0)
      // A run killed right after it said its call waits, resumed on the restarted runner or the
      // other: it found the same approval waiting; and the pending approvals read before each kill
      // were there, the same, after the restart.
      assert.isAbove(a.reparked, 0)
      assert.isAbove(a.pendingKept, 0)
      assert.isTrue(PgSoakCommand.passed(summary))
      // Conversations report their asks; plan sessions have none.
      const conversations = reports.filter((r) => r.kind === "conversation")
      assert.strictEqual(conversations.length, 3)
      assert.strictEqual(
        conversations.reduce((n, r) => n + (r.asks?.parked ?? 0), 0),
        a.asks
      )
      assert.isTrue(reports.filter((r) => r.kind === "session").every((r) => r.asks === undefined))
      const json = JSON.parse(PgSoakCommand.summaryJson(summary)) as Record<string, number>
      assert.deepStrictEqual(Object.keys(json), [
        "runs",
        "kills",
        "duplicated",
        "unknown",
        "replayed",
        "asks",
        "approved",
        "denied",
        "denied_ran",
        "approved_twice",
        "lost",
        "kills_waiting",
        "kills_answering",
        "kills_answered"
      ])
      assert.deepStrictEqual([json.asks, json.denied_ran, json.approved_twice, json.lost], [a.asks, 0, 0, 0])
    },
    timeout
  )

  it(
    "runners that read denied approvals as approved: the soak finds the denied calls that ran, and fails",
    async (ctx) => {
      const url = urlOr(ctx)
      const summary = await Effect.runPromise(
        PgSoak.run({
          runs: 2,
          runners: 2,
          url,
          seed: 312,
          approvals: true,
          approveDenied: true,
          killEvery: { min: 500, max: 1500 },
          keepFailed: false
        })
      )
      const a = summary.approvals
      assert.isDefined(a)
      assert.isAbove(a?.denied ?? 0, 0)
      assert.isAbove(a?.deniedRan ?? 0, 0)
      assert.isFalse(PgSoakCommand.passed(summary))
      assert.isTrue(summary.violations.some((v) => /a\d+ was denied and ran: its mark is in the files 1 times/.test(v)))
      assert.isTrue(summary.violations.some((v) => /a\d+ was denied, and the model read "appended/.test(v)))
      assert.strictEqual(JSON.parse(PgSoakCommand.summaryJson(summary)).denied_ran, a?.deniedRan)
    },
    timeout
  )

  it(
    "from the command line, --approvals --json: no progress lines, the last line exactly the summary with the approvals' figures; exit 0",
    async (ctx) => {
      const url = urlOr(ctx)
      const args = ["--engine", "postgres", "--runners", "1", "--runs", "2", "--seed", "335", "--approvals", "--json"]
      const ran = await soakAsync([...args, "--database-url", url], 400_000)
      assert.strictEqual(ran.code, 0, ran.stderr.slice(-3000))
      const lines = ran.stdout.trim().split("\n")
      assert.strictEqual(lines.length, 1, ran.stdout)
      const summary = JSON.parse(lines[0] ?? "") as Record<string, number>
      assert.deepStrictEqual(Object.keys(summary), [
        "runs",
        "kills",
        "duplicated",
        "unknown",
        "replayed",
        "asks",
        "approved",
        "denied",
        "denied_ran",
        "approved_twice",
        "lost",
        "kills_waiting",
        "kills_answering",
        "kills_answered"
      ])
      assert.strictEqual(summary.runs, 2)
      assert.isAbove(summary.asks ?? 0, 0)
      assert.deepStrictEqual(
        [summary.duplicated, summary.denied_ran, summary.approved_twice, summary.lost],
        [0, 0, 0, 0]
      )
    },
    timeout
  )
})
