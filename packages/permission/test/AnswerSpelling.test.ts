/**
 * A scripted answer names the tool it is for `name`, as a call does on the wire; files written
 * before that say `tool`, which still reads. Both at once is refused at the old key's path.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, SchemaIssue, SchemaParser } from "effect"
import { Approver } from "../src/index.ts"

const decode = SchemaParser.decodeUnknownResult(Approver.ScriptedAnswers)

const problems = (json: unknown) => {
  const decoded = decode(json, { errors: "all", onExcessProperty: "error" })
  return Result.isFailure(decoded)
    ? SchemaIssue.makeFormatterStandardSchemaV1()(decoded.failure).issues.map((i) => [
        i.path?.map((p) => (typeof p === "object" ? p.key : p)),
        i.message
      ])
    : "decoded"
}

const request: Approver.Request = {
  id: "c2",
  name: "append",
  input: {},
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  rule: 0,
  reason: undefined
}

/** What the scripted approver answers to one request for `append`, and the problems it counts. */
const answerTo = (answers: ReadonlyArray<Approver.ScriptedAnswer>) =>
  Effect.gen(function* () {
    const scripted = yield* Approver.scripted(answers)
    const answer = yield* scripted.approver.ask(request)
    return { answer: answer.answer, problems: yield* scripted.problems }
  })

describe("a scripted answer's tool", () => {
  it("reads as name and, in files written before it, as tool", () => {
    expect(problems([{ tool_use_id: "c2", name: "append", answer: "yes" }])).toBe("decoded")
    expect(problems([{ tool_use_id: "c2", tool: "append", answer: "yes" }])).toBe("decoded")
  })

  it("is named once: both spellings are refused at the old one", () => {
    expect(problems([{ name: "append", tool: "append", answer: "yes" }])).toStrictEqual([
      [[0, "tool"], `an answer names its tool once: "name" (its old spelling "tool" also reads, but not both)`]
    ])
  })

  it.effect("is checked when used, whichever spelling says it", () =>
    Effect.gen(function* () {
      expect(yield* answerTo([{ name: "append", answer: "yes" }])).toStrictEqual({ answer: "yes", problems: [] })
      expect(yield* answerTo([{ tool: "append", answer: "yes" }])).toStrictEqual({ answer: "yes", problems: [] })
      const other = yield* answerTo([{ name: "write", answer: "yes" }])
      expect(other.answer).toBe("no")
      expect(other.problems).toStrictEqual(["answer 1 is for tool write, but append (call c2) asked"])
    })
  )
})
