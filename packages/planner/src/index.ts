/**
 * Plan and execute: typed steps and plans, pure planners (rule-based and
 * model-backed), the executor state machine with abort / skip / replan, plan diffs and events,
 * and a `SessionResult`.
 *
 * @since 0.1.0
 */

/** What a session tells a tracer or a UI as it happens, as JSON events. @since 0.1.0 */
export * as Event from "./Event.ts"
/** A planner backed by the executor's `Model` (the same one the loop uses), the plan read from the reply's JSON text. @since 0.1.0 */
export * as ModelPlanner from "./ModelPlanner.ts"
/** The planner interface `(goal, history, lastError) → plan`, and `InvalidPlan`. @since 0.1.0 */
export * as Planner from "./Planner.ts"
/** The deterministic planner: rules tried in order against the last error, the first match wins. @since 0.1.0 */
export * as RulePlanner from "./RulePlanner.ts"
/** The session state machine: run a plan, skip, abort or replan, within budgets. @since 0.1.0 */
export * as Session from "./Session.ts"
/** How a session ended: status, reason, history, revisions and events, as JSON. @since 0.1.0 */
export * as SessionResult from "./SessionResult.ts"
/** A plan session in the executor's `Trace` (the loop's own): start, events, result; `run` to a JSON Lines file. @since 0.1.0 */
export * as SessionTrace from "./SessionTrace.ts"
/** Plan steps and plans as Schema types, and their runs of concurrent steps. @since 0.1.0 */
export * as Step from "./Step.ts"
