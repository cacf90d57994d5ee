/**
 * Real models for the loop and the planner through the Vercel AI SDK's providers (Anthropic,
 * OpenAI, any OpenAI-compatible server, …): one request per turn, every call validated and run
 * by our executor, a lossless history (reasoning and provider metadata included),
 * provider-safe tool names, bounded model-request retries and typed provider failures. The
 * loopback fake provider for tests is in `@agent-harness/ai-sdk/testing`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AiSdkModel from "./AiSdkModel.ts"
/** @since 0.1.0 */
export * as EffectAiModel from "./EffectAiModel.ts"
/** @since 0.1.0 */
export * as ProviderError from "./ProviderError.ts"
/** @since 0.1.0 */
export * as ProviderPrompt from "./ProviderPrompt.ts"
/** @since 0.1.0 */
export * as Retry from "./Retry.ts"
/** @since 0.1.0 */
export * as ToolAliases from "./ToolAliases.ts"
