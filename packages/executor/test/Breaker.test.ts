/**
 * The repeated-call breaker: `tell` appends the catalogue's line to the tripping call's
 * observation, `stop` ends the run after the turn with `repeated_call`; every call still runs and
 * gets its result; identical means the same tool, canonical input and observation within the
 * window; an input without a canonical text never trips it; bad settings are `InvalidOption`.
 */
import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, expect, it } from "@effect/vitest"
import { type Duration, Effect, Exit, Schema } from "effect"
import { type Breaker, Loop, Message, Trace } from "../src/index.ts"
import { scripted } from "./scripted.ts"

const { text, toolUse, toolResult } = Message

/** `read` fails the same way for any path but `a.txt`; `clock` answers something new each call. */
const makeTools = () => {
  const ran: Array<string> = []
  const Read = Tool.make("read", {
    description: "Reads a file",
    parameters: Schema.Struct({ path: Schema.String, encoding: Schema.optionalKey(Schema.String) }),
    run: ({ path }) =>
      Effect.suspend(() => {
        ran.push(`read ${path}`)
        return path === "a.txt" ? Effect.succeed("alpha") : Effect.fail({ message: `no file '${path}'` })
      })
  })
  let tick = 0
  const Clock = Tool.make("clock", {
    description: "The time",
    parameters: Schema.Struct({}),
    run: () => {
      ran.push("clock")
      tick++
      return `tick ${tick}`
    }
  })
  return { toolset: Toolset.make(Read, Clock), ran }
}

const opening: ReadonlyArray<Message.Message> = [Message.user("Read b.txt")]
const missing = (id: string, input: unknown = { path: "b.txt" }) => [toolUse(id, "read", input)]
const note = (count: number, window: number) => MessageCatalog.english.repeatedCall(count, window)

describe("Loop.run with a repeated-call breaker", () => {
  it.effect("tell: the third identical call's observation gets the line; every call ran; the run goes on", () =>
    Effect.gen(function* () {
      const { toolset, ran } = makeTools()
      const model = scripted([missing("c1"), missing("c2"), missing("c3"), missing("c4"), [text("I give up.")]])
      const { trace, events } = yield* Trace.memory
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        breaker: { after: 3, window: 5, action: "tell" }
      }).pipe(Effect.provide(model.layer), Effect.provideService(Trace.Trace, trace))
      expect(result.stop).toBe("end")
      expect(ran).toEqual(["read b.txt", "read b.txt", "read b.txt", "read b.txt"])
      const shown = result.turns.map((turn) => turn.outcomes.map((o) => o.content))
      expect(shown).toEqual([
        ["no file 'b.txt'"],
        ["no file 'b.txt'"],
        [`no file 'b.txt'\n${note(3, 5)}`],
        [`no file 'b.txt'\n${note(4, 5)}`],
        []
      ])
      // What the model read is what the turns hold.
      expect(model.requests[3]?.messages.at(-1)).toEqual(
        Message.user([toolResult("c3", `no file 'b.txt'\n${note(3, 5)}`, true)])
      )
      const seen = yield* events
      expect(seen[0]).toMatchObject({ type: "run.started", breaker: { after: 3, window: 5, action: "tell" } })
      const trips = seen.filter((e) => e.type === "breaker.tripped")
      expect(trips).toEqual([
        {
          type: "breaker.tripped",
          turn: 3,
          tool_use_id: "c3",
          name: "read",
          count: 3,
          after: 3,
          window: 5,
          action: "tell"
        },
        {
          type: "breaker.tripped",
          turn: 4,
          tool_use_id: "c4",
          name: "read",
          count: 4,
          after: 3,
          window: 5,
          action: "tell"
        }
      ])
      // Each trip follows its call's observation.
      const c3 = seen.findIndex((e) => e.type === "call.answered" && e.result.tool_use_id === "c3")
      expect(seen[c3 + 1]).toEqual(trips[0])
    })
  )

  it.effect("stop: the run stops after the tripping turn, every call of it answered, the model not called again", () =>
    Effect.gen(function* () {
      const { toolset, ran } = makeTools()
      const turn2 = [toolUse("c2", "read", { path: "b.txt" }), toolUse("c3", "read", { path: "a.txt" })]
      const model = scripted([missing("c1"), turn2, [text("never asked")]])
      const { trace, events } = yield* Trace.memory
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        breaker: { after: 2, window: 3, action: "stop" }
      }).pipe(Effect.provide(model.layer), Effect.provideService(Trace.Trace, trace))
      expect(result.stop).toBe("repeated_call")
      expect(result.text).toBeUndefined()
      expect(model.requests.length).toBe(2)
      expect(ran).toEqual(["read b.txt", "read b.txt", "read a.txt"])
      expect(result.messages.at(-1)).toEqual(
        Message.user([toolResult("c2", "no file 'b.txt'", true), toolResult("c3", "alpha", false)])
      )
      const seen = yield* events
      expect(seen.filter((e) => e.type === "breaker.tripped")).toEqual([
        {
          type: "breaker.tripped",
          turn: 2,
          tool_use_id: "c2",
          name: "read",
          count: 2,
          after: 2,
          window: 3,
          action: "stop"
        }
      ])
      expect(seen.at(-1)).toEqual({ type: "run.ended", stop: "repeated_call", turns: 2 })
    })
  )

  it.effect("identical calls inside one reply count; every one of them runs, in order", () =>
    Effect.gen(function* () {
      const { toolset, ran } = makeTools()
      const reply = [1, 2, 3].map((i) => toolUse(`c${i}`, "read", { path: "b.txt" }))
      const model = scripted([reply, [text("no")]])
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        breaker: { after: 2, window: 1, action: "stop" }
      }).pipe(Effect.provide(model.layer))
      expect(result.stop).toBe("repeated_call")
      expect(ran.length).toBe(3)
      expect(result.turns[0]?.outcomes.map((o) => o.id)).toEqual(["c1", "c2", "c3"])
    })
  )

  it.effect("calls run concurrently (or with a timeout) are counted and told alike, in call order", () =>
    Effect.gen(function* () {
      const extras: ReadonlyArray<{
        readonly concurrency?: "unbounded" | undefined
        readonly timeout?: Duration.Input | undefined
      }> = [{ concurrency: "unbounded" }, { timeout: "1 minute" }]
      for (const extra of extras) {
        const { toolset, ran } = makeTools()
        const reply = [1, 2, 3].map((i) => toolUse(`c${i}`, "read", { path: "b.txt" }))
        const model = scripted([reply, [text("no")]])
        const result = yield* Loop.run({
          toolset,
          messages: opening,
          breaker: { after: 2, window: 1, action: "tell" },
          ...extra
        }).pipe(Effect.provide(model.layer))
        expect(ran.length).toBe(3)
        expect(result.turns[0]?.outcomes.map((o) => o.content)).toEqual([
          "no file 'b.txt'",
          `no file 'b.txt'\n${note(2, 1)}`,
          `no file 'b.txt'\n${note(3, 1)}`
        ])
      }
    })
  )

  it.effect("key order does not matter: the canonical text decides", () =>
    Effect.gen(function* () {
      const { toolset } = makeTools()
      const model = scripted([
        missing("c1", { path: "b.txt", encoding: "utf8" }),
        missing("c2", { encoding: "utf8", path: "b.txt" }),
        [text("done")]
      ])
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        breaker: { after: 2, window: 2, action: "tell" }
      }).pipe(Effect.provide(model.layer))
      expect(result.turns[1]?.outcomes[0]?.content).toBe(`no file 'b.txt'\n${note(2, 2)}`)
    })
  )

  it.effect("not identical: another input, another observation, or outside the window", () =>
    Effect.gen(function* () {
      const { toolset } = makeTools()
      const model = scripted([
        missing("c1", { path: "b.txt" }),
        missing("c2", { path: "c.txt" }),
        [toolUse("c3", "clock", {})],
        [toolUse("c4", "clock", {})],
        missing("c5", { path: "b.txt" }),
        [text("done")]
      ])
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        breaker: { after: 2, window: 3, action: "stop" }
      }).pipe(Effect.provide(model.layer))
      // c5 repeats c1, but four turns later: c1 is out of a window of three.
      expect(result.stop).toBe("end")
      expect(result.turns.flatMap((t) => t.outcomes.map((o) => o.content))).toEqual([
        "no file 'b.txt'",
        "no file 'c.txt'",
        "tick 1",
        "tick 2",
        "no file 'b.txt'"
      ])
    })
  )

  it.effect("an input with a cycle or a throwing getter is never identical, and never hangs the breaker", () =>
    Effect.gen(function* () {
      const { toolset } = makeTools()
      const cyclic = (): Record<string, unknown> => {
        const input: Record<string, unknown> = { path: "b.txt" }
        input.self = input
        return input
      }
      const hostile = () =>
        Object.defineProperty({ path: "b.txt" }, "x", {
          enumerable: true,
          get: () => {
            throw new Error("getter boom")
          }
        })
      const model = scripted([
        missing("c1", cyclic()),
        missing("c2", cyclic()),
        missing("c3", hostile()),
        missing("c4", hostile()),
        [text("done")]
      ])
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        breaker: { after: 2, window: 5, action: "stop" }
      }).pipe(Effect.provide(model.layer))
      expect(result.stop).toBe("end")
      expect(result.turns.length).toBe(5)
    })
  )

  it.effect("the line comes from the catalogue in use (Spanish)", () =>
    Effect.gen(function* () {
      const { toolset } = makeTools()
      const model = scripted([missing("c1"), missing("c2"), [text("fin")]])
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        breaker: { after: 2, window: 2, action: "tell" }
      }).pipe(Effect.provide(model.layer), Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish))
      expect(result.turns[1]?.outcomes[0]?.content).toBe(
        `no file 'b.txt'\n${MessageCatalog.spanish.repeatedCall(2, 2)}`
      )
    })
  )

  it.effect("bad settings fail with InvalidOption naming the field, before the model is called", () =>
    Effect.gen(function* () {
      const { toolset } = makeTools()
      const cases: ReadonlyArray<readonly [unknown, string, string]> = [
        [{ after: 1, window: 5, action: "tell" }, "breaker.after", "at least 2"],
        [{ after: 2.5, window: 5, action: "tell" }, "breaker.after", "got 2.5"],
        [{ after: 3, window: 0, action: "tell" }, "breaker.window", "at least 1"],
        [{ after: 3, window: 5, action: "warn" }, "breaker.action", `got "warn"`],
        [{ after: 3, window: 5 }, "breaker.action", "got undefined"],
        ["tell", "breaker", `got "tell"`],
        [
          Object.defineProperty({ window: 5, action: "tell" }, "after", {
            get: () => {
              throw new Error("boom")
            }
          }),
          "breaker.after",
          "cannot be read"
        ]
      ]
      for (const [breaker, option, problem] of cases) {
        const model = scripted([[text("never")]])
        const exit = yield* Effect.exit(
          Loop.run({ toolset, messages: opening, breaker: breaker as Breaker.Breaker }).pipe(
            Effect.provide(model.layer)
          )
        )
        assert.isTrue(Exit.isFailure(exit))
        const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
        assert.strictEqual(error?._tag, "Fail")
        const failure = error?._tag === "Fail" ? error.error : undefined
        assert.strictEqual(failure?._tag, "InvalidOption")
        if (failure?._tag === "InvalidOption") {
          assert.strictEqual(failure.option, option)
          assert.include(failure.problem, problem)
        }
        assert.strictEqual(model.requests.length, 0)
      }
    })
  )
})
