/**
 * The observation event says why a call failed (`failure`, the `Failure` tag) and what a replayed
 * call was when it ran (`original`), so a reader tells "outcome unknown" from a failure that ran
 * without matching texts; `Trace.encodable` is the slot rule every trace line follows.
 */
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Execute, Loop, Message, type Outcome, Trace } from "../src/index.ts"
import { scripted } from "./scripted.ts"

const Flaky = Tool.make("flaky", {
  description: "Fails",
  parameters: Schema.Struct({ n: Schema.Finite }),
  run: ({ n }) => Effect.fail({ message: `no ${n}` })
})
const toolset = Toolset.make(Flaky)
const decode = Schema.decodeUnknownSync(Trace.Event)

const failed = (failure: Outcome.Failure, id = "c1"): Outcome.Outcome => ({
  _tag: "Failed",
  id,
  name: "flaky",
  failure,
  content: "it failed"
})

describe("Trace.observation", () => {
  it("a Failed outcome carries its failure tag; the line decodes with it", () => {
    const tags: ReadonlyArray<Outcome.Failure> = [
      { _tag: "ToolError", error: "x" },
      { _tag: "Defect", defect: new Error("x") },
      { _tag: "TimedOut", millis: 5 },
      { _tag: "Interrupted" },
      { _tag: "StatusError", errorCode: "E", message: "x" },
      { _tag: "OutcomeUnknown" }
    ]
    for (const failure of tags) {
      const event = Trace.observation(3, failed(failure))
      expect(event).toEqual({
        type: "call.answered",
        turn: 3,
        outcome: "Failed",
        failure: failure._tag,
        result: { type: "tool_result", tool_use_id: "c1", content: "it failed", is_error: true }
      })
      expect(decode(JSON.parse(Trace.line(event)))).toEqual(event)
    }
  })

  it("a Replayed outcome carries its original outcome; others carry neither field", () => {
    const replayed = Trace.observation(1, {
      _tag: "Replayed",
      id: "c1",
      name: "flaky",
      original: "Succeeded",
      isError: false,
      content: "done"
    })
    expect(replayed).toMatchObject({ outcome: "Replayed", original: "Succeeded" })
    expect("failure" in replayed).toBe(false)
    const ok = Trace.observation(1, { _tag: "Succeeded", id: "c1", name: "flaky", value: 1, content: "1" })
    expect(Object.keys(ok).sort()).toEqual(["outcome", "result", "turn", "type"])
  })

  it.effect("the loop records the failure tag of each failed call", () =>
    Effect.gen(function* () {
      const { trace, events } = yield* Trace.memory
      const model = scripted([
        [Message.toolUse("c1", "flaky", { n: 1 }), Message.toolUse("c2", "flaky", { n: 2 })],
        [Message.text("done")]
      ])
      // The second call is answered as a journal answers a call that started before a crash.
      const middleware: Execute.Middleware = (call, _tool, run) =>
        call.id === "c2" ? Effect.succeed(failed({ _tag: "OutcomeUnknown" }, call.id)) : run
      yield* Loop.run({ toolset, messages: [Message.user("go")] }).pipe(
        Effect.provide(model.layer),
        Effect.provideService(Trace.Trace, trace),
        Effect.provideService(Execute.Middleware, middleware)
      )
      const observations = (yield* events).filter((e) => e.type === "call.answered")
      expect(observations.map((e) => [e.result.tool_use_id, e.outcome, e.failure])).toEqual([
        ["c1", "Failed", "ToolError"],
        ["c2", "Failed", "OutcomeUnknown"]
      ])
    })
  )
})

describe("Trace.encodable", () => {
  it("keeps what JSON holds and marks the rest, without throwing", () => {
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(Trace.encodable({ a: [1, "x"] })).toEqual({ a: [1, "x"] })
    expect(Trace.encodable(undefined)).toEqual({ "~unencodable": "undefined" })
    expect(Trace.encodable(10n)).toEqual({ "~unencodable": expect.stringContaining("10") })
    expect(Trace.encodable(cycle)).toEqual({ "~unencodable": expect.stringContaining("Circular") })
  })
})
