/**
 * A permission gate before any tool runs: a policy of ordered allow / ask / deny rules on tool
 * names, annotations, arguments and commands; approvers (a terminal, no one, a script); every decision
 * traced; denied calls answered as observations; tool output marked as untrusted data.
 *
 * @since 0.1.0
 */

/** Who answers when a rule says `ask`: the service, unattended, scripted. @since 0.1.0 */
export * as Approver from "./Approver.ts"
/** Several executor middlewares as one. @since 0.1.0 */
export * as Compose from "./Compose.ts"
/** Commands as the gate reads them: readings through wrappers and shells, patterns like `git push *`. @since 0.1.0 */
export * as Command from "./Command.ts"
/** The gate's trace event, `permission.decided`, declared by the gate. @since 0.2.0 */
export * as Decided from "./Decided.ts"
/** The permission gate as executor middleware. @since 0.1.0 */
export * as Gate from "./Gate.ts"
/** Globs matched in pattern × text time. @since 0.1.0 */
export * as Glob from "./Glob.ts"
/** The gate's texts, English and Spanish. @since 0.1.0 */
export * as Messages from "./Messages.ts"
/** An approver that parks asked calls in a store until someone answers, from any process. @since 0.2.0 */
export * as Parked from "./Parked.ts"
/** Policies: their Schema, decoding, and deciding a call. @since 0.1.0 */
export * as Policy from "./Policy.ts"
/** Text safe to show a person on a terminal (controls, bidi and invisible characters escaped). @since 0.1.0 */
export * as Printable from "./Printable.ts"
/** The approver of a person at a terminal. @since 0.1.0 */
export * as Terminal from "./Terminal.ts"
/** Tool globs that match no tool, with the tools they could have meant. @since 0.1.0 */
export * as Unmatched from "./Unmatched.ts"
/** Tool output marked as untrusted data. @since 0.1.0 */
export * as Untrusted from "./Untrusted.ts"
