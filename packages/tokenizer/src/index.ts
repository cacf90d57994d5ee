/**
 * Token counts from a provider's own tokenizer where one is maintained: OpenAI's `o200k_base`
 * and `cl100k_base` encodings, loaded when first used, as an estimator for
 * @agent-harness/compaction's `Compactor`. Anthropic publishes no tokenizer for its current
 * models: their estimate stays the documented approximation.
 *
 * @since 0.1.0
 */

/** OpenAI's encodings as a compaction `Estimator`: `encodingFor(model)`, `estimator(model)`, `forEncoding`. @since 0.1.0 */
export * as Tokenizer from "./Tokenizer.ts"
