/**
 * Budgets for agent loops: steps, replans, turns and wall-clock time, as values; spent and
 * checked inside Effect; exhaustion as a typed reason.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Budget from "./Budget.ts"
/** @since 0.1.0 */
export * as Deadline from "./Deadline.ts"
/** @since 0.1.0 */
export * as Meter from "./Meter.ts"
