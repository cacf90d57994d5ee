/**
 * A trials report as the JSON lines of the report contract (`report.jsonl` and `harness test
 * --trials --json`): one `trials.case` per case and variant, with two variants one
 * `trials.comparison` per case and one for all cases, and a last `trials.summary`. Every value is
 * plain JSON: numbers are finite (never NaN or Infinity), `type` comes first. A priced run's
 * lines carry `cost` (USD) and `costed` (how many trials have a cost) on the case and summary
 * lines and `cost` on each failing trial; an unpriced run's carry none (never `0`).
 *
 * @since 0.1.0
 */
import type { Usage } from "@agent-harness/executor"
import type * as CaseSet from "./CaseSet.ts"

/**
 * A JSON value as the lines hold it.
 *
 * @since 0.1.0
 */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/**
 * One line, as an object (`type` first).
 *
 * @since 0.1.0
 */
export type Line = { readonly type: string } & { readonly [key: string]: Json }

const finite = (n: number): number => (Number.isFinite(n) ? n : 0)

const usageJson = (usage: Usage.Usage): { readonly [key: string]: number } => {
  const out: Record<string, number> = {}
  for (const [key, value] of Object.entries(usage)) {
    if (typeof value === "number") out[key] = finite(value)
  }
  return out
}

const costJson = (from: { readonly cost?: number | undefined; readonly costed?: number | undefined }) =>
  from.cost === undefined ? {} : { cost: finite(from.cost), costed: from.costed ?? 0 }

const caseLine = (result: CaseSet.CaseResult): Line => ({
  type: "trials.case",
  file: result.file,
  name: result.name,
  variant: result.variant,
  reserved: result.reserved,
  trials: result.rate.n,
  passes: result.rate.passes,
  rate: {
    passes: result.rate.passes,
    n: result.rate.n,
    rate: finite(result.rate.rate),
    low: finite(result.rate.low),
    high: finite(result.rate.high)
  },
  confidence: finite(result.confidence),
  passAtK: result.passAtK.map(finite),
  passHatK: result.passHatK.map(finite),
  threshold: {
    ...(result.threshold.minPassRate === undefined ? {} : { minPassRate: finite(result.threshold.minPassRate) }),
    ...(result.threshold.minLowerBound === undefined ? {} : { minLowerBound: finite(result.threshold.minLowerBound) })
  },
  met: result.met,
  failing: result.failing.map((record) => ({
    index: record.index,
    stop: record.stop,
    failures: record.failures.map((failure) => ({ kind: failure.kind, message: failure.message })),
    ...(record.trace === undefined ? {} : { trace: record.trace }),
    ...(record.scenario === undefined ? {} : { scenario: record.scenario }),
    ...(record.captureError === undefined ? {} : { captureError: record.captureError }),
    ...(record.cost === undefined ? {} : { cost: finite(record.cost) })
  })),
  usage: usageJson(result.usage),
  ...costJson(result),
  durationMs: finite(result.durationMs),
  resumed: result.resumed
})

const comparisonLine = (compared: CaseSet.CaseComparison): Line => {
  const c = compared.comparison
  return {
    type: "trials.comparison",
    file: compared.file,
    name: compared.name,
    a: compared.a,
    b: compared.b,
    n: c.n,
    both: c.both,
    b10: c.b10,
    b01: c.b01,
    neither: c.neither,
    aRate: finite(c.aRate),
    bRate: finite(c.bRate),
    difference: finite(c.difference),
    interval: { low: finite(c.interval.low), high: finite(c.interval.high) },
    confidence: finite(c.confidence),
    pValue: finite(c.pValue),
    verdict: c.verdict
  }
}

const summaryLine = (report: CaseSet.Report): Line => ({
  type: "trials.summary",
  model: report.model,
  trialsPerCase: report.trialsPerCase,
  variants: [...report.variants],
  cases: report.summary.cases,
  met: report.summary.met,
  notMet: report.summary.notMet,
  usage: usageJson(report.summary.usage),
  ...costJson(report.summary),
  durationMs: finite(report.summary.durationMs),
  resumed: report.summary.resumed,
  ran: report.summary.ran,
  interrupted: report.summary.interrupted
})

/**
 * The report's lines as objects, in order: the `trials.case` lines, the `trials.comparison`
 * lines (two variants only), the `trials.summary` line.
 *
 * @since 0.1.0
 */
export const objects = (report: CaseSet.Report): ReadonlyArray<Line> => [
  ...report.cases.map(caseLine),
  ...report.comparisons.map(comparisonLine),
  summaryLine(report)
]

/**
 * The report's lines as JSON text, one per line of `report.jsonl` (no newline in them).
 *
 * @since 0.1.0
 */
export const lines = (report: CaseSet.Report): ReadonlyArray<string> =>
  objects(report).map((line) => JSON.stringify(line))
