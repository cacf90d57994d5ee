// The scripted model's effect/ai face streams: `streamText` gives each reply in effect/ai's
// stream parts, with the same chunking as the loop's face, and a cut turn fails it part-way.
import { Message } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { AiError, type LanguageModel, type Response } from "effect/ai"
import { Script, ScriptedModel } from "../src/index.ts"
import { showing } from "./fixtures/languageModel.ts"
import { opening } from "./fixtures/toolset.ts"

const reply: ReadonlyArray<Message.ReplyBlock> = [
  Message.reasoning("Two reads."),
  Message.text("Reading both."),
  Message.toolUse("c1", "read", { path: "a.txt" })
]

/** The parts of one streamed reply shown `results`, each as `type` or `type:delta`. */
const streamed = (model: LanguageModel.LanguageModel, results: ReadonlyArray<Message.ToolResultBlock> = []) => {
  const seen: Array<Response.AnyPart> = []
  return Stream.runForEach(
    model.streamText({ prompt: showing(results), disableToolCallResolution: true, toolCallValidation: "deferred" }),
    (part) => Effect.sync(() => seen.push(part as Response.AnyPart))
  ).pipe(
    Effect.result,
    Effect.map((result) => ({ result, seen }))
  )
}

const brief = (part: Response.AnyPart): string =>
  "delta" in part
    ? `${part.type}:${part.delta}`
    : part.type === "tool-call"
      ? `tool-call:${JSON.stringify(part.params)}`
      : part.type

describe("ScriptedModel.languageModel streamText", () => {
  it.effect("gives the reply in effect/ai stream parts, cut as the chunking says", () =>
    Effect.gen(function* () {
      const { model } = yield* ScriptedModel.languageModel(
        { messages: opening, turns: [{ reply, expect: Script.unchecked }] },
        { chunking: { textChars: 6, argumentChars: 7 } }
      )
      const { result, seen } = yield* streamed(model)
      assert.strictEqual(result._tag, "Success")
      assert.deepStrictEqual(seen.map(brief), [
        "reasoning-start",
        "reasoning-delta:Two re",
        "reasoning-delta:ads.",
        "reasoning-end",
        "text-start",
        "text-delta:Readin",
        "text-delta:g both",
        "text-delta:.",
        "text-end",
        "tool-params-start",
        'tool-params-delta:{"path"',
        'tool-params-delta::"a.txt',
        'tool-params-delta:"}',
        "tool-params-end",
        'tool-call:{"path":"a.txt"}'
      ])
    })
  )

  it.effect("generateText and streamText play the same script: the same text and calls", () =>
    Effect.gen(function* () {
      const s: Script.Script = { messages: opening, turns: [{ reply, expect: Script.unchecked }] }
      const whole = yield* ScriptedModel.languageModel(s)
      const response = yield* whole.model.generateText({
        prompt: showing([]),
        disableToolCallResolution: true,
        toolCallValidation: "deferred"
      })
      const { seen } = yield* streamed((yield* ScriptedModel.languageModel(s)).model)
      const text = seen.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("")
      const calls = seen.flatMap((p) => (p.type === "tool-call" ? [[p.id, p.name, p.params]] : []))
      assert.strictEqual(text, response.text)
      assert.deepStrictEqual(
        calls,
        response.toolCalls.map((c) => [c.id, c.name, c.params])
      )
    })
  )

  it.effect("a cut turn fails the stream with an AiError after the parts before the cut; generateText fails too", () =>
    Effect.gen(function* () {
      const s: Script.Script = { messages: opening, turns: [{ reply, cut: { afterParts: 4 } }] }
      const { result, seen } = yield* streamed((yield* ScriptedModel.languageModel(s)).model)
      assert.strictEqual(result._tag, "Failure")
      if (result._tag === "Failure") {
        assert.isTrue(AiError.isAiError(result.failure))
        assert.include(result.failure.message, "turn 1: the script cuts the model's stream after 4 part(s)")
      }
      // Reasoning (2 deltas and its end), then the text's first delta: four of the loop's parts.
      assert.deepStrictEqual(seen.map(brief), [
        "reasoning-start",
        "reasoning-delta:Two read",
        "reasoning-delta:s.",
        "reasoning-end",
        "text-start",
        "text-delta:Reading "
      ])
      const whole = yield* Effect.flip(
        (yield* ScriptedModel.languageModel(s)).model.generateText({ prompt: showing([]) })
      )
      assert.include(whole.message, "the script cuts the model's stream after 4 part(s)")
    })
  )

  it.effect("a divergence fails the stream before its first part", () =>
    Effect.gen(function* () {
      const s: Script.Script = {
        messages: opening,
        turns: [{ reply, expect: [Script.expected("c1", false, "alpha")] }, { reply: [Message.text("done")] }]
      }
      const { model } = yield* ScriptedModel.languageModel(s)
      yield* streamed(model)
      const { result, seen } = yield* streamed(model, [Message.toolResult("c1", "beta", false)])
      assert.strictEqual(result._tag, "Failure")
      if (result._tag === "Failure") assert.include(result.failure.message, "turn 1, tool_use_id c1")
      assert.deepStrictEqual(seen, [])
    })
  )
})
