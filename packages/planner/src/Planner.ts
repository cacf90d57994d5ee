/**
 * The planner interface: `(goal, history, lastError) → plan`. A planner is pure: it
 * knows nothing of the executor, retries or timeouts; it reads what happened and proposes the
 * next plan from the cursor. An empty plan means it has nothing to offer.
 *
 * @since 0.1.0
 */
import type { SpendMeter } from "@agent-harness/budgets"
import { type Cause, type Effect, Schema } from "effect"
import type { Plan, Step } from "./Step.ts"

/**
 * What a planner is asked.
 *
 * @since 0.1.0
 */
export interface Request {
  /** What the plan is for. */
  readonly goal: string
  /** Every executed step so far, with its result or error. */
  readonly history: ReadonlyArray<Step>
  /** `null` on the first call; the most recent failure after that. */
  readonly lastError: string | null
  /**
   * The session's spend, when it has one: a planner that calls a model reserves the call's worst
   * case from it first and settles it after (`ModelPlanner` does), and fails with
   * `Spend.Exhausted` when it does not fit, which ends the session (`token_budget`,
   * `cost_budget`).
   */
  readonly spend?: SpendMeter.SpendMeter | undefined
}

const InvalidPlanBase: Schema.Class<
  InvalidPlan,
  Schema.TaggedStruct<"InvalidPlan", { readonly reason: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<InvalidPlan>()("InvalidPlan", { reason: Schema.String })

/**
 * The planner produced something that is not a valid plan: a replannable failure carrying the
 * reason, which becomes the next `lastError`.
 *
 * @since 0.1.0
 */
export class InvalidPlan extends InvalidPlanBase {
  /** `invalid plan: <reason>`. */
  override get message(): string {
    return `invalid plan: ${this.reason}`
  }
}

/**
 * A planner. `E` are failures that are not about the plan (a provider error): they end the
 * session's Effect, like a model failure ends the loop's.
 *
 * @since 0.1.0
 */
export type Planner<E = never, R = never> = (request: Request) => Effect.Effect<Plan, InvalidPlan | E, R>
