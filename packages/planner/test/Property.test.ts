import { PlanDiff } from "@agent-harness/diff"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import fc from "fast-check"
import { type Event, RulePlanner, Session, SessionResult, type Step } from "../src/index.ts"
import { fail, ok, recording, type Scripted, scriptedTool, step, toolsetOf } from "./fixtures.ts"

const toolNames = ["t0", "t1", "t2"] as const
/** t2 is read-only: its results are reused only while nothing may have changed; t0 and t1 are actions. */
const readOnlyTools: ReadonlyArray<string> = ["t2"]
const errors = ["X fail", "Y fail", "Z fail"] as const

const scriptedArb: fc.Arbitrary<Scripted> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("r0", "r1").map(ok) },
  { weight: 1, arbitrary: fc.constantFrom(...errors).map(fail) }
)

/** A pool step: its id is its place in the pool, except now and then an id that may clash. */
const poolArb: fc.Arbitrary<ReadonlyArray<Step.Step>> = fc
  .array(
    fc.record({
      clash: fc.oneof(
        { weight: 11, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 10 }) }
      ),
      // "ghost" is not in the toolset: its steps fail as not executed.
      tool: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...toolNames) },
        { weight: 1, arbitrary: fc.constant("ghost") }
      ),
      args: fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.constant({ k: 1 }) }),
      group: fc.oneof(
        { weight: 2, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom("g", "h") }
      )
    }),
    { minLength: 1, maxLength: 10 }
  )
  .map((specs) => specs.map((spec, i) => step(spec.clash ?? i + 1, spec.tool, spec.args, spec.group)))

const whenArb: fc.Arbitrary<RulePlanner.When> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  // "fail" matches every scripted tool error.
  { weight: 4, arbitrary: fc.constant("fail") },
  { weight: 3, arbitrary: fc.constantFrom("X", "Y", "Z", "invalid plan", "not executed") },
  { weight: 1, arbitrary: fc.constant(/^[YZ]/) }
)

/**
 * Plans are drawn from a shared pool of steps, so that later plans re-list earlier steps (the
 * cache, unchanged diff entries) or reuse their ids with another tool or args (revised), and
 * sometimes list one id twice (an invalid plan).
 */
const caseArb = poolArb.chain((pool) => {
  const planArb = (minLength: number) =>
    fc
      .uniqueArray(fc.integer({ min: 0, max: pool.length - 1 }), { minLength, maxLength: 7 })
      .map((picks) => picks.flatMap((i) => (pool[i] === undefined ? [] : [pool[i]])))
  const ruleArb: fc.Arbitrary<RulePlanner.Rule> = fc.record({
    when: whenArb,
    // An empty plan now and then: nothing to offer (no_plan).
    plan: fc.oneof({ weight: 6, arbitrary: planArb(1) }, { weight: 1, arbitrary: fc.constant([]) })
  })
  return fc.record({
    // Mostly: a first plan, some rules, and a fallback rule matching any error ("" is a
    // substring of every error). `fc.option` gives `nil` one time in `freq`.
    rules: fc
      .tuple(
        fc.option(planArb(1), { freq: 8, nil: undefined }),
        fc.array(ruleArb, { minLength: 0, maxLength: 5 }),
        fc.option(planArb(1), { freq: 3, nil: undefined })
      )
      .map(([first, rest, fallback]) => [
        ...(first === undefined ? [] : [{ when: null, plan: first }]),
        ...rest,
        ...(fallback === undefined ? [] : [{ when: "", plan: fallback }])
      ]),
    scripts: fc.tuple(
      fc.array(scriptedArb, { minLength: 1, maxLength: 4 }),
      fc.array(scriptedArb, { minLength: 1, maxLength: 4 }),
      fc.array(scriptedArb, { minLength: 1, maxLength: 4 })
    ),
    maxSteps: fc.integer({ min: 0, max: 20 }),
    maxReplans: fc.integer({ min: 0, max: 5 }),
    strategy: fc.constantFrom<Session.Strategy>("replan", "skip", "abort")
  })
})

type Case = typeof caseArb extends fc.Arbitrary<infer A> ? A : never

const setUp = (c: Case) => {
  const tools = toolNames.map((name, i) =>
    scriptedTool(name, c.scripts[i] ?? [ok("r")], { readOnly: readOnlyTools.includes(name) })
  )
  const { planner, requests } = recording(RulePlanner.make(c.rules))
  const options = {
    goal: "property",
    // Fixed, so that two runs of one case give equal events.
    sessionId: "property",
    planner,
    toolset: toolsetOf(...tools),
    onFailure: c.strategy,
    maxSteps: c.maxSteps,
    maxReplans: c.maxReplans
  }
  return { tools, requests, options }
}

/** Checks every invariant of one finished session. */
const check = (c: Case, result: SessionResult.SessionResult, plannerCalls: number, toolCalls: number) => {
  const { events } = result
  const of = <T extends Event.Event["type"]>(type: T) =>
    events.filter((e): e is Extract<Event.Event, { type: T }> => e.type === type)
  const started = of("step.started")
  const failed = of("step.failed")
  const succeeded = of("step.succeeded")
  const diffs = of("plan.diff")
  const created = of("plan.created")

  // Budgets.
  expect(result.steps).toBeLessThanOrEqual(c.maxSteps)
  expect(result.replans).toBeLessThanOrEqual(c.maxReplans)
  // Counting.
  expect(result.history).toHaveLength(result.steps)
  expect(started).toHaveLength(result.steps)
  expect(succeeded.length + failed.length).toBe(result.steps)
  expect(result.revisions).toHaveLength(diffs.length)
  expect(result.revisions).toStrictEqual(diffs.map((e) => e.diff))
  expect(plannerCalls).toBe(result.replans + 1)
  expect(toolCalls).toBe(started.length - failed.filter((e) => e.not_executed).length)
  // The history is the started steps, in order, with their observations.
  expect(result.history.map((s) => s.id)).toStrictEqual(started.map((e) => e.step.id))
  for (const entry of result.history) {
    expect((entry.result === null) !== (entry.error === null)).toBe(true)
  }
  // Shape of the event list.
  expect(events.at(-1)).toStrictEqual({
    type: "session.finished",
    status: result.status,
    reason: result.reason,
    session_id: result.session_id
  })
  // Each step runs with its call id: this session's id, the revision, the step id.
  for (const e of started) expect(e.tool_use_id).toBe(`${result.session_id}/step-${e.revision}-${e.step.id}`)
  expect(of("session.finished")).toHaveLength(1)
  const head = events[0]?.type
  if (head === "session.finished") expect(events).toHaveLength(1)
  else expect(["plan.created", "plan.rejected"]).toContain(head)
  // A plan refused for the step budget ends the session; an invalid one is replanned.
  events.forEach((e, i) => {
    if (e.type === "plan.rejected" && e.reason === "step_budget") expect(events[i + 1]?.type).toBe("session.finished")
  })
  if (result.reason === "step_budget") expect(events.at(-2)?.type).toBe("plan.rejected")
  // Each plan.diff is followed by its plan.created; revisions count up from 0.
  events.forEach((e, i) => {
    if (e.type === "plan.diff") expect(events[i + 1]).toMatchObject({ type: "plan.created", revision: e.revision })
  })
  const revisions = created.map((e) => e.revision)
  expect(revisions).toStrictEqual(revisions.map((_, i) => i + (revisions[0] ?? 0)))
  expect(revisions[0] ?? 0).toBe(0)
  expect(diffs).toHaveLength(Math.max(0, created.length - 1))
  // Status and reason.
  expect(result.status).toBe(SessionResult.statusOf(result.reason))
  if (result.reason === "replan_budget") expect(result.replans).toBe(c.maxReplans)
  if (result.reason === "partial") expect(failed.length).toBeGreaterThan(0)
  // Skip and abort never replan after a step ran: only an invalid first plan is replanned.
  const replansAfterAStep = () => {
    const firstStart = events.findIndex((e) => e.type === "step.started")
    return firstStart !== -1 && events.slice(firstStart).some((e) => e.type === "plan.diff")
  }
  switch (c.strategy) {
    case "replan":
      expect(["goal_met", "step_budget", "replan_budget", "no_plan"]).toContain(result.reason)
      break
    case "skip":
      expect(["goal_met", "partial", "step_budget", "no_plan", "replan_budget"]).toContain(result.reason)
      if (result.reason === "goal_met") expect(failed).toHaveLength(0)
      expect(replansAfterAStep()).toBe(false)
      break
    case "abort":
      expect(["goal_met", "aborted", "step_budget", "no_plan", "replan_budget"]).toContain(result.reason)
      if (result.reason === "goal_met") expect(failed).toHaveLength(0)
      if (result.reason === "aborted") expect(failed.length).toBeGreaterThan(0)
      expect(replansAfterAStep()).toBe(false)
      break
  }
  checkCache(events)
  // Every diff compares what was left of the old plan (from the failed step on) with the new plan.
  let current: Step.Plan = []
  let remaining: Step.Plan = []
  let cursorSet = false
  events.forEach((e, i) => {
    if (e.type === "plan.created") {
      current = e.plan
      cursorSet = false
    } else if (e.type === "step.failed" && !cursorSet) {
      remaining = current.slice(current.findIndex((s) => s.id === e.id))
      cursorSet = true
    } else if (e.type === "plan.diff") {
      const next = events[i + 1]
      if (next?.type !== "plan.created") throw new Error("plan.diff without plan.created")
      expect(e.diff).toStrictEqual(PlanDiff.diff(remaining, next.plan))
    }
  })
}

/**
 * The cache never serves a stale result: a read-only step is cached only if no run since its own
 * (its own included) had a step that may have changed the environment (a step of a tool that is
 * not read-only, unless it was not executed). A run is a group of `step.started` events and
 * their results.
 */
const checkCache = (events: ReadonlyArray<Event.Event>) => {
  let changes = 0
  let run: { readonly changesAtStart: number; changed: boolean; answered: boolean } | undefined
  const started = new Map<number, Step.Step>()
  const lastSuccess = new Map<number, { readonly readOnly: boolean; readonly changes: number }>()
  const closeRun = () => {
    if (run?.changed === true) changes++
    run = undefined
  }
  for (const e of events) {
    if (e.type === "step.started") {
      if (run?.answered === true) closeRun()
      run ??= { changesAtStart: changes, changed: false, answered: false }
      started.set(e.step.id, e.step)
    } else if (e.type === "step.succeeded" || e.type === "step.failed") {
      if (run === undefined) throw new Error(`${e.type} outside a run`)
      run.answered = true
      const tool = started.get(e.id)?.tool_name ?? ""
      const readOnly = readOnlyTools.includes(tool)
      const ran = e.type === "step.succeeded" || !e.not_executed
      if (!readOnly && ran && tool !== "ghost") run.changed = true
      if (e.type === "step.succeeded") lastSuccess.set(e.id, { readOnly, changes: run.changesAtStart })
    } else {
      closeRun()
      if (e.type === "step.cached") {
        const done = lastSuccess.get(e.id)
        expect(done).toBeDefined()
        if (done?.readOnly === true) expect(done.changes).toBe(changes)
      }
    }
  }
}

// 1,300 generated sessions: CPU-bound, on a loaded 2-core machine while every package tests at once.
const generated = { timeout: 120_000 }

describe("Session.run (property)", () => {
  it("ends within its budgets, with consistent history, revisions, events and status", generated, () => {
    const seen = new Set<string>()
    fc.assert(
      fc.property(caseArb, (c) => {
        const { tools, requests, options } = setUp(c)
        const result = Effect.runSync(Session.run(options))
        const toolCalls = tools.reduce((n, t) => n + t.calls.length, 0)
        check(c, result, requests.length, toolCalls)
        // The result is JSON: it round-trips through its Schema.
        const json = JSON.stringify(Schema.encodeSync(SessionResult.SessionResult)(result))
        expect(Schema.decodeUnknownSync(SessionResult.SessionResult)(JSON.parse(json))).toStrictEqual(result)
        seen.add(`${c.strategy}/${result.reason}`)
        for (const event of result.events) seen.add(event.type)
        if (result.revisions.length > 1) seen.add("replanned twice")
      }),
      { numRuns: 1000 }
    )
    // The generators reach every path: each ending of each strategy, every event.
    expect([...seen].sort()).toStrictEqual(
      [
        ...["goal_met", "step_budget", "replan_budget", "no_plan"].map((r) => `replan/${r}`),
        ...["goal_met", "partial", "step_budget", "replan_budget", "no_plan"].map((r) => `skip/${r}`),
        ...["goal_met", "aborted", "step_budget", "replan_budget", "no_plan"].map((r) => `abort/${r}`),
        "plan.created",
        "plan.diff",
        "plan.rejected",
        "step.started",
        "step.succeeded",
        "step.failed",
        "step.cached",
        "session.finished",
        "replanned twice"
      ].sort()
    )
  })

  it("Session.events yields the same events as Session.run", generated, async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const result = Effect.runSync(Session.run(setUp(c).options))
        const streamed = await Effect.runPromise(Stream.runCollect(Session.events(setUp(c).options)))
        expect(streamed).toStrictEqual(result.events)
      }),
      { numRuns: 300 }
    )
  })
})
