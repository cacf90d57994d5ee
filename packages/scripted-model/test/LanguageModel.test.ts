import { LanguageModelAdapter, Loop, Message, Model } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AiError, LanguageModel } from "effect/ai"
import { Divergence, Script, ScriptedModel } from "../src/index.ts"
import { opening, toolset } from "./fixtures/toolset.ts"

const turns: ReadonlyArray<Script.Turn> = [
  {
    reply: [
      Message.text("Reading."),
      Message.toolUse("c1", "read", { path: "a.txt" }),
      Message.toolUse("c2", "read", { path: "nope.txt" })
    ],
    expect: [Script.expected("c1", false, "alpha"), Script.expected("c2", true, "file 'nope.txt' does not exist")]
  },
  {
    reply: [Message.toolUse("c3", "read", { paths: ["b.txt"] })],
    expect: [Script.expected("c3", true, "not executed: missing field 'path'")]
  },
  { reply: [Message.text("a.txt says alpha.")] }
]

const script: Script.Script = { messages: opening, turns }

/** Runs the loop with the scripted model as the effect/ai LanguageModel service. */
const playThroughLanguageModel = (s: Script.Script, maxTurns: number) =>
  Effect.gen(function* () {
    const { model, player } = yield* ScriptedModel.languageModel(s)
    const modelLayer = LanguageModelAdapter.layer.pipe(Layer.provide(Layer.succeed(LanguageModel.LanguageModel, model)))
    const result = yield* Effect.result(
      Loop.run({ toolset, messages: opening, maxTurns }).pipe(Effect.provide(modelLayer))
    )
    return { result, player }
  })

describe("ScriptedModel.languageModel through LanguageModelAdapter", () => {
  it.effect("a correct script passes, and finish finds nothing left over", () =>
    Effect.gen(function* () {
      const { result, player } = yield* playThroughLanguageModel(script, 10)
      assert.strictEqual(result._tag, "Success")
      if (result._tag !== "Success") return
      assert.strictEqual(result.success.stop, "end")
      assert.strictEqual(result.success.text, "a.txt says alpha.")
      assert.deepStrictEqual(result.success.messages.slice(2), [
        Message.assistant(turns[0]?.reply ?? []),
        Message.user([
          Message.toolResult("c1", "alpha", false),
          Message.toolResult("c2", "file 'nope.txt' does not exist", true)
        ]),
        Message.assistant(turns[1]?.reply ?? []),
        Message.user([Message.toolResult("c3", "not executed: missing field 'path'", true)]),
        Message.assistant(turns[2]?.reply ?? [])
      ])
      assert.strictEqual(yield* player.used, 3)
      yield* player.finish([])
    })
  )

  it.effect(
    "a wrong observation fails the loop with a ModelError whose reason is an AiError naming the divergence",
    () =>
      Effect.gen(function* () {
        const wrong: Script.Script = {
          messages: opening,
          turns: [
            {
              reply: turns[0]?.reply ?? [],
              expect: [
                Script.expected("c1", false, "ALPHA"),
                Script.expected("c2", true, "file 'nope.txt' does not exist")
              ]
            },
            ...turns.slice(1)
          ]
        }
        const { result } = yield* playThroughLanguageModel(wrong, 10)
        assert.strictEqual(result._tag, "Failure")
        if (result._tag !== "Failure") return
        const error = result.failure
        assert.instanceOf(error, Model.ModelError)
        assert.strictEqual(error.turn, 2)
        const reason = error.reason
        assert.instanceOf(reason, AiError.AiError)
        assert.strictEqual(reason.module, "ScriptedModel")
        assert.strictEqual(reason.method, "generateText")
        const divergence =
          `turn 1, tool_use_id c1: a different observation\n` +
          `  expected: c1 is_error=false "ALPHA"\n` +
          `  seen:     c1 is_error=false "alpha"`
        assert.instanceOf(reason.reason, AiError.UnknownError)
        assert.strictEqual(reason.reason.description, divergence)
        assert.strictEqual(reason.message, `ScriptedModel.generateText: ${divergence}`)
        assert.strictEqual(error.message, `model call 2: ScriptedModel.generateText: ${divergence}`)
      })
  )

  it.effect("calling past the script is an AiError naming ScriptExhausted's message", () =>
    Effect.gen(function* () {
      const short: Script.Script = { messages: opening, turns: turns.slice(0, 1) }
      const { result } = yield* playThroughLanguageModel(short, 10)
      assert.strictEqual(result._tag, "Failure")
      if (result._tag !== "Failure") return
      const error = result.failure
      assert.instanceOf(error, Model.ModelError)
      assert.strictEqual(error.turn, 2)
      assert.strictEqual(
        error.reason.message,
        "ScriptedModel.generateText: turn 2: the model was called again, but the script has only 1 turn(s)"
      )
    })
  )

  it.effect("the loop stops at its cap without knowing the script; player.finish reports the leftover turns", () =>
    Effect.gen(function* () {
      const { result, player } = yield* playThroughLanguageModel(script, 1)
      assert.strictEqual(result._tag, "Success")
      if (result._tag !== "Success") return
      assert.strictEqual(result.success.stop, "turn_cap")
      assert.strictEqual(yield* player.used, 1)
      const unfinished = yield* Effect.flip(player.finish([]))
      assert.instanceOf(unfinished, Divergence.ScriptUnfinished)
      assert.strictEqual(unfinished.used, 1)
      assert.strictEqual(unfinished.total, 3)
      assert.strictEqual(
        unfinished.message,
        "the run stopped after 1 model call(s), but the script has 3 turn(s): 2 left over"
      )
    })
  )
})
