/**
 * Spending a budget inside Effect: a meter holds a budget in a `Ref` so that concurrent fibers
 * (a parallel group of steps) spend it atomically.
 *
 * @since 0.1.0
 */
import { Effect, Ref, Result } from "effect"
import * as Budget from "./Budget.ts"

/**
 * A budget being spent.
 *
 * @since 0.1.0
 */
export interface Meter {
  /** The budget now. */
  readonly current: Effect.Effect<Budget.Budget>
  /** Spends `amount` (default 1) or fails with `Exhausted`, spending nothing. */
  readonly spend: (amount?: number) => Effect.Effect<void, Budget.Exhausted>
  /** Whether `amount` more fits. */
  readonly canSpend: (amount: number) => Effect.Effect<boolean>
  /** What is left. */
  readonly remaining: Effect.Effect<number>
}

/**
 * A meter over a budget.
 *
 * @since 0.1.0
 */
export const make = (budget: Budget.Budget): Effect.Effect<Meter> =>
  Effect.map(Ref.make(budget), (ref) => ({
    current: Ref.get(ref),
    spend: (amount = 1) =>
      Effect.flatMap(
        Ref.modify(ref, (b): readonly [Result.Result<Budget.Budget, Budget.Exhausted>, Budget.Budget] => {
          const next = Budget.spend(b, amount)
          return [next, Result.isSuccess(next) ? next.success : b]
        }),
        (next) => (Result.isSuccess(next) ? Effect.void : Effect.fail(next.failure))
      ),
    canSpend: (amount) => Effect.map(Ref.get(ref), Budget.canSpend(amount)),
    remaining: Effect.map(Ref.get(ref), Budget.remaining)
  }))
