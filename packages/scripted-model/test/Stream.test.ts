// The scripted model streams: each reply cut into parts by a deterministic chunking, the checks
// of what the model is shown made before the first part, and a turn's stream cut part-way when
// the script says so.
import { Loop, Message, Model, ReplyPart } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Stream } from "effect"
import { Chunking, Divergence, Script, ScriptedModel } from "../src/index.ts"
import { invalid } from "./fixtures/scripts.ts"
import { countingRead, opening, toolset } from "./fixtures/toolset.ts"

const turn1: Script.Turn = {
  reply: [
    Message.text("Reading both files now."),
    Message.toolUse("c1", "read", { path: "a.txt" }),
    Message.toolUse("c2", "read", { path: "b.txt" })
  ],
  expect: [Script.expected("c1", false, "alpha"), Script.expected("c2", false, "beta")]
}
const turn2: Script.Turn = { reply: [Message.text("a.txt says alpha, b.txt says beta.")] }
const script: Script.Script = { messages: opening, turns: [turn1, turn2] }

const chunking = { textChars: 8, argumentChars: 5 }

/** The events of a streamed run over `s`. */
const events = (s: Script.Script, options?: ScriptedModel.Options, tools = toolset) =>
  Stream.runCollect(Loop.stream({ toolset: tools, messages: opening, maxTurns: 5 })).pipe(
    Effect.provide(ScriptedModel.layer(s, options))
  )

/** The parts of the scripted model's first reply to the opening. */
const firstParts = (s: Script.Script, options?: ScriptedModel.Options) =>
  Effect.flatMap(ScriptedModel.make(s, options), (model) =>
    Stream.runCollect(Model.partsOf(model, { messages: opening, toolset }))
  )

describe("ScriptedModel streams through Loop.stream", () => {
  it.effect(
    "text deltas join to the reply's text, call deltas to each call's JSON arguments; same result as Loop.run",
    () =>
      Effect.gen(function* () {
        const streamed = yield* events(script, { chunking })
        const texts = (turn: number) =>
          streamed.flatMap((e) => (e.type === "text.delta" && e.turn === turn ? [e.text] : []))
        assert.strictEqual(texts(1).join(""), "Reading both files now.")
        assert.deepStrictEqual(texts(1), ["Reading ", "both fil", "es now."])
        assert.strictEqual(texts(2).join(""), "a.txt says alpha, b.txt says beta.")
        for (const call of Message.toolUses(turn1.reply)) {
          const deltas = streamed.flatMap((e) =>
            e.type === "call.delta" && e.tool_use_id === call.id ? [e.delta] : []
          )
          assert.strictEqual(deltas.join(""), JSON.stringify(call.input))
          assert.isTrue(deltas.every((d) => d.length <= 5))
          assert.isTrue(deltas.length > 1)
        }
        assert.deepStrictEqual(
          streamed.flatMap((e) => (e.type === "call.drafted" ? [[e.tool_use_id, e.name]] : [])),
          [
            ["c1", "read"],
            ["c2", "read"]
          ]
        )
        // A call is drafted (and argued) before any call of its turn starts.
        const firstStart = streamed.findIndex((e) => e.type === "call.started")
        const lastDelta = streamed.map((e) => e.type).lastIndexOf("call.delta")
        assert.isTrue(lastDelta < firstStart)
        const ended = streamed.at(-1)
        assert.strictEqual(ended?.type, "run.ended")
        const run = yield* Loop.run({ toolset, messages: opening, maxTurns: 5 }).pipe(
          Effect.provide(ScriptedModel.layer(script, { chunking }))
        )
        assert.deepStrictEqual(ended?.type === "run.ended" ? ended.result : undefined, run)
        assert.strictEqual(run.stop, "end")
      })
  )

  it.effect("the chunking is deterministic: the same script gives the same parts every time", () =>
    Effect.gen(function* () {
      const first = yield* firstParts(script, { chunking: { textChars: 3, argumentChars: 2 } })
      const again = yield* firstParts(script, { chunking: { textChars: 3, argumentChars: 2 } })
      assert.deepStrictEqual(first, again)
      assert.deepStrictEqual(first.slice(0, 3), [
        { type: "text-delta", id: "0", text: "Rea" },
        { type: "text-delta", id: "0", text: "din" },
        { type: "text-delta", id: "0", text: "g b" }
      ])
      const other = yield* firstParts(script, { chunking: { textChars: 4, argumentChars: 2 } })
      assert.notStrictEqual(JSON.stringify(first), JSON.stringify(other))
    })
  )

  it.effect("without a chunking, the defaults cut (8 characters of text, 5 of arguments)", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(Chunking.defaults, { textChars: 8, argumentChars: 5 })
      assert.deepStrictEqual(yield* firstParts(script), yield* firstParts(script, { chunking }))
    })
  )

  it.effect("respond is the fold of stream: the same reply, block for block", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel.make(script, { chunking })
      const folded = yield* ReplyPart.fold(Model.partsOf(model, { messages: opening, toolset }))
      const whole = yield* (yield* ScriptedModel.make(script, { chunking })).respond({ messages: opening, toolset })
      assert.deepStrictEqual(folded, whole)
      assert.deepStrictEqual(whole, { content: turn1.reply })
    })
  )

  it.effect("what the model is shown is checked before the first part of the next reply", () =>
    Effect.gen(function* () {
      const wrong: Script.Script = {
        messages: opening,
        turns: [
          { ...turn1, expect: [Script.expected("c1", false, "alpha"), Script.expected("c2", false, "gamma")] },
          turn2
        ]
      }
      const error = yield* Effect.flip(events(wrong, { chunking }))
      assert.instanceOf(error, Model.ModelError)
      assert.strictEqual(error.turn, 2)
      assert.instanceOf(error.reason, Divergence.ScriptDivergence)
      // Nothing of turn 2 was shown: the stream of events is not reached (checked directly).
      const model = yield* ScriptedModel.make(wrong, { chunking })
      yield* Stream.runDrain(Model.partsOf(model, { messages: opening, toolset }))
      const seen: Array<ReplyPart.Part> = []
      const shown = [
        ...opening,
        Message.assistant(turn1.reply),
        Message.user([Message.toolResult("c1", "alpha", false), Message.toolResult("c2", "beta", false)])
      ]
      const failure = yield* Effect.flip(
        Stream.runForEach(Model.partsOf(model, { messages: shown, toolset }), (part) =>
          Effect.sync(() => {
            seen.push(part)
          })
        )
      )
      assert.strictEqual(failure._tag, "ScriptDivergence")
      assert.deepStrictEqual(seen, [])
    })
  )

  it.effect("reasoning streams like text; provider metadata reaches the folded blocks", () =>
    Effect.gen(function* () {
      const reply: ReadonlyArray<Message.ReplyBlock> = [
        { type: "reasoning", text: "The user wants 😀 files.", provider_metadata: { anthropic: { signature: "s1" } } },
        { type: "text", text: "" },
        Message.text("Ol\u00e9 😀😀"),
        { type: "tool_use", id: "c9", name: "read", input: "not json", provider_metadata: { openai: { itemId: "i" } } }
      ]
      const s: Script.Script = { messages: opening, turns: [{ reply, expect: Script.unchecked }] }
      const parts = yield* firstParts(s, { chunking: { textChars: 1, argumentChars: 3 } })
      const pieces = parts.flatMap((p) => (p.type === "text-delta" && p.id === "2" ? [p.text] : []))
      assert.deepStrictEqual(pieces, ["O", "l", "\u00e9", " ", "😀", "😀"])
      assert.isTrue(parts.some((p) => p.type === "reasoning-delta" && p.text === "😀"))
      assert.deepStrictEqual(
        parts.filter((p) => p.type === "call-delta").map((p) => (p.type === "call-delta" ? p.delta : "")),
        ["not", " js", "on"]
      )
      assert.deepStrictEqual(yield* ReplyPart.fold(Stream.fromIterable(parts)), { content: reply })
    })
  )

  it.effect("a reply that cannot be cut fails the stream with MalformedReply naming the block, never a throw", () =>
    Effect.gen(function* () {
      const hostile = {
        type: "text",
        get text(): string {
          throw new Error("no text for you")
        }
      }
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ type: "tool_use", id: "", name: "read", input: {} }, "block 1 (tool_use) has no id"],
        [{ type: "picture" }, "block 1 has an unknown type"],
        [{ type: "text", text: 3 }, "block 1 (text) has no string text"],
        [{ type: "text", text: "hi", provider_metadata: 7 }, "block 1 has provider_metadata 7"],
        [hostile, "the reply cannot be read: no text for you"]
      ]
      for (const [block, message] of cases) {
        const s = {
          messages: opening,
          turns: [{ reply: [block], expect: Script.unchecked }]
        } as unknown as Script.Script
        const failure = yield* Effect.flip(firstParts(s))
        assert.instanceOf(failure, Model.MalformedReply)
        assert.include(failure.message, message)
      }
    })
  )
})

describe("a turn's stream cut part-way (Turn.cut)", () => {
  const cutMidCall: Script.Script = {
    messages: opening,
    turns: [{ reply: turn1.reply, cut: { afterParts: 5 } }]
  }

  it.effect("the loop fails with a ModelError (StreamCut) after the parts before the cut; no tool runs", () =>
    Effect.gen(function* () {
      const { toolset: counted, runs } = countingRead()
      const seen: Array<Loop.Event> = []
      const error = yield* Effect.flip(
        Stream.runForEach(Loop.stream({ toolset: counted, messages: opening, maxTurns: 5 }), (event) =>
          Effect.sync(() => {
            seen.push(event)
          })
        ).pipe(Effect.provide(ScriptedModel.layer(cutMidCall, { chunking })))
      )
      assert.instanceOf(error, Model.ModelError)
      assert.instanceOf(error.reason, Script.StreamCut)
      assert.strictEqual(error.message, "model call 1: turn 1: the script cuts the model's stream after 5 part(s)")
      assert.strictEqual(runs(), 0)
      // Three text deltas, a block end, the first call's start: the call drafted, never started.
      assert.deepStrictEqual(
        seen.map((e) => e.type),
        ["turn.started", "text.delta", "text.delta", "text.delta", "call.drafted"]
      )
    })
  )

  it.effect("Loop.run fails the same way: respond gives no reply for a cut turn", () =>
    Effect.gen(function* () {
      const { toolset: counted, runs } = countingRead()
      const error = yield* Effect.flip(
        Loop.run({ toolset: counted, messages: opening, maxTurns: 5 }).pipe(
          Effect.provide(ScriptedModel.layer(cutMidCall, { chunking }))
        )
      )
      assert.instanceOf(error, Model.ModelError)
      assert.strictEqual(error.message, "model call 1: turn 1: the script cuts the model's stream after 5 part(s)")
      assert.strictEqual(runs(), 0)
    })
  )

  it.effect("a cut past the reply's last part fails after all of them; a cut at 0 before any", () =>
    Effect.gen(function* () {
      const all = yield* firstParts({ messages: opening, turns: [{ reply: turn1.reply, expect: Script.unchecked }] })
      for (const [afterParts, given] of [
        [0, 0],
        [1000, all.length]
      ] as const) {
        const model = yield* ScriptedModel.make({
          messages: opening,
          turns: [{ reply: turn1.reply, cut: { afterParts } }]
        })
        const got: Array<ReplyPart.Part> = []
        const failure = yield* Effect.flip(
          Stream.runForEach(Model.partsOf(model, { messages: opening, toolset }), (p) => Effect.sync(() => got.push(p)))
        )
        assert.instanceOf(failure, Script.StreamCut)
        assert.strictEqual(failure.afterParts, given)
        assert.deepStrictEqual(got, all.slice(0, given))
      }
    })
  )
})

describe("chunking validation", () => {
  it.effect("a chunking that cannot be used fails every model call, naming the field", () =>
    Effect.gen(function* () {
      const hostile = {
        get textChars(): number {
          throw new Error("boom")
        }
      }
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ textChars: 0 }, "invalid chunking: chunking.textChars must be a whole number of at least 1, got 0"],
        [{ textChars: 1.5 }, "invalid chunking: chunking.textChars must be a whole number of at least 1, got 1.5"],
        [
          { argumentChars: "5" },
          'invalid chunking: chunking.argumentChars must be a whole number of at least 1, got "5"'
        ],
        [
          { argumentChars: Number.NaN },
          "invalid chunking: chunking.argumentChars must be a whole number of at least 1, got NaN"
        ],
        [null, "invalid chunking: chunking must be an object, got null"],
        [[8], "invalid chunking: chunking must be an object, got [8]"],
        [hostile, "invalid chunking: chunking.textChars cannot be read (boom)"]
      ]
      for (const [bad, message] of cases) {
        const options = { chunking: bad } as ScriptedModel.Options
        const streamed = yield* Effect.flip(events(script, options))
        assert.instanceOf(streamed, Model.ModelError)
        assert.instanceOf(streamed.reason, Chunking.InvalidChunking)
        assert.strictEqual(streamed.reason.message, message)
        const whole = yield* Effect.flip(
          Loop.run({ toolset, messages: opening }).pipe(Effect.provide(ScriptedModel.layer(script, options)))
        )
        assert.instanceOf(whole, Model.ModelError)
        assert.strictEqual(whole.reason.message, message)
      }
    })
  )

  it("pieces never split a surrogate pair and cut in code points", () => {
    assert.deepStrictEqual(Chunking.pieces("a😀b😀", 1), ["a", "😀", "b", "😀"])
    assert.deepStrictEqual(Chunking.pieces("a😀b😀", 3), ["a😀b", "😀"])
    assert.deepStrictEqual(Chunking.pieces("", 4), [""])
    assert.deepStrictEqual(Chunking.pieces("abcdefgh", 4), ["abcd", "efgh"])
    // A lone surrogate is a character of its own.
    assert.deepStrictEqual(Chunking.pieces("a\ud800b\udc00", 2), ["a\ud800", "b\udc00"])
  })

  it("a huge text is cut in pieces that join to it", () => {
    const text = "ab😀".repeat(250_000)
    const cut = Chunking.pieces(text, 7)
    assert.strictEqual(cut.join(""), text)
    assert.strictEqual(cut.length, Math.ceil(750_000 / 7))
    assert.isTrue(cut.every((piece) => [...piece].length <= 7))
  })
})

describe("Script.validate and cut", () => {
  const reply = turn1.reply
  it("refuses a cut that is not { afterParts } with a whole number of at least 0", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ afterParts: -1 }, "invalid script: turn 1: cut.afterParts must be a whole number of at least 0, got -1"],
      [{ afterParts: 2.5 }, "invalid script: turn 1: cut.afterParts must be a whole number of at least 0, got 2.5"],
      [{ afterParts: "2" }, "invalid script: turn 1: cut.afterParts must be a whole number of at least 0, got string"],
      [{}, "invalid script: turn 1: cut.afterParts must be a whole number of at least 0, got undefined"],
      [3, "invalid script: turn 1: cut must be { afterParts }, got number"],
      [
        {
          get afterParts(): number {
            throw new Error("boom")
          }
        },
        "invalid script: turn 1: cut.afterParts cannot be read (boom)"
      ]
    ]
    for (const [cut, message] of cases) {
      assert.strictEqual(invalid({ messages: opening, turns: [{ reply, cut }] }).message, message)
    }
  })

  it("refuses results expected on a cut turn, and a turn after a cut one", () => {
    assert.strictEqual(
      invalid({ messages: opening, turns: [{ reply, cut: { afterParts: 1 }, expect: turn1.expect }] }).message,
      "invalid script: turn 1: its stream is cut, so none of its calls run, but it expects 2 result(s)"
    )
    assert.strictEqual(
      invalid({ messages: opening, turns: [{ reply, cut: { afterParts: 1 } }, turn2] }).message,
      "invalid script: turn 2: it comes after turn 1, whose stream is cut, so it would never be played"
    )
  })

  it("accepts a cut last turn with calls and no expect (or expect: unchecked)", () => {
    const cutTurns: ReadonlyArray<Script.Turn> = [
      { reply, cut: { afterParts: 0 } },
      { reply, cut: { afterParts: 3 }, expect: Script.unchecked }
    ]
    for (const turn of cutTurns) {
      const s: Script.Script = { messages: opening, turns: [turn1, turn] }
      assert.deepStrictEqual(Script.validate(s), Result.succeed(s))
    }
  })
})
