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
/** A model's price per million tokens, the cost of a call's tokens, its worst case, and the `--price` flag. @since 0.1.0 */
export * as Price from "./Price.ts"
/** The shipped price table of the common Anthropic and OpenAI models (checked dates, sources) and `find`. @since 0.1.0 */
export * as Prices from "./Prices.ts"
/** Tokens and money as a value: limits, reservations before each call, settlements after, and `Exhausted` (`token_budget`, `cost_budget`). @since 0.1.0 */
export * as Spend from "./Spend.ts"
/** A `Spend` shared inside Effect (a `Ref`): what a run, its planner, its summarizer and its sub-agents pay for, drawn from one set of limits. @since 0.1.0 */
export * as SpendMeter from "./SpendMeter.ts"
