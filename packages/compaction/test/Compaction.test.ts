import { describe, expect, it } from "@effect/vitest"
import { Message } from "@agent-harness/executor"
import { Effect } from "effect"
import { Compaction, Estimate, Strategy } from "../src/index.ts"
import { history, long, toolUseIds, turn } from "./fixtures.ts"

const h = history(
  turn("first", [{ id: "t1", result: long(400) }]),
  turn("second", [{ id: "t2", result: long(400) }]),
  turn("third", [{ id: "t3", result: long(400) }])
)
const size = Estimate.tokens(h)

describe("Compaction.compact", () => {
  it.effect("does nothing at or below threshold × window", () =>
    Effect.gen(function* () {
      const done = yield* Compaction.compact(h, { window: size / 0.8 })
      expect(done).toEqual({ messages: h, removed: [], before: size, after: size })
    })
  )

  it.effect("above the threshold, applies the default strategy with the target threshold × window", () =>
    Effect.gen(function* () {
      const window = size
      const done = yield* Compaction.compact(h, { window })
      expect(done.before).toBe(size)
      expect(done.after).toBe(Estimate.tokens(done.messages))
      expect(done.after).toBeLessThanOrEqual(0.8 * window)
      expect(done.removed.map((r) => r.kind)).toEqual(["elided"])
      expect(Compaction.pairingProblem(done.messages)).toBeUndefined()
    })
  )

  it.effect("aims for `target` when given, and applies the strategy once", () =>
    Effect.gen(function* () {
      const targets: Array<number> = []
      const strategy: Strategy.Strategy = (messages, target, estimate) =>
        Effect.suspend(() => {
          targets.push(target)
          return Strategy.defaultStrategy(messages, target, estimate)
        })
      yield* Compaction.compact(h, { window: 1000, threshold: 0.1, target: 0.05, strategy })
      expect(targets).toEqual([50])
    })
  )

  it.effect("fails with CannotCompact when the strategy cannot get under the window", () =>
    Effect.gen(function* () {
      const floor = Estimate.tokens([h[0], h[1], h[6], h[7]] as ReadonlyArray<Message.Message>)
      const error = yield* Effect.flip(Compaction.compact(h, { window: floor - 1 }))
      expect(error._tag).toBe("CannotCompact")
      if (error._tag !== "CannotCompact") return
      expect(error.window).toBe(floor - 1)
      expect(error.before).toBe(size)
      expect(error.after).toBeGreaterThan(floor - 1)
      expect(error.target).toBeCloseTo(0.8 * (floor - 1))
      expect(error.message).toMatch(/^cannot compact: \d+ estimated tokens after compaction \(\d+ before\), window \d+/)
    })
  )

  it.effect("with a strategy that only elides, a history too big for the window is refused", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Compaction.compact(h, { window: 100, strategy: Strategy.elideToolResults({ keepLast: 0 }) })
      )
      expect(error._tag).toBe("CannotCompact")
    })
  )

  it.effect("fails with the strategy's own error", () =>
    Effect.gen(function* () {
      const strategy = Strategy.summarize({ summarize: () => Effect.fail("summarizer down" as const) })
      expect(yield* Effect.flip(Compaction.compact(h, { window: 100, strategy }))).toBe("summarizer down")
    })
  )

  it.effect("uses the estimator it is given", () =>
    Effect.gen(function* () {
      const estimate = Estimate.calibrated(Estimate.message, 2, 1)
      const done = yield* Compaction.compact(h, { window: size, estimate })
      expect(done.before).toBe(h.reduce((n, m) => n + estimate(m), 0))
      expect(done.after).toBe(Estimate.total(done.messages, estimate))
      expect(done.after).toBeLessThanOrEqual(0.8 * size)
      // Twice the estimate: eliding is not enough, turns are dropped (the raw estimate only elides).
      expect(done.removed.map((r) => r.kind)).toEqual(["elided", "dropped"])
      expect(toolUseIds(done.messages)).toEqual(["t3"])
      expect(toolUseIds((yield* Compaction.compact(h, { window: size })).messages)).toEqual(["t1", "t2", "t3"])
    })
  )

  it.effect("refuses options out of range, naming the field", () =>
    Effect.gen(function* () {
      for (const [options, field] of [
        [{ window: 0 }, "window"],
        [{ window: Number.NaN }, "window"],
        [{ window: Number.POSITIVE_INFINITY }, "window"],
        [{ window: 100, threshold: 0 }, "threshold"],
        [{ window: 100, threshold: 1.5 }, "threshold"],
        [{ window: 100, target: -1 }, "target"]
      ] as const) {
        const error = yield* Effect.flip(Compaction.compact(h, options))
        expect(error._tag).toBe("InvalidCompactionOptions")
        if (error._tag === "InvalidCompactionOptions") {
          expect(error.field).toBe(field)
          expect(error.message).toContain(`compact options.${field}: must be`)
        }
      }
    })
  )

  it.effect("compacts a history whose old tool inputs cannot be written as JSON (cyclic, BigInt)", () =>
    Effect.gen(function* () {
      const cyclic: Record<string, unknown> = { path: "a" }
      cyclic.self = cyclic
      const hostile = [
        ...history(),
        Message.assistant([Message.toolUse("c1", "read", cyclic), Message.toolUse("c2", "read", 10n)]),
        Message.user([Message.toolResult("c1", long(400), false), Message.toolResult("c2", long(400), true)]),
        ...h.slice(2)
      ]
      const done = yield* Compaction.compact(hostile, { window: 200 })
      expect(Compaction.pairingProblem(done.messages)).toBeUndefined()
      expect(done.after).toBeLessThanOrEqual(200)
      expect(done.removed.flatMap((r) => r.tool_use_ids)).toContain("c1")
    })
  )

  it.effect("an estimator that gives nonsense never lets a history through", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Compaction.compact(h, { window: 1e9, estimate: () => Number.NaN }))
      expect(error._tag).toBe("CannotCompact")
    })
  )
})

describe("Compaction.pairingProblem", () => {
  const use = (...ids: ReadonlyArray<string>) => Message.assistant(ids.map((id) => Message.toolUse(id, "read", {})))
  const results = (...ids: ReadonlyArray<string>) => Message.user(ids.map((id) => Message.toolResult(id, "r", false)))
  const start = [Message.system("s"), Message.user("task")]

  it("accepts well-formed histories", () => {
    expect(Compaction.pairingProblem([])).toBeUndefined()
    expect(Compaction.pairingProblem(h)).toBeUndefined()
    expect(Compaction.pairingProblem([...start, use("a", "b"), results("a", "b")])).toBeUndefined()
    expect(Compaction.pairingProblem([...start, Message.assistant([Message.text("done")])])).toBeUndefined()
  })

  it("names a missing, orphan, duplicated or out-of-order tool_result with the index and the id", () => {
    expect(Compaction.pairingProblem([...start, use("a", "b"), results("a")])).toBe(
      "message 2: tool_use b has no tool_result in message 3"
    )
    expect(Compaction.pairingProblem([...start, use("a"), results("a", "z")])).toBe(
      "message 3: tool_result z answers no tool_use of message 2"
    )
    expect(Compaction.pairingProblem([...start, Message.assistant([Message.text("hi")]), results("z")])).toBe(
      "message 3: tool_result z answers no tool_use (message 2 made no call)"
    )
    expect(Compaction.pairingProblem([Message.system("s"), results("z")])).toBe(
      "message 1: tool_result z answers no tool_use (message 0 made no call)"
    )
    expect(Compaction.pairingProblem([...start, use("a", "b"), results("a", "a")])).toBe(
      "message 3: tool_use a is answered 2 times"
    )
    expect(Compaction.pairingProblem([...start, use("a", "b"), results("b", "a")])).toBe(
      "message 3: tool_result b is out of order (expected a at position 0)"
    )
    expect(Compaction.pairingProblem([...start, use("a"), Message.user("no results")])).toBe(
      "message 2: tool_use a has no tool_result in message 3"
    )
    expect(Compaction.pairingProblem([...start, use("a")])).toBe(
      "message 2: tool_use a has no tool_result (no message follows the reply)"
    )
    expect(Compaction.pairingProblem([...start, use("a", "a"), results("a", "a")])).toBe(
      "message 2: tool_use a appears twice in the same reply"
    )
  })

  it("names broken alternation", () => {
    expect(Compaction.pairingProblem([Message.system("s"), use("a"), results("a")])).toBe(
      "message 1: the conversation starts with an assistant message (after the system messages)"
    )
    expect(Compaction.pairingProblem([...start, Message.user("again")])).toBe(
      "messages 1 and 2: two user messages in a row"
    )
    expect(
      Compaction.pairingProblem([
        ...start,
        Message.assistant([Message.text("a")]),
        Message.assistant([Message.text("b")])
      ])
    ).toBe("messages 2 and 3: two assistant messages in a row")
    expect(Compaction.pairingProblem([...start, Message.system("late")])).toBe(
      "message 2: a system message after the conversation started"
    )
  })
})
