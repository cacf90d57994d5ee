/**
 * The human report of `harness test --trials N`: a line per case and variant (its passes, rate
 * and interval against its threshold, pass^k, tokens, money when priced, time), the failing
 * trials with their captured scenarios, with two variants a comparison line per case and one
 * for all cases, and the totals (`no price` there when no trial was priced: never `$0`).
 *
 * @since 0.1.0
 */
import type { Usage } from "@agent-harness/executor"
import { Report } from "@agent-harness/scenario"
import type { CaseSet, Statistics } from "@agent-harness/trials"

/** A rate as a whole percentage: `70%`. */
const percent = (x: number): string => `${Math.round(x * 100)}%`

/** A signed count of percentage points: `+20`, `−5`, `0`. */
const points = (x: number): string => {
  const n = Math.round(x * 100)
  return n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0"
}

/**
 * A number of tokens, short: `950`, `12.3k`, `4.1M`.
 *
 * @since 0.1.0
 */
export const tokens = (n: number): string =>
  n < 1000 ? `${n}` : n < 1_000_000 ? `${(n / 1000).toFixed(1)}k` : `${(n / 1_000_000).toFixed(1)}M`

/**
 * A time in milliseconds, short: `850 ms`, `41 s`, `3 min 2 s`.
 *
 * @since 0.1.0
 */
export const duration = (ms: number): string => {
  if (ms < 1000) return `${Math.round(ms)} ms`
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`
}

/**
 * An amount in USD, to a hundredth of a cent: `$0.0123`, `$12.3400`.
 *
 * @since 0.2.0
 */
export const money = (usd: number): string => `$${(Number.isFinite(usd) ? usd : 0).toFixed(4)}`

/**
 * What some trials cost, in words: `$0.0123`; `$0.0123 (7 of 10 trials priced)` when some of them
 * were journaled without a price; nothing (`undefined`) when none was priced.
 *
 * @since 0.2.0
 */
export const costText = (
  from: { readonly cost?: number | undefined; readonly costed?: number | undefined },
  trials: number
): string | undefined => {
  if (from.cost === undefined) return undefined
  const costed = from.costed ?? trials
  return costed < trials ? `${money(from.cost)} (${costed} of ${trials} trials priced)` : money(from.cost)
}

/**
 * The tokens of a usage: input and output summed.
 *
 * @since 0.1.0
 */
export const usageTokens = (usage: Usage.Usage): number => (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0)

/** What the case's threshold asks, in words. */
const thresholdText = (result: CaseSet.CaseResult): string => {
  const { minPassRate, minLowerBound } = result.threshold
  const parts = [
    ...(minPassRate === undefined ? [] : [`\u2265 min ${percent(minPassRate)}`]),
    ...(minLowerBound === undefined ? [] : [`lower bound \u2265 ${percent(minLowerBound)}`])
  ]
  return parts.length === 0 ? "every trial must pass" : parts.join(", ")
}

/**
 * The line of a case under one variant:
 * `PASS  refund (fixed)  7/10 passed · 70% [40%–89%] ≥ min 60% · pass^3 29% · 12.3k tokens · $0.0472 · 41 s`
 * (no money when the trials were not priced).
 *
 * @since 0.1.0
 */
export const caseLine = (result: CaseSet.CaseResult, style: Report.Style): string => {
  const n = result.records.length
  const c = n - result.failing.length
  const mark = result.met ? style.pass("PASS") : style.fail("FAIL")
  const k = Math.min(3, n)
  const cost = costText(result, n)
  const parts = [
    `${c}/${n} passed`,
    `${n === 0 ? "no trial" : `${percent(result.rate.rate)} [${percent(result.rate.low)}\u2013${percent(result.rate.high)}]`} ${thresholdText(result)}`,
    ...(k >= 1 ? [`pass^${k} ${percent(result.passHatK[k - 1] ?? 0)}`] : []),
    `${tokens(usageTokens(result.usage))} tokens`,
    ...(cost === undefined ? [] : [cost]),
    duration(result.durationMs),
    ...(result.resumed > 0 ? [`${result.resumed} resumed`] : [])
  ]
  const reserved = result.reserved ? "reserved: " : ""
  return `${reserved}${mark}  ${Report.printable(result.name)} (${result.variant})  ${parts.join(" \u00b7 ")}`
}

/**
 * The lines under a case's line, one per failing trial: its index, why, and the scenario that
 * replays it (or why none was captured), paths joined to the report folder.
 *
 * @since 0.1.0
 */
export const failingLines = (result: CaseSet.CaseResult, folder: string, join: (a: string, b: string) => string) =>
  result.failing.map((record) => {
    const why =
      record.failures.map((f) => f.message.replace(/\s+/g, " ").trim()).join("; ") || `stopped: ${record.stop}`
    const where =
      record.scenario !== undefined
        ? ` \u2192 ${join(folder, record.scenario)}`
        : record.captureError !== undefined
          ? ` (not captured: ${record.captureError.split("\n")[0]})`
          : ""
    return `    trial ${record.index} failed: ${Report.printable(why)}${Report.printable(where)}`
  })

/** The verdict of a comparison in plain words. */
const verdictText = (c: CaseSet.CaseComparison): string => {
  const v: Statistics.Verdict = c.comparison.verdict
  return v === "within noise" ? "within noise: no difference shown" : `${c.b} ${v} than ${c.a}`
}

/**
 * A comparison line: `refund: fixed vs before: +20 points [−5, +42] · p = 0.18 · within noise…`.
 *
 * @since 0.1.0
 */
export const comparisonLine = (c: CaseSet.CaseComparison): string => {
  const { difference, interval, pValue, n } = c.comparison
  const head = c.file === null ? "all cases" : Report.printable(c.name)
  return `  ${head}: ${c.b} vs ${c.a}: ${points(difference)} points [${points(interval.low)}, ${points(interval.high)}] \u00b7 p ${pValue < 0.001 ? "< 0.001" : `= ${pValue.toFixed(pValue < 0.01 ? 3 : 2)}`} \u00b7 ${n} pairs \u00b7 ${verdictText(c)}`
}

/**
 * The totals line: `trials: 3 of 4 cases met · 12 trials (2 resumed) · 24.0k tokens · $0.0944 · 3 min`
 * (`no price` instead of the money when no trial was priced).
 *
 * @since 0.1.0
 */
export const summaryLine = (report: CaseSet.Report): string => {
  const s = report.summary
  const trials = s.ran + s.resumed
  return `trials (${Report.printable(report.model)}, ${report.trialsPerCase} per case and variant): ${s.met} of ${s.cases} case${s.cases === 1 ? "" : "s"} met \u00b7 ${trials} trial${trials === 1 ? "" : "s"}${s.resumed > 0 ? ` (${s.resumed} resumed)` : ""} \u00b7 ${tokens(usageTokens(s.usage))} tokens \u00b7 ${costText(s, trials) ?? "no price"} \u00b7 ${duration(s.durationMs)}`
}

/**
 * The whole human report of the trials: non-reserved cases first, reserved cases after them on
 * their own `reserved:` lines, the comparisons, the totals.
 *
 * @since 0.1.0
 */
export const lines = (
  report: CaseSet.Report,
  folder: string,
  style: Report.Style,
  join: (a: string, b: string) => string
): ReadonlyArray<string> => {
  const ordered = [...report.cases.filter((r) => !r.reserved), ...report.cases.filter((r) => r.reserved)]
  return [
    ...ordered.flatMap((r) => [caseLine(r, style), ...failingLines(r, folder, join)]),
    ...(report.comparisons.length > 0
      ? [
          `compared (${report.variants[1]} vs ${report.variants[0]}, paired trials):`,
          ...report.comparisons.map(comparisonLine)
        ]
      : []),
    summaryLine(report)
  ]
}
