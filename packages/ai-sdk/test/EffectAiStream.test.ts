// An effect/ai LanguageModel streams through LanguageModelAdapter: `stream` asks `streamText`
// with the same options as `respond` asks `generateText` (calls unresolved, validation
// deferred), maps its parts to the loop's, and a stream that fails or sends an error part
// part-way is a model failure: no call of that turn runs.
import { Loop, Message, Model } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema, Stream } from "effect"
import { AiError, LanguageModel, type Response } from "effect/ai"
import { createAnthropic } from "@ai-sdk/anthropic"
import { EffectAiModel, LanguageModelAdapter } from "../src/index.ts"
import { FakeProvider } from "../src/testing.ts"

/** One turn of a hand-made model: its whole parts (`generateText`) and its stream (`streamText`). */
interface Turn {
  readonly whole: ReadonlyArray<Response.PartEncoded>
  readonly streamed: Stream.Stream<Response.StreamPartEncoded, AiError.AiError>
}

/** A LanguageModel playing `turns` in order, by either method, recording the options each request had. */
const handMade = (turns: ReadonlyArray<Turn>) => {
  const options: Array<LanguageModel.ProviderOptions> = []
  let next = 0
  const take = (request: LanguageModel.ProviderOptions): Turn => {
    options.push(request)
    const turn = turns[next++]
    if (turn === undefined) throw new Error("the hand-made model has no turn left")
    return turn
  }
  const layer = Layer.provide(
    LanguageModelAdapter.layer,
    Layer.effect(
      LanguageModel.LanguageModel,
      LanguageModel.make({
        generateText: (request) => Effect.sync(() => [...take(request).whole]),
        streamText: (request) => Stream.suspend(() => take(request).streamed)
      })
    )
  )
  return { layer, options }
}

/** A turn that only streams: `parts`, in order. */
const streamedOnly = (...parts: ReadonlyArray<Response.StreamPartEncoded>): Turn => ({
  whole: [],
  streamed: Stream.fromIterable(parts)
})

const usage = {
  inputTokens: { uncached: 7, total: 9, cacheRead: 2, cacheWrite: undefined },
  outputTokens: { total: 5, text: 4, reasoning: 1 }
}
const finish = (reason: Response.FinishReason): Response.FinishPartEncoded => ({ type: "finish", reason, usage })

const args = '{"path":"a.txt"}'

/** Turn 1: reasoning, text, a call whose arguments come in pieces cut inside the string; turn 2: the answer. */
const turns: ReadonlyArray<Turn> = [
  {
    whole: [
      { type: "reasoning", text: "One read." },
      { type: "text", text: "Reading a.txt." },
      { type: "tool-call", id: "c1", name: "read", params: { path: "a.txt" } },
      finish("tool-calls")
    ],
    streamed: Stream.fromIterable<Response.StreamPartEncoded>([
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: "One " },
      { type: "reasoning-delta", id: "r", delta: "read." },
      { type: "reasoning-end", id: "r" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Reading " },
      { type: "text-delta", id: "t", delta: "a.txt." },
      { type: "text-end", id: "t" },
      { type: "tool-params-start", id: "c1", name: "read" },
      { type: "tool-params-delta", id: "c1", delta: '{"pa' },
      { type: "tool-params-delta", id: "c1", delta: 'th":"a.t' },
      { type: "tool-params-delta", id: "c1", delta: 'xt"}' },
      { type: "tool-params-end", id: "c1" },
      { type: "tool-call", id: "c1", name: "read", params: { path: "a.txt" } },
      finish("tool-calls")
    ])
  },
  {
    whole: [{ type: "text", text: "It says alpha." }, finish("stop")],
    streamed: Stream.fromIterable<Response.StreamPartEncoded>([
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "It says " },
      { type: "text-delta", id: "t", delta: "alpha." },
      { type: "text-end", id: "t" },
      finish("stop")
    ])
  }
]

/** A `read` tool that counts its runs. */
const counted = () => {
  const runs: Array<string> = []
  const read = Tool.make("read", {
    description: "Reads a file.",
    parameters: Schema.Struct({ path: Schema.String }),
    run: ({ path }) =>
      Effect.sync(() => {
        runs.push(path)
        return "alpha"
      })
  })
  return { toolset: Toolset.make(read), runs }
}

const opening: ReadonlyArray<Message.Message> = [Message.user("Read a.txt.")]

/** Every event of a streamed run, and how it ended. */
const streamedRun = (model: ReturnType<typeof handMade>, toolset: Toolset.Toolset<Tool.Any>) => {
  const events: Array<Loop.Event> = []
  return Stream.runForEach(Loop.stream({ toolset, messages: opening, maxTurns: 4 }), (event) =>
    Effect.sync(() => {
      events.push(event)
    })
  ).pipe(
    Effect.result,
    Effect.map((ended) => ({ ended, events })),
    Effect.provide(model.layer)
  )
}

const aiError = (description: string) =>
  AiError.make({ module: "Test", method: "streamText", reason: new AiError.InternalProviderError({ description }) })

describe("LanguageModelAdapter.make(languageModel).stream", () => {
  it.effect("Loop.stream shows the deltas as they come and gives what Loop.run gives over generateText", () =>
    Effect.gen(function* () {
      const tools = counted()
      const { ended, events } = yield* streamedRun(handMade(turns), tools.toolset)
      assert.strictEqual(ended._tag, "Success")
      const of = (type: string) =>
        events.flatMap((e) =>
          e.type === type && (e.type === "text.delta" || e.type === "reasoning.delta")
            ? [e.text]
            : e.type === type && e.type === "call.delta"
              ? [e.delta]
              : []
        )
      assert.deepStrictEqual(of("text.delta"), ["Reading ", "a.txt.", "It says ", "alpha."])
      assert.deepStrictEqual(of("reasoning.delta"), ["One ", "read."])
      assert.strictEqual(of("call.delta").join(""), args)
      assert.deepStrictEqual(tools.runs, ["a.txt"])
      const drafted = events.findIndex((e) => e.type === "call.drafted")
      const started = events.findIndex((e) => e.type === "call.started")
      assert.isTrue(drafted !== -1 && drafted < started)

      const whole = counted()
      const run = yield* Loop.run({ toolset: whole.toolset, messages: opening, maxTurns: 4 }).pipe(
        Effect.provide(handMade(turns).layer)
      )
      const last = events.at(-1)
      assert.deepStrictEqual(last?.type === "run.ended" ? last.result : undefined, run)
      assert.deepStrictEqual(run.turns[0]?.usage, {
        inputTokens: 9,
        outputTokens: 5,
        reasoningTokens: 1,
        cacheReadTokens: 2
      })
      assert.strictEqual(run.turns[0]?.finishReason, "tool-calls")
    })
  )

  it.effect("streamText is asked as generateText is: the tools declared, calls unresolved, validation deferred", () =>
    Effect.gen(function* () {
      const streaming = handMade([
        streamedOnly(
          { type: "tool-params-start", id: "g1", name: "ghost" },
          { type: "tool-params-delta", id: "g1", delta: '{"a":1}' },
          { type: "tool-params-end", id: "g1" },
          { type: "tool-call", id: "g1", name: "ghost", params: { a: 1 } },
          finish("tool-calls")
        ),
        turns[1] as Turn
      ])
      const tools = counted()
      const { ended } = yield* streamedRun(streaming, tools.toolset)
      assert.strictEqual(ended._tag, "Success")
      const [first, second] = streaming.options
      assert.deepStrictEqual(
        first?.tools.map((t) => t.name),
        ["read"]
      )
      assert.strictEqual(first?.toolCallValidation, "deferred")
      // The undeclared tool's call reached our executor, which answered it.
      const tool = second?.prompt.content.at(-1)
      assert.strictEqual(tool?.role, "tool")
      if (tool?.role === "tool") {
        const part = tool.content[0]
        assert.deepStrictEqual(part?.type === "tool-result" ? [part.id, part.isFailure, part.result] : [], [
          "g1",
          true,
          "not executed: unknown tool 'ghost'"
        ])
      }
      assert.deepStrictEqual(tools.runs, [])
    })
  )

  it.effect("a streamText that fails mid-call is a ModelError with the AiError; no tool runs", () =>
    Effect.gen(function* () {
      const cut = handMade([
        {
          whole: [],
          streamed: Stream.concat(
            Stream.fromIterable<Response.StreamPartEncoded>([
              { type: "text-start", id: "t" },
              { type: "text-delta", id: "t", delta: "Reading." },
              { type: "text-end", id: "t" },
              { type: "tool-params-start", id: "c1", name: "read" },
              { type: "tool-params-delta", id: "c1", delta: '{"path":"a.' }
            ]),
            Stream.fail(aiError("connection reset mid-call"))
          )
        }
      ])
      const tools = counted()
      const { ended, events } = yield* streamedRun(cut, tools.toolset)
      assert.strictEqual(ended._tag, "Failure")
      if (ended._tag === "Failure") {
        assert.instanceOf(ended.failure, Model.ModelError)
        assert.isTrue(AiError.isAiError(ended.failure.reason))
        assert.include(ended.failure.message, "connection reset mid-call")
      }
      assert.deepStrictEqual(tools.runs, [])
      assert.isTrue(events.some((e) => e.type === "call.drafted"))
      assert.isFalse(events.some((e) => e.type === "call.started" || e.type === "call.answered"))
    })
  )

  it.effect("an error part fails the stream there: a complete call after it never runs", () =>
    Effect.gen(function* () {
      for (const [error, message] of [
        [aiError("overloaded"), "overloaded"],
        [{ code: 529 }, 'the model\'s stream sent an error: {"code":529}']
      ] as const) {
        const erring = handMade([
          streamedOnly(
            { type: "tool-params-start", id: "c1", name: "read" },
            { type: "tool-params-delta", id: "c1", delta: args },
            { type: "error", error },
            { type: "tool-call", id: "c1", name: "read", params: { path: "a.txt" } },
            finish("tool-calls")
          )
        ])
        const tools = counted()
        const { ended, events } = yield* streamedRun(erring, tools.toolset)
        assert.strictEqual(ended._tag, "Failure")
        if (ended._tag === "Failure") {
          assert.instanceOf(ended.failure, Model.ModelError)
          assert.include(ended.failure.message, message)
        }
        assert.deepStrictEqual(tools.runs, [])
        assert.isFalse(events.some((e) => e.type === "call.started"))
      }
    })
  )

  it.effect("a length finish after a complete call is an IncompleteReply: the call does not run", () =>
    Effect.gen(function* () {
      const truncated = handMade([
        streamedOnly(
          { type: "tool-params-start", id: "c1", name: "read" },
          { type: "tool-params-delta", id: "c1", delta: args },
          { type: "tool-call", id: "c1", name: "read", params: { path: "a.txt" } },
          finish("length")
        )
      ])
      const tools = counted()
      const { ended } = yield* streamedRun(truncated, tools.toolset)
      assert.strictEqual(ended._tag, "Failure")
      if (ended._tag === "Failure") {
        assert.instanceOf(ended.failure, Model.ModelError)
        assert.instanceOf(ended.failure.reason, Model.IncompleteReply)
      }
      assert.deepStrictEqual(tools.runs, [])
    })
  )

  it.live(
    "over EffectAiModel (an AI SDK model as a LanguageModel), Loop.stream gives each reply whole, as Loop.run does",
    () =>
      Effect.gen(function* () {
        const replies = [
          FakeProvider.reply([Message.text("Reading."), Message.toolUse("c1", "read", { path: "a.txt" })]),
          FakeProvider.reply([Message.text("It says alpha.")])
        ]
        const layerOver = (url: string) =>
          Layer.provide(
            LanguageModelAdapter.layer,
            EffectAiModel.layer(createAnthropic({ baseURL: `${url}/v1`, apiKey: "k" })("claude-test"), {
              maxOutputTokens: 256,
              retry: { base: "1 millis" }
            })
          )
        const streamedFake = yield* FakeProvider.scoped({ anthropic: replies })
        const tools = counted()
        const events = yield* Stream.runCollect(Loop.stream({ toolset: tools.toolset, messages: opening })).pipe(
          Effect.provide(layerOver(streamedFake.url))
        )
        assert.deepStrictEqual(
          events.flatMap((e) => (e.type === "text.delta" ? [e.text] : [])),
          ["Reading.", "It says alpha."]
        )
        assert.deepStrictEqual(tools.runs, ["a.txt"])
        const wholeFake = yield* FakeProvider.scoped({ anthropic: replies })
        const run = yield* Loop.run({ toolset: counted().toolset, messages: opening }).pipe(
          Effect.provide(layerOver(wholeFake.url))
        )
        const last = events.at(-1)
        assert.deepStrictEqual(last?.type === "run.ended" ? last.result : undefined, run)
        assert.strictEqual(run.stop, "end")
      }),
    60_000
  )
})
