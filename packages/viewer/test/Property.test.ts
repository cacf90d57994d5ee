/**
 * Whatever the files hold, a page comes out: `Html.render` never throws, its data block reads
 * back as the page model, every problem names a line that exists, and a trace cut anywhere still
 * reads up to the cut.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { ConversationTrace, Html, Input, Lines, PlanTrace } from "../src/index.ts"
import { report, runSession, sessionTrace, showcase } from "./fixtures.ts"

const types = [...ConversationTrace.types, ...PlanTrace.types, "usage", "retry", "permission.decided"]

/** A line: any JSON, an event of a known type with any fields, or text that is not JSON. */
const line = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .record({ type: fc.constantFrom(...types), turn: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.jsonValue()) })
    .chain((base) =>
      fc
        .dictionary(
          fc.constantFrom(
            "reply",
            "result",
            "outcome",
            "call",
            "step",
            "plan",
            "revision",
            "id",
            "diff",
            "messages",
            "stop"
          ),
          fc.jsonValue()
        )
        .map((fields) => JSON.stringify({ ...fields, ...base }))
    ),
  fc.string()
)

const between = (html: string, open: string, close: string): string => {
  const from = html.indexOf(open)
  return html.slice(from + open.length, html.indexOf(close, from + open.length))
}

const renders = (texts: ReadonlyArray<string>) => {
  const inputs = texts.map((text, i) => ({ name: `in${i}.jsonl`, text }))
  const html = Html.render(inputs)
  const data = between(html, '<script id="viewer-data" type="application/json">', "</script>")
  expect(JSON.parse(data)).toStrictEqual(JSON.parse(JSON.stringify(Input.page(inputs))))
  for (const [i, file] of Input.page(inputs).files.entries()) {
    const count = (texts[i] ?? "").split("\n").length
    for (const problem of file.problems) {
      if (problem.line !== null && problem.file === undefined) expect(problem.line).toBeLessThanOrEqual(count)
    }
  }
}

describe("Html.render on any input", () => {
  it("never throws, and its data reads back as the page model", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(line, { maxLength: 12 }).map((lines) => lines.join("\n")),
          { minLength: 1, maxLength: 3 }
        ),
        (texts) => renders(texts)
      ),
      { numRuns: 300 }
    )
  })

  it("reads a trace, a session and a report cut or corrupted anywhere", async () => {
    const whole = [showcase(), sessionTrace(await runSession()), report("before")]
    fc.assert(
      fc.property(fc.constantFrom(...whole), fc.nat(), fc.string({ maxLength: 3 }), (text, at, junk) => {
        const cut = at % (text.length + 1)
        renders([text.slice(0, cut) + junk + text.slice(cut + junk.length)])
        renders([text.slice(0, cut)])
      }),
      { numRuns: 300 }
    )
  })

  it("a trace cut after a line still has every turn before it", () => {
    const text = showcase()
    const lines = text.split("\n")
    for (let n = 0; n <= lines.length; n++) {
      const file = ConversationTrace.fromLines("f1", "t", Lines.read(lines.slice(0, n).join("\n")))
      const full = ConversationTrace.fromLines("f1", "t", Lines.read(text))
      const replies = lines.slice(0, n).filter((l) => l.includes('"type":"model.replied"')).length
      expect(file.turns.filter((t) => t.text.length + t.calls.length + t.reasoning.length > 0).length).toBe(replies)
      expect(file.turns.every((t) => full.turns.some((f) => f.turn === t.turn))).toBe(true)
    }
  })
})
