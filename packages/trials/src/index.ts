/**
 * Regression tests for real models: live cases run as repeated trials, and the numbers that say
 * how often a case passes and whether a harness change made it better.
 *
 * @since 0.1.0
 */

/** pass@k, pass^k, Wilson intervals, the paired comparison of two variants, a seeded generator. @since 0.1.0 */
export * as Statistics from "./Statistics.ts"
