/**
 * Spending in tokens and money, as a value: limits (input, output and total tokens, cost in
 * USD), what is spent, and what is reserved for calls in flight. Before a model call the caller
 * reserves the call's worst case (its prompt's tokens, counted so that no tokenizer makes more,
 * plus its output cap, at the dearest prices); a reservation that does not fit is refused with
 * a typed `Exhausted` (`token_budget`, `cost_budget`) and nothing is sent. After the call the
 * provider's reported usage settles the reservation (what was reserved and not used is given
 * back); a call whose usage is not known settles at its worst case. So spent plus reserved never
 * exceeds a limit: a run can never spend more than its budget, by construction, as long as every
 * call is reserved first and the provider reports at most what was reserved.
 *
 * @since 0.1.0
 */
import { type Cause, Data, Result } from "effect"
import { dual } from "effect/Function"
import * as Price from "./Price.ts"

/**
 * The limits: any of them, each checked on its own (a missing one is no limit).
 *
 * @since 0.1.0
 */
export interface Limits {
  /** Input (prompt) tokens, every call's summed, cached ones included. */
  readonly inputTokens?: number | undefined
  /** Output tokens, reasoning included. */
  readonly outputTokens?: number | undefined
  /** Input and output tokens together. */
  readonly totalTokens?: number | undefined
  /** Money in USD, priced by `price`. */
  readonly cost?: number | undefined
}

/**
 * An amount of spending: tokens in and out, and its cost in USD (0 without a price).
 *
 * @since 0.1.0
 */
export interface Amount {
  /** Input tokens. */
  readonly inputTokens: number
  /** Output tokens. */
  readonly outputTokens: number
  /** USD. */
  readonly cost: number
}

/**
 * Spending as data: the limits, the price that turns tokens into money, what is spent (settled)
 * and what is reserved for calls not yet settled.
 *
 * @since 0.1.0
 */
export interface Spend {
  /** The limits. */
  readonly limits: Limits
  /** The price of the model's tokens (needed for a `cost` limit; without it cost stays 0). */
  readonly price?: Price.Price | undefined
  /** What settled calls spent. */
  readonly spent: Amount
  /** What calls in flight may still spend at most. */
  readonly reserved: Amount
}

/**
 * Which limit a reservation did not fit.
 *
 * @since 0.1.0
 */
export type Kind = "input_tokens" | "output_tokens" | "total_tokens" | "cost"

/**
 * The stop reason of each kind: `token_budget` for tokens, `cost_budget` for money.
 *
 * @since 0.1.0
 */
export const reasons = {
  input_tokens: "token_budget",
  output_tokens: "token_budget",
  total_tokens: "token_budget",
  cost: "cost_budget"
} as const satisfies Record<Kind, string>

/** The stop reason of an exhausted spend: `token_budget` or `cost_budget`. @since 0.1.0 */
export type Reason = (typeof reasons)[Kind]

const ExhaustedBase: new (args: {
  readonly kind: Kind
  readonly limit: number
  readonly committed: number
  readonly requested: number
}) => Cause.YieldableError & {
  readonly _tag: "SpendExhausted"
  /** Which limit. */
  readonly kind: Kind
  /** The limit. */
  readonly limit: number
  /** Spent and reserved so far, in the limit's unit. */
  readonly committed: number
  /** What the refused reservation asked for, in the limit's unit. */
  readonly requested: number
} = Data.TaggedError("SpendExhausted")

/**
 * A reservation that does not fit a limit: the call is not made and the run stops with
 * `reason`. Its fields say which limit, the limit, what is spent and reserved, and what was asked.
 *
 * @since 0.1.0
 */
export class Exhausted extends ExhaustedBase {
  /** `token_budget` or `cost_budget`. */
  get reason(): Reason {
    return reasons[this.kind]
  }
  /** `token_budget: 190,112 of 200,000 total tokens spent or reserved, the next call needs up to 14,200 more`. */
  override get message(): string {
    const show = (n: number) => (this.kind === "cost" ? `$${n.toFixed(4)}` : `${Math.ceil(n).toLocaleString("en-US")}`)
    const unit = this.kind === "cost" ? "" : ` ${this.kind.replace("_", " ")}`
    return `${this.reason}: ${show(this.committed)} of ${show(this.limit)}${unit} spent or reserved, the next call needs up to ${show(this.requested)} more`
  }
}

/**
 * A reservation: what a call may spend at most, given back by `settle`.
 *
 * @since 0.1.0
 */
export interface Reservation {
  /** The worst case reserved. */
  readonly amount: Amount
}

/** Nothing spent. @since 0.1.0 */
export const zero: Amount = { inputTokens: 0, outputTokens: 0, cost: 0 }

const checkLimit = (name: string, value: number | undefined, whole: boolean): void => {
  if (value === undefined) return
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (whole && !Number.isSafeInteger(value))) {
    throw new RangeError(
      `Spend.make: limit '${name}' must be ${whole ? "a whole number" : "a finite number"} of at least 0, got ${String(value)}`
    )
  }
}

/**
 * Fresh spending under `limits`, priced by `price`, continuing from `spent` (what a resumed
 * session already spent). A limit that is not a number ≥ 0 (tokens: whole), or a `cost` limit
 * without a price, is a programming error and throws a `RangeError` naming it.
 *
 * @since 0.1.0
 */
export const make = (
  limits: Limits,
  options?: { readonly price?: Price.Price | undefined; readonly spent?: Amount | undefined }
): Spend => {
  checkLimit("inputTokens", limits.inputTokens, true)
  checkLimit("outputTokens", limits.outputTokens, true)
  checkLimit("totalTokens", limits.totalTokens, true)
  checkLimit("cost", limits.cost, false)
  if (limits.cost !== undefined && options?.price === undefined) {
    throw new RangeError("Spend.make: a 'cost' limit needs a price (Prices.find, or your own Price)")
  }
  return {
    limits,
    ...(options?.price === undefined ? {} : { price: options.price }),
    spent: options?.spent ?? zero,
    reserved: zero
  }
}

const add = (a: Amount, b: Amount): Amount => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cost: a.cost + b.cost
})

const minus = (a: Amount, b: Amount): Amount => ({
  inputTokens: Math.max(0, a.inputTokens - b.inputTokens),
  outputTokens: Math.max(0, a.outputTokens - b.outputTokens),
  cost: Math.max(0, a.cost - b.cost)
})

/** What is spent and reserved together. @since 0.1.0 */
export const committed = (self: Spend): Amount => add(self.spent, self.reserved)

/**
 * The worst case of a call with `inputTokens` of prompt and an output cap of `outputTokens`:
 * those tokens, and their cost at the dearest of the price's rates (`Price.worstCase`).
 *
 * @since 0.1.0
 */
export const worstCase = (self: Spend, inputTokens: number, outputTokens: number): Amount => ({
  inputTokens,
  outputTokens,
  cost: self.price === undefined ? 0 : Price.worstCase(self.price, inputTokens, outputTokens)
})

/** The first limit `amount` more would break, with what it would be. */
const broken = (self: Spend, amount: Amount): Exhausted | undefined => {
  const now = committed(self)
  const checks: ReadonlyArray<readonly [Kind, number | undefined, number, number]> = [
    ["input_tokens", self.limits.inputTokens, now.inputTokens, amount.inputTokens],
    ["output_tokens", self.limits.outputTokens, now.outputTokens, amount.outputTokens],
    [
      "total_tokens",
      self.limits.totalTokens,
      now.inputTokens + now.outputTokens,
      amount.inputTokens + amount.outputTokens
    ],
    ["cost", self.limits.cost, now.cost, amount.cost]
  ]
  for (const [kind, limit, used, requested] of checks) {
    if (limit !== undefined && used + requested > limit)
      return new Exhausted({ kind, limit, committed: used, requested })
  }
  return undefined
}

/**
 * Reserves `amount` (a call's worst case): the spending with it reserved and the reservation,
 * or `Exhausted` naming the first limit it does not fit (then nothing is reserved).
 *
 * @since 0.1.0
 */
export const reserve: {
  (amount: Amount): (self: Spend) => Result.Result<readonly [Spend, Reservation], Exhausted>
  (self: Spend, amount: Amount): Result.Result<readonly [Spend, Reservation], Exhausted>
} = dual(2, (self: Spend, amount: Amount): Result.Result<readonly [Spend, Reservation], Exhausted> => {
  const refused = broken(self, amount)
  if (refused !== undefined) return Result.fail(refused)
  return Result.succeed([{ ...self, reserved: add(self.reserved, amount) }, { amount }] as const)
})

/**
 * The cost and tokens of a call's reported usage, priced by the spending's price.
 *
 * @since 0.1.0
 */
export const amountOf = (self: Spend, counts: Price.Counts): Amount => ({
  inputTokens: counts.inputTokens ?? 0,
  outputTokens: counts.outputTokens ?? 0,
  cost: self.price === undefined ? 0 : Price.cost(self.price, counts)
})

/**
 * Settles a reservation: the reservation given back and the call's reported usage spent; a
 * call whose usage is unknown (`undefined`: not reported, or the call failed) spends its whole
 * reservation. What a provider reports beyond the reservation is spent too (the limit was
 * honoured when the call was made; `overrun` says by how much the report passed it).
 *
 * @since 0.1.0
 */
export const settle: {
  (reservation: Reservation, usage: Price.Counts | undefined): (self: Spend) => Spend
  (self: Spend, reservation: Reservation, usage: Price.Counts | undefined): Spend
} = dual(
  3,
  (self: Spend, reservation: Reservation, usage: Price.Counts | undefined): Spend => ({
    ...self,
    reserved: minus(self.reserved, reservation.amount),
    spent: add(self.spent, usage === undefined ? reservation.amount : amountOf(self, usage))
  })
)

/**
 * How far a call's reported usage went past its reservation (all zero when it did not): a
 * provider that bills more than the prompt's bound and the output cap allow.
 *
 * @since 0.1.0
 */
export const overrun = (self: Spend, reservation: Reservation, usage: Price.Counts): Amount =>
  minus(amountOf(self, usage), reservation.amount)

/**
 * Whether any limit is set.
 *
 * @since 0.1.0
 */
export const isLimited = (self: Spend): boolean =>
  self.limits.inputTokens !== undefined ||
  self.limits.outputTokens !== undefined ||
  self.limits.totalTokens !== undefined ||
  self.limits.cost !== undefined
