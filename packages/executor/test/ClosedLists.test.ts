/**
 * The closed lists (why the loop stopped, why a reply ended), the usage's two casings and the
 * one JSON form of how a run ended: each is one Schema, and every reader in the executor decodes
 * through it (an unknown word refused with a message naming the words it knows; the lines
 * traces hold today still read).
 */
import { Budget, Spend } from "@agent-harness/budgets"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Result, Schema } from "effect"
import { Ended, FinishReason, Loop, Message, Model, StopReason, Trace, Usage } from "../src/index.ts"

const decodeEvent = Schema.decodeUnknownResult(Trace.Event)
const problem = (result: Result.Result<unknown, Schema.SchemaError>): string =>
  Result.isFailure(result) ? result.failure.message : "(decoded)"

/** A trace line as the loop wrote it, read back. */
const read = (line: string) => Schema.decodeUnknownSync(Trace.Event)(Trace.upgrade(JSON.parse(line)))

describe("StopReason", () => {
  it("is the loop's eight words, the budgets' four among them", () => {
    assert.deepStrictEqual(StopReason.StopReason.literals, [
      "end",
      "turn_cap",
      "time_budget",
      "token_budget",
      "cost_budget",
      "context_window",
      "repeated_call",
      "interrupted"
    ])
    assert.strictEqual(StopReason.StopReason.literals[1], Budget.reasons.turns)
    assert.strictEqual(StopReason.StopReason.literals[2], Budget.reasons.time)
    assert.strictEqual(StopReason.StopReason.literals[3], Spend.reasons.total_tokens)
    assert.strictEqual(StopReason.StopReason.literals[4], Spend.reasons.cost)
  })

  it("the trace's stop event and Ended decode through it", () => {
    assert.strictEqual(Trace.Stop.fields.stop, StopReason.StopReason)
    assert.strictEqual(Ended.Ended.fields.stop, StopReason.StopReason)
  })

  it("an unknown stop reason is refused with the words it knows, by the trace and by Ended", () => {
    const line = { type: "run.ended", stop: "finished", turns: 2 }
    const expected = `Expected "end" | "turn_cap" | "time_budget" | "token_budget" | "cost_budget" | "context_window" | "repeated_call" | "interrupted", got "finished"\n  at ["stop"]`
    assert.strictEqual(problem(Schema.decodeUnknownResult(Trace.Stop)(line, { reportInput: true })), expected)
    assert.include(problem(decodeEvent(line, { reportInput: true })), `got "finished"`)
    assert.throws(() => Ended.decode({ stop: "finished", turns: 2 }), /"end" \| "turn_cap"/)
    assert.isFalse(StopReason.is("finished"))
    assert.isTrue(StopReason.is("repeated_call"))
  })

  it("stop lines old traces hold still read (upgraded), and Ended reads their fields", () => {
    assert.deepStrictEqual(read(`{"type":"stop","stop":"end","text":"Hola","turns":1}`), {
      type: "run.ended",
      stop: "end",
      text: "Hola",
      turns: 1
    })
    const capped = read(`{"type":"stop","stop":"turn_cap","turns":3}`)
    assert.deepStrictEqual(Ended.decode(capped), { stop: "turn_cap", turns: 3 })
    assert.deepStrictEqual(Ended.make("turn_cap", undefined, 3), { stop: "turn_cap", turns: 3 })
    assert.deepStrictEqual(Ended.make("end", "Hola", 1), { stop: "end", text: "Hola", turns: 1 })
  })
})

describe("FinishReason", () => {
  it("is the AI SDK's seven unified words; the incomplete ones are picked from them", () => {
    assert.deepStrictEqual(FinishReason.FinishReason.literals, [
      "stop",
      "length",
      "content-filter",
      "tool-calls",
      "error",
      "interrupted",
      "other"
    ])
    for (const reason of FinishReason.FinishReason.literals) {
      assert.strictEqual(Model.isIncomplete(reason), FinishReason.Incomplete.literals.includes(reason as never))
    }
  })

  it("a trace's model.reply with a finish reason that is not one is refused; today's lines read", () => {
    const line = { type: "model.replied", turn: 1, reply: [], finish_reason: "done" }
    assert.include(problem(Schema.decodeUnknownResult(Trace.ModelReply)(line)), `"tool-calls"`)
    const old = read(
      `{"type":"model.replied","turn":1,"reply":[{"type":"text","text":"hi"}],"finish_reason":"stop","raw_finish_reason":"end_turn"}`
    )
    assert.deepStrictEqual(old, {
      type: "model.replied",
      turn: 1,
      reply: [{ type: "text", text: "hi" }],
      finish_reason: "stop",
      raw_finish_reason: "end_turn"
    })
  })

  it.effect("the model boundary names the Schema's words when a model gives another", () =>
    Effect.gen(function* () {
      const toolset = Toolset.make(
        Tool.make("echo", {
          description: "Echoes",
          parameters: Schema.Struct({ say: Schema.String }),
          run: ({ say }) => Effect.succeed(say)
        })
      )
      const model: Model.Shape = {
        respond: () => Effect.succeed({ content: [Message.text("hi")], finishReason: "done" } as never)
      }
      const exit = yield* Loop.run({ toolset, messages: [Message.user("Hi.")], maxTurns: 2 }).pipe(
        Effect.provide(Model.layer(model)),
        Effect.exit
      )
      assert.isTrue(Exit.isFailure(exit))
      expect(String(exit)).toContain(`the finish reason is not one of ${FinishReason.FinishReason.literals.join(", ")}`)
    })
  )
})

describe("Usage", () => {
  it("an old trace's model.usage line reads into the camelCase type", () => {
    const event = read(
      `{"type":"usage.reported","turn":2,"input_tokens":120,"output_tokens":7,"cache_read_tokens":100}`
    )
    assert.strictEqual(event.type, "usage.reported")
    if (event.type !== "usage.reported") return
    assert.deepStrictEqual(Trace.usageOf(event), { inputTokens: 120, outputTokens: 7, cacheReadTokens: 100 })
  })

  it("the wire form is snake_case both ways, the counts not reported left out", () => {
    const usage: Usage.Usage = { inputTokens: 12, outputTokens: 7, reasoningTokens: 3, cacheWriteTokens: undefined }
    const wire = Usage.toWire(usage)
    assert.deepStrictEqual(wire, { input_tokens: 12, output_tokens: 7, reasoning_tokens: 3 })
    assert.deepStrictEqual(Schema.encodeSync(Usage.Wire)({ inputTokens: 12 }), { input_tokens: 12 })
    assert.deepStrictEqual(Usage.fromWire(wire), { inputTokens: 12, outputTokens: 7, reasoningTokens: 3 })
  })

  it("a count on the wire that is not a number is refused, naming its wire key", () => {
    assert.throws(() => Usage.fromWire({ input_tokens: "12" }), /input_tokens/)
    assert.throws(() => Usage.fromWire(null), /Expected object/)
  })

  it("usageEvent writes what the loop writes: whole counts of at least 0, snake_case", () => {
    assert.deepStrictEqual(
      Trace.usageEvent(1, { inputTokens: 5, outputTokens: -1, reasoningTokens: 1.5, cacheReadTokens: 2 }),
      { type: "usage.reported", turn: 1, input_tokens: 5, cache_read_tokens: 2 }
    )
  })

  it.effect("the loop's model.usage event is Trace.usageEvent's", () =>
    Effect.gen(function* () {
      const { trace, events } = yield* Trace.memory
      const usage = { inputTokens: 30, outputTokens: 1, cacheReadTokens: 4, cacheWriteTokens: 2 }
      const model: Model.Shape = {
        respond: () => Effect.succeed({ content: [Message.text("hi")], usage, finishReason: "stop" })
      }
      yield* Loop.run({ toolset: Toolset.make(), messages: [Message.user("Hi.")], maxTurns: 2 }).pipe(
        Effect.provide(Model.layer(model)),
        Effect.provideService(Trace.Trace, trace)
      )
      const written = (yield* events).filter((e) => e.type === "usage.reported")
      assert.deepStrictEqual(written, [Trace.usageEvent(1, usage)])
      const [first] = written
      if (first?.type === "usage.reported") assert.deepStrictEqual(Trace.usageOf(first), usage)
    })
  )
})
