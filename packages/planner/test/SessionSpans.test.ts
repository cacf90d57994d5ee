import { Spans } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Tracer } from "effect"
import { RulePlanner, Session } from "../src/index.ts"
import { fail, ok, scriptedTool, step, toolsetOf } from "./fixtures.ts"

const A = Spans.Attribute

const capture = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  const named = (name: string) => spans.filter((span) => span.name === name)
  const parentOf = (span: Tracer.NativeSpan | undefined) =>
    span === undefined ? undefined : Option.getOrUndefined(span.parent)?.spanId
  return { spans, tracer, named, parentOf }
}

const session = () => {
  const fetch = scriptedTool("fetch", [ok("<html>")])
  const parse = scriptedTool("parse", [fail("parse error: bad json")])
  const parseLenient = scriptedTool("parse_lenient", [ok("parsed")])
  const save = scriptedTool("save", [ok("saved")])
  const first = [step(1, "fetch", { url: "u" }), step(2, "parse", {}), step(3, "save", { to: "db" })]
  const second = [step(2, "parse_lenient", {}), step(3, "save", { to: "db" })]
  return Session.run({
    goal: "import the page",
    planner: RulePlanner.make([
      { when: null, plan: first },
      { when: "parse error", plan: second }
    ]),
    toolset: toolsetOf(fetch, parse, parseLenient, save),
    maxSteps: 10,
    maxReplans: 1
  })
}

describe("Session.run: a plan session's spans", () => {
  it.effect("a session with a replan: invoke_workflow over plan, replan and each step's execute_tool", () =>
    Effect.gen(function* () {
      const traced = capture()
      const result = yield* session().pipe(Effect.withTracer(traced.tracer))
      expect(result.reason).toBe("goal_met")
      const [root, ...others] = traced.named("invoke_workflow plan")
      expect(others).toEqual([])
      expect(root).toBeDefined()
      expect(Option.isNone(root?.parent ?? Option.none())).toBe(true)
      expect(Object.fromEntries(root?.attributes ?? [])).toEqual({
        [A.operationName]: "invoke_workflow",
        [A.workflowName]: "plan",
        [A.conversationId]: result.session_id,
        [A.stopReason]: "goal_met",
        "agent_harness.plan.status": "completed",
        "agent_harness.plan.steps_run": 4,
        [A.replans]: 1
      })
      const plans = [...traced.named("plan"), ...traced.named("replan")]
      expect(plans.map((span) => [span.name, span.attributes.get(A.planRevision)])).toEqual([
        ["plan", 0],
        ["replan", 1]
      ])
      for (const span of plans) expect(traced.parentOf(span)).toBe(root?.spanId)
      const steps = traced.spans.filter((span) => span.name.startsWith("execute_tool "))
      expect(steps.map((span) => span.name)).toEqual([
        "execute_tool fetch",
        "execute_tool parse",
        "execute_tool parse_lenient",
        "execute_tool save"
      ])
      for (const span of steps) expect(traced.parentOf(span)).toBe(root?.spanId)
      expect(steps.map((span) => span.attributes.get(A.toolCallId))).toEqual([
        `${result.session_id}/step-0-1`,
        `${result.session_id}/step-0-2`,
        `${result.session_id}/step-1-2`,
        `${result.session_id}/step-1-3`
      ])
      expect(steps[1]?.attributes.get(A.errorType)).toBe("tool_error")
      const events = (root?.events ?? []).map(([name, , attributes]) => [name, attributes])
      expect(events).toEqual([
        ["agent_harness.plan.created", { [A.planRevision]: 0, [A.planSteps]: 3 }],
        [
          Spans.Event.planDiff,
          {
            [A.planRevision]: 1,
            "agent_harness.plan.removed": 0,
            "agent_harness.plan.added": 0,
            "agent_harness.plan.revised": 1
          }
        ],
        ["agent_harness.plan.created", { [A.planRevision]: 1, [A.planSteps]: 2 }]
      ])
    })
  )

  it.effect("without a tracer of its own, or with tracing disabled, a session opens no span", () =>
    Effect.gen(function* () {
      const off = capture()
      const result = yield* session().pipe(Effect.withTracer(off.tracer), Effect.withTracerEnabled(false))
      expect(result.reason).toBe("goal_met")
      expect(off.spans).toEqual([])
      const seen = yield* Effect.option(Effect.currentSpan)
      expect(Option.isNone(seen)).toBe(true)
    })
  )
})
