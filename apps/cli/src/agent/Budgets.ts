/**
 * `harness agent --token-budget N --cost-budget USD [--price …] [--max-output-tokens N]`: the
 * run's spend (`Spend` of @agent-harness/budgets) from the flags, its price from `--price` or
 * the shipped table (`Prices`, read on the day it says), and the line that says what was spent.
 *
 * @since 0.2.0
 */
import { Price, Prices, Spend } from "@agent-harness/budgets"
import { Result } from "effect"
import type * as Providers from "./Providers.ts"

/**
 * What the flags make of a run's spending: the spend the loop reserves from, the per-reply
 * output cap (sent to the provider and counted in each call's worst case), and the price.
 *
 * @since 0.2.0
 */
export interface Spending {
  /** The limits and the price, nothing spent yet. */
  readonly spend: Spend.Spend
  /** The per-reply output cap. */
  readonly maxOutputTokens: number
  /** Where the price came from: `--price`, the table (with its day), or none. */
  readonly priced: string
}

/** The per-reply output cap under a budget when `--max-output-tokens` is not given. @since 0.2.0 */
export const defaultMaxOutputTokens = 8192

/**
 * The flags that make a run's spending.
 *
 * @since 0.2.0
 */
export interface Flags {
  /** `--token-budget`. */
  readonly tokenBudget?: number | undefined
  /** `--cost-budget`. */
  readonly costBudget?: number | undefined
  /** `--price`. */
  readonly price?: string | undefined
  /** `--max-output-tokens`. */
  readonly maxOutputTokens?: number | undefined
}

/** The table's provider of a `--model` provider. */
const tableProvider = (provider: Providers.Provider): Prices.Entry["provider"] =>
  provider === "anthropic" ? "anthropic" : "openai"

/**
 * A model's price and where it came from.
 *
 * @since 0.2.0
 */
export interface Priced {
  /** The price, or none when `--price` is not given and the table has no entry for the model. */
  readonly price: Price.Price | undefined
  /** Where it came from: `--price`, the table (with its day), or `no price`. */
  readonly priced: string
}

/**
 * The price of a model: `--price` when given (or what is wrong with it, naming the flag), else
 * the shipped table's entry for the model (`Prices.find`), else none. What `harness agent` and
 * `harness test --trials` both price with.
 *
 * @since 0.2.0
 */
export const priceOf = (
  priceText: string | undefined,
  resolved: Pick<Providers.Resolved, "provider" | "model">
): Result.Result<Priced, string> => {
  if (priceText !== undefined) {
    const parsed = Price.parse(priceText)
    if (Result.isFailure(parsed)) return Result.fail(`--price ${JSON.stringify(priceText)}: ${parsed.failure}`)
    return Result.succeed({ price: parsed.success, priced: "--price" })
  }
  const entry = Prices.find(tableProvider(resolved.provider), resolved.model)
  return Result.succeed(
    entry === undefined
      ? { price: undefined, priced: "no price" }
      : { price: entry.price, priced: `the price table (${entry.model}, read ${entry.checked} from ${entry.source})` }
  )
}

/**
 * The run's spending from the flags: none when no flag of them is given; otherwise the spend,
 * or what is wrong, naming the flag (a budget that is not a number above 0, a `--price` that
 * does not read, a `--cost-budget` for a model without a known price).
 *
 * @since 0.2.0
 */
export const spendingOf = (flags: Flags, resolved: Providers.Resolved): Result.Result<Spending | undefined, string> => {
  const { tokenBudget, costBudget, price: priceText, maxOutputTokens } = flags
  if (
    tokenBudget === undefined &&
    costBudget === undefined &&
    priceText === undefined &&
    maxOutputTokens === undefined
  ) {
    return Result.succeed(undefined)
  }
  if (tokenBudget !== undefined && (!Number.isSafeInteger(tokenBudget) || tokenBudget < 1)) {
    return Result.fail(`--token-budget ${tokenBudget}: expected a whole number of tokens of at least 1`)
  }
  if (costBudget !== undefined && (!Number.isFinite(costBudget) || costBudget <= 0)) {
    return Result.fail(`--cost-budget ${costBudget}: expected an amount in USD above 0 (0.50)`)
  }
  const cap = maxOutputTokens ?? defaultMaxOutputTokens
  if (!Number.isSafeInteger(cap) || cap < 1) {
    return Result.fail(`--max-output-tokens ${cap}: expected a whole number of at least 1`)
  }
  const found = priceOf(priceText, resolved)
  if (Result.isFailure(found)) return Result.fail(found.failure)
  const { price, priced } = found.success
  if (costBudget !== undefined && price === undefined) {
    return Result.fail(
      `--cost-budget needs a price: none is known for ${resolved.provider}:${resolved.model} (the shipped table was read ${Prices.checked}); give --price input=USD,output=USD (per million tokens)`
    )
  }
  const spend = Spend.make(
    {
      ...(tokenBudget === undefined ? {} : { totalTokens: tokenBudget }),
      ...(costBudget === undefined ? {} : { cost: costBudget })
    },
    price === undefined ? undefined : { price }
  )
  return Result.succeed({ spend, maxOutputTokens: cap, priced })
}

/**
 * What a run spent, in one line: `spent: 12,345 tokens in, 678 out, $0.0472 (budget: 200,000
 * tokens, $0.50)`.
 *
 * @since 0.2.0
 */
export const spentLine = (spend: Spend.Spend): string => {
  const { inputTokens, outputTokens, cost } = spend.spent
  const n = (x: number) => Math.round(x).toLocaleString("en-US")
  const money = spend.price === undefined ? "" : `, $${cost.toFixed(4)}`
  const limits = [
    ...(spend.limits.totalTokens === undefined ? [] : [`${n(spend.limits.totalTokens)} tokens`]),
    ...(spend.limits.cost === undefined ? [] : [`$${spend.limits.cost.toFixed(2)}`])
  ]
  return `spent: ${n(inputTokens)} tokens in, ${n(outputTokens)} out${money}${limits.length === 0 ? "" : ` (budget: ${limits.join(", ")})`}`
}
