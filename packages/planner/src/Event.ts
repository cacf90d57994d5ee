/**
 * What a session tells a tracer or a UI, as it happens: each event is JSON (a `type` field and
 * plain data), and the same list ends up in `SessionResult.events`.
 *
 * @since 0.1.0
 */
import { PlanDiff } from "@agent-harness/diff"
import { Spending } from "@agent-harness/executor"
import { Schema } from "effect"
import { Plan, Step } from "./Step.ts"

/** A plan was accepted: the first (revision 0) or a replan. @since 0.1.0 */
export const PlanCreated: Schema.Struct<{
  readonly type: Schema.Literal<"plan.created">
  readonly revision: Schema.Int
  readonly plan: typeof Plan
}> = Schema.Struct({
  type: Schema.Literal("plan.created"),
  revision: Schema.Int,
  plan: Plan
})

/** A step is about to run, with the id its call runs with (`Session.callId`). @since 0.1.0 */
export const StepStarted: Schema.Struct<{
  readonly type: Schema.Literal<"step.started">
  readonly revision: Schema.Int
  readonly step: typeof Step
  readonly tool_use_id: Schema.String
}> = Schema.Struct({
  type: Schema.Literal("step.started"),
  revision: Schema.Int,
  step: Step,
  /**
   * `<session id>/step-<revision>-<step id>`: the id the step's call runs with, the key of its
   * entry in a journal (`call_id` in a trace written before 0.2).
   */
  tool_use_id: Schema.String
})

/** A step ran and succeeded. @since 0.1.0 */
export const StepSucceeded: Schema.Struct<{
  readonly type: Schema.Literal<"step.succeeded">
  readonly revision: Schema.Int
  readonly id: Schema.Int
  readonly result: Schema.String
}> = Schema.Struct({
  type: Schema.Literal("step.succeeded"),
  revision: Schema.Int,
  id: Schema.Int,
  result: Schema.String
})

/** A step failed (not executed, or failed while running). @since 0.1.0 */
export const StepFailed: Schema.Struct<{
  readonly type: Schema.Literal<"step.failed">
  readonly revision: Schema.Int
  readonly id: Schema.Int
  readonly error: Schema.String
  readonly not_executed: Schema.Boolean
}> = Schema.Struct({
  type: Schema.Literal("step.failed"),
  revision: Schema.Int,
  id: Schema.Int,
  error: Schema.String,
  /** Whether it provably did not run (its call failed its schema). */
  not_executed: Schema.Boolean
})

/** A step of a new plan that already succeeded with the same tool and args: not run again. @since 0.1.0 */
export const StepCached: Schema.Struct<{
  readonly type: Schema.Literal<"step.cached">
  readonly revision: Schema.Int
  readonly id: Schema.Int
  readonly result: Schema.String
}> = Schema.Struct({
  type: Schema.Literal("step.cached"),
  revision: Schema.Int,
  id: Schema.Int,
  result: Schema.String
})

/** A revision: how the new plan differs from what was left of the old one. @since 0.1.0 */
export const PlanDiffed: Schema.Struct<{
  readonly type: Schema.Literal<"plan.diff">
  readonly revision: Schema.Int
  readonly last_error: Schema.String
  readonly diff: typeof PlanDiff.PlanDiff
}> = Schema.Struct({
  type: Schema.Literal("plan.diff"),
  revision: Schema.Int,
  last_error: Schema.String,
  diff: PlanDiff.PlanDiff
})

/**
 * A plan was refused: it cannot fit in what is left of the step budget (the session ends), or
 * it is not a valid plan (the reason becomes the next last error).
 *
 * @since 0.1.0
 */
export const PlanRejected: Schema.Struct<{
  readonly type: Schema.Literal<"plan.rejected">
  readonly reason: Schema.Literals<readonly ["step_budget", "invalid"]>
  readonly detail: Schema.String
  readonly plan: typeof Plan
}> = Schema.Struct({
  type: Schema.Literal("plan.rejected"),
  reason: Schema.Literals(["step_budget", "invalid"]),
  detail: Schema.String,
  /** The refused plan (empty when it was not a plan at all). */
  plan: Plan
})

/** The session ended. @since 0.1.0 */
export const SessionFinished: Schema.Struct<{
  readonly type: Schema.Literal<"session.finished">
  readonly status: Schema.Literals<readonly ["completed", "failed"]>
  readonly reason: Schema.String
  readonly session_id: Schema.String
}> = Schema.Struct({
  type: Schema.Literal("session.finished"),
  status: Schema.Literals(["completed", "failed"]),
  reason: Schema.String,
  /** The session's id: give it again, with the same journal, to resume the session. */
  session_id: Schema.String
})

/**
 * A planner's model call settled against the session's spend: what it spent (`reported: false`:
 * no usage came back, its whole reservation was spent) and the session's total after it.
 *
 * @since 0.2.0
 */
export const SpendSettled: Schema.Struct<{
  readonly type: Schema.Literal<"spend.settled">
  readonly revision: Schema.Int
  readonly reported: Schema.Boolean
  readonly spent: typeof Spending.Amount
  readonly total: typeof Spending.Amount
}> = Schema.Struct({
  type: Schema.Literal("spend.settled"),
  /** The revision the planner was asked for (0: the first plan). */
  revision: Schema.Int,
  reported: Schema.Boolean,
  spent: Spending.Amount,
  total: Spending.Amount
})

/**
 * A planner's model call refused before it was made: its worst case did not fit the session's
 * spend (the session then ends with `reason`).
 *
 * @since 0.2.0
 */
export const SpendRefused: Schema.Struct<{
  readonly type: Schema.Literal<"spend.refused">
  readonly revision: Schema.Int
  readonly reason: Schema.Literals<readonly ["token_budget", "cost_budget"]>
  readonly kind: Schema.Literals<readonly ["input_tokens", "output_tokens", "total_tokens", "cost"]>
  readonly limit: Schema.Finite
  readonly committed: Schema.Finite
  readonly requested: Schema.Finite
}> = Schema.Struct({
  type: Schema.Literal("spend.refused"),
  /** The revision the planner was asked for (0: the first plan). */
  revision: Schema.Int,
  reason: Spending.Refused.fields.reason,
  kind: Spending.Refused.fields.kind,
  limit: Schema.Finite,
  committed: Schema.Finite,
  requested: Schema.Finite
})

/**
 * Any event.
 *
 * @since 0.1.0
 */
export const Event: Schema.Union<
  readonly [
    typeof PlanCreated,
    typeof StepStarted,
    typeof StepSucceeded,
    typeof StepFailed,
    typeof StepCached,
    typeof PlanDiffed,
    typeof PlanRejected,
    typeof SpendSettled,
    typeof SpendRefused,
    typeof SessionFinished
  ]
> = Schema.Union([
  PlanCreated,
  StepStarted,
  StepSucceeded,
  StepFailed,
  StepCached,
  PlanDiffed,
  PlanRejected,
  SpendSettled,
  SpendRefused,
  SessionFinished
])

/** Any event. @since 0.1.0 */
export type Event = typeof Event.Type
