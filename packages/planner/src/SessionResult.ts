/**
 * How a plan-and-execute session ended (the plan-and-execute idea): status and reason, every executed step with
 * its result or error, one diff per accepted replan, and every event.
 *
 * @since 0.1.0
 */
import { Budget, Spend } from "@agent-harness/budgets"
import { Spending } from "@agent-harness/executor"
import { PlanDiff } from "@agent-harness/diff"
import { Schema } from "effect"
import { Event } from "./Event.ts"
import { Step } from "./Step.ts"

/** Whether the session completed (the goal met, or partly) or failed. @since 0.1.0 */
export const Status: Schema.Literals<readonly ["completed", "failed"]> = Schema.Literals(["completed", "failed"])

/** Whether the session completed or failed. @since 0.1.0 */
export type Status = typeof Status.Type

/**
 * Why it ended: the goal was met; some steps failed and were skipped (`partial`); a budget ran
 * out (the words of `Budget.reasons`; `token_budget` and `cost_budget` when a planner's model
 * call did not fit the session's spend); the planner had nothing to offer; a failure aborted it.
 *
 * @since 0.1.0
 */
export const Reason: Schema.Literals<
  readonly ["goal_met", "partial", "step_budget", "replan_budget", "token_budget", "cost_budget", "no_plan", "aborted"]
> = Schema.Literals([
  "goal_met",
  "partial",
  Budget.reasons.steps,
  Budget.reasons.replans,
  Spend.reasons.total_tokens,
  Spend.reasons.cost,
  "no_plan",
  "aborted"
])

/** Why the session ended. @since 0.1.0 */
export type Reason = typeof Reason.Type

/**
 * The result of a session, as JSON.
 *
 * @since 0.1.0
 */
export const SessionResult: Schema.Struct<{
  readonly session_id: Schema.String
  readonly status: typeof Status
  readonly reason: typeof Reason
  readonly history: Schema.$Array<typeof Step>
  readonly revisions: Schema.$Array<typeof PlanDiff.PlanDiff>
  readonly events: Schema.$Array<typeof Event>
  readonly steps: Schema.Int
  readonly replans: Schema.Int
  readonly spent: Schema.optionalKey<typeof Spending.Amount>
}> = Schema.Struct({
  /** The session's id, in every call id of its steps; give it again to resume the session. */
  session_id: Schema.String,
  status: Status,
  reason: Reason,
  /** Every started step, in execution order across revisions, with its result or error. */
  history: Schema.Array(Step),
  /** One diff per accepted replan, in order. */
  revisions: Schema.Array(PlanDiff.PlanDiff),
  events: Schema.Array(Event),
  /** Steps executed (the `max_steps` budget spent). */
  steps: Schema.Int,
  /** Replans asked for (the `max_replans` budget spent). */
  replans: Schema.Int,
  /** What the session's spend holds at the end (tokens and USD), when it was given one. */
  spent: Schema.optionalKey(Spending.Amount)
})

/** The result of a session, as JSON. @since 0.1.0 */
export type SessionResult = typeof SessionResult.Type

/**
 * The status that goes with a reason.
 *
 * @since 0.1.0
 */
export const statusOf = (reason: Reason): Status =>
  reason === "goal_met" || reason === "partial" ? "completed" : "failed"
