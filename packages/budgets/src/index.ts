/**
 * Budgets for agent loops: steps, replans, turns and wall-clock time, as values; spent and
 * checked inside Effect; exhaustion as a typed reason.
 *
 * @since 0.1.0
 */

/** Budgets as values: `make`, `spend`, `remaining`, and `Exhausted`, the typed stop reason. @since 0.1.0 */
export * as Budget from "./Budget.ts"
/** A wall-clock budget started once and checked against effect's `Clock`. @since 0.1.0 */
export * as Deadline from "./Deadline.ts"
/** Budgets spent inside Effect: a `Meter` holds them in a `Ref` and fails with `Exhausted`. @since 0.1.0 */
export * as Meter from "./Meter.ts"
