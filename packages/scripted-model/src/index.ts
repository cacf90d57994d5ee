/**
 * The scripted model: replays a conversation and asserts what the model is shown.
 *
 * @since 0.1.0
 */

/** How a reply is cut into the parts of its stream: text and arguments in pieces, deterministically. @since 0.2.0 */
export * as Chunking from "./Chunking.ts"
/** The typed ways a run can leave its script, each naming the turn. @since 0.1.0 */
export * as Divergence from "./Divergence.ts"
/** A fake effect/ai `LanguageModel`'s words: a prompt's last tool results, reply blocks as response parts. @since 0.1.0 */
export * as LanguageModelParts from "./LanguageModelParts.ts"
/** Scripts: the opening, the replies, and the observations each turn must be shown. @since 0.1.0 */
export * as Script from "./Script.ts"
/** The script player, as the loop's `Model` or as an effect/ai `LanguageModel`. @since 0.1.0 */
export * as ScriptedModel from "./ScriptedModel.ts"
