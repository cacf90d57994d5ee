import { Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Loop, Message, Progress, Trace } from "../src/index.ts"
import { scripted } from "./scripted.ts"

const { text, toolUse, toolResult } = Message

const opening: ReadonlyArray<Message.Message> = [Message.system("You wait."), Message.user("Wait.")]

/** A tool that sleeps `ms` in the lane given (none: no lane); `log` records starts and ends. */
const sleeper = (name: string, lane: string | undefined, log: Array<string>) =>
  Tool.make(name, {
    description: "Sleeps",
    parameters: Schema.Struct({ ms: Schema.Int }),
    lane,
    run: ({ ms }, { id }) =>
      Effect.gen(function* () {
        log.push(`start ${id}`)
        yield* Effect.sleep(ms)
        log.push(`end ${id}`)
        return `${id} slept ${ms}`
      })
  })

describe("Loop.run lanes", () => {
  it.effect("two lanes whose first calls sleep 2 s each finish in 2 s, not 4; one lane's calls in order", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const toolset = Toolset.make(sleeper("a__wait", "mcp:a", log), sleeper("b__wait", "mcp:b", log))
      const model = scripted([
        [
          toolUse("a1", "a__wait", { ms: 2000 }),
          toolUse("b1", "b__wait", { ms: 2000 }),
          toolUse("a2", "a__wait", { ms: 10 }),
          toolUse("b2", "b__wait", { ms: 10 })
        ],
        [text("done")]
      ])
      const fiber = yield* Effect.forkChild(Loop.run({ toolset, messages: opening }).pipe(Effect.provide(model.layer)))
      yield* TestClock.adjust("1 second")
      // Both lanes' first calls run at once; neither lane's second call has started.
      expect(log).toEqual(["start a1", "start b1"])
      yield* TestClock.adjust("1010 millis")
      const result = yield* Fiber.join(fiber)
      expect(log.indexOf("start a2")).toBeGreaterThan(log.indexOf("end a1"))
      expect(log.indexOf("start b2")).toBeGreaterThan(log.indexOf("end b1"))
      expect(result.turns[0]?.outcomes.map((o) => o.id)).toEqual(["a1", "b1", "a2", "b2"])
      expect(model.requests[1]?.messages.at(-1)).toEqual(
        Message.user([
          toolResult("a1", "a1 slept 2000", false),
          toolResult("b1", "b1 slept 2000", false),
          toolResult("a2", "a2 slept 10", false),
          toolResult("b2", "b2 slept 10", false)
        ])
      )
    })
  )

  it.effect("calls without a lane are one lane (concurrency 1: in order) beside a named lane", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const toolset = Toolset.make(sleeper("local", undefined, log), sleeper("m__wait", "mcp:m", log))
      const model = scripted([
        [
          toolUse("l1", "local", { ms: 100 }),
          toolUse("m1", "m__wait", { ms: 100 }),
          toolUse("l2", "local", { ms: 100 }),
          toolUse("zz", "nope", {})
        ],
        [text("done")]
      ])
      const fiber = yield* Effect.forkChild(Loop.run({ toolset, messages: opening }).pipe(Effect.provide(model.layer)))
      yield* TestClock.adjust("50 millis")
      expect([...log].sort()).toEqual(["start l1", "start m1"])
      yield* TestClock.adjust("150 millis")
      const result = yield* Fiber.join(fiber)
      expect(result.turns[0]?.outcomes.map((o) => o.id)).toEqual(["l1", "m1", "l2", "zz"])
      expect(result.turns[0]?.outcomes[3]?._tag).toBe("NotExecuted")
    })
  )

  it.effect("concurrency applies to the calls without a lane; a named lane stays one at a time", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const toolset = Toolset.make(sleeper("local", undefined, log), sleeper("m__wait", "mcp:m", log))
      const model = scripted([
        [
          toolUse("l1", "local", { ms: 100 }),
          toolUse("l2", "local", { ms: 100 }),
          toolUse("m1", "m__wait", { ms: 100 }),
          toolUse("m2", "m__wait", { ms: 100 })
        ],
        [text("done")]
      ])
      const fiber = yield* Effect.forkChild(
        Loop.run({ toolset, messages: opening, concurrency: "unbounded" }).pipe(Effect.provide(model.layer))
      )
      yield* TestClock.adjust("50 millis")
      expect([...log].sort()).toEqual(["start l1", "start l2", "start m1"])
      yield* TestClock.adjust("150 millis")
      const result = yield* Fiber.join(fiber)
      expect(result.turns[0]?.outcomes.map((o) => o.id)).toEqual(["l1", "l2", "m1", "m2"])
    })
  )

  it.effect("a turn of one named lane runs its calls one after another", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const toolset = Toolset.make(sleeper("m__wait", "mcp:m", log))
      const model = scripted([
        [toolUse("m1", "m__wait", { ms: 100 }), toolUse("m2", "m__wait", { ms: 100 })],
        [text("done")]
      ])
      const fiber = yield* Effect.forkChild(
        Loop.run({ toolset, messages: opening, concurrency: "unbounded" }).pipe(Effect.provide(model.layer))
      )
      yield* TestClock.adjust("50 millis")
      expect(log).toEqual(["start m1"])
      yield* TestClock.adjust("150 millis")
      yield* Fiber.join(fiber)
      expect(log).toEqual(["start m1", "end m1", "start m2", "end m2"])
    })
  )

  it.effect("a tool whose lane getter throws has no lane (the run goes on)", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const base = sleeper("odd", undefined, log)
      const odd = Object.defineProperty({ ...base }, "lane", {
        get: () => {
          throw new Error("no lane for you")
        }
      })
      const toolset = Toolset.make(odd, sleeper("m__wait", "mcp:m", log))
      const model = scripted([[toolUse("o1", "odd", { ms: 1 }), toolUse("m1", "m__wait", { ms: 1 })], [text("done")]])
      const fiber = yield* Effect.forkChild(Loop.run({ toolset, messages: opening }).pipe(Effect.provide(model.layer)))
      yield* TestClock.adjust("10 millis")
      const result = yield* Fiber.join(fiber)
      expect(result.turns[0]?.outcomes.map((o) => o._tag)).toEqual(["Succeeded", "Succeeded"])
    })
  )
})

describe("Loop.run progress", () => {
  const Counter = Tool.make("count", {
    description: "Counts to three",
    parameters: Schema.Struct({}),
    run: (_, { id }) =>
      Effect.gen(function* () {
        for (let step = 1; step <= 3; step++) {
          yield* Progress.report(id, { progress: step, total: 3, ...(step === 2 ? { message: "halfway" } : {}) })
        }
        return "counted"
      })
  })

  const progressEvents = (events: ReadonlyArray<Trace.Event>) => events.filter((e) => e.type === "call.progressed")

  for (const [label, options] of [
    ["the direct path", {}],
    ["the concurrent path", { concurrency: "unbounded" as const }],
    ["lanes", { laned: true }]
  ] as const) {
    it.effect(`each update is a tool.progress event naming the turn, the call and the tool (${label})`, () =>
      Effect.gen(function* () {
        const { trace, events } = yield* Trace.memory
        const laned = "laned" in options
        const other = Tool.make("other", {
          description: "",
          parameters: Schema.Struct({}),
          lane: "mcp:x",
          run: () => "ok"
        })
        const toolset = laned ? Toolset.make(Counter, other) : Toolset.make(Counter)
        const model = scripted([
          laned ? [toolUse("c1", "count", {}), toolUse("o1", "other", {})] : [toolUse("c1", "count", {})],
          [text("done")]
        ])
        const given: Array<string> = []
        const result = yield* Loop.run({
          toolset,
          messages: opening,
          ...("concurrency" in options ? { concurrency: options.concurrency } : {})
        }).pipe(
          Effect.provide(model.layer),
          Effect.provideService(Trace.Trace, trace),
          Effect.provideService(Progress.Reporter, (id, update) =>
            Effect.sync(() => void given.push(`${id} ${update.progress}`))
          )
        )
        expect(progressEvents(yield* events)).toEqual([
          { type: "call.progressed", turn: 1, tool_use_id: "c1", name: "count", progress: 1, total: 3 },
          {
            type: "call.progressed",
            turn: 1,
            tool_use_id: "c1",
            name: "count",
            progress: 2,
            total: 3,
            message: "halfway"
          },
          { type: "call.progressed", turn: 1, tool_use_id: "c1", name: "count", progress: 3, total: 3 }
        ])
        // The reporter given around the run still hears every update.
        expect(given).toEqual(["c1 1", "c1 2", "c1 3"])
        // The model never sees progress.
        expect(JSON.stringify(model.requests[1]?.messages)).not.toContain("halfway")
        expect(result.stop).toBe("end")
        // Every event still encodes as a trace line.
        for (const event of yield* events) expect(() => Trace.line(event)).not.toThrow()
      })
    )
  }
})
