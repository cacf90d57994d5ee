/**
 * Know what is safe to repeat (seed 000): retry safety from annotations and outcomes, the
 * once-vs-twice check, and a crash-safe journal where no call id runs twice.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Canonical from "./Canonical.ts"
/** @since 0.1.0 */
export * as Journal from "./Journal.ts"
/** @since 0.1.0 */
export * as MemoryStore from "./MemoryStore.ts"
/** @since 0.1.0 */
export * as OnceTwice from "./OnceTwice.ts"
/** @since 0.1.0 */
export * as RetrySafety from "./RetrySafety.ts"
/** @since 0.1.0 */
export * as SqliteStore from "./SqliteStore.ts"
