/**
 * A wall-clock budget: started once, checked against effect's `Clock` (so `TestClock` drives it
 * in tests).
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect } from "effect"
import * as Budget from "./Budget.ts"

/**
 * A deadline: the time budget and when it started.
 *
 * @since 0.1.0
 */
export interface Deadline {
  /** The time budget (kind `time`, limit in milliseconds). */
  readonly budget: Budget.Budget
  /** When it started, in milliseconds since the epoch by effect's `Clock`. */
  readonly startedAt: number
}

/**
 * Starts a deadline of `duration` now.
 *
 * @since 0.1.0
 */
export const start = (duration: Duration.Input): Effect.Effect<Deadline> =>
  Effect.map(Clock.currentTimeMillis, (startedAt) => ({
    budget: Budget.time(Math.ceil(Duration.toMillis(Duration.fromInputUnsafe(duration)))),
    startedAt
  }))

/**
 * The time budget with the elapsed milliseconds as used.
 *
 * @since 0.1.0
 */
export const elapsed = (self: Deadline): Effect.Effect<Budget.Budget> =>
  Effect.map(Clock.currentTimeMillis, (now) => ({ ...self.budget, used: Math.max(0, now - self.startedAt) }))

/**
 * Fails with `Exhausted` (kind `time`) once the deadline has passed.
 *
 * @since 0.1.0
 */
export const check = (self: Deadline): Effect.Effect<void, Budget.Exhausted> =>
  Effect.flatMap(elapsed(self), (budget) =>
    Budget.isExhausted(budget) ? Effect.fail(Budget.exhausted(budget, 0)) : Effect.void
  )
