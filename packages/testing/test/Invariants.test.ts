import { Loop, Message, Model, Trace } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Invariants } from "../src/index.ts"

const { text, toolUse, toolResult, user, assistant, system } = Message

const opening: ReadonlyArray<Message.Message> = [system("You read files."), user("What is in a.txt and b.txt?")]

/** A well-formed history: two calls answered in order, one call, then the final text. */
const good: ReadonlyArray<Message.Message> = [
  ...opening,
  assistant([text("Reading."), toolUse("a", "read", { path: "a.txt" }), toolUse("b", "read", { path: "b.txt" })]),
  user([toolResult("a", "alpha", false), toolResult("b", "file 'b.txt' does not exist", true)]),
  assistant([toolUse("c", "list", { folder: "" })]),
  user([toolResult("c", "a.txt", false)]),
  assistant([text("a.txt holds alpha.")])
]

/** The message of the `InvariantError` an assertion throws. */
const thrown = (f: () => unknown): string => {
  try {
    f()
  } catch (error) {
    expect(error).toBeInstanceOf(Invariants.InvariantError)
    expect(error instanceof Error && error.name).toBe("AssertionError")
    return error instanceof Error ? error.message : String(error)
  }
  throw new Error("expected the assertion to throw")
}

const messages = <V extends { readonly message: string }>(check: Invariants.Check<V>): ReadonlyArray<string> =>
  check.violations.map((v) => v.message)

describe("Invariants.answeredOnce", () => {
  it("passes a well-formed history, as an array and as a loop result", () => {
    expect(Invariants.answeredOnce(good)).toStrictEqual({ ok: true, violations: [] })
    expect(Invariants.answeredOnce({ messages: good }).ok).toBe(true)
    Invariants.assertAnsweredOnce(good)
  })

  it("a call with no result in the next message is missing", () => {
    const broken = [
      ...opening,
      assistant([toolUse("a", "read", {}), toolUse("b", "read", {})]),
      user([toolResult("a", "alpha", false)]),
      assistant([text("done")])
    ]
    expect(Invariants.answeredOnce(broken)).toStrictEqual({
      ok: false,
      violations: [
        {
          kind: "missing",
          id: "b",
          turn: 1,
          index: 2,
          message: "turn 1: tool_use 'b' has no tool_result in the next user message"
        }
      ]
    })
    expect(thrown(() => Invariants.assertAnsweredOnce(broken))).toBe(
      "every tool call must be answered exactly once\n  turn 1: tool_use 'b' has no tool_result in the next user message"
    )
  })

  it("a history that ends on a reply with calls leaves them missing", () => {
    const broken = [...opening, assistant([toolUse("a", "read", {})])]
    expect(messages(Invariants.answeredOnce(broken))).toStrictEqual([
      "turn 1: tool_use 'a' has no tool_result in the next user message"
    ])
  })

  it("a call answered twice in the next message is duplicated", () => {
    const broken = [
      ...opening,
      assistant([toolUse("a", "read", {})]),
      user([toolResult("a", "alpha", false), toolResult("a", "alpha", false)]),
      assistant([text("done")])
    ]
    const check = Invariants.answeredOnce(broken)
    expect(check.violations.map((v) => [v.kind, v.id, v.turn])).toStrictEqual([["duplicated", "a", 1]])
    expect(thrown(() => Invariants.assertAnsweredOnce(broken))).toBe(
      "every tool call must be answered exactly once\n  turn 1: tool_use 'a' is answered 2 times in the next user message"
    )
  })

  it("a call answered in place and again later is duplicated, at the later message", () => {
    const broken = [
      ...opening,
      assistant([toolUse("a", "read", {})]),
      user([toolResult("a", "alpha", false)]),
      assistant([toolUse("b", "read", {})]),
      user([toolResult("b", "beta", false), toolResult("a", "alpha", false)]),
      assistant([text("done")])
    ]
    expect(Invariants.answeredOnce(broken).violations).toStrictEqual([
      {
        kind: "duplicated",
        id: "a",
        turn: 1,
        index: 5,
        message: "turn 1: tool_use 'a' is answered again in messages[5]"
      }
    ])
  })

  it("results out of call order", () => {
    const broken = [
      ...opening,
      assistant([toolUse("a", "read", {}), toolUse("b", "read", {}), toolUse("c", "read", {})]),
      user([toolResult("a", "1", false), toolResult("c", "3", false), toolResult("b", "2", false)]),
      assistant([text("done")])
    ]
    expect(Invariants.answeredOnce(broken).violations).toStrictEqual([
      {
        kind: "out_of_order",
        id: "b",
        turn: 1,
        index: 2,
        message: "turn 1: tool_result for 'b' is out of call order (calls: a, b, c; results: a, c, b)"
      }
    ])
    expect(thrown(() => Invariants.assertAnsweredOnce(broken))).toBe(
      "every tool call must be answered exactly once\n  turn 1: tool_result for 'b' is out of call order (calls: a, b, c; results: a, c, b)"
    )
  })

  it("a call answered in a later message than the next one", () => {
    const broken = [
      ...opening,
      assistant([toolUse("a", "read", {}), toolUse("b", "read", {})]),
      user([toolResult("a", "1", false)]),
      assistant([toolUse("c", "read", {})]),
      user([toolResult("c", "3", false), toolResult("b", "2", false)]),
      assistant([text("done")])
    ]
    expect(Invariants.answeredOnce(broken).violations).toStrictEqual([
      {
        kind: "wrong_message",
        id: "b",
        turn: 1,
        index: 2,
        message: "turn 1: tool_use 'b' is answered in messages[5], not in the next user message (messages[3])"
      }
    ])
  })

  it("a result for an id no call has is unknown; before the first reply too", () => {
    const broken = [
      system("s"),
      user([toolResult("ghost", "boo", false)]),
      assistant([toolUse("a", "read", {})]),
      user([toolResult("a", "1", false), toolResult("zz", "?", true)]),
      assistant([text("done")])
    ]
    expect(Invariants.answeredOnce(broken).violations).toStrictEqual([
      {
        kind: "unknown",
        id: "ghost",
        turn: 0,
        index: 1,
        message: "before the first model call: tool_result for 'ghost' (messages[1]) answers no tool_use"
      },
      {
        kind: "unknown",
        id: "zz",
        turn: 1,
        index: 3,
        message: "turn 1: tool_result for 'zz' (messages[3]) answers no tool_use"
      }
    ])
    expect(thrown(() => Invariants.assertAnsweredOnce(broken))).toBe(
      [
        "every tool call must be answered exactly once",
        "  before the first model call: tool_result for 'ghost' (messages[1]) answers no tool_use",
        "  turn 1: tool_result for 'zz' (messages[3]) answers no tool_use"
      ].join("\n")
    )
  })

  it("the same id called twice in one reply must be answered twice", () => {
    const twice = [
      ...opening,
      assistant([toolUse("a", "append", {}), toolUse("a", "append", {})]),
      user([toolResult("a", "appended", false)]),
      assistant([text("done")])
    ]
    expect(messages(Invariants.answeredOnce(twice))).toStrictEqual([
      "turn 1: tool_use 'a' is called 2 times but answered 1 time"
    ])
  })
})

describe("Invariants.uniqueCallIds", () => {
  it("passes a history whose ids are unique", () => {
    expect(Invariants.uniqueCallIds(good)).toStrictEqual({ ok: true, violations: [] })
    Invariants.assertUniqueCallIds({ messages: good })
  })

  it("an id called in two turns, and observed twice", () => {
    const broken = [
      ...opening,
      assistant([toolUse("a", "append", { path: "x", content: "1" })]),
      user([toolResult("a", "appended 1 characters to x", false)]),
      assistant([toolUse("a", "append", { path: "x", content: "1" })]),
      user([toolResult("a", "appended 1 characters to x", false)]),
      assistant([text("done")])
    ]
    expect(Invariants.uniqueCallIds(broken)).toStrictEqual({
      ok: false,
      violations: [
        { kind: "called_twice", id: "a", turns: [1, 2], message: "tool_use id 'a' is called 2 times (turns 1, 2)" },
        { kind: "observed_twice", id: "a", turns: [1, 2], message: "tool_use id 'a' gets 2 observations (turns 1, 2)" }
      ]
    })
    expect(thrown(() => Invariants.assertUniqueCallIds(broken))).toBe(
      [
        "no tool call id may be executed twice",
        "  tool_use id 'a' is called 2 times (turns 1, 2)",
        "  tool_use id 'a' gets 2 observations (turns 1, 2)"
      ].join("\n")
    )
    // Each turn on its own answers its call exactly once.
    expect(Invariants.answeredOnce(broken).ok).toBe(true)
  })

  it("over trace events: call events with unique ids", () => {
    const call = (turn: number, id: string): Trace.Event => Trace.callStarted(turn, toolUse(id, "read", {}))
    const observation = (turn: number, id: string): Trace.Event => ({
      type: "call.answered",
      turn,
      outcome: "Succeeded",
      result: toolResult(id, "ok", false)
    })
    const fine = [
      call(1, "a"),
      call(1, "b"),
      observation(1, "a"),
      observation(1, "b"),
      call(2, "c"),
      observation(2, "c")
    ]
    expect(Invariants.uniqueTraceCallIds(fine)).toStrictEqual({ ok: true, violations: [] })
    const broken = [...fine, call(3, "b"), call(4, "b"), observation(4, "b")]
    expect(messages(Invariants.uniqueTraceCallIds(broken))).toStrictEqual([
      "tool_use id 'b' is called 3 times (turns 1, 3, 4)",
      "tool_use id 'b' gets 2 observations (turns 1, 4)"
    ])
    expect(thrown(() => Invariants.assertUniqueTraceCallIds(broken))).toBe(
      [
        "no tool call id may be executed twice",
        "  tool_use id 'b' is called 3 times (turns 1, 3, 4)",
        "  tool_use id 'b' gets 2 observations (turns 1, 4)"
      ].join("\n")
    )
  })
})

describe("Invariants.stopReason", () => {
  it("known reasons, text exactly at end", () => {
    expect(Invariants.stopReason({ stop: "end", text: "done" }).ok).toBe(true)
    expect(Invariants.stopReason({ stop: "end", text: "" }).ok).toBe(true)
    expect(Invariants.stopReason({ stop: "turn_cap", text: undefined }).ok).toBe(true)
    expect(Invariants.stopReason({ stop: "time_budget" }).ok).toBe(true)
    expect(Invariants.stopReason({ stop: "repeated_call" }).ok).toBe(true)
    // An interrupted run keeps the text its cut-off reply had written, or has none.
    expect(Invariants.stopReason({ stop: "interrupted", text: "half wri" }).ok).toBe(true)
    expect(Invariants.stopReason({ stop: "interrupted" }).ok).toBe(true)
    expect(Invariants.isStopReason("turn_cap")).toBe(true)
    expect(Invariants.isStopReason("diverged")).toBe(false)
  })

  it("an unknown reason, end without text, another reason with text", () => {
    expect(Invariants.stopReason({ stop: "crashed", text: undefined })).toStrictEqual({
      ok: false,
      violations: [
        {
          kind: "unknown_reason",
          stop: "crashed",
          message:
            "stop reason 'crashed' is not one of 'end', 'turn_cap', 'time_budget', 'token_budget', 'cost_budget', 'context_window', 'repeated_call', 'interrupted'"
        }
      ]
    })
    expect(thrown(() => Invariants.assertStopReason({ stop: "end", text: undefined }))).toBe(
      "the loop must stop with a known reason\n  stop 'end' comes without the final text"
    )
    expect(thrown(() => Invariants.assertStopReason({ stop: "turn_cap", text: "partial" }))).toBe(
      `the loop must stop with a known reason\n  stop 'turn_cap' comes with text "partial"; only 'end' has a final text (and 'interrupted' the text written so far)`
    )
  })

  it("expectStop narrows the result, and says what it saw", () => {
    const result = { stop: "end", text: "done", turns: 2 } as const
    const ended = Invariants.expectStop(result, "end")
    const finalText: string = ended.text
    expect(finalText).toBe("done")
    expect(thrown(() => Invariants.expectStop(result, "turn_cap"))).toBe(
      "the loop must stop with 'turn_cap'\n  it stopped with 'end'"
    )
    expect(thrown(() => Invariants.expectStop({ stop: "end", text: undefined }, "end"))).toBe(
      "the loop must stop with 'end'\n  stop 'end' comes without the final text"
    )
  })
})

describe("with the real loop", () => {
  const Read = Tool.make("read", {
    description: "Reads a file",
    parameters: Schema.Struct({ path: Schema.String }),
    run: ({ path }) => (path === "a.txt" ? Effect.succeed("alpha") : Effect.fail(`file '${path}' does not exist`))
  })
  const replies: ReadonlyArray<ReadonlyArray<Message.ReplyBlock>> = [
    [toolUse("t1", "read", { path: "a.txt" }), toolUse("t2", "read", { path: "b.txt" }), toolUse("t3", "nope", {})],
    [toolUse("t4", "read", {})],
    [text("a.txt holds alpha.")]
  ]
  const model = (): Model.Shape => {
    const queue = [...replies]
    return Model.fromReply(() => Effect.sync(() => queue.shift() ?? [text("(no reply left)")]))
  }

  it.effect("a Loop.RunResult and its trace hold every invariant", () =>
    Effect.gen(function* () {
      const { trace, events } = yield* Trace.memory
      const result = yield* Loop.run({ toolset: Toolset.make(Read), messages: opening }).pipe(
        Effect.provide(Model.layer(model())),
        Effect.provideService(Trace.Trace, trace)
      )
      Invariants.assertLoopResult(result)
      Invariants.assertUniqueTraceCallIds(yield* events)
      expect(Invariants.expectStop(result, "end").text).toBe("a.txt holds alpha.")
    })
  )

  it.effect("at the turn cap there is no text, and the last results are still answered", () =>
    Effect.gen(function* () {
      const result = yield* Loop.run({ toolset: Toolset.make(Read), messages: opening, maxTurns: 2 }).pipe(
        Effect.provide(Model.layer(model()))
      )
      Invariants.assertLoopResult(result)
      expect(Invariants.expectStop(result, "turn_cap").text).toBeUndefined()
      expect(thrown(() => Invariants.expectStop(result, "end"))).toBe(
        "the loop must stop with 'end'\n  it stopped with 'turn_cap'"
      )
    })
  )
})
