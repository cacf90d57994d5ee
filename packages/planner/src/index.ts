/**
 * Plan and execute (seed 004): typed steps and plans, pure planners (rule-based and
 * model-backed), the executor state machine with abort / skip / replan, plan diffs and events,
 * and a `SessionResult`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Event from "./Event.ts"
/** @since 0.1.0 */
export * as ModelPlanner from "./ModelPlanner.ts"
/** @since 0.1.0 */
export * as Planner from "./Planner.ts"
/** @since 0.1.0 */
export * as RulePlanner from "./RulePlanner.ts"
/** @since 0.1.0 */
export * as Session from "./Session.ts"
/** @since 0.1.0 */
export * as SessionResult from "./SessionResult.ts"
/** @since 0.1.0 */
export * as Step from "./Step.ts"
