/**
 * The tokens one model call used: one Schema, camelCase in TypeScript (`Usage`), snake_case on
 * the wire (`Wire`: the trace's `usage.reported` event, `input_tokens`...), converted at the
 * Schema boundary.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * The tokens one model call used, as the provider reported them; a count it did not report is
 * absent.
 *
 * @since 0.1.0
 */
export const Usage: Schema.Struct<{
  readonly inputTokens: Schema.optional<Schema.Finite>
  readonly outputTokens: Schema.optional<Schema.Finite>
  readonly reasoningTokens: Schema.optional<Schema.Finite>
  readonly cacheReadTokens: Schema.optional<Schema.Finite>
  readonly cacheWriteTokens: Schema.optional<Schema.Finite>
}> = Schema.Struct({
  /** Every input (prompt) token, cached ones included. */
  inputTokens: Schema.optional(Schema.Finite),
  /** Every output token, reasoning included. */
  outputTokens: Schema.optional(Schema.Finite),
  /** The output tokens spent on reasoning. */
  reasoningTokens: Schema.optional(Schema.Finite),
  /** Input tokens read from the provider's prompt cache. */
  cacheReadTokens: Schema.optional(Schema.Finite),
  /** Input tokens written to the provider's prompt cache. */
  cacheWriteTokens: Schema.optional(Schema.Finite)
})

/** The tokens one model call used (camelCase; a count not reported is absent). @since 0.1.0 */
export type Usage = typeof Usage.Type

/**
 * The wire name of each count (snake_case, as traces write them).
 *
 * @since 0.1.0
 */
export const wireKeys = {
  inputTokens: "input_tokens",
  outputTokens: "output_tokens",
  reasoningTokens: "reasoning_tokens",
  cacheReadTokens: "cache_read_tokens",
  cacheWriteTokens: "cache_write_tokens"
} as const satisfies Record<keyof Usage, string>

/**
 * `Usage` on the wire: decodes `{ "input_tokens": 12, ... }` into `{ inputTokens: 12, ... }`
 * and encodes back.
 *
 * @since 0.1.0
 */
export const Wire: Schema.encodeKeys<typeof Usage, typeof wireKeys> = Usage.pipe(Schema.encodeKeys(wireKeys))

/** A usage's wire form: `input_tokens`, `output_tokens`... @since 0.1.0 */
export type Wire = typeof Wire.Encoded

/**
 * The counts of a usage in its wire form, the ones not reported left out (no key holds
 * `undefined`, so the result is also valid JSON as it stands).
 *
 * @since 0.1.0
 */
export const toWire = (usage: Usage): Wire => {
  const wire: { -readonly [K in keyof Wire]?: number } = {}
  for (const key of Object.keys(wireKeys) as Array<keyof Usage>) {
    const n = usage[key]
    if (n !== undefined) wire[wireKeys[key]] = n
  }
  return wire
}

/**
 * A usage read from its wire form (e.g. a trace's `usage.reported` event, or an old trace's `model.usage`; other keys are
 * ignored), or the `SchemaError` that names the count that is not a number.
 *
 * @since 0.1.0
 */
export const fromWire: (u: unknown) => Usage = Schema.decodeUnknownSync(Wire)
