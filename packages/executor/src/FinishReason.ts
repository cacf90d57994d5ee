/**
 * Why a model's reply ended, the one closed list the model boundary, the adapters, the trace
 * and the durable engine's recorded replies decode through.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * Why a reply ended, in the AI SDK's unified words: `stop` (the model finished), `tool-calls`,
 * `length` (cut off by the token limit), `content-filter`, `error`, `interrupted` (the
 * provider's stream ended without a finish), `other`.
 *
 * @since 0.1.0
 */
export const FinishReason: Schema.Literals<
  readonly ["stop", "length", "content-filter", "tool-calls", "error", "interrupted", "other"]
> = Schema.Literals(["stop", "length", "content-filter", "tool-calls", "error", "interrupted", "other"])

/** Why a reply ended (`stop`, `length`, `content-filter`, `tool-calls`, `error`, `interrupted`, `other`). @since 0.1.0 */
export type FinishReason = typeof FinishReason.Type

/**
 * The finish reasons of an incomplete reply: cut off by the token limit (`length`), ended by a
 * provider `error`, stopped by a `content-filter`, or `interrupted`.
 *
 * @since 0.1.0
 */
export const Incomplete: Schema.Literals<readonly ["length", "error", "content-filter", "interrupted"]> =
  FinishReason.pick(["length", "error", "content-filter", "interrupted"])

/** The finish reasons of an incomplete reply. @since 0.1.0 */
export type Incomplete = typeof Incomplete.Type

/**
 * Whether a value is one of the finish reasons.
 *
 * @since 0.1.0
 */
export const is: (u: unknown) => u is FinishReason = Schema.is(FinishReason)
