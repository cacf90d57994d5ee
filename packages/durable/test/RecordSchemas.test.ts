/**
 * The durable engine's records decode through the executor's one Schema per closed list and its
 * one form of how a run ended: a conversation's `Result` (its stop reason) and a recorded reply
 * (`Response`: its finish reason, its usage). Records written today still read; an unknown word
 * is refused with the words the Schema knows. No database needed.
 */
import { Ended, FinishReason, StopReason, Usage } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Result as R, Schema } from "effect"
import { DurableJournal, DurableLoop } from "../src/index.ts"

const problem = (result: R.Result<unknown, Schema.SchemaError>): string =>
  R.isFailure(result) ? result.failure.message : "(decoded)"

describe("DurableLoop.Result", () => {
  it("is Ended's stop and turns, with the text and the history", () => {
    assert.strictEqual(DurableLoop.Result.fields.stop, StopReason.StopReason)
    assert.strictEqual(DurableLoop.Result.fields.stop, Ended.Ended.fields.stop)
    assert.strictEqual(DurableLoop.Result.fields.turns, Ended.Ended.fields.turns)
  })

  it("a record written today still reads (text null at the turn cap)", () => {
    const record = { stop: "turn_cap", text: null, messages: [{ role: "user", content: "Hi." }], turns: 3 } as const
    assert.deepStrictEqual(Schema.decodeUnknownSync(DurableLoop.Result)(record), record)
  })

  it("an unknown stop reason is refused, naming the loop's words", () => {
    const record = { stop: "finished", text: null, messages: [], turns: 1 }
    assert.strictEqual(
      problem(Schema.decodeUnknownResult(DurableLoop.Result)(record, { reportInput: true })),
      `Expected "end" | "turn_cap" | "time_budget" | "token_budget" | "cost_budget" | "context_window" | "repeated_call" | "interrupted", got "finished"\n  at ["stop"]`
    )
  })
})

describe("DurableLoop.Response", () => {
  it("decodes its finish reason and usage through the executor's Schemas", () => {
    assert.strictEqual(DurableLoop.Response.fields.finishReason.schema.members[0], FinishReason.FinishReason)
    assert.strictEqual(DurableLoop.Response.fields.usage.schema.members[0], Usage.Usage)
  })

  it("a recorded reply of today still reads; an unknown finish reason is refused", () => {
    const reply = {
      content: [{ type: "text", text: "hi" }],
      usage: { inputTokens: 12, outputTokens: 3 },
      finishReason: "stop",
      rawFinishReason: "end_turn"
    } as const
    assert.deepStrictEqual(Schema.decodeUnknownSync(DurableLoop.Response)(reply), reply)
    assert.include(
      problem(Schema.decodeUnknownResult(DurableLoop.Response)({ ...reply, finishReason: "done" })),
      `"content-filter"`
    )
  })
})

describe("DurableJournal.Recorded", () => {
  const observation = { original: "Succeeded", is_error: false, content: "appended 1" } as const
  const today = { name: "append", input: '{"path":"log.txt"}', observation } as const

  it("is written with the tool's name as name, as on the call", () => {
    assert.deepStrictEqual(Schema.encodeSync(DurableJournal.Recorded)(today), today)
    assert.deepStrictEqual(Schema.decodeSync(DurableJournal.Recorded)(today), today)
  })

  it("a record written before name (the tool's name under tool) still reads, as name", () => {
    const { name, ...rest } = today
    assert.deepStrictEqual(Schema.decodeSync(DurableJournal.Recorded)({ tool: name, ...rest }), today)
  })

  it("a record with neither is refused", () => {
    const { name: _, ...rest } = today
    assert.include(problem(Schema.decodeUnknownResult(DurableJournal.Recorded)(rest)), `["name"]`)
  })
})
