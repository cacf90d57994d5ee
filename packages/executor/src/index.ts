/**
 * The errors-as-observations executor and the loop of seed 000.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Breaker from "./Breaker.ts"
/** @since 0.1.0 */
export * as Execute from "./Execute.ts"
/** @since 0.1.0 */
export * as LanguageModelAdapter from "./LanguageModelAdapter.ts"
/** @since 0.1.0 */
export * as Loop from "./Loop.ts"
/** @since 0.1.0 */
export * as Message from "./Message.ts"
/** @since 0.1.0 */
export * as Model from "./Model.ts"
/** @since 0.1.0 */
export * as Outcome from "./Outcome.ts"
/** @since 0.1.0 */
export * as Trace from "./Trace.ts"
