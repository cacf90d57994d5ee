import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { type Event, Planner, RulePlanner, Session, SessionResult, Step } from "../src/index.ts"
import { fail, historyIds, ok, recording, scriptedTool, startedIds, step, toolsetOf, types } from "./fixtures.ts"

const finished = (
  status: SessionResult.Status,
  reason: SessionResult.Reason,
  result: { readonly session_id: string }
): Event.Event => ({
  type: "session.finished",
  status,
  reason,
  session_id: result.session_id
})

describe("Session.run: EXEC → NEXT → DONE", () => {
  it.effect("a linear plan runs every step in order and ends completed / goal_met", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("a done")])
      const b = scriptedTool("b", [ok("b done")])
      const c = scriptedTool("c", [ok("c done")])
      const plan = [step(1, "a", { x: 1 }), step(2, "b"), step(3, "c", { y: "z" })]
      const { planner, requests } = recording(RulePlanner.make([{ when: null, plan }]))
      const result = yield* Session.run({
        goal: "do a, b, c",
        planner,
        toolset: toolsetOf(a, b, c),
        maxSteps: 3,
        maxReplans: 0
      })

      expect(result.status).toBe("completed")
      expect(result.reason).toBe("goal_met")
      expect(historyIds(result)).toStrictEqual([1, 2, 3])
      expect(result.history).toStrictEqual([
        { ...plan[0], result: "a done", error: null },
        { ...plan[1], result: "b done", error: null },
        { ...plan[2], result: "c done", error: null }
      ])
      expect(result.revisions).toStrictEqual([])
      expect(result.steps).toBe(3)
      expect(result.replans).toBe(0)
      expect(result.events).toStrictEqual([
        { type: "plan.created", revision: 0, plan },
        { type: "step.started", revision: 0, step: plan[0], tool_use_id: `${result.session_id}/step-0-1` },
        { type: "step.succeeded", revision: 0, id: 1, result: "a done" },
        { type: "step.started", revision: 0, step: plan[1], tool_use_id: `${result.session_id}/step-0-2` },
        { type: "step.succeeded", revision: 0, id: 2, result: "b done" },
        { type: "step.started", revision: 0, step: plan[2], tool_use_id: `${result.session_id}/step-0-3` },
        { type: "step.succeeded", revision: 0, id: 3, result: "c done" },
        finished("completed", "goal_met", result)
      ])
      expect(a.calls.map((call) => call.input)).toStrictEqual([{ x: 1 }])
      expect(c.calls.map((call) => call.input)).toStrictEqual([{ y: "z" }])
      expect(requests).toStrictEqual([{ goal: "do a, b, c", history: [], lastError: null }])
    })
  )

  it.effect("onEvent sees every event as it happens, the same list as the result's", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("a done")])
      const seen: Array<Event.Event> = []
      const result = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([{ when: null, plan: [step(1, "a"), step(2, "a")] }]),
        toolset: toolsetOf(a),
        maxSteps: 5,
        maxReplans: 0,
        onEvent: (event) => Effect.sync(() => void seen.push(event))
      })
      expect(seen).toStrictEqual(result.events)
    })
  )
})

describe("Session.run: EXEC → REPLAN → EXEC", () => {
  it.effect("replans once: the diff compares the old plan from the failed step on with the new plan", () =>
    Effect.gen(function* () {
      const fetch = scriptedTool("fetch", [ok("<html>")])
      const parse = scriptedTool("parse", [fail("parse error: bad json")])
      const parseLenient = scriptedTool("parse_lenient", [ok("parsed")])
      const save = scriptedTool("save", [ok("saved")])
      const notify = scriptedTool("notify", [ok("notified")])
      const report = scriptedTool("report", [ok("reported")])
      const first = [
        step(1, "fetch", { url: "u" }),
        step(2, "parse", {}),
        step(3, "save", { to: "db" }),
        step(4, "notify", { who: "me" })
      ]
      const second = [step(2, "parse_lenient", {}), step(3, "save", { to: "db" }), step(5, "report", {})]
      const { planner, requests } = recording(
        RulePlanner.make([
          { when: null, plan: first },
          { when: "parse error", plan: second }
        ])
      )
      const result = yield* Session.run({
        goal: "import the page",
        planner,
        toolset: toolsetOf(fetch, parse, parseLenient, save, notify, report),
        maxSteps: 10,
        maxReplans: 1
      })

      expect(result.status).toBe("completed")
      expect(result.reason).toBe("goal_met")
      expect(historyIds(result)).toStrictEqual([1, 2, 2, 3, 5])
      const diff = { removed: [4], added: [5], revised: [2] }
      expect(result.revisions).toStrictEqual([diff])
      expect(result.steps).toBe(5)
      expect(result.replans).toBe(1)
      expect(types(result.events)).toStrictEqual([
        "plan.created",
        "step.started",
        "step.succeeded",
        "step.started",
        "step.failed",
        "plan.diff",
        "plan.created",
        "step.started",
        "step.succeeded",
        "step.started",
        "step.succeeded",
        "step.started",
        "step.succeeded",
        "session.finished"
      ])
      expect(result.events[4]).toStrictEqual({
        type: "step.failed",
        revision: 0,
        id: 2,
        error: "parse error: bad json",
        not_executed: false
      })
      expect(result.events[5]).toStrictEqual({
        type: "plan.diff",
        revision: 1,
        last_error: "parse error: bad json",
        diff
      })
      expect(result.events[6]).toStrictEqual({ type: "plan.created", revision: 1, plan: second })
      expect(notify.calls).toHaveLength(0)

      // The replanner saw the goal, the executed steps with their results and errors, and the error.
      expect(requests).toHaveLength(2)
      expect(requests[1]).toStrictEqual({
        goal: "import the page",
        history: [
          { ...first[0], result: "<html>", error: null },
          { ...first[1], result: null, error: "parse error: bad json" }
        ],
        lastError: "parse error: bad json"
      })
    })
  )

  it.effect("replans twice: routes around X, then gives up gracefully on Y", () =>
    Effect.gen(function* () {
      const work = scriptedTool("work", [ok("w")])
      const flaky = scriptedTool("flaky", [fail("X: timed out"), fail("Y: quota exceeded")])
      const wrap = scriptedTool("wrap_up", [ok("wrapped up")])
      const { planner, requests } = recording(
        RulePlanner.make([
          { when: null, plan: [step(1, "work"), step(2, "flaky"), step(3, "work"), step(4, "work")] },
          { when: "X", plan: [step(2, "work"), step(3, "flaky"), step(4, "work")] },
          { when: /^Y:/, plan: [step(3, "wrap_up"), step(4, "wrap_up", { final: true })] }
        ])
      )
      const result = yield* Session.run({
        goal: "g",
        planner,
        toolset: toolsetOf(work, flaky, wrap),
        maxSteps: 20,
        maxReplans: 2
      })

      expect(result.status).toBe("completed")
      expect(result.reason).toBe("goal_met")
      expect(historyIds(result)).toStrictEqual([1, 2, 2, 3, 3, 4])
      expect(result.revisions).toStrictEqual([
        { removed: [], added: [], revised: [2, 3] },
        { removed: [], added: [], revised: [3, 4] }
      ])
      expect(result.replans).toBe(2)
      expect(requests.map((r) => r.lastError)).toStrictEqual([null, "X: timed out", "Y: quota exceeded"])
      const diffs = result.events.flatMap((e) => (e.type === "plan.diff" ? [[e.revision, e.last_error]] : []))
      expect(diffs).toStrictEqual([
        [1, "X: timed out"],
        [2, "Y: quota exceeded"]
      ])
      expect(result.events.filter((e) => e.type === "plan.created").map((e) => e.revision)).toStrictEqual([0, 1, 2])
    })
  )
})

describe("Session.run: REPLAN → FAILED (replan_budget)", () => {
  it.effect("a failure after maxReplans replans ends the session", () =>
    Effect.gen(function* () {
      const broken = scriptedTool("broken", [fail("boom")])
      const { planner, requests } = recording(
        RulePlanner.make([
          { when: null, plan: [step(1, "broken")] },
          { when: "boom", plan: [step(1, "broken", { attempt: "again" })] }
        ])
      )
      const result = yield* Session.run({
        goal: "g",
        planner,
        toolset: toolsetOf(broken),
        maxSteps: 10,
        maxReplans: 2
      })

      expect(result.status).toBe("failed")
      expect(result.reason).toBe("replan_budget")
      expect(result.replans).toBe(2)
      expect(result.steps).toBe(3)
      expect(broken.calls).toHaveLength(3)
      expect(requests).toHaveLength(3)
      expect(result.revisions).toStrictEqual([
        { removed: [], added: [], revised: [1] },
        { removed: [], added: [], revised: [] }
      ])
      expect(result.events.at(-1)).toStrictEqual(finished("failed", "replan_budget", result))
      expect(types(result.events).slice(-3)).toStrictEqual(["step.started", "step.failed", "session.finished"])
    })
  )

  it.effect("with maxReplans 0 the first failure ends the session without asking the planner again", () =>
    Effect.gen(function* () {
      const broken = scriptedTool("broken", [fail("boom")])
      const after = scriptedTool("after", [ok("never")])
      const { planner, requests } = recording(
        RulePlanner.make([
          { when: null, plan: [step(1, "broken"), step(2, "after")] },
          { when: "boom", plan: [step(2, "after")] }
        ])
      )
      const result = yield* Session.run({
        goal: "g",
        planner,
        toolset: toolsetOf(broken, after),
        maxSteps: 10,
        maxReplans: 0
      })
      expect([result.status, result.reason]).toStrictEqual(["failed", "replan_budget"])
      expect(requests).toHaveLength(1)
      expect(after.calls).toHaveLength(0)
      expect(result.replans).toBe(0)
      expect(result.revisions).toStrictEqual([])
    })
  )
})

describe("Session.run: budgets", () => {
  /** The seed's five-step plan, replanned with three more steps each time, the last step failing. */
  const growing = (maxSteps: number) =>
    Effect.gen(function* () {
      const good = scriptedTool("good", [ok("fine")])
      const bad = scriptedTool("bad", [fail("bad 1"), fail("bad 2"), ok("finally")])
      const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i)
      const planOf = (from: number, count: number) =>
        ids(from, count).map((id, i) => step(id, i === count - 1 ? "bad" : "good", { n: id }))
      const { planner, requests } = recording(
        RulePlanner.make([
          { when: null, plan: planOf(1, 5) },
          { when: "bad 1", plan: planOf(5, 8) },
          { when: "bad 2", plan: planOf(12, 11) }
        ])
      )
      const result = yield* Session.run({ goal: "g", planner, toolset: toolsetOf(good, bad), maxSteps, maxReplans: 5 })
      return { result, requests, good, bad }
    })

  it.effect("a replan that cannot fit in what is left of maxSteps is refused (step_budget)", () =>
    Effect.gen(function* () {
      const { result, requests, good, bad } = yield* growing(15)
      // 5 steps, then 8 (13 in all); the 11-step plan would need 24 > 15: refused before running.
      expect([result.status, result.reason]).toStrictEqual(["failed", "step_budget"])
      expect(result.steps).toBe(13)
      expect(startedIds(result.events)).toHaveLength(13)
      expect(good.calls.length + bad.calls.length).toBe(13)
      expect(requests).toHaveLength(3)
      expect(result.replans).toBe(2)
      // Only the accepted replan is a revision.
      expect(result.revisions).toStrictEqual([{ removed: [], added: [6, 7, 8, 9, 10, 11, 12], revised: [5] }])
      expect(types(result.events).slice(-4)).toStrictEqual([
        "step.started",
        "step.failed",
        "plan.rejected",
        "session.finished"
      ])
      const rejected = result.events.at(-2)
      expect(
        rejected?.type === "plan.rejected" && [rejected.reason, rejected.detail, rejected.plan.length]
      ).toStrictEqual(["step_budget", "the plan needs 11 steps, 2 of 15 left", 11])
      expect(result.events.at(-1)).toStrictEqual(finished("failed", "step_budget", result))
    })
  )

  it.effect("the same growing plan completes when the last replan fits exactly", () =>
    Effect.gen(function* () {
      const { result } = yield* growing(24)
      expect([result.status, result.reason]).toStrictEqual(["completed", "goal_met"])
      expect(result.steps).toBe(24)
      expect(result.revisions).toHaveLength(2)
    })
  )

  it.effect("no step is ever started past maxSteps, for any maxSteps", () =>
    Effect.gen(function* () {
      for (let maxSteps = 0; maxSteps <= 26; maxSteps++) {
        const { result } = yield* growing(maxSteps)
        expect(result.steps).toBeLessThanOrEqual(maxSteps)
        expect(startedIds(result.events).length).toBe(result.steps)
        expect(result.reason).toBe(maxSteps >= 24 ? "goal_met" : "step_budget")
      }
    })
  )

  it.effect("a plan of exactly maxSteps steps completes", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("done")])
      const result = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([{ when: null, plan: [step(1, "a"), step(2, "a"), step(3, "a")] }]),
        toolset: toolsetOf(a),
        maxSteps: 3,
        maxReplans: 0
      })
      expect([result.status, result.reason, result.steps]).toStrictEqual(["completed", "goal_met", 3])
    })
  )

  it.effect("a plan of maxSteps + 1 steps is refused before anything runs", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("done")])
      const result = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([{ when: null, plan: [step(1, "a"), step(2, "a"), step(3, "a"), step(4, "a")] }]),
        toolset: toolsetOf(a),
        maxSteps: 3,
        maxReplans: 3
      })
      expect([result.status, result.reason, result.steps, result.replans]).toStrictEqual([
        "failed",
        "step_budget",
        0,
        0
      ])
      expect(a.calls).toHaveLength(0)
      expect(result.history).toStrictEqual([])
      expect(result.events).toStrictEqual([
        {
          type: "plan.rejected",
          reason: "step_budget",
          detail: "the plan needs 4 steps, 3 of 3 left",
          plan: [step(1, "a"), step(2, "a"), step(3, "a"), step(4, "a")]
        },
        finished("failed", "step_budget", result)
      ])
    })
  )

  it.effect("maxSteps 0 refuses any plan", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("done")])
      const result = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([{ when: null, plan: [step(1, "a")] }]),
        toolset: toolsetOf(a),
        maxSteps: 0,
        maxReplans: 0
      })
      expect([result.status, result.reason]).toStrictEqual(["failed", "step_budget"])
      expect(a.calls).toHaveLength(0)
    })
  )
})

describe("Session.run: no_plan", () => {
  it.effect("an empty first plan ends the session at once", () =>
    Effect.gen(function* () {
      const { planner, requests } = recording(RulePlanner.make([]))
      const result = yield* Session.run({
        goal: "g",
        planner,
        toolset: toolsetOf(),
        maxSteps: 5,
        maxReplans: 5
      })
      expect(result).toStrictEqual({
        session_id: result.session_id,
        status: "failed",
        reason: "no_plan",
        history: [],
        revisions: [],
        events: [finished("failed", "no_plan", result)],
        steps: 0,
        replans: 0
      })
      expect(requests).toHaveLength(1)
    })
  )

  it.effect("no rule matching the error after a failure ends it with no_plan (the replan is spent)", () =>
    Effect.gen(function* () {
      const broken = scriptedTool("broken", [fail("unexpected")])
      const result = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([
          { when: null, plan: [step(1, "broken")] },
          { when: "expected error", plan: [step(2, "broken")] }
        ]),
        toolset: toolsetOf(broken),
        maxSteps: 5,
        maxReplans: 3
      })
      expect([result.status, result.reason, result.replans, result.steps]).toStrictEqual(["failed", "no_plan", 1, 1])
      expect(result.revisions).toStrictEqual([])
      expect(types(result.events)).toStrictEqual(["plan.created", "step.started", "step.failed", "session.finished"])
    })
  )
})

describe("Session.run: onFailure", () => {
  const threeSteps = () => {
    const good = scriptedTool("good", [ok("fine")])
    const bad = scriptedTool("bad", [fail("it broke")])
    const { planner, requests } = recording(
      RulePlanner.make([
        { when: null, plan: [step(1, "good"), step(2, "bad"), step(3, "good", { last: true })] },
        { when: "it broke", plan: [step(3, "good")] }
      ])
    )
    return { good, bad, planner, requests, toolset: toolsetOf(good, bad) }
  }

  it.effect("abort: failed / aborted, no further step runs, no replan", () =>
    Effect.gen(function* () {
      const { good, planner, requests, toolset } = threeSteps()
      const result = yield* Session.run({ goal: "g", planner, toolset, onFailure: "abort", maxSteps: 5, maxReplans: 5 })
      expect([result.status, result.reason, result.replans]).toStrictEqual(["failed", "aborted", 0])
      expect(historyIds(result)).toStrictEqual([1, 2])
      expect(good.calls).toHaveLength(1)
      expect(requests).toHaveLength(1)
      expect(types(result.events)).toStrictEqual([
        "plan.created",
        "step.started",
        "step.succeeded",
        "step.started",
        "step.failed",
        "session.finished"
      ])
      expect(result.events.at(-1)).toStrictEqual(finished("failed", "aborted", result))
    })
  )

  it.effect("skip: the failed step is marked failed, later steps still run, completed / partial", () =>
    Effect.gen(function* () {
      const { good, planner, requests, toolset } = threeSteps()
      const result = yield* Session.run({ goal: "g", planner, toolset, onFailure: "skip", maxSteps: 5, maxReplans: 5 })
      expect([result.status, result.reason, result.replans, result.steps]).toStrictEqual(["completed", "partial", 0, 3])
      expect(result.history.map((s) => [s.id, s.result, s.error])).toStrictEqual([
        [1, "fine", null],
        [2, null, "it broke"],
        [3, "fine", null]
      ])
      expect(good.calls.map((c) => c.input)).toStrictEqual([{}, { last: true }])
      expect(requests).toHaveLength(1)
      expect(result.revisions).toStrictEqual([])
    })
  )

  it.effect("skip with no failure: goal_met", () =>
    Effect.gen(function* () {
      const good = scriptedTool("good", [ok("fine")])
      const result = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([{ when: null, plan: [step(1, "good"), step(2, "good")] }]),
        toolset: toolsetOf(good),
        onFailure: "skip",
        maxSteps: 2,
        maxReplans: 0
      })
      expect([result.status, result.reason]).toStrictEqual(["completed", "goal_met"])
    })
  )
})

describe("Session.run: the partial-plan cache", () => {
  it.effect("a re-listed step with the same tool and args is not run again; with other args it is", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("a result")])
      const b = scriptedTool("b", [ok("b first"), ok("b second")])
      const c = scriptedTool("c", [fail("c failed")])
      const d = scriptedTool("d", [ok("d result")])
      const first = [step(1, "a", { x: 1 }), step(2, "b", { y: 1 }), step(3, "c")]
      const second = [step(1, "a", { x: 1 }), step(2, "b", { y: 2 }), step(3, "d")]
      const result = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([
          { when: null, plan: first },
          { when: "c failed", plan: second }
        ]),
        toolset: toolsetOf(a, b, c, d),
        // 3 + 2: the cached step does not count, so the new plan fits exactly.
        maxSteps: 5,
        maxReplans: 1
      })

      expect([result.status, result.reason, result.steps]).toStrictEqual(["completed", "goal_met", 5])
      expect(a.calls).toHaveLength(1)
      expect(b.calls.map((call) => call.input)).toStrictEqual([{ y: 1 }, { y: 2 }])
      expect(historyIds(result)).toStrictEqual([1, 2, 3, 2, 3])
      expect(result.revisions).toStrictEqual([{ removed: [], added: [1, 2], revised: [3] }])
      const afterReplan = result.events.slice(result.events.findIndex((e) => e.type === "plan.diff"))
      expect(afterReplan).toStrictEqual([
        { type: "plan.diff", revision: 1, last_error: "c failed", diff: { removed: [], added: [1, 2], revised: [3] } },
        { type: "plan.created", revision: 1, plan: second },
        { type: "step.cached", revision: 1, id: 1, result: "a result" },
        { type: "step.started", revision: 1, step: second[1], tool_use_id: `${result.session_id}/step-1-2` },
        { type: "step.succeeded", revision: 1, id: 2, result: "b second" },
        { type: "step.started", revision: 1, step: second[2], tool_use_id: `${result.session_id}/step-1-3` },
        { type: "step.succeeded", revision: 1, id: 3, result: "d result" },
        finished("completed", "goal_met", result)
      ])
    })
  )

  it.effect("a failed step is never cached: re-listed with the same tool and args, it runs again", () =>
    Effect.gen(function* () {
      const flaky = scriptedTool("flaky", [fail("first try failed"), ok("second try")])
      const result = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([
          { when: null, plan: [step(1, "flaky", { k: 1 })] },
          { when: "failed", plan: [step(1, "flaky", { k: 1 })] }
        ]),
        toolset: toolsetOf(flaky),
        maxSteps: 2,
        maxReplans: 1
      })
      expect([result.status, result.reason]).toStrictEqual(["completed", "goal_met"])
      expect(flaky.calls).toHaveLength(2)
      expect(result.revisions).toStrictEqual([{ removed: [], added: [], revised: [] }])
    })
  )
})

describe("Session.run: invalid plans", () => {
  it.effect("a plan with duplicate ids is replannable: it spends a replan and the planner sees why", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("done")])
      const { planner, requests } = recording(
        RulePlanner.make([
          { when: null, plan: [step(1, "a"), step(1, "a", { again: true })] },
          { when: "invalid plan", plan: [step(1, "a"), step(2, "a", { again: true })] }
        ])
      )
      const result = yield* Session.run({ goal: "g", planner, toolset: toolsetOf(a), maxSteps: 5, maxReplans: 1 })

      const lastError = "invalid plan: step id 1 appears twice in the plan"
      expect(requests.map((r) => r.lastError)).toStrictEqual([null, lastError])
      expect([result.status, result.reason, result.replans, result.steps]).toStrictEqual([
        "completed",
        "goal_met",
        1,
        2
      ])
      // No plan was accepted before: the first accepted plan is revision 0, with no diff.
      expect(result.revisions).toStrictEqual([])
      expect(result.events.slice(0, 2)).toStrictEqual([
        { type: "plan.rejected", reason: "invalid", detail: "step id 1 appears twice in the plan", plan: [] },
        { type: "plan.created", revision: 0, plan: [step(1, "a"), step(2, "a", { again: true })] }
      ])
    })
  )

  it.effect("an invalid replan keeps the old remaining steps for the diff and spends another replan", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [fail("a failed"), ok("a done")])
      const b = scriptedTool("b", [ok("b done")])
      const { planner, requests } = recording(
        RulePlanner.make([
          { when: null, plan: [step(1, "a"), step(2, "b")] },
          { when: "a failed", plan: [step(3, "b"), step(3, "b")] },
          { when: "invalid plan", plan: [step(1, "a", { retry: true }), step(2, "b")] }
        ])
      )
      const result = yield* Session.run({ goal: "g", planner, toolset: toolsetOf(a, b), maxSteps: 5, maxReplans: 2 })
      expect(requests.map((r) => r.lastError)).toStrictEqual([
        null,
        "a failed",
        "invalid plan: step id 3 appears twice in the plan"
      ])
      expect([result.status, result.reason, result.replans]).toStrictEqual(["completed", "goal_met", 2])
      expect(result.revisions).toStrictEqual([{ removed: [], added: [], revised: [1] }])
      const diffs = result.events.filter((e) => e.type === "plan.diff")
      expect(diffs.map((e) => e.last_error)).toStrictEqual(["invalid plan: step id 3 appears twice in the plan"])
    })
  )

  it.effect("an invalid replan with no replan left ends the session with replan_budget", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [fail("a failed")])
      const { planner, requests } = recording(
        RulePlanner.make([
          { when: null, plan: [step(1, "a")] },
          { when: "a failed", plan: [step(3, "a"), step(3, "a")] }
        ])
      )
      const result = yield* Session.run({ goal: "g", planner, toolset: toolsetOf(a), maxSteps: 5, maxReplans: 1 })
      expect(requests).toHaveLength(2)
      expect([result.status, result.reason, result.replans]).toStrictEqual(["failed", "replan_budget", 1])
      expect(result.revisions).toStrictEqual([])
    })
  )
})

describe("Session.run: steps failing their schema", () => {
  it.effect("args that fail the tool's schema are a failed observation: not executed, not run", () =>
    Effect.gen(function* () {
      const written: Array<string> = []
      const Write = Tool.make("write", {
        description: "Writes a file",
        parameters: Schema.Struct({ path: Schema.String, content: Schema.String }),
        run: ({ path }) => {
          written.push(path)
          return `wrote ${path}`
        }
      })
      const { planner, requests } = recording(
        RulePlanner.make([
          { when: null, plan: [step(1, "write", { content: "x" })] },
          { when: "not executed", plan: [step(1, "write", { path: "a.txt", content: "x" })] }
        ])
      )
      const result = yield* Session.run({
        goal: "g",
        planner,
        toolset: Toolset.make(Write),
        maxSteps: 5,
        maxReplans: 1
      })
      expect(result.events[2]).toStrictEqual({
        type: "step.failed",
        revision: 0,
        id: 1,
        error: "not executed: missing field 'path'",
        not_executed: true
      })
      expect(requests[1]?.lastError).toBe("not executed: missing field 'path'")
      expect(written).toStrictEqual(["a.txt"])
      expect([result.status, result.reason, result.steps]).toStrictEqual(["completed", "goal_met", 2])
      // A refused call still counts as an executed step: it was started.
      expect(result.history[0]?.error).toBe("not executed: missing field 'path'")
    })
  )

  it.effect("a step naming a tool that does not exist fails as an observation", () =>
    Effect.gen(function* () {
      const result = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([{ when: null, plan: [step(1, "ghost")] }]),
        toolset: toolsetOf(),
        onFailure: "abort",
        maxSteps: 5,
        maxReplans: 1
      })
      expect(result.history).toStrictEqual([
        { ...step(1, "ghost"), result: null, error: "not executed: unknown tool 'ghost'" }
      ])
      expect([result.status, result.reason]).toStrictEqual(["failed", "aborted"])
    })
  )
})

describe("Session.run: parallel groups", () => {
  it.effect("steps sharing a group run concurrently; results and history keep plan order", () =>
    Effect.gen(function* () {
      const slow = scriptedTool("slow", [ok("slow done")], { sleep: "2 seconds" })
      const fast = scriptedTool("fast", [ok("fast done")], { sleep: "1 second" })
      const after = scriptedTool("after", [ok("after done")])
      const plan = [step(1, "slow", {}, "g"), step(2, "fast", {}, "g"), step(3, "after")]
      const fiber = yield* Effect.forkChild(
        Session.run({
          goal: "g",
          planner: RulePlanner.make([{ when: null, plan }]),
          toolset: toolsetOf(slow, fast, after),
          maxSteps: 3,
          maxReplans: 0
        })
      )
      yield* TestClock.adjust("2 seconds")
      const result = yield* Fiber.join(fiber)

      // Both started at 0: the group took 2 s in all, not 3.
      expect(slow.calls.map((c) => [c.startedAt, c.finishedAt])).toStrictEqual([[0, 2000]])
      expect(fast.calls.map((c) => [c.startedAt, c.finishedAt])).toStrictEqual([[0, 1000]])
      expect(after.calls.map((c) => c.startedAt)).toStrictEqual([2000])
      expect([result.status, result.reason, result.steps]).toStrictEqual(["completed", "goal_met", 3])
      expect(historyIds(result)).toStrictEqual([1, 2, 3])
      expect(types(result.events)).toStrictEqual([
        "plan.created",
        "step.started",
        "step.started",
        "step.succeeded",
        "step.succeeded",
        "step.started",
        "step.succeeded",
        "session.finished"
      ])
      expect(result.events.flatMap((e) => (e.type === "step.succeeded" ? [e.id] : []))).toStrictEqual([1, 2, 3])
    })
  )

  it.effect("two steps of one second each finish after one second in all", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("a")], { sleep: "1 second" })
      const b = scriptedTool("b", [ok("b")], { sleep: "1 second" })
      const fiber = yield* Effect.forkChild(
        Session.run({
          goal: "g",
          planner: RulePlanner.make([{ when: null, plan: [step(1, "a", {}, "g"), step(2, "b", {}, "g")] }]),
          toolset: toolsetOf(a, b),
          maxSteps: 2,
          maxReplans: 0
        })
      )
      yield* TestClock.adjust("1 second")
      // Done after one second: a sequential run would still be sleeping in the second step.
      const exit = fiber.pollUnsafe()
      assert(exit !== undefined, "the session is still running after 1 s")
      const result = yield* Fiber.join(fiber)
      expect([result.status, result.reason, result.steps]).toStrictEqual(["completed", "goal_met", 2])
      expect([...a.calls, ...b.calls].map((c) => c.finishedAt)).toStrictEqual([1000, 1000])
    })
  )

  it.effect("the same steps without a group run one after the other", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("a")], { sleep: "1 second" })
      const b = scriptedTool("b", [ok("b")], { sleep: "1 second" })
      const fiber = yield* Effect.forkChild(
        Session.run({
          goal: "g",
          planner: RulePlanner.make([{ when: null, plan: [step(1, "a", {}, "g"), step(2, "b", {}, "h")] }]),
          toolset: toolsetOf(a, b),
          maxSteps: 2,
          maxReplans: 0
        })
      )
      yield* TestClock.adjust("1 second")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      expect([...a.calls, ...b.calls].map((c) => c.finishedAt)).toStrictEqual([1000, 2000])
    })
  )

  it.effect("a failure in a group: every step of the group ran; the replan starts at the first failed step", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("a done")])
      const b = scriptedTool("b", [fail("b failed"), ok("b done")])
      const c = scriptedTool("c", [ok("c done")])
      const result = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([
          { when: null, plan: [step(1, "a", {}, "g"), step(2, "b", {}, "g"), step(3, "c", {}, "g"), step(4, "c")] },
          { when: "b failed", plan: [step(2, "b", { retry: true }), step(4, "c")] }
        ]),
        toolset: toolsetOf(a, b, c),
        maxSteps: 10,
        maxReplans: 1
      })
      expect(historyIds(result)).toStrictEqual([1, 2, 3, 2, 4])
      // Remaining old steps from the failed step on: 2, 3 (succeeded in the group, not re-listed), 4.
      expect(result.revisions).toStrictEqual([{ removed: [3], added: [], revised: [2] }])
      expect([result.status, result.reason, result.steps]).toStrictEqual(["completed", "goal_met", 5])
    })
  )

  it.effect("two failures in a group: the first in plan order is the last error and the cursor", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [fail("a failed")], { sleep: "2 seconds" })
      const b = scriptedTool("b", [fail("b failed")], { sleep: "1 second" })
      const c = scriptedTool("c", [ok("c done")])
      const { planner, requests } = recording(
        RulePlanner.make([
          { when: null, plan: [step(1, "a", {}, "g"), step(2, "b", {}, "g")] },
          { when: "failed", plan: [step(3, "c")] }
        ])
      )
      const fiber = yield* Effect.forkChild(
        Session.run({ goal: "g", planner, toolset: toolsetOf(a, b, c), maxSteps: 10, maxReplans: 1 })
      )
      yield* TestClock.adjust("2 seconds")
      const result = yield* Fiber.join(fiber)
      expect(requests[1]?.lastError).toBe("a failed")
      expect(result.revisions).toStrictEqual([{ removed: [1, 2], added: [3], revised: [] }])
      expect(result.history.map((s) => [s.id, s.error])).toStrictEqual([
        [1, "a failed"],
        [2, "b failed"],
        [3, null]
      ])
    })
  )

  it.effect("each step of a group counts against maxSteps; a group that does not fit is refused", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("a")])
      const plan = [step(1, "a"), step(2, "a", {}, "g"), step(3, "a", {}, "g")]
      const fits = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([{ when: null, plan }]),
        toolset: toolsetOf(a),
        maxSteps: 3,
        maxReplans: 0
      })
      expect([fits.reason, fits.steps]).toStrictEqual(["goal_met", 3])
      const refused = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([{ when: null, plan }]),
        toolset: toolsetOf(a),
        maxSteps: 2,
        maxReplans: 0
      })
      expect([refused.status, refused.reason, refused.steps]).toStrictEqual(["failed", "step_budget", 0])
      expect(a.calls).toHaveLength(3)
    })
  )
})

class ProviderDown extends Schema.TaggedError<ProviderDown>()("ProviderDown", { message: Schema.String }) {}

describe("Session.run: the planner's own errors", () => {
  it.effect("a non-plan error of the first planner call fails the session's Effect", () =>
    Effect.gen(function* () {
      const planner: Planner.Planner<ProviderDown> = () => Effect.fail(new ProviderDown({ message: "503" }))
      const error = yield* Effect.flip(
        Session.run({ goal: "g", planner, toolset: toolsetOf(), maxSteps: 5, maxReplans: 5 })
      )
      expect(error).toBeInstanceOf(ProviderDown)
      expect(error.message).toBe("503")
    })
  )

  it.effect("a non-plan error while replanning fails it too", () =>
    Effect.gen(function* () {
      const broken = scriptedTool("broken", [fail("boom")])
      const planner: Planner.Planner<ProviderDown> = (request) =>
        request.lastError === null
          ? Effect.succeed([step(1, "broken")])
          : Effect.fail(new ProviderDown({ message: "rate limited" }))
      const error = yield* Effect.flip(
        Session.run({ goal: "g", planner, toolset: toolsetOf(broken), maxSteps: 5, maxReplans: 5 })
      )
      expect(error.message).toBe("rate limited")
      expect(broken.calls).toHaveLength(1)
    })
  )

  it.effect("an InvalidPlan failure from the planner itself is replannable, not an error", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("done")])
      const { planner, requests } = recording<never, never>((request) =>
        request.lastError === null
          ? Effect.fail(new Planner.InvalidPlan({ reason: "the model answered prose" }))
          : Effect.succeed([step(1, "a")])
      )
      const result = yield* Session.run({ goal: "g", planner, toolset: toolsetOf(a), maxSteps: 5, maxReplans: 1 })
      expect(requests[1]?.lastError).toBe("invalid plan: the model answered prose")
      expect([result.status, result.reason]).toStrictEqual(["completed", "goal_met"])
    })
  )
})

describe("Session.events", () => {
  const scenario = () => {
    const fetch = scriptedTool("fetch", [ok("page")])
    const parse = scriptedTool("parse", [fail("parse error"), ok("parsed")])
    return {
      goal: "g",
      // One id for both runs: the events name it.
      sessionId: "events-session",
      planner: RulePlanner.make([
        { when: null, plan: [step(1, "fetch"), step(2, "parse")] },
        { when: "parse error", plan: [step(1, "fetch"), step(2, "parse", { lenient: true })] }
      ]),
      toolset: toolsetOf(fetch, parse),
      maxSteps: 5,
      maxReplans: 1
    }
  }

  it.effect("yields the same events as result.events, ending with session.finished", () =>
    Effect.gen(function* () {
      const result = yield* Session.run(scenario())
      const streamed = yield* Stream.runCollect(Session.events(scenario()))
      expect(streamed).toStrictEqual(result.events)
      expect(streamed.at(-1)).toStrictEqual(finished("completed", "goal_met", result))
      expect(types(streamed)).toContain("step.cached")
    })
  )

  it.effect("fails with the planner's error", () =>
    Effect.gen(function* () {
      const planner: Planner.Planner<ProviderDown> = () => Effect.fail(new ProviderDown({ message: "down" }))
      const error = yield* Effect.flip(
        Stream.runCollect(Session.events({ goal: "g", planner, toolset: toolsetOf(), maxSteps: 1, maxReplans: 1 }))
      )
      expect(error).toBeInstanceOf(ProviderDown)
    })
  )
})

describe("SessionResult", () => {
  it.effect("round-trips through JSON with its Schema", () =>
    Effect.gen(function* () {
      const a = scriptedTool("a", [ok("a done")])
      const b = scriptedTool("b", [fail("b failed"), ok("b done")])
      const c = scriptedTool("c", [ok('{"nested":[1,2]}')])
      const result = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([
          {
            when: null,
            plan: [step(1, "a", { deep: { list: [1, "x", null] } }), step(2, "b", {}, "g"), step(3, "c", {}, "g")]
          },
          {
            when: "b failed",
            plan: [step(1, "a", { deep: { list: [1, "x", null] } }), step(2, "b", { retry: 1 }), step(4, "ghost")]
          },
          { when: "not executed", plan: [step(5, "c")] }
        ]),
        toolset: toolsetOf(a, b, c),
        maxSteps: 10,
        maxReplans: 2
      })
      expect(types(result.events)).toEqual(
        expect.arrayContaining(["plan.diff", "step.cached", "step.failed", "session.finished"])
      )
      const json = JSON.stringify(yield* Schema.encodeEffect(SessionResult.SessionResult)(result))
      const decoded = yield* Schema.decodeUnknownEffect(SessionResult.SessionResult)(JSON.parse(json))
      expect(decoded).toStrictEqual(result)
      expect(SessionResult.statusOf(decoded.reason)).toBe(decoded.status)
      expect(Schema.is(Step.Plan)(result.history)).toBe(true)
    })
  )

  it("statusOf: goal_met and partial complete; the rest fail", () => {
    expect(SessionResult.Reason.literals.map((r) => [r, SessionResult.statusOf(r)])).toStrictEqual([
      ["goal_met", "completed"],
      ["partial", "completed"],
      ["step_budget", "failed"],
      ["replan_budget", "failed"],
      ["token_budget", "failed"],
      ["cost_budget", "failed"],
      ["no_plan", "failed"],
      ["aborted", "failed"]
    ])
  })
})
