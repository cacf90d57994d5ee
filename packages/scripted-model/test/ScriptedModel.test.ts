import { Loop, Message, Model } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Divergence, Script, ScriptedModel } from "../src/index.ts"
import { opening, toolset } from "./fixtures/toolset.ts"

// A three-turn script that a correct harness passes: a good and a failing read in one turn, a
// call that fails its schema, then a final answer.
const turn1: Script.Turn = {
  reply: [
    Message.text("Reading."),
    Message.toolUse("c1", "read", { path: "a.txt" }),
    Message.toolUse("c2", "read", { path: "nope.txt" })
  ],
  expect: [Script.expected("c1", false, "alpha"), Script.expected("c2", true, "file 'nope.txt' does not exist")]
}
const turn2: Script.Turn = {
  reply: [Message.toolUse("c3", "read", { paths: ["b.txt"] })],
  expect: [Script.expected("c3", true, "not executed: missing field 'path'")]
}
const turn3: Script.Turn = {
  reply: [Message.text("a.txt says alpha."), Message.text("nope.txt does not exist.")]
}

const script = (...turns: ReadonlyArray<Script.Turn>): Script.Script => ({ messages: opening, turns })

const withExpect = (turn: Script.Turn, expect: ReadonlyArray<Script.ExpectedResult>): Script.Turn => ({
  reply: turn.reply,
  expect
})

const play = (
  s: Script.Script,
  options?: { readonly maxTurns?: number | undefined; readonly messages?: ReadonlyArray<Message.Message> | undefined }
) =>
  Loop.run({ toolset, messages: options?.messages ?? opening, maxTurns: options?.maxTurns ?? 10 }).pipe(
    Effect.provide(ScriptedModel.layer(s))
  )

const fields = (d: Divergence.ScriptDivergence) => ({
  turn: d.turn,
  toolUseId: d.toolUseId,
  expected: d.expected,
  seen: d.seen,
  detail: d.detail
})

/** Runs a script that must fail, and gives the divergence with the loop's model call. */
const divergence = (s: Script.Script, options?: Parameters<typeof play>[1]) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(play(s, options))
    assert.instanceOf(error, Model.ModelError)
    const reason = error.reason
    assert.instanceOf(reason, Divergence.ScriptDivergence)
    return { error, reason }
  })

describe("ScriptedModel.layer through Loop.run", () => {
  it.effect("a script the harness follows passes, with the history it expects", () =>
    Effect.gen(function* () {
      const result = yield* play(script(turn1, turn2, turn3))
      assert.strictEqual(result.stop, "end")
      assert.strictEqual(result.text, "a.txt says alpha. nope.txt does not exist.")
      assert.deepStrictEqual(
        result.turns.map((t) => t.turn),
        [1, 2, 3]
      )
      assert.deepStrictEqual(result.messages, [
        ...opening,
        Message.assistant(turn1.reply),
        Message.user([
          Message.toolResult("c1", "alpha", false),
          Message.toolResult("c2", "file 'nope.txt' does not exist", true)
        ]),
        Message.assistant(turn2.reply),
        Message.user([Message.toolResult("c3", "not executed: missing field 'path'", true)]),
        Message.assistant(turn3.reply)
      ])
    })
  )

  it.effect("a different observation content: ScriptDivergence naming turn and tool_use_id, side by side", () =>
    Effect.gen(function* () {
      const { error, reason } = yield* divergence(
        script(
          withExpect(turn1, [
            Script.expected("c1", false, "ALPHA"),
            Script.expected("c2", true, "file 'nope.txt' does not exist")
          ]),
          turn2,
          turn3
        )
      )
      assert.strictEqual(error.turn, 2)
      assert.deepStrictEqual(fields(reason), {
        turn: 1,
        toolUseId: "c1",
        expected: `c1 is_error=false "ALPHA"`,
        seen: `c1 is_error=false "alpha"`,
        detail: "a different observation"
      })
      assert.strictEqual(
        reason.message,
        `turn 1, tool_use_id c1: a different observation\n  expected: c1 is_error=false "ALPHA"\n  seen:     c1 is_error=false "alpha"`
      )
      assert.strictEqual(error.message, `model call 2: ${reason.message}`)
    })
  )

  it.effect("a different is_error flag diverges even with the same text", () =>
    Effect.gen(function* () {
      const { error, reason } = yield* divergence(
        script(
          withExpect(turn1, [
            Script.expected("c1", false, "alpha"),
            Script.expected("c2", false, "file 'nope.txt' does not exist")
          ]),
          turn2,
          turn3
        )
      )
      assert.strictEqual(error.turn, 2)
      assert.deepStrictEqual(fields(reason), {
        turn: 1,
        toolUseId: "c2",
        expected: `c2 is_error=false "file 'nope.txt' does not exist"`,
        seen: `c2 is_error=true "file 'nope.txt' does not exist"`,
        detail: "a different observation"
      })
    })
  )

  it.effect("a missing result: the script expects more results than the model is shown", () =>
    Effect.gen(function* () {
      const { error, reason } = yield* divergence(
        script(
          withExpect(turn1, [
            Script.expected("c1", false, "alpha"),
            Script.expected("c2", true, "file 'nope.txt' does not exist"),
            Script.expected("c9", false, "beta")
          ]),
          turn2,
          turn3
        )
      )
      assert.strictEqual(error.turn, 2)
      assert.deepStrictEqual(fields(reason), {
        turn: 1,
        toolUseId: "c9",
        expected: `c9 is_error=false "beta"`,
        seen: "(nothing)",
        detail: "a missing result (the script expects 3, the model was shown 2)"
      })
    })
  )

  it.effect("an extra result: the model is shown a result the script does not list", () =>
    Effect.gen(function* () {
      const { error, reason } = yield* divergence(
        script(withExpect(turn1, [Script.expected("c1", false, "alpha")]), turn2, turn3)
      )
      assert.strictEqual(error.turn, 2)
      assert.deepStrictEqual(fields(reason), {
        turn: 1,
        toolUseId: "c2",
        expected: "(nothing)",
        seen: `c2 is_error=true "file 'nope.txt' does not exist"`,
        detail: "an unexpected result (the script expects 1)"
      })
      assert.strictEqual(
        reason.message,
        `turn 1, tool_use_id c2: an unexpected result (the script expects 1)\n  expected: (nothing)\n  seen:     c2 is_error=true "file 'nope.txt' does not exist"`
      )
    })
  )

  it.effect("results in another order than the script's diverge at the first position", () =>
    Effect.gen(function* () {
      const { error, reason } = yield* divergence(
        script(
          withExpect(turn1, [
            Script.expected("c2", true, "file 'nope.txt' does not exist"),
            Script.expected("c1", false, "alpha")
          ]),
          turn2,
          turn3
        )
      )
      assert.strictEqual(error.turn, 2)
      assert.deepStrictEqual(fields(reason), {
        turn: 1,
        toolUseId: "c2",
        expected: `c2 is_error=true "file 'nope.txt' does not exist"`,
        seen: `c1 is_error=false "alpha"`,
        detail: "a result for another call at position 1"
      })
    })
  )

  it.effect("a wrong observation in a later turn names that turn", () =>
    Effect.gen(function* () {
      const { error, reason } = yield* divergence(
        script(turn1, withExpect(turn2, [Script.expected("c3", true, "not executed: missing field 'paths'")]), turn3)
      )
      assert.strictEqual(error.turn, 3)
      assert.deepStrictEqual(fields(reason), {
        turn: 2,
        toolUseId: "c3",
        expected: `c3 is_error=true "not executed: missing field 'paths'"`,
        seen: `c3 is_error=true "not executed: missing field 'path'"`,
        detail: "a different observation"
      })
    })
  )

  it.effect("the model called past the script: ScriptExhausted", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(play(script(turn1), { maxTurns: 5 }))
      assert.instanceOf(error, Model.ModelError)
      assert.strictEqual(error.turn, 2)
      const reason = error.reason
      assert.instanceOf(reason, Divergence.ScriptExhausted)
      assert.strictEqual(reason.turn, 2)
      assert.strictEqual(reason.message, "turn 2: the model was called again, but the script has only 1 turn(s)")
      assert.strictEqual(
        error.message,
        "model call 2: turn 2: the model was called again, but the script has only 1 turn(s)"
      )
    })
  )

  it.effect("turns left over at the turn cap: ScriptUnfinished with the leftover", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(play(script(turn1, turn2, turn3), { maxTurns: 1 }))
      assert.instanceOf(error, Model.ModelError)
      // The failure comes from the end check, after the last model call made.
      assert.strictEqual(error.turn, 1)
      const reason = error.reason
      assert.instanceOf(reason, Divergence.ScriptUnfinished)
      assert.strictEqual(reason.used, 1)
      assert.strictEqual(reason.total, 3)
      assert.strictEqual(
        reason.message,
        "the run stopped after 1 model call(s), but the script has 3 turn(s): 2 left over"
      )
    })
  )

  it.effect("turns left over after an early end: ScriptUnfinished", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(play(script(turn3, turn1), { maxTurns: 10 }))
      assert.instanceOf(error, Model.ModelError)
      assert.strictEqual(error.turn, 1)
      const reason = error.reason
      assert.instanceOf(reason, Divergence.ScriptUnfinished)
      assert.strictEqual(reason.used, 1)
      assert.strictEqual(reason.total, 2)
      assert.strictEqual(
        reason.message,
        "the run stopped after 1 model call(s), but the script has 2 turn(s): 1 left over"
      )
    })
  )

  it.effect("a different opening message: ScriptDivergence at turn 1 with no tool_use_id", () =>
    Effect.gen(function* () {
      const { error, reason } = yield* divergence(script(turn1, turn2, turn3), {
        messages: [Message.system("You read files."), Message.user("Read b.txt.")]
      })
      assert.strictEqual(error.turn, 1)
      assert.deepStrictEqual(fields(reason), {
        turn: 1,
        toolUseId: undefined,
        expected: `{"role":"user","content":"Read a.txt and nope.txt."}`,
        seen: `{"role":"user","content":"Read b.txt."}`,
        detail: "opening message 2 differs"
      })
      assert.strictEqual(
        reason.message,
        `turn 1: opening message 2 differs\n  expected: {"role":"user","content":"Read a.txt and nope.txt."}\n  seen:     {"role":"user","content":"Read b.txt."}`
      )
    })
  )

  it.effect("a missing opening message diverges too", () =>
    Effect.gen(function* () {
      const { reason } = yield* divergence(script(turn1, turn2, turn3), {
        messages: [Message.system("You read files.")]
      })
      assert.deepStrictEqual(fields(reason), {
        turn: 1,
        toolUseId: undefined,
        expected: `{"role":"user","content":"Read a.txt and nope.txt."}`,
        seen: "(nothing)",
        detail: "opening message 2 differs"
      })
    })
  )

  it.effect("a regex content expectation that matches passes", () =>
    Effect.gen(function* () {
      const result = yield* play(
        script(
          withExpect(turn1, [Script.expected("c1", false, /^al.ha$/), Script.expected("c2", true, /does not exist$/)]),
          turn2,
          turn3
        )
      )
      assert.strictEqual(result.stop, "end")
      assert.strictEqual(result.turns.length, 3)
    })
  )

  it.effect("a regex content expectation that does not match diverges, shown as /source/flags", () =>
    Effect.gen(function* () {
      const { reason } = yield* divergence(
        script(
          withExpect(turn1, [Script.expected("c1", false, /^BETA/i), Script.expected("c2", true, /does not exist$/)]),
          turn2,
          turn3
        )
      )
      assert.deepStrictEqual(fields(reason), {
        turn: 1,
        toolUseId: "c1",
        expected: "c1 is_error=false /^BETA/i",
        seen: `c1 is_error=false "alpha"`,
        detail: "a different observation"
      })
    })
  )

  it.effect("a script with a /g pattern can be played twice (the layer builds a fresh player each time)", () =>
    Effect.gen(function* () {
      const s = script(
        withExpect(turn1, [Script.expected("c1", false, /^alpha$/g), Script.expected("c2", true, /does not exist$/)]),
        turn2,
        turn3
      )
      const first = yield* play(s)
      const second = yield* Effect.result(play(s))
      assert.strictEqual(first.stop, "end")
      // Script.matches calls RegExp.test, which is stateful for /g and /y: the first run leaves
      // lastIndex at 5, and the second run then fails to match the same "alpha".
      assert.strictEqual(second._tag, "Success", second._tag === "Failure" ? second.failure.message : "")
    })
  )

  it.effect("at turn_cap the last turn's expect is checked against the final results: right passes", () =>
    Effect.gen(function* () {
      const last: Script.Turn = {
        reply: [Message.toolUse("c4", "read", { path: "b.txt" })],
        expect: [Script.expected("c4", false, "beta")]
      }
      const result = yield* play(script(turn1, last), { maxTurns: 2 })
      assert.strictEqual(result.stop, "turn_cap")
      assert.strictEqual(result.text, undefined)
      assert.strictEqual(result.turns.length, 2)
    })
  )

  it.effect("at turn_cap a wrong final expect fails the run", () =>
    Effect.gen(function* () {
      const last: Script.Turn = {
        reply: [Message.toolUse("c4", "read", { path: "b.txt" })],
        expect: [Script.expected("c4", false, "gamma")]
      }
      const { error, reason } = yield* divergence(script(turn1, last), { maxTurns: 2 })
      assert.strictEqual(error.turn, 2)
      assert.deepStrictEqual(fields(reason), {
        turn: 2,
        toolUseId: "c4",
        expected: `c4 is_error=false "gamma"`,
        seen: `c4 is_error=false "beta"`,
        detail: "a different observation"
      })
    })
  )
})

describe("ScriptedModel.player and check", () => {
  it.effect("the player counts model calls, checks the opening once and ends cleanly", () =>
    Effect.gen(function* () {
      const p = yield* ScriptedModel.player(script(turn3))
      assert.strictEqual(yield* p.used, 0)
      const reply = yield* p.next([], opening)
      assert.deepStrictEqual(reply, turn3.reply)
      assert.strictEqual(yield* p.used, 1)
      yield* p.finish([])
      const exhausted = yield* Effect.flip(p.next([], undefined))
      assert.instanceOf(exhausted, Divergence.ScriptExhausted)
      assert.strictEqual(exhausted.turn, 2)
    })
  )

  it.effect("check accepts an undefined expect, and compares every position", () =>
    Effect.gen(function* () {
      yield* ScriptedModel.check(1, undefined, [Message.toolResult("x", "anything", true)])
      yield* ScriptedModel.check(1, [], [])
      const d = yield* Effect.flip(ScriptedModel.check(4, [], [Message.toolResult("x", "", false)]))
      assert.deepStrictEqual(fields(d), {
        turn: 4,
        toolUseId: "x",
        expected: "(nothing)",
        seen: `x is_error=false ""`,
        detail: "an unexpected result (the script expects 0)"
      })
    })
  )

  it("isDivergence tells the script's failures from others", () => {
    assert.isTrue(Divergence.isDivergence(new Divergence.ScriptExhausted({ turn: 1 })))
    assert.isTrue(Divergence.isDivergence(new Divergence.ScriptUnfinished({ used: 1, total: 2 })))
    assert.isTrue(
      Divergence.isDivergence(
        new Divergence.ScriptDivergence({ turn: 1, toolUseId: undefined, expected: "", seen: "", detail: "" })
      )
    )
    assert.isFalse(Divergence.isDivergence({ _tag: "AiError" }))
  })
})
