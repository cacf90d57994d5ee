/**
 * What a model call costs: a price per million tokens of each kind, the cost of the tokens a
 * call used, the most a call can cost before it is made (what a budget reserves), and the
 * `--price` flag's text.
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"
import { dual } from "effect/Function"

/**
 * A model's price in USD per million tokens. A rate left out is charged at the rate it
 * defaults to: cached input and cache writes at `input`, reasoning at `output`.
 *
 * @since 0.1.0
 */
export interface Price {
  /** USD per million input tokens that were neither read from nor written to the prompt cache. */
  readonly input: number
  /** USD per million output tokens (reasoning included unless `reasoning` is given). */
  readonly output: number
  /** USD per million input tokens read from the prompt cache (default: `input`). */
  readonly cachedInput?: number | undefined
  /** USD per million input tokens written to the prompt cache (default: `input`). */
  readonly cacheWrite?: number | undefined
  /** USD per million output tokens spent on reasoning (default: `output`). */
  readonly reasoning?: number | undefined
}

const rate = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * A price as data: every rate a finite number ≥ 0, the optional ones absent or `undefined`.
 *
 * @since 0.1.0
 */
export const Price: Schema.Struct<{
  readonly input: Schema.Finite
  readonly output: Schema.Finite
  readonly cachedInput: Schema.optional<Schema.Finite>
  readonly cacheWrite: Schema.optional<Schema.Finite>
  readonly reasoning: Schema.optional<Schema.Finite>
}> = Schema.Struct({
  input: rate,
  output: rate,
  cachedInput: Schema.optional(rate),
  cacheWrite: Schema.optional(rate),
  reasoning: Schema.optional(rate)
})

/**
 * The tokens one call used, with the keys and meaning of the executor's `Usage` (a count not
 * reported is absent and counts as 0).
 *
 * @since 0.1.0
 */
export interface Counts {
  /** Every input (prompt) token, cached ones included. */
  readonly inputTokens?: number | undefined
  /** Every output token, reasoning included. */
  readonly outputTokens?: number | undefined
  /** The output tokens spent on reasoning. */
  readonly reasoningTokens?: number | undefined
  /** Input tokens read from the provider's prompt cache. */
  readonly cacheReadTokens?: number | undefined
  /** Input tokens written to the provider's prompt cache. */
  readonly cacheWriteTokens?: number | undefined
}

const countKeys = ["inputTokens", "outputTokens", "reasoningTokens", "cacheReadTokens", "cacheWriteTokens"] as const
const rateKeys = ["input", "output", "cachedInput", "cacheWrite", "reasoning"] as const

const checked = (what: string, n: unknown, optional: boolean): number => {
  if (n === undefined && optional) return 0
  if (typeof n !== "number" || !Number.isFinite(n) || n < 0) {
    throw new RangeError(`${what} must be a finite number of at least 0, got ${describe(n)}`)
  }
  return n
}

const describe = (n: unknown): string => {
  if (typeof n === "string") return JSON.stringify(n)
  if (typeof n === "number" || typeof n === "boolean" || n === undefined || n === null) return String(n)
  return typeof n
}

const readCounts = (counts: Counts): Record<(typeof countKeys)[number], number> => {
  const out = { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }
  for (const key of countKeys) out[key] = checked(`the count ${key}`, counts[key], true)
  return out
}

const readPrice = (price: Price): Required<{ [K in keyof Price]: number }> => {
  const out = { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0 }
  for (const key of rateKeys) out[key] = checked(`the price's ${key}`, price[key], key !== "input" && key !== "output")
  return {
    input: out.input,
    output: out.output,
    cachedInput: price.cachedInput === undefined ? out.input : out.cachedInput,
    cacheWrite: price.cacheWrite === undefined ? out.input : out.cacheWrite,
    reasoning: price.reasoning === undefined ? out.output : out.reasoning
  }
}

/**
 * What the tokens of one call cost, in USD: the uncached input (`inputTokens` less cache reads
 * and writes, never below 0) at `input`, cache reads at `cachedInput`, cache writes at
 * `cacheWrite`, reasoning tokens at `reasoning` and the rest of the output at `output`. A
 * count not reported is 0; counts that do not add up (more cached tokens than input tokens)
 * are charged in full, never less. A count or rate that is negative, `NaN` or infinite is a
 * programming error and throws a `RangeError` naming it.
 *
 * @since 0.1.0
 */
export const cost: {
  (counts: Counts): (self: Price) => number
  (self: Price, counts: Counts): number
} = dual(2, (self: Price, counts: Counts): number => {
  const p = readPrice(self)
  const c = readCounts(counts)
  const uncached = Math.max(0, c.inputTokens - c.cacheReadTokens - c.cacheWriteTokens)
  const plainOutput = Math.max(0, c.outputTokens - c.reasoningTokens)
  const usd =
    uncached * p.input +
    c.cacheReadTokens * p.cachedInput +
    c.cacheWriteTokens * p.cacheWrite +
    c.reasoningTokens * p.reasoning +
    plainOutput * p.output
  return usd / 1_000_000
})

/**
 * Floating-point sums of the same tokens may round differently from one product; `worstCase`
 * is raised by this relative margin (far above the rounding error of `cost`, far below a cent)
 * so that a call's settled `cost` can never exceed what was reserved for it.
 */
const roundingMargin = 1 + 1e-12

/**
 * The most a call with `inputTokens` input tokens and an output cap of `outputTokens` can
 * cost, in USD: every input token at the dearest of `input`, `cachedInput` and `cacheWrite`,
 * every output token at the dearer of `output` and `reasoning` (what a budget reserves before
 * the call). It is never below `cost` of any counts within those bounds. A negative, `NaN` or
 * infinite argument is a programming error and throws a `RangeError` naming it.
 *
 * @since 0.1.0
 */
export const worstCase = (price: Price, inputTokens: number, outputTokens: number): number => {
  const p = readPrice(price)
  const i = checked("inputTokens", inputTokens, false)
  const o = checked("outputTokens", outputTokens, false)
  const usd = i * Math.max(p.input, p.cachedInput, p.cacheWrite) + o * Math.max(p.output, p.reasoning)
  return (usd / 1_000_000) * roundingMargin
}

/** The `--price` keys and the rate each sets. */
const flagKeys = {
  input: "input",
  output: "output",
  cached: "cachedInput",
  "cache-write": "cacheWrite",
  reasoning: "reasoning"
} as const satisfies Record<string, keyof Price>

type FlagKey = keyof typeof flagKeys

const isFlagKey = (key: string): key is FlagKey => Object.hasOwn(flagKeys, key)

const decimal = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/

const known = Object.keys(flagKeys).join(", ")

/**
 * A price read from the `--price` flag's text, `input=3,output=15,cached=0.3,cache-write=3.75,reasoning=15`
 * (USD per million tokens; `input` and `output` required, the others optional), or a message
 * that names the key and what was given: an unknown or repeated key, a value that is not a
 * number, a negative one, a missing `input` or `output`.
 *
 * @since 0.1.0
 */
export const parse = (text: string): Result.Result<Price, string> => {
  const example = "e.g. input=3,output=15,cached=0.3,cache-write=3.75,reasoning=15"
  if (text.trim() === "") return Result.fail(`price: empty; give USD per million tokens as key=value pairs, ${example}`)
  const rates: { -readonly [K in keyof Price]?: number } = {}
  const seen = new Set<FlagKey>()
  for (const part of text.split(",")) {
    const entry = part.trim()
    const eq = entry.indexOf("=")
    if (eq < 0) return Result.fail(`price: "${entry}" is not key=value (${example})`)
    const key = entry.slice(0, eq).trim()
    const value = entry.slice(eq + 1).trim()
    if (!isFlagKey(key)) return Result.fail(`price: unknown key "${key}" in "${entry}" (known keys: ${known})`)
    if (seen.has(key)) return Result.fail(`price: ${key} is given twice (second time "${entry}")`)
    seen.add(key)
    const n = decimal.test(value) ? Number(value) : Number.NaN
    if (!Number.isFinite(n)) {
      return Result.fail(`price: ${key} must be a number of USD per million tokens, got "${value}"`)
    }
    if (n < 0) return Result.fail(`price: ${key} must be at least 0, got "${value}"`)
    rates[flagKeys[key]] = n
  }
  if (rates.input === undefined)
    return Result.fail(`price: input is required (USD per million input tokens), ${example}`)
  if (rates.output === undefined) {
    return Result.fail(`price: output is required (USD per million output tokens), ${example}`)
  }
  const price: { -readonly [K in keyof Price]: Price[K] } = { input: rates.input, output: rates.output }
  if (rates.cachedInput !== undefined) price.cachedInput = rates.cachedInput
  if (rates.cacheWrite !== undefined) price.cacheWrite = rates.cacheWrite
  if (rates.reasoning !== undefined) price.reasoning = rates.reasoning
  return Result.succeed(price)
}
