import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Schema, Stream } from "effect"
import { Loop, Message, Model, type Outcome, type ReplyPart, Trace } from "../src/index.ts"
import { scripted } from "./scripted.ts"

const { text, toolUse } = Message

/** A tool that records every run, so a test can tell that nothing ran. */
const recorded = () => {
  const ran: Array<string> = []
  const Write = Tool.make("write", {
    description: "Writes a file",
    parameters: Schema.Struct({ path: Schema.String, content: Schema.String }),
    run: ({ path, content }) => {
      ran.push(`write ${path} ${content}`)
      return "written"
    }
  })
  return { toolset: Toolset.make(Write), ran }
}

/** A streaming model: each turn's parts in order, or a stream the test builds. */
const streaming = (turns: ReadonlyArray<Stream.Stream<ReplyPart.Part, Model.Failure>>) => {
  const queue = [...turns]
  let requests = 0
  const shape = Model.fromStream(() =>
    Stream.suspend(() => {
      requests++
      return queue.shift() ?? Stream.fail({ _tag: "ScriptExhausted", message: "no reply left" })
    })
  )
  return { layer: Model.layer(shape), requests: () => requests }
}

const parts = (...list: ReadonlyArray<ReplyPart.Part>) => Stream.fromIterable(list)

/** A reply written piece by piece, as a provider streams it: text in 3 pieces, then a call whose JSON is cut mid-string. */
const writingTurn = parts(
  { type: "text-delta", text: "I will " },
  { type: "text-delta", text: "write " },
  { type: "text-delta", text: "it." },
  { type: "call-started", id: "w1", name: "write" },
  { type: "call-delta", id: "w1", delta: '{"path":"a.txt","con' },
  { type: "call-delta", id: "w1", delta: 'tent":"x\\"y"}' },
  { type: "call-ended", id: "w1", input: { path: "a.txt", content: 'x"y' } },
  { type: "usage", usage: { inputTokens: 10, outputTokens: 7 } },
  { type: "finish", finishReason: "tool-calls", rawFinishReason: "tool_use" }
)

const doneTurn = parts(
  { type: "text-delta", text: "Do" },
  { type: "text-delta", text: "ne." },
  { type: "finish", finishReason: "stop" }
)

const opening = [Message.user("Write a.txt")]

/** The trace's events, `streamed` taken off `model.replied`. */
const unmarked = (events: ReadonlyArray<Trace.Event>) =>
  events.map((event) => {
    if (event.type !== "model.replied") return event
    const { streamed: _, ...rest } = event
    return rest
  })

describe("Loop.stream", () => {
  it.effect(
    "shows text and the call as they are written, then the call's start and answer, the turn's and the run's end",
    () =>
      Effect.gen(function* () {
        const { toolset, ran } = recorded()
        const model = streaming([writingTurn, doneTurn])
        const events = yield* Stream.runCollect(Loop.stream({ toolset, messages: opening })).pipe(
          Effect.provide(model.layer)
        )
        const types = events.map((e) => e.type)
        assert.deepStrictEqual(types, [
          "turn.started",
          "text.delta",
          "text.delta",
          "text.delta",
          "call.drafted",
          "call.delta",
          "call.delta",
          "call.started",
          "call.answered",
          "turn.ended",
          "turn.started",
          "text.delta",
          "text.delta",
          "turn.ended",
          "run.ended"
        ])
        const deltas = events.flatMap((e) => (e.type === "call.delta" ? [e.delta] : []))
        assert.strictEqual(deltas.join(""), '{"path":"a.txt","content":"x\\"y"}')
        const started = events.find((e) => e.type === "call.started")
        assert.deepStrictEqual(
          started?.type === "call.started" ? started.call : undefined,
          toolUse("w1", "write", { path: "a.txt", content: 'x"y' })
        )
        const answered = events.find((e) => e.type === "call.answered")
        assert.strictEqual(answered?.type === "call.answered" ? answered.outcome._tag : undefined, "Succeeded")
        assert.deepStrictEqual(ran, ['write a.txt x"y'])
        const last = events.at(-1)
        assert.strictEqual(last?.type === "run.ended" ? last.result.text : undefined, "Done.")
      })
  )

  it.effect("fold(stream(o)) gives what run(o) gives, and the same trace but for streamed: true", () =>
    Effect.gen(function* () {
      const options = { toolset: recorded().toolset, messages: opening }
      const streamedTrace = yield* Trace.memory
      const viaStream = yield* Loop.fold(Loop.stream(options)).pipe(
        Effect.provide(streaming([writingTurn, doneTurn]).layer),
        Effect.provideService(Trace.Trace, streamedTrace.trace)
      )
      const wholeTrace = yield* Trace.memory
      const whole = Model.layer(
        Model.fromStream((request) => [writingTurn, doneTurn][(request.turn ?? 1) - 1] ?? Stream.empty)
      )
      // Loop.run asks `respond`, the fold of the same parts: an unstreamed run of the same replies.
      const viaRun = yield* Loop.run(options).pipe(
        Effect.provide(whole),
        Effect.provideService(Trace.Trace, wholeTrace.trace)
      )
      assert.deepStrictEqual(viaStream, viaRun)
      const streamedEvents = yield* streamedTrace.events
      const wholeEvents = yield* wholeTrace.events
      assert.deepStrictEqual(unmarked(streamedEvents), [...wholeEvents])
      const replied = streamedEvents.filter((e) => e.type === "model.replied")
      assert.isTrue(replied.length === 2 && replied.every((e) => e.type === "model.replied" && e.streamed === true))
      assert.isTrue(wholeEvents.every((e) => e.type !== "model.replied" || e.streamed === undefined))
    })
  )

  it.effect("a model without `stream` streams its whole reply at once, and gives what run gives", () =>
    Effect.gen(function* () {
      const { toolset } = recorded()
      const replies = [[text("Writing."), toolUse("w1", "write", { path: "a.txt", content: "x" })], [text("Done.")]]
      const viaStream = yield* Stream.runCollect(Loop.stream({ toolset, messages: opening })).pipe(
        Effect.provide(scripted(replies).layer)
      )
      const viaRun = yield* Loop.run({ toolset, messages: opening }).pipe(Effect.provide(scripted(replies).layer))
      const last = viaStream.at(-1)
      assert.deepStrictEqual(last?.type === "run.ended" ? last.result : undefined, viaRun)
      assert.deepStrictEqual(
        viaStream.filter((e) => e.type === "text.delta").map((e) => (e.type === "text.delta" ? e.text : "")),
        ["Writing.", "Done."]
      )
    })
  )

  it.effect("a stream that fails mid-call is a ModelError: none of that turn's calls run", () =>
    Effect.gen(function* () {
      const { toolset, ran } = recorded()
      const cut = Stream.concat(
        parts(
          { type: "call-ended", id: "w0", name: "write", input: { path: "first.txt", content: "complete" } },
          { type: "call-started", id: "w1", name: "write" },
          { type: "call-delta", id: "w1", delta: '{"path":"a.txt","content":"ha' }
        ),
        Stream.fail({ _tag: "ProviderError", message: "overloaded_error mid-stream" })
      )
      const { trace, events } = yield* Trace.memory
      const error = yield* Effect.flip(
        Loop.fold(Loop.stream({ toolset, messages: opening })).pipe(
          Effect.provide(streaming([cut]).layer),
          Effect.provideService(Trace.Trace, trace)
        )
      )
      assert.strictEqual(error._tag, "ModelError")
      assert.strictEqual(error.message, "model call 1: overloaded_error mid-stream")
      assert.deepStrictEqual(ran, [])
      const types = (yield* events).map((e) => e.type)
      assert.deepStrictEqual(types, ["run.started", "model.requested", "model.failed"])
    })
  )

  it.effect("a stream that ends inside a call is a ModelError naming the call: nothing runs", () =>
    Effect.gen(function* () {
      const { toolset, ran } = recorded()
      const open = parts(
        { type: "call-ended", id: "w0", name: "write", input: { path: "first.txt", content: "complete" } },
        { type: "call-started", id: "w1", name: "write" },
        { type: "call-delta", id: "w1", delta: '{"path":"a.txt"' }
      )
      const error = yield* Effect.flip(
        Loop.fold(Loop.stream({ toolset, messages: opening })).pipe(Effect.provide(streaming([open]).layer))
      )
      assert.strictEqual(error._tag, "ModelError")
      assert.strictEqual(
        error.message,
        "model call 1: the model's stream ended inside tool call 'w1' (write) before its arguments were complete"
      )
      assert.deepStrictEqual(ran, [])
    })
  )

  it.effect("a complete call in a reply cut off by the token limit (length) does not run", () =>
    Effect.gen(function* () {
      const { toolset, ran } = recorded()
      const length = parts(
        { type: "call-ended", id: "w1", name: "write", input: { path: "a.txt", content: "x" } },
        { type: "finish", finishReason: "length", rawFinishReason: "max_tokens" }
      )
      const error = yield* Effect.flip(
        Loop.fold(Loop.stream({ toolset, messages: opening })).pipe(Effect.provide(streaming([length]).layer))
      )
      assert.strictEqual(error._tag === "ModelError" ? error.reason._tag : error._tag, "IncompleteReply")
      assert.deepStrictEqual(ran, [])
    })
  )

  it.effect(
    "a hostile stream (throws, answers a non-Stream, dies, fails with a non-Failure) is a typed ModelError",
    () =>
      Effect.gen(function* () {
        const { toolset } = recorded()
        const hostile: ReadonlyArray<Model.Shape["stream"]> = [
          () => {
            throw new Error("boom")
          },
          () => "not a stream" as unknown as Stream.Stream<ReplyPart.Part, Model.Failure>,
          () => Stream.die(new Error("died")),
          () => Stream.fail("just a string" as unknown as Model.Failure)
        ]
        const messages: Array<string> = []
        for (const stream of hostile) {
          const model = Model.layer({ respond: () => Effect.die("unused"), stream })
          const error = yield* Effect.flip(
            Loop.fold(Loop.stream({ toolset, messages: opening })).pipe(Effect.provide(model))
          )
          assert.strictEqual(error._tag, "ModelError")
          messages.push(error.message)
        }
        assert.deepStrictEqual(messages, [
          "model call 1: the model died: boom",
          'model call 1: the model died: the model\'s stream answered "not a stream" instead of a Stream',
          "model call 1: the model died: died",
          "model call 1: the model failed with just a string"
        ])
      })
  )
})

describe("Loop.stream and Loop.run: the interrupt option", () => {
  it.effect("fires while the reply streams: the run ends interrupted with the text so far, no call runs", () =>
    Effect.gen(function* () {
      const { toolset, ran } = recorded()
      const stop = yield* Deferred.make<void>()
      const hanging = Stream.concat(
        parts({ type: "text-delta", text: "Half " }, { type: "text-delta", text: "written" }),
        // The call never ends: the provider is still writing when the person presses Ctrl-C.
        Stream.concat(parts({ type: "call-started", id: "w1", name: "write" }), Stream.never)
      )
      const { trace, events } = yield* Trace.memory
      const seen = Loop.stream({ toolset, messages: opening, interrupt: Deferred.await(stop) }).pipe(
        Stream.tap((event) => (event.type === "call.drafted" ? Deferred.succeed(stop, undefined) : Effect.void)),
        Stream.runCollect
      )
      const collected = yield* seen.pipe(
        Effect.provide(streaming([hanging]).layer),
        Effect.provideService(Trace.Trace, trace)
      )
      const last = collected.at(-1)
      assert.strictEqual(last?.type, "run.ended")
      const result = last?.type === "run.ended" ? last.result : undefined
      assert.strictEqual(result?.stop, "interrupted")
      assert.strictEqual(result?.text, "Half written")
      assert.deepStrictEqual(result?.messages, opening)
      assert.deepStrictEqual(ran, [])
      assert.deepStrictEqual((yield* events).at(-1), {
        type: "run.ended",
        stop: "interrupted",
        text: "Half written",
        turns: 0
      })
    })
  )

  it.effect("fires while a turn's calls run: no call starts after it, and each keeps its one result", () =>
    Effect.gen(function* () {
      const stop = yield* Deferred.make<void>()
      const ran: Array<string> = []
      const Step = Tool.make("step", {
        description: "One step",
        parameters: Schema.Struct({ n: Schema.Number }),
        run: ({ n }) =>
          Effect.gen(function* () {
            ran.push(`step ${n}`)
            // The first step is where the person presses Ctrl-C.
            if (n === 1) yield* Deferred.succeed(stop, undefined)
            return `did ${n}`
          })
      })
      const reply = [toolUse("s1", "step", { n: 1 }), toolUse("s2", "step", { n: 2 }), toolUse("s3", "step", { n: 3 })]
      const result = yield* Loop.run({
        toolset: Toolset.make(Step),
        messages: opening,
        interrupt: Deferred.await(stop)
      }).pipe(Effect.provide(scripted([reply, [text("never asked")]]).layer))
      assert.strictEqual(result.stop, "interrupted")
      assert.deepStrictEqual(ran, ["step 1"])
      const outcomes = result.turns[0]?.outcomes ?? []
      assert.deepStrictEqual(
        outcomes.map((o: Outcome.Outcome) => [o._tag, o.content]),
        [
          ["Succeeded", "did 1"],
          ["Refused", "not executed: the run was stopped before this call started"],
          ["Refused", "not executed: the run was stopped before this call started"]
        ]
      )
      // The history ends with the turn's results: every tool_use has its tool_result.
      const last = result.messages.at(-1)
      assert.strictEqual(last?.role, "user")
      assert.strictEqual(result.messages.length, opening.length + 2)
    })
  )

  it.effect("interrupting the stream's consumer stops the run; the trace still ends with run.ended interrupted", () =>
    Effect.gen(function* () {
      const { toolset, ran } = recorded()
      const { trace, events } = yield* Trace.memory
      const first = yield* Deferred.make<void>()
      const hanging = Stream.concat(parts({ type: "text-delta", text: "Thinking about it" }), Stream.never)
      const fiber = yield* Loop.stream({ toolset, messages: opening }).pipe(
        Stream.runForEach((event) => (event.type === "text.delta" ? Deferred.succeed(first, undefined) : Effect.void)),
        Effect.provide(streaming([hanging]).layer),
        Effect.provideService(Trace.Trace, trace),
        Effect.forkChild
      )
      yield* Deferred.await(first)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(ran, [])
      assert.deepStrictEqual((yield* events).at(-1), {
        type: "run.ended",
        stop: "interrupted",
        text: "Thinking about it",
        turns: 0
      })
    })
  )

  it.effect("fold of a stream cut short (Stream.take) is NoResult", () =>
    Effect.gen(function* () {
      const { toolset } = recorded()
      const error = yield* Effect.flip(
        Loop.fold(Stream.take(Loop.stream({ toolset, messages: opening }), 2)).pipe(
          Effect.provide(streaming([doneTurn]).layer)
        )
      )
      assert.strictEqual(error.message, "Loop.fold: the stream ended after 2 events without its run.ended event")
    })
  )

  it.effect("an interrupt that never fires changes nothing", () =>
    Effect.gen(function* () {
      const { toolset } = recorded()
      const replies = [[toolUse("w1", "write", { path: "a.txt", content: "x" })], [text("Done.")]]
      const plain = yield* Loop.run({ toolset, messages: opening }).pipe(Effect.provide(scripted(replies).layer))
      const watched = yield* Loop.run({ toolset, messages: opening, interrupt: Effect.never }).pipe(
        Effect.provide(scripted(replies).layer)
      )
      assert.deepStrictEqual(watched, plain)
    })
  )
})
