/**
 * One trace for the loop and the plan session: `Session.run` records into the executor's `Trace`
 * in use, so a session beside (or inside) a loop lands in the same trace, with one vocabulary,
 * every line of it read by the one Schema of each side.
 */
import { Loop, Message, Model, Trace } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { RulePlanner, Session, SessionTrace } from "../src/index.ts"
import { ok, scriptedTool, step, toolsetOf } from "./fixtures.ts"

const read = scriptedTool("read", [ok("tomato, bread")], { readOnly: true })
const options: Session.Options<typeof read.tool, never, never> = {
  goal: "read the recipe",
  planner: RulePlanner.make([{ when: null, plan: [step(1, "read", { path: "r.txt" })] }]),
  toolset: toolsetOf(read),
  maxSteps: 3,
  maxReplans: 0
}

const decodeLine = Schema.decodeUnknownSync(Schema.Union([Trace.Event, SessionTrace.Line]))

describe("a plan session records into the Trace in use", () => {
  it.effect("session.started, each event as onEvent sees it, session.recorded: nothing without a trace", () =>
    Effect.gen(function* () {
      const memory = yield* Trace.memory
      const seen: Array<string> = []
      const result = yield* Session.run({ ...options, onEvent: (e) => Effect.sync(() => seen.push(e.type)) }).pipe(
        Effect.provideService(Trace.Trace, memory.trace)
      )
      const entries = yield* memory.entries
      expect(entries.map((e) => e.type)).toStrictEqual(["session.started", ...seen, "session.recorded"])
      expect(entries.slice(1, -1)).toStrictEqual(result.events)
      expect(entries[0]).toStrictEqual({ type: "session.started", ...SessionTrace.startOf(options) })
      const { events: _events, ...rest } = result
      expect(entries.at(-1)).toStrictEqual({ type: "session.recorded", result: rest })
      // The core's events are the loop's: a session alone has none.
      expect(yield* memory.events).toStrictEqual([])
      const plain = yield* Session.run(options)
      expect(plain.reason).toBe(result.reason)
    })
  )

  it.effect("a loop and a session beside it write one trace; every line decodes, in the order it happened", () =>
    Effect.gen(function* () {
      const memory = yield* Trace.memory
      const model = Model.layer(Model.fromReply(() => Effect.succeed([Message.text("done")])))
      yield* Effect.gen(function* () {
        yield* Loop.run({ toolset: toolsetOf(read), messages: [Message.user("Read r.txt.")] })
        yield* Session.run(options)
      }).pipe(Effect.provide(model), Effect.provideService(Trace.Trace, memory.trace))
      const lines = (yield* memory.entries).map((entry) => decodeLine(JSON.parse(Trace.line(entry))))
      expect(lines.map((l) => l.type)).toStrictEqual([
        "run.started",
        "model.requested",
        "model.replied",
        "run.ended",
        "session.started",
        "plan.created",
        "step.started",
        "step.succeeded",
        "session.finished",
        "session.recorded"
      ])
    })
  )
})
