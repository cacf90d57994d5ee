import { Message } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AiError } from "effect/ai"
import { Divergence, Script, ScriptedModel } from "../src/index.ts"
import { ask } from "./fixtures/languageModel.ts"
import { opening } from "./fixtures/toolset.ts"

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

const firstResults = [
  Message.toolResult("c1", "alpha", false),
  Message.toolResult("c2", "file 'nope.txt' does not exist", true)
]

describe("ScriptedModel.languageModel", () => {
  it.effect("a correct script passes: each call gives the next reply; finish finds nothing left over", () =>
    Effect.gen(function* () {
      const { model, player } = yield* ScriptedModel.languageModel(script)
      assert.deepStrictEqual(yield* ask(model, []), {
        text: "Reading.",
        calls: [
          ["c1", "read", { path: "a.txt" }],
          ["c2", "read", { path: "nope.txt" }]
        ]
      })
      assert.deepStrictEqual(yield* ask(model, firstResults), {
        text: "",
        calls: [["c3", "read", { paths: ["b.txt"] }]]
      })
      assert.deepStrictEqual(
        yield* ask(model, [Message.toolResult("c3", "not executed: missing field 'path'", true)]),
        { text: "a.txt says alpha.", calls: [] }
      )
      assert.strictEqual(yield* player.used, 3)
      yield* player.finish([])
    })
  )

  it.effect("a wrong observation fails generateText with an AiError naming the divergence", () =>
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
      const { model } = yield* ScriptedModel.languageModel(wrong)
      yield* ask(model, [])
      const reason = yield* Effect.flip(ask(model, firstResults))
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
    })
  )

  it.effect("calling past the script is an AiError naming ScriptExhausted's message", () =>
    Effect.gen(function* () {
      const { model } = yield* ScriptedModel.languageModel({ messages: opening, turns: turns.slice(0, 1) })
      yield* ask(model, [])
      const error = yield* Effect.flip(ask(model, firstResults))
      assert.strictEqual(
        error.message,
        "ScriptedModel.generateText: turn 2: the model was called again, but the script has only 1 turn(s)"
      )
    })
  )

  it.effect("a caller that stops early: player.finish reports the leftover turns", () =>
    Effect.gen(function* () {
      const { model, player } = yield* ScriptedModel.languageModel(script)
      yield* ask(model, [])
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
