/**
 * A budget is a value: what it counts, its limit and how much is used. Spending it gives a new
 * budget or a typed `Exhausted` reason; nothing is mutated, so a budget can be checked, shown
 * and serialized anywhere.
 *
 * @since 0.1.0
 */
import { type Cause, Result, Schema } from "effect"
import { dual } from "effect/Function"

/**
 * What a budget counts: steps executed, replans accepted, model calls, or milliseconds.
 *
 * @since 0.1.0
 */
export const Kind: Schema.Literals<readonly ["steps", "replans", "turns", "time"]> = Schema.Literals([
  "steps",
  "replans",
  "turns",
  "time"
])

/** What a budget counts: `"steps"`, `"replans"`, `"turns"` or `"time"`. @since 0.1.0 */
export type Kind = typeof Kind.Type

/**
 * A budget as data.
 *
 * @since 0.1.0
 */
export const Budget: Schema.Struct<{
  readonly kind: typeof Kind
  readonly limit: Schema.Int
  readonly used: Schema.Int
}> = Schema.Struct({
  kind: Kind,
  limit: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  used: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
})

/** A budget as data: its kind, its limit and how much of it is used. @since 0.1.0 */
export type Budget = typeof Budget.Type

/**
 * The stop reason each kind gives when it runs out (the words of the loop and of plan sessions).
 *
 * @since 0.1.0
 */
export const reasons = {
  steps: "step_budget",
  replans: "replan_budget",
  turns: "turn_cap",
  time: "time_budget"
} as const satisfies Record<Kind, string>

/** A stop reason for an exhausted budget. @since 0.1.0 */
export type Reason = (typeof reasons)[Kind]

const ExhaustedBase: Schema.Class<
  Exhausted,
  Schema.TaggedStruct<
    "BudgetExhausted",
    {
      readonly kind: typeof Kind
      readonly limit: Schema.Int
      readonly used: Schema.Int
      readonly requested: Schema.Int
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<Exhausted>()("BudgetExhausted", {
  kind: Kind,
  limit: Schema.Int,
  used: Schema.Int,
  requested: Schema.Int
})

/**
 * A budget that cannot pay for what was asked: the typed reason a session or loop stops. Its
 * fields say which budget, its limit, how much was used and how much more was requested.
 *
 * @since 0.1.0
 */
export class Exhausted extends ExhaustedBase {
  /** The stop reason (`step_budget`, `replan_budget`, `turn_cap`, `time_budget`). */
  get reason(): Reason {
    return reasons[this.kind]
  }
  /** The stop reason with the numbers: `step_budget: 3 of 3 steps used, 1 more requested`. */
  override get message(): string {
    const unit = this.kind === "time" ? "ms" : this.kind
    return `${this.reason}: ${this.used} of ${this.limit} ${unit} used, ${this.requested} more requested`
  }
}

const check = (kind: Kind, limit: number): number => {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`a ${kind} budget needs a whole number limit of at least 0, got ${limit}`)
  }
  return limit
}

/**
 * A fresh budget. A limit that is not a whole number ≥ 0 is a programming error and throws.
 *
 * @since 0.1.0
 */
export const make = (kind: Kind, limit: number): Budget => ({ kind, limit: check(kind, limit), used: 0 })

/** At most `limit` step executions. @since 0.1.0 */
export const steps = (limit: number): Budget => make("steps", limit)
/** At most `limit` replans. @since 0.1.0 */
export const replans = (limit: number): Budget => make("replans", limit)
/** At most `limit` model calls. @since 0.1.0 */
export const turns = (limit: number): Budget => make("turns", limit)
/** At most `millis` milliseconds of wall-clock time (see `Deadline`). @since 0.1.0 */
export const time = (millis: number): Budget => make("time", millis)

/**
 * What is left.
 *
 * @since 0.1.0
 */
export const remaining = (self: Budget): number => Math.max(0, self.limit - self.used)

/**
 * Whether nothing is left.
 *
 * @since 0.1.0
 */
export const isExhausted = (self: Budget): boolean => self.used >= self.limit

/**
 * Whether `amount` more fits.
 *
 * @since 0.1.0
 */
export const canSpend: {
  (amount: number): (self: Budget) => boolean
  (self: Budget, amount: number): boolean
} = dual(2, (self: Budget, amount: number): boolean => self.used + amount <= self.limit)

/**
 * Spends `amount`: the budget with it used, or `Exhausted` if it does not fit (then nothing is
 * spent).
 *
 * @since 0.1.0
 */
export const spend: {
  (amount: number): (self: Budget) => Result.Result<Budget, Exhausted>
  (self: Budget, amount: number): Result.Result<Budget, Exhausted>
} = dual(
  2,
  (self: Budget, amount: number): Result.Result<Budget, Exhausted> =>
    self.used + amount <= self.limit
      ? Result.succeed({ ...self, used: self.used + amount })
      : Result.fail(exhausted(self, amount))
)

/**
 * The `Exhausted` reason for asking `requested` more of a budget.
 *
 * @since 0.1.0
 */
export const exhausted = (self: Budget, requested: number): Exhausted =>
  new Exhausted({ kind: self.kind, limit: self.limit, used: self.used, requested })
