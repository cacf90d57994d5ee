/**
 * A conversation's optional `pass`: the checks of a live case, decoded the same way (each
 * problem named at its check's JSON path) and judged after the run over its result and final
 * files by the same criterion code, each check that does not hold a `pass` failure in the words
 * a live trial gets. Without `pass`, a conversation is judged as before.
 */
import { Message, Model } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Conversation, LiveCase, ScenarioFile } from "../src/index.ts"
import type { Json } from "./fixtures/files.ts"

const FILE = "cases/pass.json"

/** Appends eggs to the list, then says "not done". */
const conversation = (extra: Json = {}): Json => ({
  format: 1,
  kind: "conversation",
  user: "Add eggs to the list.",
  files: { "list.txt": "bread" },
  turns: [
    {
      reply: [Message.toolUse("c1", "append", { path: "list.txt", content: ", eggs" })],
      expect: [{ type: "tool_result", tool_use_id: "c1", is_error: false, content: { pattern: "." } }]
    },
    { reply: [Message.text("not done")] }
  ],
  outcome: { stop: "end", text: "not done", files: { "list.txt": "bread, eggs" } },
  ...extra
})

const decoded = (json: Json): ScenarioFile.Conversation => {
  const result = ScenarioFile.decode(FILE, json)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  if (result.success.kind !== "conversation") throw new Error("not a conversation")
  return result.success
}

/** The problem a file is refused with, as `path: problem`. */
const refusal = (json: Json): string => {
  const result = ScenarioFile.decode(FILE, json)
  if (Result.isSuccess(result)) throw new Error("decoded")
  return `${result.failure.path}: ${result.failure.problem}`
}

describe("a conversation's pass criterion", () => {
  it.effect("without pass: judged by its outcome alone, as before", () =>
    Effect.gen(function* () {
      const scenario = decoded(conversation())
      expect(scenario.file.pass).toBeUndefined()
      const verdict = yield* Conversation.run(scenario, FILE)
      expect(verdict.passed).toBe(true)
      expect(verdict.failures).toStrictEqual([])
    })
  )

  it.effect("checks that hold: the verdict passes", () =>
    Effect.gen(function* () {
      const pass = [
        { file: "list.txt", content: { pattern: "eggs$" } },
        { call: { name: "append", input: { path: "list.txt" } }, made: true },
        { observation: { is_error: true }, seen: false },
        { stop: "end" }
      ]
      const verdict = yield* Conversation.run(decoded(conversation({ pass })), FILE)
      expect(verdict.failures).toStrictEqual([])
      expect(verdict.passed).toBe(true)
    })
  )

  it.effect("each check that does not hold is a pass failure, in the words a live trial gets", () =>
    Effect.gen(function* () {
      const pass = [
        { text: "done" },
        { stop: "end" },
        { file: "list.txt", content: "bread" },
        { call: { name: "delete" }, made: true }
      ]
      const verdict = yield* Conversation.run(decoded(conversation({ pass })), FILE)
      expect(verdict.passed).toBe(false)
      expect(verdict.failures.map((f) => f.kind)).toStrictEqual(["pass", "pass", "pass"])
      expect(verdict.failures.map((f) => f.message.split("\n")[0])).toStrictEqual([
        "pass[0]: the final text differs",
        "pass[2]: file 'list.txt' differs",
        "pass[3]: the call was never made"
      ])
      expect(verdict.failures[0]).toStrictEqual({
        kind: "pass",
        expected: '"done"',
        seen: '"not done"',
        message: 'pass[0]: the final text differs\n  expected: "done"\n  seen:     "not done"'
      })
      // The same words as a live trial of the same criterion whose model plays the same replies.
      const live = ScenarioFile.decode("live.json", {
        format: 1,
        kind: "live",
        user: "Add eggs to the list.",
        files: { "list.txt": "bread" },
        pass
      })
      if (Result.isFailure(live) || live.success.kind !== "live") throw new Error("not a live case")
      const replies = [
        [Message.toolUse("c1", "append", { path: "list.txt", content: ", eggs" })],
        [Message.text("not done")]
      ]
      const model = Model.fromReply((request) =>
        Effect.succeed(replies[request.messages.filter((m) => m.role === "assistant").length] ?? [])
      )
      const judged = (yield* Effect.provideService(LiveCase.trial(live.success, "live.json"), Model.Model, model))
        .verdict
      expect(judged.failures.map((f) => f.message)).toStrictEqual(verdict.failures.map((f) => f.message))
    })
  )

  it.effect("an outcome failure and a pass failure are both reported", () =>
    Effect.gen(function* () {
      const json = conversation({ pass: [{ text: "done" }] })
      const verdict = yield* Conversation.run(
        decoded({ ...json, outcome: { stop: "end", text: "done", files: { "list.txt": "bread, eggs" } } }),
        FILE
      )
      expect(verdict.failures.map((f) => f.kind)).toStrictEqual(["text", "pass"])
    })
  )

  it.effect("a run that leaves its script is judged by the divergence, not by the checks", () =>
    Effect.gen(function* () {
      const json = conversation({ pass: [{ text: "done" }] })
      const verdict = yield* Conversation.run(
        decoded({ ...json, turns: [{ reply: [Message.text("not done")] }, { reply: [Message.text("again")] }] }),
        FILE
      )
      expect(verdict.passed).toBe(false)
      expect(verdict.failures.map((f) => f.kind)).toStrictEqual(["script_unfinished"])
    })
  )

  it("decoded as a live case's pass is: each problem at its check's JSON path", () => {
    expect(refusal(conversation({ pass: [{ text: { pattern: "(" } }] }))).toMatch(/^pass\[0\]\.text\.pattern: /)
    expect(refusal(conversation({ pass: [{ text: "done" }, { content: "x" }] }))).toBe("pass[1].file: missing")
    expect(refusal(conversation({ pass: [{ text: "a", stop: "end" }] }))).toBe(
      'pass[0]: a check checks one thing: "text" and "stop" are 2 checks, write each as its own'
    )
    expect(refusal(conversation({ pass: [{ stop: "sideways" }] }))).toMatch(/^pass\[0\]\.stop: /)
    expect(refusal(conversation({ pass: [{ file: "a.txt" }] }))).toMatch(/^pass\[0\]: a file check gives "content"/)
    expect(refusal(conversation({ pass: [{ call: { name: "x" }, made: true, extra: 1 }] }))).toBe(
      "pass[0].extra: unexpected field"
    )
    expect(refusal(conversation({ pass: [7] }))).toMatch(/^pass\[0\]: expected a check/)
    expect(refusal(conversation({ pass: {} }))).toMatch(/^pass: /)
    expect(refusal(conversation({ pass: [] }))).toBe('pass: empty: give at least one check, or leave "pass" out')
  })
})
