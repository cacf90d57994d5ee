/**
 * The trace event of the permission gate, declared by the gate (the core's trace knows only
 * the loop's events): `permission.decided`, one per call the gate decided about, recorded before
 * the call runs or is denied.
 *
 * @since 0.2.0
 */
import { Trace } from "@agent-harness/executor"
import { Schema } from "effect"

/**
 * A permission gate decided about a call before it ran: the rule that matched (`rule`, its index
 * in the policy's `rules`; absent when the policy's default decided), what it said (`decision`),
 * the answer when it asked (`answer`: `yes`, `no`, `always` for this tool under this rule, or
 * `remembered` when an earlier `always` answered), whether the call runs (`allowed`), and why
 * (`reason`), and who answered when it asked (`by`, when the approver said: a person answering a
 * parked call). `untrusted_output` is true when the call's result is marked as untrusted data for
 * the model.
 *
 * Declared here, by the edge that makes it (it was the executor's `Trace.Decision` before 0.2,
 * `permission.decision` in an old trace; `Trace.upgrade` reads it).
 *
 * @since 0.2.0
 */
export const Decided: Schema.Struct<{
  readonly type: Schema.Literal<"permission.decided">
  readonly tool_use_id: Schema.String
  readonly name: Schema.String
  readonly rule: Schema.optionalKey<Schema.Int>
  readonly decision: Schema.Literals<readonly ["allow", "ask", "deny"]>
  readonly answer: Schema.optionalKey<Schema.Literals<readonly ["yes", "no", "always", "remembered"]>>
  readonly allowed: Schema.Boolean
  readonly reason: Schema.optionalKey<Schema.String>
  readonly by: Schema.optionalKey<Schema.String>
  readonly untrusted_output: Schema.optionalKey<Schema.Boolean>
}> = Schema.Struct({
  type: Schema.Literal("permission.decided"),
  tool_use_id: Schema.String,
  name: Schema.String,
  rule: Schema.optionalKey(Schema.Int),
  decision: Schema.Literals(["allow", "ask", "deny"]),
  answer: Schema.optionalKey(Schema.Literals(["yes", "no", "always", "remembered"])),
  allowed: Schema.Boolean,
  reason: Schema.optionalKey(Schema.String),
  by: Schema.optionalKey(Schema.String),
  untrusted_output: Schema.optionalKey(Schema.Boolean)
})

/** A `permission.decided` event. @since 0.2.0 */
export type Decided = typeof Decided.Type

/**
 * The `permission.decided` event as the trace takes it: `event.record(decided)` records one on
 * the current trace, `event.is(entry)` tells one among a trace's entries.
 *
 * @since 0.2.0
 */
export const event: Trace.Declared<typeof Decided> = Trace.declare(Decided)
