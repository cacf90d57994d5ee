/**
 * Regression tests for real models: live cases run as repeated trials, and the numbers that say
 * how often a case passes and whether a harness change made it better.
 *
 * @since 0.1.0
 */

/** pass@k, pass^k, Wilson intervals, the paired comparison of two variants, a seeded generator. @since 0.1.0 */
export * as Statistics from "./Statistics.ts"
/** A live case run as repeated independent trials, and its numbers: pass rate and interval, pass@k, pass^k, the threshold met or not. @since 0.1.0 */
export * as Trials from "./Trials.ts"
