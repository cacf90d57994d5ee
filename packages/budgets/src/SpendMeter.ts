/**
 * A `Spend` shared inside Effect: a spend meter holds one in a `Ref`, so that everything a run
 * or a session pays for (its model calls, a planner's, a summarizer's, a sub-agent's loop) draws
 * from the same limits, atomically, even from concurrent fibers. A reservation that does not
 * fit fails with `Spend.Exhausted` and reserves nothing.
 *
 * @since 0.1.0
 */
import { Effect, Exit, Ref, Result } from "effect"
import type * as Price from "./Price.ts"
import * as Spend from "./Spend.ts"

/**
 * A spend being drawn from.
 *
 * @since 0.1.0
 */
export interface SpendMeter {
  /** Marks a value as a meter (`isSpendMeter`). */
  readonly _tag: "SpendMeter"
  /** The spend now: what settled calls spent and what calls in flight reserved. */
  readonly current: Effect.Effect<Spend.Spend>
  /** Reserves a call's worst case, or fails with `Exhausted` naming the limit it does not fit. */
  readonly reserve: (amount: Spend.Amount) => Effect.Effect<Spend.Reservation, Spend.Exhausted>
  /**
   * Settles a reservation with the call's reported usage (`undefined`: unknown, the whole
   * reservation is spent); gives what the call spent and the total spent after it.
   */
  readonly settle: (
    reservation: Spend.Reservation,
    usage: Price.Counts | undefined
  ) => Effect.Effect<{ readonly spent: Spend.Amount; readonly total: Spend.Amount }>
  /**
   * Counts an amount already spent, with no reservation (a journaled call replayed on resume:
   * it was paid when it ran); gives the total spent after it.
   */
  readonly count: (amount: Spend.Amount) => Effect.Effect<Spend.Amount>
}

const difference = (after: Spend.Amount, before: Spend.Amount): Spend.Amount => ({
  inputTokens: after.inputTokens - before.inputTokens,
  outputTokens: after.outputTokens - before.outputTokens,
  cost: after.cost - before.cost
})

/**
 * A meter over `spend` (as it is: a partly spent one continues where it was).
 *
 * @since 0.1.0
 */
export const make = (spend: Spend.Spend): Effect.Effect<SpendMeter> => Effect.sync(() => makeUnsafe(spend))

/**
 * A meter over `spend`, made outside Effect.
 *
 * @since 0.1.0
 */
export const makeUnsafe = (spend: Spend.Spend): SpendMeter => {
  const ref = Ref.makeUnsafe(spend)
  return {
    _tag: "SpendMeter",
    current: Ref.get(ref),
    reserve: (amount) =>
      Effect.flatMap(
        Ref.modify(ref, (s): readonly [Result.Result<Spend.Reservation, Spend.Exhausted>, Spend.Spend] => {
          const reserved = Spend.reserve(s, amount)
          return Result.isSuccess(reserved)
            ? [Result.succeed(reserved.success[1]), reserved.success[0]]
            : [Result.fail(reserved.failure), s]
        }),
        (reserved) => (Result.isSuccess(reserved) ? Effect.succeed(reserved.success) : Effect.fail(reserved.failure))
      ),
    settle: (reservation, usage) =>
      Ref.modify(ref, (s) => {
        const next = Spend.settle(s, reservation, usage)
        return [{ spent: difference(next.spent, s.spent), total: next.spent }, next] as const
      }),
    count: (amount) =>
      Ref.modify(ref, (s) => {
        const spent = {
          inputTokens: s.spent.inputTokens + Math.max(0, amount.inputTokens),
          outputTokens: s.spent.outputTokens + Math.max(0, amount.outputTokens),
          cost: s.spent.cost + Math.max(0, amount.cost)
        }
        return [spent, { ...s, spent }] as const
      })
  }
}

/**
 * Whether a value is a spend meter (as opposed to a `Spend` value).
 *
 * @since 0.1.0
 */
export const isSpendMeter = (value: unknown): value is SpendMeter =>
  typeof value === "object" && value !== null && (value as { readonly _tag?: unknown })._tag === "SpendMeter"

/**
 * The meter to draw from: `spend` itself when it is a meter (its limits shared), else a new
 * meter over the `Spend` value.
 *
 * @since 0.1.0
 */
export const from = (spend: Spend.Spend | SpendMeter): SpendMeter => (isSpendMeter(spend) ? spend : makeUnsafe(spend))

/**
 * Runs `call` inside a reservation of `worstCase`: refused with `Exhausted` (and not run) when it
 * does not fit; settled after it with `usageOf` its value, or with its whole reservation when it
 * fails or is interrupted (what it spent is not known). `onSettled` sees each settlement.
 *
 * @since 0.1.0
 */
export const metered = <A, E, R>(
  self: SpendMeter,
  worstCase: Spend.Amount,
  call: Effect.Effect<A, E, R>,
  usageOf: (value: A) => Price.Counts | undefined,
  onSettled?: (settled: {
    readonly spent: Spend.Amount
    readonly total: Spend.Amount
    readonly reported: boolean
  }) => Effect.Effect<void>
): Effect.Effect<A, E | Spend.Exhausted, R> =>
  Effect.acquireUseRelease(
    self.reserve(worstCase),
    () => call,
    (reservation, exit) => {
      const usage = Exit.isSuccess(exit) ? usageOf(exit.value) : undefined
      return Effect.flatMap(self.settle(reservation, usage), (settled) =>
        onSettled === undefined ? Effect.void : onSettled({ ...settled, reported: usage !== undefined })
      )
    }
  )
