/**
 * A session trace holds the whole session as it happened: the start line, every event in order,
 * the result without its events; every line decodes as a `SessionTrace.Line`. Recording never
 * changes the session: values JSON cannot hold are marked, encoders never throw, a write that
 * fails stops the trace and the session goes on, and a session that dies keeps the lines before.
 */
import { Trace } from "@agent-harness/executor"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, PlatformError, Schema } from "effect"
import { type Event, RulePlanner, Session, type SessionResult, SessionTrace } from "../src/index.ts"
import { linesOf, memoryFiles } from "../../executor/test/fixtures/memoryFiles.ts"
import { fail, ok, scriptedTool, step, toolsetOf } from "./fixtures.ts"

const decodeLine = Schema.decodeUnknownSync(SessionTrace.Line)

/** Every line of a trace, parsed and decoded (each must decode). */
const linesOfTrace = linesOf(SessionTrace.Line)

/** A session that fails once and replans: read, then a write that fails, then a fixed write. */
const replanning = () => {
  const read = scriptedTool("read", [ok("salmorejo: tomato, bread")], { readOnly: true })
  const write = scriptedTool("write", [fail("disk is read-only"), ok("written")])
  const options: Session.Options<typeof read.tool, never, never> = {
    goal: "write the list",
    planner: RulePlanner.make([
      { when: null, plan: [step(1, "read", { path: "r.txt" }), step(2, "write", { path: "/list.txt" })] },
      { when: "read-only", plan: [step(3, "write", { path: "list.txt" })] }
    ]),
    toolset: toolsetOf(read, write),
    maxSteps: 5,
    maxReplans: 1
  }
  return options
}

describe("SessionTrace.run", () => {
  it.effect("writes the start, every event in order and the result; every line decodes", () =>
    Effect.gen(function* () {
      const { files, layer } = memoryFiles()
      const result = yield* SessionTrace.run("s.jsonl", replanning()).pipe(Effect.provide(layer))
      const lines = linesOfTrace(files.get("s.jsonl"))
      expect(lines[0]).toStrictEqual({
        type: "session.started",
        goal: "write the list",
        max_steps: 5,
        max_replans: 1,
        on_failure: "replan",
        tools: ["read", "write"]
      })
      expect(lines.slice(1, -1)).toStrictEqual(result.events)
      const { events: _events, ...rest } = result
      expect(lines.at(-1)).toStrictEqual({ type: "session.recorded", result: rest })
      expect(result.reason).toBe("goal_met")
      expect(result.revisions).toHaveLength(1)
    })
  )

  it.effect("the options' own onEvent still sees every event", () =>
    Effect.gen(function* () {
      const { layer } = memoryFiles()
      const seen: Array<string> = []
      const result = yield* SessionTrace.run("s.jsonl", {
        ...replanning(),
        onEvent: (event) => Effect.sync(() => void seen.push(event.type))
      }).pipe(Effect.provide(layer))
      expect(seen).toStrictEqual(result.events.map((e) => e.type))
    })
  )

  it.effect("a session that fails keeps every line written before it; there is no result line", () =>
    Effect.gen(function* () {
      const { files, layer } = memoryFiles()
      const error = yield* Effect.flip(
        SessionTrace.run("s.jsonl", {
          ...replanning(),
          planner: (request) =>
            request.lastError === null
              ? Effect.succeed([step(1, "write", { path: "x" })])
              : Effect.fail("the planner is gone")
        }).pipe(Effect.provide(layer))
      )
      expect(error).toBe("the planner is gone")
      expect(linesOfTrace(files.get("s.jsonl")).map((l) => l.type)).toStrictEqual([
        "session.started",
        "plan.created",
        "step.started",
        "step.failed"
      ])
    })
  )

  it.effect("fails with the PlatformError when the file cannot be created; the session never starts", () =>
    Effect.gen(function* () {
      const { layer } = memoryFiles(1)
      const write = scriptedTool("write", [ok("written")])
      const error = yield* Effect.flip(
        SessionTrace.run("s.jsonl", { ...replanning(), toolset: toolsetOf(write) }).pipe(Effect.provide(layer))
      )
      assert.instanceOf(error, PlatformError.PlatformError)
      expect(write.calls).toHaveLength(0)
    })
  )

  it.effect("a later write that fails stops the trace; the session ends as it would have", () =>
    Effect.gen(function* () {
      // The first write empties the file; the fourth is the first step's.
      const { files, layer } = memoryFiles(4)
      const result = yield* SessionTrace.run("s.jsonl", replanning()).pipe(Effect.provide(layer))
      const plain = yield* Session.run(replanning())
      expect(linesOfTrace(files.get("s.jsonl")).map((l) => l.type)).toStrictEqual(["session.started", "plan.created"])
      expect(result.reason).toBe(plain.reason)
      expect(result.history).toStrictEqual(plain.history)
    })
  )
})

describe("SessionTrace lines never throw", () => {
  const result: SessionResult.SessionResult = {
    session_id: "s1",
    status: "failed",
    reason: "no_plan",
    history: [],
    revisions: [],
    events: [{ type: "session.finished", status: "failed", reason: "no_plan", session_id: "s1" }],
    steps: 0,
    replans: 0
  }

  it("a step argument JSON cannot hold is marked; the line decodes", () => {
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    const plan = [step(1, "write", { n: 10n, self: cycle, fine: "x" })]
    const line = JSON.parse(SessionTrace.eventLine({ type: "plan.created", revision: 0, plan }))
    expect(decodeLine(line)).toStrictEqual({
      type: "plan.created",
      revision: 0,
      plan: [
        {
          ...plan[0],
          args: {
            n: { "~unencodable": expect.stringContaining("10") },
            self: { "~unencodable": expect.stringContaining("Circular") },
            fine: "x"
          }
        }
      ]
    })
  })

  it("an event, a start or a result that cannot be encoded at all becomes the trace's ~unencodable note", () => {
    /** The value, with every field but its type throwing when read. */
    const hostile = <A extends object>(value: A): A =>
      new Proxy(value, {
        get(target, key, receiver) {
          if (key === "type") return Reflect.get(target, key, receiver)
          throw new Error("no reading me")
        }
      })
    const started: Event.Event = { type: "step.started", revision: 0, step: step(1, "a"), tool_use_id: "s/step-0-1" }
    const lines = [
      SessionTrace.eventLine(hostile(started)),
      SessionTrace.startLine({ goal: "g", max_steps: 1.5 }),
      SessionTrace.resultLine(hostile(result))
    ].map((l) => Schema.decodeUnknownSync(Trace.Event)(JSON.parse(l)))
    expect(lines.map((l) => (l.type === "trace.annotated" ? l.key : l.type))).toStrictEqual([
      Trace.unencodable,
      Trace.unencodable,
      Trace.unencodable
    ])
    expect(lines[0]).toMatchObject({ value: { event_type: "step.started", error: "no reading me" } })
    expect(lines[1]).toMatchObject({ value: { rendering: expect.stringContaining('"max_steps":1.5') } })
    expect(lines[2]).toMatchObject({ value: { event_type: "session.recorded" } })
  })

  it("the result line is the result without its events, and reads back as one", () => {
    const { events: _events, ...rest } = result
    expect(JSON.parse(SessionTrace.resultLine(result))).toStrictEqual({ type: "session.recorded", result: rest })
  })
})

describe("SessionTrace.startOf", () => {
  it("states the default strategy, and the tools when there is a toolset", () => {
    expect(SessionTrace.startOf({ goal: "g", maxSteps: 3, maxReplans: 0 })).toStrictEqual({
      goal: "g",
      max_steps: 3,
      max_replans: 0,
      on_failure: "replan"
    })
    const a = scriptedTool("a", [ok("")])
    expect(
      SessionTrace.startOf({ goal: "g", maxSteps: 3, maxReplans: 0, onFailure: "skip", toolset: toolsetOf(a) })
    ).toMatchObject({ on_failure: "skip", tools: ["a"] })
  })
})
