import { type RulePlanner, SessionResult, SessionTrace, Step } from "@agent-harness/planner"
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { ArgDiff, Input, Lines, type Model, PlanTrace } from "../src/index.ts"
import { runSession, sessionRules, sessionTrace } from "./fixtures.ts"

const read = (text: string): Model.Plan => PlanTrace.fromLines("f1", "session.jsonl", Lines.read(text))

const revisions = (plan: Model.Plan) => plan.entries.flatMap((e) => (e.type === "revision" ? [e] : []))

const marks = (rows: ReadonlyArray<Model.DiffRow>) => rows.map((r) => `${r.mark} ${r.step.id}`)

describe("PlanTrace.fromLines: a session with two replans", () => {
  it("draws each revision: the last error, the cursor, the diff (removed, added, revised with arg changes, kept)", async () => {
    const result = await runSession()
    expect([result.status, result.reason]).toStrictEqual(["completed", "goal_met"])
    const plan = read(sessionTrace(result))
    expect(plan.problems).toStrictEqual([])
    const [first, second, third] = revisions(plan)
    expect(first?.replan).toBeNull()
    expect(second?.replan).toMatchObject({
      lastError: "file 'recipes/salmorejo.txt' does not exist",
      cursor: { id: 2, position: 2, of: 3 },
      diff: { removed: [3], added: [1, 4, 5], revised: [2] }
    })
    expect(marks(second?.replan?.rows ?? [])).toStrictEqual(["added 1", "revised 2", "added 4", "added 5", "removed 3"])
    const revised = second?.replan?.rows[1]
    expect(revised?.mark === "revised" && revised.changes).toStrictEqual([
      { path: "path", before: "recipes/salmorejo.txt", after: "recipes/gazpacho.txt" }
    ])
    expect(third?.replan).toMatchObject({
      lastError: "not executed: missing field 'text'",
      cursor: { id: 4, position: 3, of: 4 }
    })
    expect(marks(third?.replan?.rows ?? [])).toStrictEqual(["revised 4", "kept 5"])
    const fix = third?.replan?.rows[0]
    expect(fix?.mark === "revised" && fix.changes).toStrictEqual([
      { path: "txt", before: "tomatoes" },
      { path: "text", after: "tomatoes" }
    ])
  })

  it("marks every step's outcome, revision by revision", async () => {
    const plan = read(sessionTrace(await runSession()))
    const outcomes = revisions(plan).map((r) => r.steps.map((s) => `${s.id} ${s.status}`))
    expect(outcomes).toStrictEqual([
      ["1 succeeded", "2 failed", "3 not_reached"],
      ["1 cached", "2 succeeded", "4 not_executed", "5 not_reached"],
      ["4 succeeded", "5 succeeded"]
    ])
    expect(revisions(plan)[0]?.steps[1]?.error).toBe("file 'recipes/salmorejo.txt' does not exist")
  })

  it("reads the goal, the budgets spent against their limits, the recorded SessionResult", async () => {
    const result = await runSession()
    const plan = read(sessionTrace(result))
    expect(plan.goal).toBe("add what salmorejo needs to list.txt")
    expect(plan.onFailure).toBe("replan")
    expect(plan.budgets).toStrictEqual({ steps: 6, maxSteps: 10, replans: 2, maxReplans: 2 })
    expect(plan.finished).toStrictEqual({ status: "completed", reason: "goal_met" })
    expect(plan.result).toMatchObject({ recorded: true, status: "completed", reason: "goal_met", steps: 6, replans: 2 })
    expect(plan.result?.revisions).toStrictEqual(result.revisions)
    expect(plan.result?.history.map((s) => `${s.id} ${s.status}`)).toStrictEqual([
      "1 succeeded",
      "2 failed",
      "2 succeeded",
      "4 not_executed",
      "4 succeeded",
      "5 succeeded"
    ])
  })
})

describe("a plan session's spend", () => {
  it("reads the planner calls' spend (the last total) and the refusal; the events stay in the timeline", async () => {
    const result = await runSession()
    const settled = (revision: number, input: number, cost: number) =>
      JSON.stringify({
        type: "spend.settled",
        revision,
        reported: true,
        spent: { input_tokens: 1000, output_tokens: 50, cost: 0.00375 },
        total: { input_tokens: input, output_tokens: input / 20, cost }
      })
    const refused = JSON.stringify({
      type: "spend.refused",
      revision: 2,
      reason: "cost_budget",
      kind: "cost",
      limit: 0.01,
      committed: 0.0075,
      requested: 0.004
    })
    const lines = sessionTrace(result, undefined, false).split("\n")
    const text = [lines[0], settled(0, 1000, 0.00375), settled(1, 2000, 0.0075), refused, ...lines.slice(1)].join("\n")
    const plan = read(text)
    expect(plan.spend).toStrictEqual({
      inputTokens: 2000,
      outputTokens: 100,
      cost: 0.0075,
      refused: "cost_budget: cost 0.01; 0.0075 spent or reserved, the next call needed up to 0.004 more"
    })
    expect(plan.problems).toStrictEqual([])
    const others = plan.entries.flatMap((e) => (e.type === "other" ? [e.event.type] : []))
    expect(others).toStrictEqual(["spend.settled", "spend.settled", "spend.refused"])
    // Without spend events, none.
    expect(read(sessionTrace(result)).spend).toBeNull()
  })
})

/** Sessions down every path of the state machine, with their budgets. */
const paths: ReadonlyArray<{
  readonly name: string
  readonly rules: ReadonlyArray<RulePlanner.Rule>
  readonly budgets: { readonly maxSteps: number; readonly maxReplans: number }
  readonly onFailure?: "replan" | "skip" | "abort"
  readonly reason: SessionResult.Reason
}> = [
  { name: "two replans", rules: sessionRules, budgets: { maxSteps: 10, maxReplans: 2 }, reason: "goal_met" },
  {
    name: "a plan too big for the step budget",
    rules: sessionRules,
    budgets: { maxSteps: 2, maxReplans: 2 },
    reason: "step_budget"
  },
  { name: "no replan left", rules: sessionRules, budgets: { maxSteps: 10, maxReplans: 0 }, reason: "replan_budget" },
  {
    name: "no plan after a failure",
    rules: sessionRules.slice(0, 1),
    budgets: { maxSteps: 10, maxReplans: 2 },
    reason: "no_plan"
  },
  { name: "no plan at all", rules: [], budgets: { maxSteps: 10, maxReplans: 2 }, reason: "no_plan" },
  {
    name: "an invalid plan, then a valid one",
    rules: [
      ...sessionRules.slice(0, 1),
      {
        when: "does not exist",
        plan: [Step.make(4, "read", { path: "list.txt" }, "x"), Step.make(4, "read", { path: "list.txt" }, "x")]
      },
      { when: "appears twice", plan: [Step.make(4, "read", { path: "list.txt" }, "the list")] }
    ],
    budgets: { maxSteps: 10, maxReplans: 3 },
    reason: "goal_met"
  },
  {
    name: "abort",
    rules: sessionRules,
    budgets: { maxSteps: 10, maxReplans: 2 },
    onFailure: "abort",
    reason: "aborted"
  },
  { name: "skip", rules: sessionRules, budgets: { maxSteps: 10, maxReplans: 2 }, onFailure: "skip", reason: "partial" }
]

describe("PlanTrace.fromLines: a trace without its result line", () => {
  it.each(paths)("derives what the SessionResult says from the events alone: $name", async (path) => {
    const result = await runSession(path.rules, path.budgets, path.onFailure)
    expect(result.reason).toBe(path.reason)
    const plan = read(sessionTrace(result, path.budgets, false))
    expect(plan.problems).toStrictEqual([])
    expect(plan.result?.recorded).toBe(false)
    expect({
      status: plan.result?.status,
      reason: plan.result?.reason,
      steps: plan.result?.steps,
      replans: plan.result?.replans,
      history: plan.result?.history.map((s) => s.id),
      revisions: plan.result?.revisions
    }).toStrictEqual({
      status: result.status,
      reason: result.reason,
      steps: result.steps,
      replans: result.replans,
      history: result.history.map((s) => s.id),
      revisions: result.revisions
    })
  })

  it("shows a refused plan where it was refused", async () => {
    const path = paths[5]
    if (path === undefined) throw new Error("no such path")
    const plan = read(sessionTrace(await runSession(path.rules, path.budgets), path.budgets))
    expect(plan.entries.map((e) => (e.type === "revision" ? `revision ${e.revision}` : e.type))).toStrictEqual([
      "revision 0",
      "rejected",
      "revision 1"
    ])
    expect(revisions(plan)[1]?.replan?.lastError).toMatch(/appears twice/)
  })
})

describe("PlanTrace: a whole SessionResult, and bad input", () => {
  it("reads a SessionResult as one JSON value (with its events), pretty-printed", async () => {
    const result = await runSession()
    const text = JSON.stringify(Schema.encodeSync(SessionResult.SessionResult)(result), null, 2)
    const read = Lines.read(text)
    const kind = Input.detect(text, read)
    expect(kind.kind).toBe("plan-result")
    if (kind.kind !== "plan-result") return
    const plan = PlanTrace.fromResult("f1", "result.json", kind.json)
    expect(plan.problems).toStrictEqual([])
    expect(plan.result).toMatchObject({ recorded: true, steps: 6, replans: 2 })
    expect(revisions(plan).map((r) => r.revision)).toStrictEqual([0, 1, 2])
  })

  it("names a bad event inside a SessionResult by its JSON path", async () => {
    const result = await runSession()
    const json = Lines.json(Schema.encodeSync(SessionResult.SessionResult)(result))
    const events = Lines.isObject(json) && Array.isArray(json.events) ? json.events : []
    const bad = { ...(json as object), events: [...events.slice(0, 2), { type: "step.failed", revision: 0 }] }
    const plan = PlanTrace.fromResult("f1", "result.json", Lines.json(bad))
    expect(plan.problems).toStrictEqual([{ line: null, path: "events[2].id", message: "missing" }])
  })

  it("names bad lines and keeps unknown events in the timeline", () => {
    const plan = read(
      [
        SessionTrace.startLine({ goal: "g" }),
        JSON.stringify({ type: "plan.created", revision: 0, plan: [Step.make(1, "read", { path: "a" }, "a")] }),
        JSON.stringify({ type: "step.started", revision: 0 }),
        JSON.stringify({ type: "step.succeeded", revision: 3, id: 1, result: "x" }),
        JSON.stringify({ type: "step.succeeded", revision: 0, id: 9, result: "x" }),
        JSON.stringify({ type: "permission.decided", step: 1, allowed: false }),
        JSON.stringify({
          type: "plan.diff",
          revision: 1,
          last_error: "e",
          diff: { removed: [], added: [], revised: [] }
        })
      ].join("\n")
    )
    expect(plan.problems).toStrictEqual([
      { line: 3, path: "step", message: "missing" },
      { line: 4, path: "revision", message: "revision 3 is not the current plan" },
      { line: 5, path: "id", message: "step 9 is not in revision 0" },
      { line: 7, path: "type", message: "a diff with no plan after it" }
    ])
    expect(plan.entries.map((e) => (e.type === "other" ? `${e.type} ${e.event.type}` : e.type))).toStrictEqual([
      "revision",
      "other step.started",
      "other permission.decided"
    ])
    expect(plan.finished).toBeNull()
    expect(plan.result).toBeNull()
  })
})

describe("PlanTrace reads what SessionTrace writes", () => {
  it("names a line an old recorder could not encode (session.unencodable, read as the trace's ~unencodable note), and reads on", () => {
    const plan = read(
      [
        SessionTrace.startLine({ goal: "g", max_steps: 3 }),
        JSON.stringify({ type: "plan.created", revision: 0, plan: [Step.make(1, "read", { path: "a" }, "a")] }),
        JSON.stringify({
          type: "session.unencodable",
          event_type: "step.started",
          rendering: "{}",
          error: "no reading me"
        }),
        JSON.stringify({ type: "session.finished", status: "failed", reason: "aborted", session_id: "s" })
      ].join("\n")
    )
    expect(plan.problems).toStrictEqual([
      { line: 3, path: "(root)", message: "the recorder could not encode a step.started event: no reading me" }
    ])
    expect(plan.entries.map((e) => (e.type === "other" ? e.event.type : e.type))).toStrictEqual([
      "revision",
      "trace.annotated"
    ])
    expect(plan.finished).toStrictEqual({ status: "failed", reason: "aborted" })
  })

  it("a strategy or a field a newer planner adds still reads", () => {
    const plan = read(
      JSON.stringify({ type: "session.started", goal: "g", on_failure: "ask-a-human", max_replans: 1, owner: "x" })
    )
    expect(plan.problems).toStrictEqual([])
    expect(plan.onFailure).toBe("ask-a-human")
    expect(plan.budgets.maxReplans).toBe(1)
  })

  it("the file is told to be a plan session by its session.unencodable line alone", () => {
    const text = JSON.stringify({ type: "session.unencodable", rendering: "?", error: "e" })
    expect(Input.detect(text, Lines.read(text)).kind).toBe("plan")
  })
})

describe("PlanTrace.rows and ArgDiff.changes", () => {
  const s = (id: number, args: Model.Json, tool = "t"): Model.Step => ({ id, tool, args, expected: "", group: null })

  it("places removed steps where they stood and names ids the old plan lacks", () => {
    const rows = PlanTrace.rows(
      { removed: [2, 9], added: [5], revised: [3] },
      [s(1, 1), s(2, 2), s(3, 3)],
      [s(1, 1), s(3, 4), s(5, 5)]
    )
    expect(marks(rows)).toStrictEqual(["kept 1", "removed 2", "revised 3", "added 5", "removed 9"])
    expect(rows[4]?.step.tool).toBe("?")
  })

  it("names a tool change as a change", () => {
    const rows = PlanTrace.rows({ removed: [], added: [], revised: [1] }, [s(1, {}, "read")], [s(1, {}, "list")])
    expect(rows[0]?.mark === "revised" && rows[0].changes).toStrictEqual([
      { path: "(tool)", before: "read", after: "list" }
    ])
  })

  it("compares objects by key and arrays by index, any other difference at its path", () => {
    expect(ArgDiff.changes({ a: 1, b: { c: [1, 2, 3] } }, { a: 1, b: { c: [1, 5] }, d: null })).toStrictEqual([
      { path: "b.c[1]", before: 2, after: 5 },
      { path: "b.c[2]", before: 3 },
      { path: "d", after: null }
    ])
    expect(ArgDiff.changes({ a: [1] }, { a: { 0: 1 } })).toStrictEqual([{ path: "a", before: [1], after: { 0: 1 } }])
    expect(ArgDiff.changes("x", 1)).toStrictEqual([{ path: "(args)", before: "x", after: 1 }])
    expect(ArgDiff.changes({ "a b": 1 }, { "a b": 2 })).toStrictEqual([{ path: '["a b"]', before: 1, after: 2 }])
    expect(ArgDiff.changes({ x: [1, { y: 2 }] }, { x: [1, { y: 2 }] })).toStrictEqual([])
  })
})
