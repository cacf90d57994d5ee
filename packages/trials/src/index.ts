/**
 * Regression tests for real models: live cases run as repeated trials, and the numbers that say
 * how often a case passes and whether a harness change made it better.
 *
 * @since 0.1.0
 */

/** A set of live cases run as trials under one or two variants: interleaved, paired, bounded, traced, journaled, resumable. @since 0.1.0 */
export * as CaseSet from "./CaseSet.ts"
/** The journal of a trials run: a header, then one line per finished trial; read back to resume. @since 0.1.0 */
export * as Journal from "./Journal.ts"
/** A trials report as the JSON lines of the report contract (`trials.case`, `trials.comparison`, `trials.summary`). @since 0.1.0 */
export * as ReportLines from "./ReportLines.ts"
/** pass@k, pass^k, Wilson intervals, the paired comparison of two variants, a seeded generator. @since 0.1.0 */
export * as Statistics from "./Statistics.ts"
/** One finished trial as the report and the journal keep it. @since 0.1.0 */
export * as TrialRecord from "./TrialRecord.ts"
/** A live case run as repeated independent trials, and its numbers: pass rate and interval, pass@k, pass^k, the threshold met or not. @since 0.1.0 */
export * as Trials from "./Trials.ts"
