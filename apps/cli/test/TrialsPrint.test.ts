/**
 * The trials report's money (`trials/Print.ts`): `$0.0123` next to the tokens on a case's line
 * and on the totals line when the trials were priced, the share priced when only some were (a
 * journal resumed from before costs were kept), nothing on a case's line and `no price` on the
 * totals line when none was — never `$0`.
 */
import { type Report, ScenarioFile } from "@agent-harness/scenario"
import { CaseSet, type TrialRecord } from "@agent-harness/trials"
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as Print from "../src/trials/Print.ts"

const plain: Report.Style = { pass: (s) => s, fail: (s) => s, dim: (s) => s }

const decoded = ScenarioFile.decode("cases/done.json", {
  format: 1,
  kind: "live",
  name: "says done",
  user: "Say done.",
  pass: [{ text: "done" }]
})
if (Result.isFailure(decoded) || decoded.success.kind !== "live") throw new Error("not a live case")
const theCase: CaseSet.Case = { live: decoded.success, file: "cases/done.json", digest: "d", reserved: false }

const record = (index: number, cost?: number): TrialRecord.TrialRecord => ({
  file: "cases/done.json",
  digest: "d",
  variant: "fixed",
  index,
  passed: true,
  stop: "end",
  failures: [],
  usage: { inputTokens: 8, outputTokens: 2 },
  durationMs: 5,
  ...(cost === undefined ? {} : { cost })
})

const resultOf = (records: ReadonlyArray<TrialRecord.TrialRecord>) =>
  CaseSet.caseResult({ case: theCase, variant: "fixed", stem: "done" }, records)

const reportOf = (records: ReadonlyArray<TrialRecord.TrialRecord>): CaseSet.Report => {
  const result = resultOf(records)
  return {
    model: "anthropic:m",
    trialsPerCase: records.length,
    variants: ["fixed"],
    confidence: 0.95,
    cases: [result],
    comparisons: [],
    summary: {
      cases: 1,
      met: 1,
      notMet: 0,
      usage: result.usage,
      ...CaseSet.costOf(records),
      durationMs: result.durationMs,
      resumed: 0,
      ran: records.length,
      interrupted: false
    }
  }
}

describe("the trials report's money", () => {
  it("money: USD to a hundredth of a cent", () => {
    assert.strictEqual(Print.money(0.0123), "$0.0123")
    assert.strictEqual(Print.money(12.34), "$12.3400")
    assert.strictEqual(Print.money(0.00004), "$0.0000")
    assert.strictEqual(Print.money(0.1 + 0.2), "$0.3000")
  })

  it("costText: the money, the share priced when only some trials were, nothing when none was", () => {
    assert.isUndefined(Print.costText({}, 3))
    assert.strictEqual(Print.costText({ cost: 0.03, costed: 3 }, 3), "$0.0300")
    assert.strictEqual(Print.costText({ cost: 0.02, costed: 2 }, 3), "$0.0200 (2 of 3 trials priced)")
    // A priced run that cost nothing says so: 0 is the price's answer.
    assert.strictEqual(Print.costText({ cost: 0, costed: 1 }, 1), "$0.0000")
  })

  it("a case's line: the money after the tokens when priced, none when not", () => {
    const priced = Print.caseLine(resultOf([record(0, 0.0081), record(1, 0.0081), record(2, 0.0081)]), plain)
    assert.include(priced, " · 30 tokens · $0.0243 · 15 ms")
    const unpriced = Print.caseLine(resultOf([record(0), record(1), record(2)]), plain)
    assert.include(unpriced, " · 30 tokens · 15 ms")
    assert.notInclude(unpriced, "$")
    const partly = Print.caseLine(resultOf([record(0), record(1, 0.01), record(2, 0.01)]), plain)
    assert.include(partly, " · 30 tokens · $0.0200 (2 of 3 trials priced) · 15 ms")
  })

  it("the totals line: the run's money, or `no price`", () => {
    assert.strictEqual(
      Print.summaryLine(reportOf([record(0, 0.5), record(1, 0.25)])),
      "trials (anthropic:m, 2 per case and variant): 1 of 1 case met · 2 trials · 20 tokens · $0.7500 · 10 ms"
    )
    assert.strictEqual(
      Print.summaryLine(reportOf([record(0), record(1)])),
      "trials (anthropic:m, 2 per case and variant): 1 of 1 case met · 2 trials · 20 tokens · no price · 10 ms"
    )
  })
})
