/**
 * Context compaction that never breaks a call's pairing: token estimates, strategies that
 * elide old tool results, drop the oldest turns or summarize them (composed with `chain`), and
 * `compact`, which applies one once near the model's window and refuses a history that still
 * does not fit.
 *
 * @since 0.1.0
 */

/** Token estimates of messages (the documented approximation) and their calibration by reported usage. @since 0.1.0 */
export * as Estimate from "./Estimate.ts"
/** Compaction strategies (elide tool results, drop the oldest turns, summarize), `chain` and the default. @since 0.1.0 */
export * as Strategy from "./Strategy.ts"
/** `compact` near a window (`CannotCompact` when it cannot fit) and `pairingProblem`, the protocol check. @since 0.1.0 */
export * as Compaction from "./Compaction.ts"
/** Compaction in the loop: the `compact` hook for `Loop.Options`, and its trace events (`context.compacted`, `context.refused`). @since 0.1.0 */
export * as Compactor from "./Compactor.ts"
/** A summarizer for `Strategy.summarize` that asks a model, its call reserved from and settled against the run's spend. @since 0.1.0 */
export * as Summarizer from "./Summarizer.ts"
