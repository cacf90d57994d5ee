import { Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Execute, type Outcome, Progress } from "../src/index.ts"
import * as Lanes from "../src/internal/lanes.ts"

/** A plain tool: answers at once, records its runs. */
const echo = (log: Array<string>) =>
  Tool.make("echo", {
    description: "Echoes",
    parameters: Schema.Struct({ text: Schema.String }),
    run: ({ text }, { id }) => {
      log.push(`run ${id}`)
      return `echo ${text}`
    }
  })

/** A tool that sleeps `ms` in the lane given (none: no lane), reporting progress once. */
const sleeper = (name: string, lane: string | undefined, log: Array<string>) =>
  Tool.make(name, {
    description: "Sleeps",
    parameters: Schema.Struct({ ms: Schema.Int }),
    lane,
    run: ({ ms }, { id }) =>
      Effect.gen(function* () {
        log.push(`start ${id}`)
        yield* Progress.report(id, { progress: 1 })
        yield* Effect.sleep(ms)
        log.push(`end ${id}`)
        return `${id} slept ${ms}`
      })
  })

const sleep = (id: string, name: string, ms: number): Toolset.RawCall => ({ id, name, input: { ms } })

/** A middleware that records the calls it sees, under a label. */
const spy =
  (label: string, seen: Array<string>): Execute.Middleware =>
  (call, _tool, run) =>
    Effect.andThen(
      Effect.sync(() => seen.push(`${label} ${call.id}`)),
      Effect.tap(run, () => Effect.sync(() => seen.push(`${label} done ${call.id}`)))
    )

describe("Execute.executeAll: the path", () => {
  const none = undefined
  it("the synchronous core when nothing stands around the calls and they run one at a time", () => {
    expect(Lanes.pathOf({ lanes: none, bare: true, concurrency: 1, calls: 5 })).toBe("sync")
    expect(Lanes.pathOf({ lanes: none, bare: true, concurrency: "unbounded", calls: 1 })).toBe("sync")
    expect(Lanes.pathOf({ lanes: new Map([[undefined, [0, 1]]]), bare: true, concurrency: 1, calls: 2 })).toBe("sync")
  })
  it("an execute per call with a middleware, a timeout or several calls at once", () => {
    expect(Lanes.pathOf({ lanes: none, bare: false, concurrency: 1, calls: 5 })).toBe("each")
    expect(Lanes.pathOf({ lanes: none, bare: true, concurrency: 4, calls: 2 })).toBe("each")
  })
  it("lanes when the calls are in more than one lane, or all in one", () => {
    const two = new Map<string | undefined, Array<number>>([
      ["mcp:a", [0]],
      [undefined, [1]]
    ])
    expect(Lanes.pathOf({ lanes: two, bare: true, concurrency: 1, calls: 2 })).toBe("lanes")
    expect(Lanes.pathOf({ lanes: new Map([["mcp:a", [0, 1]]]), bare: true, concurrency: 1, calls: 2 })).toBe("oneLane")
  })
  it("a toolset whose tool's lane getter throws has no lane", () => {
    const hostile = { ...echo([]) }
    Object.defineProperty(hostile, "lane", {
      get: () => {
        throw new Error("no")
      }
    })
    expect(Lanes.laneOf(hostile as Tool.Any)).toBeUndefined()
  })
})

describe("Execute.executeAll", () => {
  it("plain calls without an Effect runtime around them: runSync, outcomes in call order, onCall before each", () => {
    const log: Array<string> = []
    const toolset = Toolset.make(echo(log))
    const outcomes = Effect.runSync(
      Execute.executeAll(
        toolset,
        [
          { id: "c1", name: "echo", input: { text: "a" } },
          { id: "c2", name: "nope", input: {} },
          { id: "c3", name: "echo", input: { text: 1 } },
          { id: "c4", name: "echo", input: { text: "b" } }
        ],
        { onCall: (call, index) => Effect.sync(() => log.push(`call ${call.id} ${index}`)) }
      )
    )
    expect(outcomes.map((o) => [o.id, o._tag, o.content])).toEqual([
      ["c1", "Succeeded", "echo a"],
      ["c2", "NotExecuted", expect.stringContaining("not executed")],
      ["c3", "NotExecuted", expect.stringContaining("not executed")],
      ["c4", "Succeeded", "echo b"]
    ])
    expect(log).toEqual(["call c1 0", "run c1", "call c2 1", "call c3 2", "call c4 3", "run c4"])
  })

  it("no calls: no outcomes", () => {
    expect(Effect.runSync(Execute.executeAll(Toolset.make(echo([])), []))).toEqual([])
  })

  it.effect("concurrency: calls without a lane at once, outcomes in call order whatever order they end in", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const toolset = Toolset.make(sleeper("wait", undefined, log))
      const fiber = yield* Effect.forkChild(
        Execute.executeAll(toolset, [sleep("s1", "wait", 300), sleep("s2", "wait", 100), sleep("s3", "wait", 200)], {
          concurrency: "unbounded"
        })
      )
      yield* TestClock.adjust("10 millis")
      expect(log).toEqual(["start s1", "start s2", "start s3"])
      yield* TestClock.adjust("300 millis")
      const outcomes = yield* Fiber.join(fiber)
      expect(log.slice(3)).toEqual(["end s2", "end s3", "end s1"])
      expect(outcomes.map((o) => o.content)).toEqual(["s1 slept 300", "s2 slept 100", "s3 slept 200"])
    })
  )

  it.effect("concurrency 1: one call after another", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const toolset = Toolset.make(sleeper("wait", undefined, log))
      const fiber = yield* Effect.forkChild(
        Execute.executeAll(toolset, [sleep("s1", "wait", 100), sleep("s2", "wait", 100)])
      )
      yield* TestClock.adjust("50 millis")
      expect(log).toEqual(["start s1"])
      yield* TestClock.adjust("200 millis")
      yield* Fiber.join(fiber)
      expect(log).toEqual(["start s1", "end s1", "start s2", "end s2"])
    })
  )

  it.effect("lanes side by side, one lane's calls in call order, progress to the reporter given", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const reported: Array<string> = []
      const toolset = Toolset.make(sleeper("a__wait", "mcp:a", log), sleeper("b__wait", "mcp:b", log))
      const fiber = yield* Effect.forkChild(
        Execute.executeAll(
          toolset,
          [sleep("a1", "a__wait", 200), sleep("b1", "b__wait", 200), sleep("a2", "a__wait", 10)],
          { reporter: (id) => Effect.sync(() => reported.push(id)) }
        )
      )
      yield* TestClock.adjust("100 millis")
      expect(log).toEqual(["start a1", "start b1"])
      yield* TestClock.adjust("200 millis")
      const outcomes = yield* Fiber.join(fiber)
      expect(log.indexOf("start a2")).toBeGreaterThan(log.indexOf("end a1"))
      expect(outcomes.map((o) => o.id)).toEqual(["a1", "b1", "a2"])
      expect([...reported].sort()).toEqual(["a1", "a2", "b1"])
    })
  )

  it.effect("lanes: false runs laned calls as concurrency says", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const toolset = Toolset.make(sleeper("a__wait", "mcp:a", log))
      const fiber = yield* Effect.forkChild(
        Execute.executeAll(toolset, [sleep("a1", "a__wait", 200), sleep("a2", "a__wait", 200)], {
          lanes: false,
          concurrency: "unbounded"
        })
      )
      yield* TestClock.adjust("100 millis")
      expect(log).toEqual(["start a1", "start a2"])
      yield* TestClock.adjust("200 millis")
      yield* Fiber.join(fiber)
    })
  )

  it.effect("the sync path provides the reporter to a tool that returns an Effect", () =>
    Effect.gen(function* () {
      const reported: Array<string> = []
      const toolset = Toolset.make(sleeper("wait", undefined, []))
      const fiber = yield* Effect.forkChild(
        Execute.executeAll(toolset, [sleep("s1", "wait", 10)], {
          reporter: (id, update) => Effect.sync(() => reported.push(`${id} ${update.progress}`))
        })
      )
      yield* TestClock.adjust("20 millis")
      yield* Fiber.join(fiber)
      expect(reported).toEqual(["s1 1"])
    })
  )

  it.effect("the middleware in use sees every call; a timeout answers TimedOut", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const log: Array<string> = []
      const toolset = Toolset.make(sleeper("wait", undefined, log), echo(log))
      const fiber = yield* Effect.forkChild(
        Execute.executeAll(toolset, [sleep("s1", "wait", 1000), { id: "e1", name: "echo", input: { text: "x" } }], {
          timeout: "100 millis"
        }).pipe(Effect.provideService(Execute.Middleware, spy("m", seen)))
      )
      yield* TestClock.adjust("200 millis")
      const outcomes: ReadonlyArray<Outcome.Outcome> = yield* Fiber.join(fiber)
      expect(outcomes.map((o) => (o._tag === "Failed" ? o.failure._tag : o._tag))).toEqual(["TimedOut", "Succeeded"])
      expect(seen).toEqual(["m s1", "m done s1", "m e1", "m done e1"])
    })
  )

  it("an invalid concurrency refuses every call, naming the option; nothing runs", () => {
    const log: Array<string> = []
    const outcomes = Effect.runSync(
      Execute.executeAll(Toolset.make(echo(log)), [{ id: "c1", name: "echo", input: { text: "a" } }], {
        concurrency: 0
      })
    )
    expect(outcomes.map((o) => [o._tag, o._tag === "Refused" ? o.reason : ""])).toEqual([
      ["Refused", "the option 'concurrency' is invalid: 0"]
    ])
    expect(log).toEqual([])
  })
})

describe("Execute.compose and adding a middleware", () => {
  const toolset = Toolset.make(echo([]))
  const one = Execute.execute(toolset, { id: "c1", name: "echo", input: { text: "a" } })

  it.effect("compose: the first is the outermost; compose() adds nothing", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const outcome = yield* Effect.provideService(
        one,
        Execute.Middleware,
        Execute.compose(spy("outer", seen), spy("inner", seen))
      )
      expect(outcome.content).toBe("echo a")
      expect(seen).toEqual(["outer c1", "inner c1", "inner done c1", "outer done c1"])
      expect((yield* Effect.provideService(one, Execute.Middleware, Execute.compose())).content).toBe("echo a")
    })
  )

  it.effect("an outer middleware that answers itself: the inner one is not called", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const refuse: Execute.Middleware = (call) =>
        Effect.succeed({ _tag: "Refused", id: call.id, name: call.name, reason: "no", content: "refused" })
      const outcome = yield* Effect.provideService(one, Execute.Middleware, Execute.compose(refuse, spy("inner", seen)))
      expect(outcome._tag).toBe("Refused")
      expect(seen).toEqual([])
    })
  )

  it.effect("withMiddleware adds inside the one in use by default, in front of it with 'outside'", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      yield* one.pipe(Execute.withMiddleware(spy("added", seen)), Execute.withMiddleware(spy("first", seen)))
      expect(seen).toEqual(["first c1", "added c1", "added done c1", "first done c1"])
      seen.length = 0
      yield* one.pipe(Execute.withMiddleware(spy("gate", seen), "outside"), Execute.withMiddleware(spy("first", seen)))
      expect(seen).toEqual(["gate c1", "first c1", "first done c1", "gate done c1"])
    })
  )

  it.effect("layerMiddleware adds to the middleware in use where it is built, instead of replacing it", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      yield* one.pipe(
        // @effect-diagnostics-next-line multipleEffectProvide:off -- one layer around the other is the point
        Effect.provide(Execute.layerMiddleware(spy("inner", seen))),
        Effect.provide(Execute.layerMiddleware(spy("outer", seen)))
      )
      expect(seen).toEqual(["outer c1", "inner c1", "inner done c1", "outer done c1"])
      seen.length = 0
      yield* Effect.provide(
        one,
        Layer.provideMerge(
          Execute.layerMiddleware(spy("gate", seen), "outside"),
          Execute.layerMiddleware(spy("journal", seen))
        )
      )
      expect(seen).toEqual(["gate c1", "journal c1", "journal done c1", "gate done c1"])
    })
  )
})
