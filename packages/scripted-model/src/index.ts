/**
 * The scripted model: replays a conversation and asserts what the model is shown.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Divergence from "./Divergence.ts"
/** @since 0.1.0 */
export * as Script from "./Script.ts"
/** @since 0.1.0 */
export * as ScriptedModel from "./ScriptedModel.ts"
