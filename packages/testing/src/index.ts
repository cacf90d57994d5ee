/**
 * For users' own test suites: assertion helpers for the invariants every harness needs (every
 * tool call answered exactly once, no call id executed twice, a typed stop reason). The vitest
 * helper that turns a folder of scenario files into one test each is a separate entry,
 * `@agent-harness/testing/vitest`, so this one never loads vitest.
 *
 * @since 0.1.0
 */

/**
 * Checks of the loop's invariants over a run's messages or its trace (`answeredOnce`,
 * `uniqueCallIds`, `stopReason`...), each with an `assert*` variant that throws `InvariantError`.
 *
 * @since 0.1.0
 */
export * as Invariants from "./Invariants.ts"
