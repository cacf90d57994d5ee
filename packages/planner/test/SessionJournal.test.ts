/**
 * Sessions over a durable journal (the idempotency package's SQLite store): every session has
 * its own id and its steps run with call ids `<session>/step-<revision>-<id>`, so two sessions on
 * one journal both run their non-idempotent steps, and a session run again with the same id (a
 * resume after a crash) replays what it had finished instead of running it again.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Journal, SqliteStore } from "@agent-harness/idempotency"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Schema } from "effect"
import { RulePlanner, Session, Step } from "../src/index.ts"

const temp = mkdtempSync(join(tmpdir(), "planner-journal-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

/** A card charge: not idempotent (the default annotations); notes the call id of every run. */
const charging = () => {
  const ran: Array<string> = []
  const charge = Tool.make("charge", {
    description: "Charges the card",
    parameters: Schema.Struct({ amount: Schema.Finite }),
    run: ({ amount }, { id }) => {
      ran.push(id)
      return `charged ${amount} (charge #${ran.length})`
    }
  })
  return { toolset: Toolset.make(charge), ran }
}

const chargeTen = (toolset: Toolset.Toolset<Tool.Any>, sessionId?: string) =>
  Session.run({
    goal: "charge 10",
    sessionId,
    planner: RulePlanner.make([{ when: null, plan: [Step.make(1, "charge", { amount: 10 }, "10 charged")] }]),
    toolset,
    maxSteps: 1,
    maxReplans: 0
  })

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe("Session ids and call ids", () => {
  it.effect("each session gets a fresh id unless given; its steps run with <session>/step-<revision>-<id>", () =>
    Effect.gen(function* () {
      const { toolset, ran } = charging()
      const first = yield* chargeTen(toolset)
      const second = yield* chargeTen(toolset)
      const given = yield* chargeTen(toolset, "order-1234")
      assert.match(first.session_id, uuid)
      assert.match(second.session_id, uuid)
      assert.notStrictEqual(first.session_id, second.session_id)
      assert.strictEqual(given.session_id, "order-1234")
      assert.deepStrictEqual(ran, [
        `${first.session_id}/step-0-1`,
        `${second.session_id}/step-0-1`,
        "order-1234/step-0-1"
      ])
      assert.strictEqual(Session.callId("order-1234", 0, 1), "order-1234/step-0-1")
      // The events say it too: the call id of each started step, the session id at the end.
      assert.deepStrictEqual(
        given.events.flatMap((e) =>
          e.type === "step.started" ? [e.tool_use_id] : e.type === "session.finished" ? [e.session_id] : []
        ),
        ["order-1234/step-0-1", "order-1234"]
      )
    })
  )

  it.effect("an empty session id is a programming error, named as such, and nothing runs", () =>
    Effect.gen(function* () {
      const { toolset, ran } = charging()
      for (const bad of ["", "  "]) {
        const exit = yield* Effect.exit(chargeTen(toolset, bad))
        assert.isTrue(Exit.isFailure(exit))
        const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        assert.instanceOf(defect, RangeError)
        assert.strictEqual(
          (defect as RangeError).message,
          `a session id must be a non-empty string, got ${JSON.stringify(bad)}: give none to have one generated`
        )
      }
      assert.deepStrictEqual(ran, [])
    })
  )
})

describe("Sessions over one durable journal (SQLite)", () => {
  it.effect("two sessions both run their non-idempotent step; one resumed with its id replays it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const file = join(temp, "sessions.sqlite")
        const { toolset, ran } = charging()
        const journaled = (sessionId?: string) =>
          Effect.scoped(
            Effect.flatMap(SqliteStore.make(file), (store) =>
              chargeTen(toolset, sessionId).pipe(Effect.provide(Journal.layer(store)))
            )
          )
        const first = yield* journaled()
        const second = yield* journaled()
        // Both charged: the second was not handed the first one's result.
        assert.strictEqual(ran.length, 2)
        assert.deepStrictEqual(
          [first, second].map((r) => [r.reason, r.history[0]?.result]),
          [
            ["goal_met", "charged 10 (charge #1)"],
            ["goal_met", "charged 10 (charge #2)"]
          ]
        )
        // The first resumed on purpose: its finished step is replayed, not charged again.
        const resumed = yield* journaled(first.session_id)
        assert.strictEqual(ran.length, 2)
        assert.strictEqual(resumed.session_id, first.session_id)
        assert.strictEqual(resumed.reason, "goal_met")
        assert.strictEqual(resumed.history[0]?.result, "charged 10 (charge #1)")
        // The journal holds one entry per session's call.
        const entries = yield* Effect.scoped(Effect.flatMap(SqliteStore.make(file), (store) => store.entries))
        assert.deepStrictEqual(
          entries.map((e) => [e.id, e.state]),
          [
            [`${first.session_id}/step-0-1`, "done"],
            [`${second.session_id}/step-0-1`, "done"]
          ]
        )
      })
    )
  )

  it.effect("a session whose charge started and never finished (a crash), resumed: outcome unknown, not run", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const file = join(temp, "crash.sqlite")
        const { toolset, ran } = charging()
        const store = yield* SqliteStore.make(file)
        // What a crash mid-call leaves: the started mark of the session's call id.
        yield* store.start(Session.callId("crashed", 0, 1), "charge", { amount: 10 })
        const resumed = yield* chargeTen(toolset, "crashed").pipe(Effect.provide(Journal.layer(store)))
        assert.deepStrictEqual(ran, [])
        assert.strictEqual(resumed.reason, "replan_budget")
        assert.match(resumed.history[0]?.error ?? "", /^outcome unknown: /)
      })
    )
  )
})
