/**
 * The shipped price table: the common Anthropic and OpenAI models, each with the date its
 * price was read and the provider's page it was read from, and `find`, which looks a model up
 * (overrides first, then the table; a dated id falls back to its undated one).
 *
 * Prices change: check `checked` and `source`, and override what is out of date (`find`'s
 * `overrides`, or `--price` on the command line).
 *
 * @since 0.1.0
 */
import type * as Price from "./Price.ts"

/**
 * One model's price, with where and when it was read.
 *
 * @since 0.1.0
 */
export interface Entry {
  /** Who serves the model. */
  readonly provider: "anthropic" | "openai"
  /** The provider's model id, undated (`claude-sonnet-4-5`, `gpt-5-mini`). */
  readonly model: string
  /** Its price in USD per million tokens. */
  readonly price: Price.Price
  /** The day the price was read from `source` (`YYYY-MM-DD`). */
  readonly checked: string
  /** The provider's page the price was read from. */
  readonly source: string
}

/** The day this table was read. */
const day = "2026-12-02"

const anthropicPricing = "https://platform.claude.com/docs/en/about-claude/pricing"
const anthropicPricingOlder = "https://platform.claude.com/docs/en/docs/about-claude/pricing"

const anthropic = (
  model: string,
  source: string,
  input: number,
  cacheWrite: number,
  cachedInput: number,
  output: number
): Entry => ({
  provider: "anthropic",
  model,
  // Anthropic bills thinking as output tokens, so `reasoning` is left to default to `output`.
  // `cacheWrite` is the 5-minute cache write (1.25 × input); a 1-hour write costs 2 × input:
  // override `cacheWrite` when a session writes with the 1-hour lifetime.
  price: { input, output, cachedInput, cacheWrite },
  checked: day,
  source
})

const openai = (
  model: string,
  source: string,
  input: number,
  cachedInput: number | undefined,
  output: number
): Entry => ({
  provider: "openai",
  model,
  // OpenAI bills reasoning tokens as output tokens, so `reasoning` is left to default to `output`.
  // Where the page read gave no cached-input rate, cache reads are charged at `input` (never less
  // than the provider charges).
  price: cachedInput === undefined ? { input, output } : { input, output, cachedInput },
  checked: day,
  source
})

/**
 * The shipped prices (USD per million tokens), read on the providers' own pages on 2026-12-02.
 *
 * Left out, because no page of the provider's with their full price was found in the stored
 * copies read: Claude Fable 5.2 and Claude Mythos 5.2 (third-party notes give $8 / $40 with a
 * $0.20 cache read), OpenAI's gpt-5, the gpt-4.1 family, gpt-4o, gpt-4o-mini, o3 and o4-mini.
 * Claude Haiku 5.5 is left out too: it is priced in two bands by prompt length (more than five
 * times dearer above 100,000 prompt tokens), which one `Price` cannot express without
 * under-reserving long prompts. Deprecated models (Claude Sonnet 3.7, Claude Opus 3) are left
 * out. Add any of them with `find`'s `overrides` or `--price`.
 *
 * @since 0.1.0
 */
export const table: ReadonlyArray<Entry> = [
  // Anthropic: the pricing page's model table (base input, 5m cache writes, cache hits, output).
  anthropic("claude-fable-5-1", anthropicPricing, 10, 12.5, 0.25, 50),
  anthropic("claude-mythos-5-1", anthropicPricing, 10, 12.5, 0.25, 50),
  anthropic("claude-fable-5", anthropicPricing, 10, 12.5, 1, 50),
  anthropic("claude-mythos-5", anthropicPricing, 10, 12.5, 1, 50),
  anthropic("claude-opus-5", anthropicPricing, 5, 6.25, 0.5, 25),
  anthropic("claude-opus-4-8", anthropicPricing, 5, 6.25, 0.5, 25),
  anthropic("claude-opus-4-7", anthropicPricing, 5, 6.25, 0.5, 25),
  anthropic("claude-opus-4-6", anthropicPricing, 5, 6.25, 0.5, 25),
  anthropic("claude-opus-4-5", anthropicPricing, 5, 6.25, 0.5, 25),
  anthropic("claude-opus-4-1", anthropicPricing, 15, 18.75, 1.5, 75),
  // The rows below were read on the pricing page's earlier address (its Sonnet and Haiku rows).
  anthropic("claude-opus-4", anthropicPricingOlder, 15, 18.75, 1.5, 75),
  anthropic("claude-sonnet-4-6", anthropicPricingOlder, 3, 3.75, 0.3, 15),
  anthropic("claude-sonnet-4-5", anthropicPricingOlder, 3, 3.75, 0.3, 15),
  anthropic("claude-sonnet-4", anthropicPricingOlder, 3, 3.75, 0.3, 15),
  anthropic("claude-haiku-4-5", anthropicPricingOlder, 1, 1.25, 0.1, 5),
  anthropic("claude-3-5-haiku", anthropicPricingOlder, 0.8, 1, 0.08, 4),
  anthropic("claude-3-haiku", anthropicPricingOlder, 0.25, 0.3, 0.03, 1.25),
  // Anthropic: each model's own page (its Pricing section: input, output, 5m cache write, cache read).
  anthropic("claude-opus-5-5", "https://platform.claude.com/docs/zh-CN/models/opus-5-5/overview", 4, 5, 0.2, 20),
  // Third-party notes report a cut of Sonnet 5.5's cache read to $0.10 on 2026-10-07; the
  // provider's page read still says $0.20, which is kept (it over-counts, never under-counts).
  anthropic("claude-sonnet-5-5", "https://platform.claude.com/docs/zh-CN/models/sonnet-5-5/overview", 2, 2.5, 0.2, 10),
  anthropic("claude-sonnet-5", "https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview", 2, 2.5, 0.2, 10),
  // OpenAI: each model's own page (Text tokens: input, cached input, output).
  openai("gpt-5.1", "https://developers.openai.com/zh-Hans/api/docs/models/gpt-5.1", 1.25, 0.125, 10),
  openai("gpt-5-mini", "https://developers.openai.com/ko-KR/api/docs/models/gpt-5-mini", 0.25, 0.025, 2),
  openai("gpt-5-nano", "https://developers.openai.com/api/docs/models/gpt-5-nano.md", 0.05, 0.005, 0.4),
  // OpenAI: the models page (input and output price only; no cached-input rate on it).
  openai("gpt-5.5", "https://developers.openai.com/docs/models", 5, undefined, 30),
  openai("gpt-5.4", "https://developers.openai.com/docs/models", 2.5, undefined, 15),
  openai("gpt-5.4-mini", "https://developers.openai.com/docs/models", 0.75, undefined, 4.5)
]

/** A date at the end of an id: `-20250929` (Anthropic) or `-2024-08-06` (OpenAI). */
const dateSuffix = /-(?:\d{8}|\d{4}-\d{2}-\d{2})$/

const lookup = (entries: Iterable<Entry>, provider: Entry["provider"], model: string): Entry | undefined => {
  for (const entry of entries) if (entry.provider === provider && entry.model === model) return entry
  return undefined
}

/**
 * The entry for `model` of `provider`: the exact id, else the id without its date
 * (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`, `gpt-4o-2024-08-06` → `gpt-4o`);
 * `overrides` are searched before the table, both ways. `undefined` when the model is unknown.
 *
 * @since 0.1.0
 */
export const find = (
  provider: Entry["provider"],
  model: string,
  overrides: ReadonlyArray<Entry> = []
): Entry | undefined => {
  const undated = model.replace(dateSuffix, "")
  const ids = undated === model ? [model] : [model, undated]
  for (const entries of [overrides, table]) {
    for (const id of ids) {
      const found = lookup(entries, provider, id)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * The oldest `checked` date in the table: how old the shipped prices can be (`YYYY-MM-DD`).
 *
 * @since 0.1.0
 */
export const checked: string = table.map((entry) => entry.checked).sort()[0] ?? day
