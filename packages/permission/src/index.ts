/**
 * A permission gate before any tool runs: a policy of ordered allow / ask / deny rules on tool
 * names, annotations and arguments; approvers (a terminal, no one, a script); every decision
 * traced; denied calls answered as observations; tool output marked as untrusted data.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Approver from "./Approver.ts"
/** @since 0.1.0 */
export * as Compose from "./Compose.ts"
/** @since 0.1.0 */
export * as Gate from "./Gate.ts"
/** @since 0.1.0 */
export * as Glob from "./Glob.ts"
/** @since 0.1.0 */
export * as Messages from "./Messages.ts"
/** @since 0.1.0 */
export * as Policy from "./Policy.ts"
/** @since 0.1.0 */
export * as Terminal from "./Terminal.ts"
/** @since 0.1.0 */
export * as Untrusted from "./Untrusted.ts"
