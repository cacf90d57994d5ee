/**
 * Know what is safe to repeat (the errors-as-observations idea): retry safety from annotations and outcomes, the
 * once-vs-twice check, and a crash-safe journal where no call id runs twice.
 *
 * @since 0.1.0
 */

/**
 * The canonical JSON text of a call's input, and `Unencodable`, what it refuses (tool-schema's
 * `Canonical`, the one implementation, re-exported here).
 *
 * @since 0.1.0
 */
export { Canonical } from "@agent-harness/tool-schema"
/** Approvals that survive a restart: parked calls, each answered once, with who answered. @since 0.2.0 */
export * as Approvals from "./Approvals.ts"
/** The crash-safe journal keyed by call id, as executor middleware, and its `Store` contract. @since 0.1.0 */
export * as Journal from "./Journal.ts"
/** A journal store in memory: tests and replay within one process (it does not survive a crash). @since 0.1.0 */
export * as MemoryStore from "./MemoryStore.ts"
/** The once-vs-twice check of a tool's declared idempotency. @since 0.1.0 */
export * as OnceTwice from "./OnceTwice.ts"
/** Whether a call may be repeated blindly, and the note the model reads. @since 0.1.0 */
export * as RetrySafety from "./RetrySafety.ts"
/** The durable journal store: SQLite via `node:sqlite`, shared by processes. @since 0.1.0 */
export * as SqliteStore from "./SqliteStore.ts"
