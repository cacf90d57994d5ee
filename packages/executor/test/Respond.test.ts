/**
 * Models that report usage and finish reasons (`Model.respond`), and reasoning blocks: what the
 * loop keeps in its turns, its history and its trace, and what it refuses.
 */
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { Loop, Message, Model, Trace } from "../src/index.ts"

const Echo = Tool.make("echo", {
  description: "Echoes",
  parameters: Schema.Struct({ say: Schema.String }),
  run: ({ say }) => Effect.succeed(say)
})
const toolset = Toolset.make(Echo)
const opening = [Message.user("Say hi.")]

/** A model whose `respond` plays the given answers in order. */
const responding = (answers: ReadonlyArray<unknown>) => {
  const queue = [...answers]
  const turns: Array<number | undefined> = []
  const shape: Model.Shape = {
    respond: (request) =>
      Effect.sync(() => {
        turns.push(request.turn)
        return queue.shift() as Model.Response
      })
  }
  return { layer: Model.layer(shape), turns }
}

const decode = Schema.decodeUnknownSync(Trace.Event)

const signed = Message.reasoning("The user wants a greeting; echo it.", { anthropic: { signature: "sig-1" } })

const runTraced = (answers: ReadonlyArray<unknown>) =>
  Effect.gen(function* () {
    const { trace, events } = yield* Trace.memory
    const model = responding(answers)
    const exit = yield* Loop.run({ toolset, messages: opening, maxTurns: 3 }).pipe(
      Effect.provide(model.layer),
      Effect.provideService(Trace.Trace, trace),
      Effect.exit
    )
    return { exit, events: yield* events, turns: model.turns }
  })

describe("Model.respond", () => {
  it.effect("usage and finish reason reach each turn and the trace; the request names the turn", () =>
    Effect.gen(function* () {
      const { exit, events, turns } = yield* runTraced([
        {
          content: [signed, Message.toolUse("c1", "echo", { say: "hi" })],
          usage: { inputTokens: 12, outputTokens: 7, reasoningTokens: 3 },
          finishReason: "tool-calls",
          rawFinishReason: "tool_use"
        },
        { content: [Message.text("hi")], usage: { inputTokens: 30, outputTokens: 1 }, finishReason: "stop" }
      ])
      assert(Exit.isSuccess(exit))
      const result = exit.value
      expect(turns).toEqual([1, 2])
      expect(result.turns.map((t) => [t.usage, t.finishReason])).toEqual([
        [{ inputTokens: 12, outputTokens: 7, reasoningTokens: 3 }, "tool-calls"],
        [{ inputTokens: 30, outputTokens: 1 }, "stop"]
      ])
      expect(events.filter((e) => e.type === "usage.reported")).toEqual([
        { type: "usage.reported", turn: 1, input_tokens: 12, output_tokens: 7, reasoning_tokens: 3 },
        { type: "usage.reported", turn: 2, input_tokens: 30, output_tokens: 1 }
      ])
      const replies = events.flatMap((e) => (e.type === "model.replied" ? [e] : []))
      expect(replies.map((e) => [e.finish_reason, e.raw_finish_reason])).toEqual([
        ["tool-calls", "tool_use"],
        ["stop", undefined]
      ])
      // Every event, reasoning and metadata included, is one line that decodes back to itself.
      for (const event of events) expect(decode(JSON.parse(Trace.line(event)))).toEqual(event)
    })
  )

  it.effect("the reasoning block stays in the history in its place, with its metadata; it is not text", () =>
    Effect.gen(function* () {
      const { exit } = yield* runTraced([
        { content: [signed, Message.toolUse("c1", "echo", { say: "hi" })], finishReason: "tool-calls" },
        { content: [Message.reasoning("done"), Message.text("hi")], finishReason: "stop" }
      ])
      assert(Exit.isSuccess(exit))
      expect(exit.value.messages[1]).toEqual(Message.assistant([signed, Message.toolUse("c1", "echo", { say: "hi" })]))
      expect(exit.value.text).toBe("hi")
      expect(exit.value.turns[0]?.outcomes.map((o) => o._tag)).toEqual(["Succeeded"])
    })
  )

  for (const finishReason of ["length", "content-filter", "error", "interrupted"] as const) {
    it.effect(`a '${finishReason}' finish fails the run with IncompleteReply; its usage is traced, nothing runs`, () =>
      Effect.gen(function* () {
        const { exit, events } = yield* runTraced([
          {
            content: [Message.toolUse("c1", "echo", { say: "h" })],
            usage: { inputTokens: 5, outputTokens: 4096 },
            finishReason
          }
        ])
        assert(Exit.isFailure(exit))
        const error = exit.cause.reasons[0]
        assert(error !== undefined && error._tag === "Fail")
        const failure = error.error
        assert(failure._tag === "ModelError")
        assert(failure.reason instanceof Model.IncompleteReply)
        expect(failure.reason.finishReason).toBe(finishReason)
        expect(events.map((e) => e.type)).toEqual(["run.started", "model.requested", "usage.reported", "model.failed"])
        expect(events.some((e) => e.type === "call.started")).toBe(false)
      })
    )
  }

  const malformed: ReadonlyArray<readonly [string, unknown, string]> = [
    ["not an object", "hi", 'model call 1: the response is not an object: "hi"'],
    [
      "an unknown finish reason",
      { content: [], finishReason: "done" },
      'model call 1: the finish reason is not one of stop, length, content-filter, tool-calls, error, interrupted, other: "done"'
    ],
    [
      "a usage count that is not a count",
      { content: [], usage: { inputTokens: -1 } },
      "model call 1: the usage's inputTokens is not a whole number of at least 0: -1"
    ],
    [
      "a reasoning block without text",
      { content: [{ type: "reasoning" }] },
      "model call 1: block 1 (reasoning) has no string text"
    ],
    [
      "provider metadata that is not an object",
      { content: [{ type: "text", text: "hi", provider_metadata: "sig" }] },
      'model call 1: block 1 (text) has provider_metadata that is not an object: "sig"'
    ],
    [
      "a response whose getter throws",
      Object.defineProperty({ content: [] }, "usage", {
        enumerable: true,
        get: () => {
          throw new Error("boom")
        }
      }),
      "model call 1: the response cannot be read: boom"
    ]
  ]
  for (const [what, answer, message] of malformed) {
    it.effect(`a response with ${what} is a MalformedReply naming it`, () =>
      Effect.gen(function* () {
        const { exit, events } = yield* runTraced([answer])
        assert(Exit.isFailure(exit))
        const reason = exit.cause.reasons[0]
        assert(reason !== undefined && reason._tag === "Fail")
        expect(reason.error.message).toBe(message)
        expect(events.at(-1)?.type).toBe("model.failed")
      })
    )
  }

  it("Boundary: a scripted reply with a reasoning block passes Loop.run's message check", () => {
    expect(Schema.is(Message.Message)(Message.assistant([signed, Message.text("x")]))).toBe(true)
  })
})

describe("Model.fromReply", () => {
  it.effect("a blocks-only function answers its blocks as the content, with no usage or finish reason", () =>
    Effect.gen(function* () {
      const completed: Array<number> = []
      const model = Model.fromReply(() => Effect.succeed([Message.text("hi")]), {
        complete: (messages) => Effect.sync(() => void completed.push(messages.length))
      })
      expect(yield* model.respond({ messages: opening, toolset })).toStrictEqual({ content: [Message.text("hi")] })
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(Effect.provide(Model.layer(model)))
      expect([result.stop, result.text, result.turns[0]?.usage, result.turns[0]?.finishReason]).toStrictEqual([
        "end",
        "hi",
        undefined,
        undefined
      ])
      expect(completed).toStrictEqual([2])
      expect(Model.fromReply(() => Effect.succeed([])).complete).toBeUndefined()
    })
  )
})
