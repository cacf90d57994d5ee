import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Stream } from "effect"
import { Message, type Model, ReplyPart } from "../src/index.ts"

const { text, toolUse, reasoning } = Message

const responses: ReadonlyArray<Model.Response> = [
  { content: [text("hello")] },
  { content: [] },
  {
    content: [
      { ...reasoning("thinking"), provider_metadata: { anthropic: { signature: "sig" } } },
      text("Reading."),
      toolUse("t1", "read", { path: 'a "quoted" \\ path' }),
      { ...toolUse("t2", "list", {}), provider_metadata: { openai: { itemId: "fc_1" } } },
      text("and more")
    ],
    usage: { inputTokens: 10, outputTokens: 5 },
    finishReason: "tool-calls",
    rawFinishReason: "tool_use"
  },
  { content: [toolUse("t3", "read", "not json {")], finishReason: "stop" }
]

const folded = (parts: ReadonlyArray<unknown>) => {
  const into = ReplyPart.folder()
  for (const part of parts) {
    const problem = into.add(part as ReplyPart.Part)
    if (problem !== undefined) return problem
  }
  return into.finish()
}

describe("ReplyPart.fold", () => {
  it.effect("folds a response's own parts back into the response", () =>
    Effect.gen(function* () {
      for (const response of responses) {
        const back = yield* ReplyPart.fold(Stream.fromIterable(ReplyPart.fromResponse(response)))
        assert.deepStrictEqual(back, response)
      }
    })
  )

  it("joins text pieces of one block, and starts a new block after another kind or another id", () => {
    const out = folded([
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
      { type: "reasoning-delta", text: "hm" },
      { type: "text-delta", text: "again" },
      { type: "text-delta", id: "b", text: " other" },
      { type: "block-ended", id: "b", provider_metadata: { x: { y: 1 } } }
    ])
    assert.deepStrictEqual(out, {
      content: [
        text("Hello"),
        reasoning("hm"),
        text("again"),
        { ...text(" other"), provider_metadata: { x: { y: 1 } } }
      ]
    })
  })

  it("interleaved calls (parallel tool calls streamed side by side) keep the order they started in", () => {
    const out = folded([
      { type: "call-started", id: "a", name: "read" },
      { type: "call-started", id: "b", name: "list" },
      { type: "call-delta", id: "b", delta: '{"fol' },
      { type: "call-delta", id: "a", delta: '{"pa' },
      { type: "call-ended", id: "b", input: { folder: "x" } },
      { type: "call-ended", id: "a", input: { path: "y" } }
    ])
    assert.deepStrictEqual(out, {
      content: [toolUse("a", "read", { path: "y" }), toolUse("b", "list", { folder: "x" })]
    })
  })

  it("a call runs with its end's input, never with the pieces of its arguments", () => {
    const out = folded([
      { type: "call-started", id: "a", name: "write" },
      { type: "call-delta", id: "a", delta: '{"path":"a.txt","content":"half' },
      { type: "call-ended", id: "a", input: { path: "a.txt", content: "whole" } }
    ])
    assert.deepStrictEqual(out, { content: [toolUse("a", "write", { path: "a.txt", content: "whole" })] })
  })

  it("a stream that ends inside a call is IncompleteStream, naming the call", () => {
    const out = folded([
      { type: "text-delta", text: "Writing." },
      { type: "call-started", id: "w1", name: "write" },
      { type: "call-delta", id: "w1", delta: '{"path":"a.txt","con' }
    ])
    assert.instanceOf(out, ReplyPart.IncompleteStream)
    assert.strictEqual(
      (out as ReplyPart.IncompleteStream).message,
      "the model's stream ended inside tool call 'w1' (write) before its arguments were complete"
    )
  })

  it("parts that cannot belong to a reply are IncompleteStream, each saying why; nothing after is taken", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<unknown>, string]> = [
      [[{ type: "call-delta", id: "x", delta: "{}" }], 'sent arguments for tool call "x", which was never started'],
      [
        [
          { type: "call-started", id: "x", name: "read" },
          { type: "call-started", id: "x", name: "read" }
        ],
        "started tool call 'x' twice"
      ],
      [
        [
          { type: "call-ended", id: "x", name: "read", input: {} },
          { type: "call-ended", id: "x", input: {} }
        ],
        "ended tool call 'x' twice"
      ],
      [
        [
          { type: "call-ended", id: "x", name: "read", input: {} },
          { type: "call-delta", id: "x", delta: "{" }
        ],
        "sent arguments for tool call 'x' after its end"
      ],
      [[{ type: "call-ended", id: "x", input: {} }], "ended tool call 'x', which was never started and has no name"],
      [[{ type: "call-started", id: 7, name: "read" }], "started a tool call without an id and a name"],
      [[{ type: "text-delta", text: 42 }], "sent a text-delta whose text is 42"],
      [[null], "sent null instead of a reply part"],
      [[{ type: "tool-result" }], 'sent a part of unknown type "tool-result"']
    ]
    for (const [parts, detail] of cases) {
      const out = folded(parts)
      assert.instanceOf(out, ReplyPart.IncompleteStream, detail)
      assert.strictEqual((out as ReplyPart.IncompleteStream).detail, detail)
    }
  })

  it("a hostile part (a throwing getter, a revoked proxy) is a problem, never a throw", () => {
    const getter = Object.defineProperty({}, "type", {
      get() {
        throw new Error("boom")
      }
    })
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    for (const part of [getter, proxy]) {
      const out = folded([part])
      assert.instanceOf(out, ReplyPart.IncompleteStream)
      assert.match((out as ReplyPart.IncompleteStream).detail, /sent a part that cannot be read/)
    }
  })

  it.effect("fold fails with the stream's own failure, and with IncompleteStream for an open call", () =>
    Effect.gen(function* () {
      const failing = Stream.concat(
        Stream.fromIterable<ReplyPart.Part>([{ type: "call-started", id: "a", name: "read" }]),
        Stream.fail({ _tag: "Cut", message: "connection reset" })
      )
      const exit = yield* Effect.exit(ReplyPart.fold(failing))
      assert.deepStrictEqual(exit, Exit.fail({ _tag: "Cut", message: "connection reset" }))
      const open = yield* Effect.flip(
        ReplyPart.fold(Stream.fromIterable<ReplyPart.Part>([{ type: "call-started", id: "a", name: "read" }]))
      )
      assert.strictEqual(open._tag, "IncompleteStream")
    })
  )

  it("text() is the text written so far, for an interrupted turn", () => {
    const into = ReplyPart.folder()
    into.add({ type: "text-delta", text: "Hal" })
    into.add({ type: "reasoning-delta", text: "(not text)" })
    into.add({ type: "text-delta", text: "f done" })
    assert.strictEqual(into.text(), "Half done")
  })

  it("argumentsText writes an input as JSON, a string as it is, and what cannot be written as nothing", () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    assert.strictEqual(ReplyPart.argumentsText({ a: 1 }), '{"a":1}')
    assert.strictEqual(ReplyPart.argumentsText("raw {"), "raw {")
    assert.strictEqual(ReplyPart.argumentsText(cyclic), "")
    assert.strictEqual(ReplyPart.argumentsText(10n), "")
    assert.strictEqual(ReplyPart.argumentsText(undefined), "")
  })
})
