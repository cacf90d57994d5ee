/**
 * Real models for the loop and the planner through the Vercel AI SDK's providers (Anthropic,
 * OpenAI, any OpenAI-compatible server, …): one request per turn, every call validated and run
 * by our executor, a lossless history (reasoning and provider metadata included),
 * provider-safe tool names, bounded model-request retries and typed provider failures. The
 * loopback fake provider for tests is in `@agent-harness/ai-sdk/testing`.
 *
 * @since 0.1.0
 */

/** Any AI SDK `LanguageModelV4` as the loop's `Model`: one request per turn, lossless history, bounded retries, typed failures. @since 0.1.0 */
export * as AiSdkModel from "./AiSdkModel.ts"
/** One pause shared by many models: a 429, 503 or 529 of any request holds every request given the same `Backoff`. @since 0.1.0 */
export * as Backoff from "./Backoff.ts"
/** Any AI SDK `LanguageModelV4` as an effect/ai `LanguageModel`, for your own `generateText` calls (and, through `LanguageModelAdapter`, the loop). @since 0.1.0 */
export * as EffectAiModel from "./EffectAiModel.ts"
/** Any effect/ai `LanguageModel` as the executor's `Model`, for the loop and the planner; our executor validates and runs every call. @since 0.1.0 */
export * as LanguageModelAdapter from "./LanguageModelAdapter.ts"
/** Why a model request failed, typed: `MissingApiKey`, `RequestRejected`, `ProviderUnavailable`, `ProviderTimeout`, `ProviderFailure`. @since 0.1.0 */
export * as ProviderError from "./ProviderError.ts"
/** The loop's history as an AI SDK prompt and a provider's reply as the loop's blocks, losing nothing the next request needs. @since 0.1.0 */
export * as ProviderPrompt from "./ProviderPrompt.ts"
/** A tool's JSON Schema as each provider accepts it (Anthropic, OpenAI Chat, Responses, strict mode), and what was relaxed. @since 0.1.0 */
export * as ProviderSchema from "./ProviderSchema.ts"
/** Retries of model requests (never of tool calls): which failures, what backoff, bounded by attempts and time; the request timeout. @since 0.1.0 */
export * as Retry from "./Retry.ts"
/** A toolset as a provider sees it: each tool under its provider-safe alias, calls mapped back to the real name. @since 0.1.0 */
export * as ToolAliases from "./ToolAliases.ts"
