/**
 * Why the loop stopped, the one closed list every layer decodes through: the loop's result,
 * the trace's `stop` event, the durable engine's record of a conversation, the scenario's
 * expected outcome and the test invariants.
 *
 * @since 0.1.0
 */
import { Budget, Spend } from "@agent-harness/budgets"
import { Schema } from "effect"

/**
 * Why the loop stopped: a reply without tool calls (`end`), the turn budget spent
 * (`turn_cap`), the wall-clock budget spent before a model call (`time_budget`), or a
 * repeated-call breaker set to `stop` that tripped during the last turn (`repeated_call`),
 * or the run stopped on request (`interrupted`: the loop's `interrupt` option, Ctrl-C in
 * `harness agent`, the run's fiber interrupted). The budgets' two words are `Budget.reasons`'s, so the loop and the budgets agree.
 *
 * @since 0.1.0
 */
export const StopReason: Schema.Literals<
  readonly [
    "end",
    "turn_cap",
    "time_budget",
    "token_budget",
    "cost_budget",
    "context_window",
    "repeated_call",
    "interrupted"
  ]
> = Schema.Literals([
  "end",
  Budget.reasons.turns,
  Budget.reasons.time,
  Spend.reasons.total_tokens,
  Spend.reasons.cost,
  "context_window",
  "repeated_call",
  "interrupted"
])

/** Why the loop stopped: `end`, `turn_cap`, `time_budget`, `repeated_call` or `interrupted`. @since 0.1.0 */
export type StopReason = typeof StopReason.Type

/**
 * Whether a value is one of the stop reasons.
 *
 * @since 0.1.0
 */
export const is: (u: unknown) => u is StopReason = Schema.is(StopReason)
