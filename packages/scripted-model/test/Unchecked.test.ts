// A turn that calls tools must say what their results must be, or say explicitly that they are
// not checked (`expect: Script.unchecked`): a script that leaves it out is refused before any
// tool runs, instead of silently checking nothing.
import { Loop, Message, Model } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { AiError } from "effect/ai"
import { Script, ScriptedModel } from "../src/index.ts"
import { ask } from "./fixtures/languageModel.ts"
import { invalid } from "./fixtures/scripts.ts"
import { countingRead, opening, toolset } from "./fixtures/toolset.ts"

const reads = (id: string, path: string) => Message.toolUse(id, "read", { path })

/** Runs the loop on a script, counting the tool runs. */
const playCounting = (script: Script.Script) =>
  Effect.gen(function* () {
    const { toolset: counted, runs } = countingRead()
    const result = yield* Effect.result(
      Loop.run({ toolset: counted, messages: opening, maxTurns: 5 }).pipe(Effect.provide(ScriptedModel.layer(script)))
    )
    return { result, runs: runs() }
  })

describe("a turn with tool calls and no expect", () => {
  it.effect("is refused at the first model call, naming the turn and its calls; no tool runs", () =>
    Effect.gen(function* () {
      const script: Script.Script = {
        messages: opening,
        turns: [
          { reply: [reads("c1", "a.txt")], expect: [Script.expected("c1", false, "content of a.txt")] },
          { reply: [reads("c2", "b.txt"), reads("c3", "c.txt")] },
          { reply: [Message.text("done")] }
        ]
      }
      const { result, runs } = yield* playCounting(script)
      assert.strictEqual(runs, 0)
      assert.isTrue(Result.isFailure(result))
      if (Result.isSuccess(result)) return
      const error = result.failure
      assert.instanceOf(error, Model.ModelError)
      assert.strictEqual(error.turn, 1)
      assert.instanceOf(error.reason, Script.ScriptInvalid)
      assert.strictEqual(
        error.reason.message,
        "invalid script: turn 2: its reply calls 2 tools (c2, c3) but it has no expect: give the results the model must be shown, or expect: Script.unchecked to check nothing"
      )
    })
  )

  it.effect("through the LanguageModel face too: an AiError carrying the same message", () =>
    Effect.gen(function* () {
      const { model, player } = yield* ScriptedModel.languageModel({
        messages: opening,
        turns: [{ reply: [reads("c1", "a.txt")] }, { reply: [Message.text("done")] }]
      })
      const error = yield* Effect.flip(ask(model, []))
      assert.instanceOf(error, AiError.AiError)
      assert.include(error.message, "invalid script: turn 1: its reply calls a tool (c1) but it has no expect")
      assert.strictEqual(yield* player.used, 1)
    })
  )

  it.effect("expect: Script.unchecked plays the turn without checking its results", () =>
    Effect.gen(function* () {
      const script: Script.Script = {
        messages: opening,
        turns: [
          { reply: [reads("c1", "a.txt"), reads("c2", "b.txt")], expect: Script.unchecked },
          { reply: [Message.text("done")] }
        ]
      }
      const { result, runs } = yield* playCounting(script)
      assert.strictEqual(runs, 2)
      assert.isTrue(Result.isSuccess(result))
      if (Result.isSuccess(result)) assert.strictEqual(result.success.stop, "end")
    })
  )

  it.effect("an unchecked last turn at the turn cap passes too", () =>
    Effect.gen(function* () {
      const script: Script.Script = {
        messages: opening,
        turns: [{ reply: [reads("c1", "a.txt")], expect: Script.unchecked }]
      }
      const result = yield* Loop.run({ toolset, messages: opening, maxTurns: 1 }).pipe(
        Effect.provide(ScriptedModel.layer(script))
      )
      assert.strictEqual(result.stop, "turn_cap")
    })
  )

  it.effect("check treats unchecked like no expectation", () =>
    ScriptedModel.check(1, Script.unchecked, [Message.toolResult("x", "anything", true)])
  )

  it("unchecked is one registered symbol, the same for every copy of the package", () => {
    assert.strictEqual(Script.unchecked, Symbol.for("@agent-harness/scripted-model/Script/unchecked"))
  })
})

describe("Script.validate", () => {
  it("accepts turns with an expect list, unchecked, or no calls and no expect", () => {
    const script: Script.Script = {
      messages: opening,
      turns: [
        { reply: [reads("c1", "a.txt")], expect: [Script.expected("c1", false, /a/)] },
        { reply: [reads("c2", "a.txt")], expect: Script.unchecked },
        { reply: [reads("c3", "a.txt")], expect: [] },
        { reply: [Message.text("done")], expect: [] },
        { reply: [Message.text("done")] }
      ]
    }
    assert.deepStrictEqual(Script.validate(script), Result.succeed(script))
  })

  it("accepts any matcher with a test method as content, not only a RegExp", () => {
    const matcher = { test: (s: string) => s.length > 0 }
    const script = {
      messages: [],
      turns: [{ reply: [reads("c1", "a.txt")], expect: [{ tool_use_id: "c1", is_error: false, content: matcher }] }]
    }
    assert.isTrue(Result.isSuccess(Script.validate(script as unknown as Script.Script)))
  })

  it("refuses what would silently check nothing, or cannot be checked, naming turn and field", () => {
    const call = reads("c1", "a.txt")
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [
        { messages: [], turns: [{ reply: [Message.text("hi")], expect: [Script.expected("c1", false, "x")] }] },
        "invalid script: turn 1: it expects 1 result(s) but its reply calls no tool, so none would ever be checked"
      ],
      [
        { messages: [], turns: [{ reply: [call], expect: [{ tool_use_id: "c1", is_error: false }] }] },
        "invalid script: turn 1: expect[0].content must be a string or a pattern, got undefined"
      ],
      [
        { messages: [], turns: [{ reply: [call], expect: [{ tool_use_id: 1, is_error: false, content: "" }] }] },
        "invalid script: turn 1: expect[0].tool_use_id must be a string, got number"
      ],
      [
        { messages: [], turns: [{ reply: [call], expect: [{ tool_use_id: "c1", is_error: "no", content: "" }] }] },
        "invalid script: turn 1: expect[0].is_error must be a boolean, got string"
      ],
      [
        { messages: [], turns: [{ reply: [call], expect: [null] }] },
        "invalid script: turn 1: expect[0] must be an expected result, got null"
      ],
      [
        { messages: [], turns: [{ reply: [call], expect: "unchecked" }] },
        "invalid script: turn 1: expect must be a list of expected results or Script.unchecked, got string"
      ],
      [{ messages: [], turns: [{ reply: call }] }, "invalid script: turn 1: reply must be a list, got object"],
      [{ messages: [], turns: [null] }, "invalid script: turn 1: a turn must be an object with a reply, got null"],
      [{ messages: [], turns: {} }, "invalid script: turns must be a list, got object"],
      [{ turns: [] }, "invalid script: messages must be a list, got undefined"],
      [null, "invalid script: expected { messages, turns }, got null"],
      [
        {
          messages: [],
          turns: [
            Object.defineProperty({ reply: [call] }, "expect", {
              enumerable: true,
              get: () => {
                throw new Error("getter exploded")
              }
            })
          ]
        },
        "invalid script: turn 1: expect cannot be read (getter exploded)"
      ]
    ]
    for (const [script, message] of cases) assert.strictEqual(invalid(script).message, message)
  })
})
