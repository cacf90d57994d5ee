import { describe, expect, it } from "@effect/vitest"
import { Message } from "@agent-harness/executor"
import { Effect } from "effect"
import { Compaction, Estimate, Strategy } from "../src/index.ts"
import { history, long, toolResults, toolUseIds, turn } from "./fixtures.ts"

const total = (messages: ReadonlyArray<Message.Message>) => Estimate.tokens(messages)

/** Four turns, each reading a 400-character file with `read`, and a final answer. */
const fourReads = history(
  turn("first", [{ id: "t1", result: long(400) }]),
  turn("second", [{ id: "t2", tool: "grep", result: long(400), isError: true }]),
  turn("third", [{ id: "t3", result: long(400) }]),
  turn("fourth", [{ id: "t4", result: long(400) }])
)

describe("Strategy.elideToolResults", () => {
  it.effect("replaces the oldest results by a marker naming the tool and the length, keeping ids and is_error", () =>
    Effect.gen(function* () {
      const { messages, removed } = yield* Strategy.elideToolResults()(fourReads, 0, Estimate.message)
      const results = toolResults(messages)
      expect(results.map((r) => r.tool_use_id)).toEqual(["t1", "t2", "t3", "t4"])
      expect(results[0]).toEqual({
        type: "tool_result",
        tool_use_id: "t1",
        content: "[elided by compaction: 400 characters of the read result]",
        is_error: false
      })
      expect(results[1]).toEqual({
        type: "tool_result",
        tool_use_id: "t2",
        content: "[elided by compaction: 400 characters of the grep result]",
        is_error: true
      })
      // The last 2 turns are left as they are.
      expect(results[2]?.content).toBe(long(400))
      expect(results[3]?.content).toBe(long(400))
      expect(removed.map((r) => [r.kind, r.indexes, r.tool_use_ids, r.characters])).toEqual([
        ["elided", [3], ["t1"], 400],
        ["elided", [5], ["t2"], 400]
      ])
      expect(removed.reduce((n, r) => n + r.tokens, 0)).toBe(total(fourReads) - total(messages))
      expect(messages.length).toBe(fourReads.length)
      expect(Compaction.pairingProblem(messages)).toBeUndefined()
    })
  )

  it.effect("stops as soon as the history is under the target", () =>
    Effect.gen(function* () {
      const target = total(fourReads) - 10
      const { messages, removed } = yield* Strategy.elideToolResults()(fourReads, target, Estimate.message)
      expect(removed.map((r) => r.tool_use_ids[0])).toEqual(["t1"])
      expect(total(messages)).toBeLessThanOrEqual(target)
      expect(toolResults(messages)[1]?.content).toBe(long(400))
    })
  )

  it.effect("does nothing under the target, and leaves short results and markers alone", () =>
    Effect.gen(function* () {
      const same = yield* Strategy.elideToolResults()(fourReads, total(fourReads), Estimate.message)
      expect(same).toEqual({ messages: fourReads, removed: [] })
      const short = history(turn("a", [{ id: "s1", result: "ok" }]), turn("b", []), turn("c", []))
      expect((yield* Strategy.elideToolResults()(short, 0, Estimate.message)).removed).toEqual([])
      const once = yield* Strategy.elideToolResults()(fourReads, 0, Estimate.message)
      expect((yield* Strategy.elideToolResults()(once.messages, 0, Estimate.message)).removed).toEqual([])
    })
  )

  it.effect("in the message where the target is reached, elides one result at a time, oldest first", () =>
    Effect.gen(function* () {
      const three = history(
        turn("batch", [
          { id: "b1", result: long(400) },
          { id: "b2", result: long(400) },
          { id: "b3", result: long(400) }
        ]),
        turn("later", []),
        turn("last", [])
      )
      const target = total(three) - 150 // two results (about 85 tokens each) must go, not three
      const { messages, removed } = yield* Strategy.elideToolResults()(three, target, Estimate.message)
      expect(toolResults(messages).map((r) => Strategy.isElidedMarker(r.content))).toEqual([true, true, false])
      expect(removed).toEqual([
        {
          kind: "elided",
          indexes: [3],
          tool_use_ids: ["b1", "b2"],
          characters: 800,
          tokens: total(three) - total(messages)
        }
      ])
      expect(total(messages)).toBeLessThanOrEqual(target)
      const all = yield* Strategy.elideToolResults()(three, 0, Estimate.message)
      expect(all.removed.map((r) => r.tool_use_ids)).toEqual([["b1", "b2", "b3"]])
    })
  )

  it.effect("keepLast: 0 elides every result; keepLast larger than the history elides none", () =>
    Effect.gen(function* () {
      const all = yield* Strategy.elideToolResults({ keepLast: 0 })(fourReads, 0, Estimate.message)
      expect(all.removed.map((r) => r.tool_use_ids[0])).toEqual(["t1", "t2", "t3", "t4"])
      const none = yield* Strategy.elideToolResults({ keepLast: 9 })(fourReads, 0, Estimate.message)
      expect(none.removed).toEqual([])
      expect(() => Strategy.elideToolResults({ keepLast: -1 })).toThrow(/keepLast must be a whole number ≥ 0, got -1/)
    })
  )

  it.effect("drops the parts and structured content of an elided rich result", () =>
    Effect.gen(function* () {
      const rich = Message.toolResult("r1", long(300), false, { structured: { rows: long(200) } })
      const h = [
        ...history(),
        Message.assistant([Message.toolUse("r1", "query", {})]),
        Message.user([rich]),
        ...turn("b", []),
        ...turn("c", [])
      ]
      const { messages } = yield* Strategy.elideToolResults()(h, 0, Estimate.message)
      expect(toolResults(messages)[0]).toEqual({
        type: "tool_result",
        tool_use_id: "r1",
        content: "[elided by compaction: 300 characters of the query result]",
        is_error: false
      })
    })
  )
})

describe("Strategy.dropOldestTurns", () => {
  it.effect("drops whole turns after the first user message and leaves a note merged into it", () =>
    Effect.gen(function* () {
      const target = total(fourReads) - 150
      const { messages, removed } = yield* Strategy.dropOldestTurns()(fourReads, target, Estimate.message)
      expect(messages[0]).toEqual(Message.system("You are careful."))
      expect(messages[1]).toEqual(
        Message.user([Message.text("Do the task."), Message.text("[2 earlier turns removed by compaction]")])
      )
      expect(toolUseIds(messages)).toEqual(["t3", "t4"])
      expect(toolResults(messages).map((r) => r.tool_use_id)).toEqual(["t3", "t4"])
      expect(removed).toEqual([
        {
          kind: "dropped",
          indexes: [2, 3, 4, 5],
          tool_use_ids: ["t1", "t2"],
          // text, JSON input ({"path":"t1"}: 13) and result of each dropped turn
          characters: "first".length + 13 + 400 + "second".length + 13 + 400,
          tokens: total(fourReads) - total(messages)
        }
      ])
      expect(total(messages)).toBeLessThanOrEqual(target)
      expect(Compaction.pairingProblem(messages)).toBeUndefined()
    })
  )

  it.effect("says '1 earlier turn' for one, and adds to an earlier note instead of writing a second", () =>
    Effect.gen(function* () {
      const drop = Strategy.dropOldestTurns()
      const once = yield* drop(fourReads, total(fourReads) - 50, Estimate.message)
      expect(once.messages[1]).toEqual(
        Message.user([Message.text("Do the task."), Message.text("[1 earlier turn removed by compaction]")])
      )
      const twice = yield* drop(once.messages, total(once.messages) - 50, Estimate.message)
      expect(twice.messages[1]).toEqual(
        Message.user([Message.text("Do the task."), Message.text("[2 earlier turns removed by compaction]")])
      )
      expect(toolUseIds(twice.messages)).toEqual(["t3", "t4"])
    })
  )

  it.effect("keeps the system messages, the first user message and the last turn whatever the target", () =>
    Effect.gen(function* () {
      const { messages } = yield* Strategy.dropOldestTurns()(fourReads, 0, Estimate.message)
      expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"])
      expect(toolUseIds(messages)).toEqual(["t4"])
      expect(messages[1]).toEqual(
        Message.user([Message.text("Do the task."), Message.text("[3 earlier turns removed by compaction]")])
      )
    })
  )

  it.effect("keeps roles alternating when the history ends with a final answer or a user's reply", () =>
    Effect.gen(function* () {
      const h = history(
        turn("a", [{ id: "a1", result: long(200) }]),
        turn("b", []),
        turn("c", [{ id: "c1", result: long(200) }]),
        [Message.assistant([Message.text("done")])]
      )
      expect(Compaction.pairingProblem(h)).toBeUndefined()
      for (let target = 0; target <= total(h); target += 7) {
        const { messages } = yield* Strategy.dropOldestTurns()(h, target, Estimate.message)
        expect(Compaction.pairingProblem(messages)).toBeUndefined()
        expect(messages.at(-1)).toEqual(Message.assistant([Message.text("done")]))
      }
    })
  )

  it.effect("keepFirstUser: false may drop the task too: the note becomes the first user message", () =>
    Effect.gen(function* () {
      const { messages, removed } = yield* Strategy.dropOldestTurns({ keepFirstUser: false })(
        fourReads,
        0,
        Estimate.message
      )
      expect(messages.slice(0, 2)).toEqual([
        Message.system("You are careful."),
        Message.user([Message.text("[3 earlier turns removed by compaction]")])
      ])
      expect(removed[0]?.indexes).toEqual([1, 2, 3, 4, 5, 6, 7])
      expect(Compaction.pairingProblem(messages)).toBeUndefined()
    })
  )

  it.effect("gives its own user message to the note when the history has no first user message", () =>
    Effect.gen(function* () {
      const h = [Message.system("s"), ...turn("a", [{ id: "a1", result: long(300) }]), ...turn("b", [])]
      const { messages } = yield* Strategy.dropOldestTurns()(h, 0, Estimate.message)
      expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"])
      expect(messages[1]).toEqual(Message.user([Message.text("[1 earlier turn removed by compaction]")]))
    })
  )

  it.effect("changes nothing when dropping would not save tokens", () =>
    Effect.gen(function* () {
      const h = history(turn("a", []))
      expect(yield* Strategy.dropOldestTurns()(h, 0, Estimate.message)).toEqual({ messages: h, removed: [] })
    })
  )
})

describe("Strategy.summarize", () => {
  it.effect("replaces the oldest turns by one text block holding the summary, given the removed messages", () =>
    Effect.gen(function* () {
      const seen: Array<ReadonlyArray<Message.Message>> = []
      const strategy = Strategy.summarize({
        reserve: 0,
        summarize: (turns) =>
          Effect.sync(() => {
            seen.push(turns)
            return "read t1 and t2: both long"
          })
      })
      const target = total(fourReads) - 150
      const { messages, removed } = yield* strategy(fourReads, target, Estimate.message)
      expect(seen).toEqual([fourReads.slice(2, 6)])
      expect(messages[1]).toEqual(
        Message.user([
          Message.text("Do the task."),
          Message.text("[2 earlier turns summarized by compaction]\nread t1 and t2: both long")
        ])
      )
      expect(toolUseIds(messages)).toEqual(["t3", "t4"])
      expect(removed).toMatchObject([{ kind: "summarized", indexes: [2, 3, 4, 5], tool_use_ids: ["t1", "t2"] }])
      expect(Compaction.pairingProblem(messages)).toBeUndefined()
    })
  )

  it.effect("fails with the summarizer's error", () =>
    Effect.gen(function* () {
      const strategy = Strategy.summarize({ summarize: () => Effect.fail("model down" as const) })
      const error = yield* Effect.flip(strategy(fourReads, 0, Estimate.message))
      expect(error).toBe("model down")
    })
  )

  it.effect("does not use a summary longer than what it replaces, and never calls the summarizer under target", () =>
    Effect.gen(function* () {
      let calls = 0
      const strategy = Strategy.summarize({
        summarize: () =>
          Effect.sync(() => {
            calls++
            return long(5000)
          })
      })
      expect(yield* strategy(fourReads, 0, Estimate.message)).toEqual({ messages: fourReads, removed: [] })
      expect(calls).toBe(1)
      yield* strategy(fourReads, total(fourReads), Estimate.message)
      expect(calls).toBe(1)
    })
  )
})

describe("Strategy.chain and defaultStrategy", () => {
  it.effect("applies each strategy once, in order, until under the target", () =>
    Effect.gen(function* () {
      const applied: Array<string> = []
      const spy =
        (name: string, inner: Strategy.Strategy): Strategy.Strategy =>
        (h, target, estimate) =>
          Effect.suspend(() => {
            applied.push(name)
            return inner(h, target, estimate)
          })
      const chained = Strategy.chain(spy("elide", Strategy.elideToolResults()), spy("drop", Strategy.dropOldestTurns()))
      yield* chained(fourReads, total(fourReads) - 10, Estimate.message)
      expect(applied).toEqual(["elide"])
      applied.length = 0
      yield* chained(fourReads, 0, Estimate.message)
      expect(applied).toEqual(["elide", "drop"])
      applied.length = 0
      yield* chained(fourReads, total(fourReads), Estimate.message)
      expect(applied).toEqual([])
    })
  )

  it.effect("carries every strategy's error type and removed entries", () =>
    Effect.gen(function* () {
      const chained = Strategy.chain(
        Strategy.elideToolResults(),
        Strategy.summarize({ reserve: 0, summarize: () => Effect.succeed("short") })
      )
      const { messages, removed } = yield* chained(fourReads, 0, Estimate.message)
      expect(removed.map((r) => r.kind)).toEqual(["elided", "elided", "summarized"])
      expect(Compaction.pairingProblem(messages)).toBeUndefined()
      const failing = Strategy.chain(Strategy.summarize({ summarize: () => Effect.fail({ _tag: "Down" as const }) }))
      expect(yield* Effect.flip(failing(fourReads, 0, Estimate.message))).toEqual({ _tag: "Down" })
    })
  )

  it.effect("the default elides first, keeping the last 2 turns, then drops the oldest turns", () =>
    Effect.gen(function* () {
      const mild = yield* Strategy.defaultStrategy(fourReads, total(fourReads) - 150, Estimate.message)
      expect(mild.removed.map((r) => r.kind)).toEqual(["elided", "elided"])
      const hard = yield* Strategy.defaultStrategy(fourReads, 0, Estimate.message)
      expect(hard.removed.map((r) => r.kind)).toEqual(["elided", "elided", "dropped"])
      expect(toolUseIds(hard.messages)).toEqual(["t4"])
      expect(toolResults(hard.messages)[0]?.content).toBe(long(400))
    })
  )
})
