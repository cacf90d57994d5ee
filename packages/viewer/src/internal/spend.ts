/**
 * What a run or a session spent, read from its `spend.settled` and `spend.refused` events: the
 * last settlement's total, and the refusal in words.
 *
 * @internal
 */
import type * as Model from "../Model.ts"

/** What a run spent, as the viewer shows it. */
export type Spend = Model.Conversation["spend"]

const zero = { inputTokens: 0, outputTokens: 0, cost: 0, refused: null }

const finite = (u: unknown): number => (typeof u === "number" && Number.isFinite(u) ? u : 0)

/** A `spend.settled` event's `total` (`input_tokens`, `output_tokens`, `cost`), or what was known before. */
const total = (given: unknown, before: Spend) => {
  if (typeof given !== "object" || given === null) return before ?? zero
  const t = given as { readonly [key: string]: unknown }
  return { inputTokens: finite(t.input_tokens), outputTokens: finite(t.output_tokens), cost: finite(t.cost) }
}

/** A `spend.refused` event in words: `token_budget: total_tokens 20,000; 19,400 spent or reserved, …`. */
const refusedText = (raw: { readonly [key: string]: unknown }): string => {
  const n = (u: unknown) => finite(u).toLocaleString("en-US", { maximumFractionDigits: 4 })
  return `${String(raw.reason)}: ${String(raw.kind)} ${n(raw.limit)}; ${n(raw.committed)} spent or reserved, the next call needed up to ${n(raw.requested)} more`
}

/** The spend after one event: changed by `spend.settled` and `spend.refused`, as it was for any other. */
export const after = (spend: Spend, type: string, raw: { readonly [key: string]: unknown }): Spend =>
  type === "spend.settled"
    ? { ...total(raw.total, spend), refused: spend?.refused ?? null }
    : type === "spend.refused"
      ? { ...(spend ?? zero), refused: refusedText(raw) }
      : spend
