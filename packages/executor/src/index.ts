/**
 * The errors-as-observations executor and the loop of the errors-as-observations idea.
 *
 * @since 0.1.0
 */

/** The repeated-call breaker: an opt-in stop condition for a model stuck repeating the same call. @since 0.1.0 */
export * as Breaker from "./Breaker.ts"
/** How a run of the loop ended, in one JSON form (the trace's `run.ended`, the durable record). @since 0.1.0 */
export * as Ended from "./Ended.ts"
/** `execute`: runs one tool call and answers it, whatever happens (errors as observations). @since 0.1.0 */
export * as Execute from "./Execute.ts"
/** Why a model's reply ended: the closed list, as a Schema. @since 0.1.0 */
export * as FinishReason from "./FinishReason.ts"
/** The loop: call the model, execute each tool_use, answer them in one message, until `end` or a budget stops it. @since 0.1.0 */
export * as Loop from "./Loop.ts"
/** The conversation in the Anthropic Messages shape: blocks, messages, their Schemas and constructors. @since 0.1.0 */
export * as Message from "./Message.ts"
/** The model as a service (`Model.respond`, `Model.fromReply`) and the typed ways a model call fails. @since 0.1.0 */
export * as Model from "./Model.ts"
/** What happened to one tool call, as a typed value carrying the exact text the model is shown. @since 0.1.0 */
export * as Outcome from "./Outcome.ts"
/** Progress of a running tool call: `Progress.report`, and the `Reporter` that decides where it goes. @since 0.1.0 */
export * as Progress from "./Progress.ts"
/** A streamed reply, part by part (text and reasoning deltas, a call's start, argument pieces and end, usage, finish), and its fold into a reply. @since 0.2.0 */
export * as ReplyPart from "./ReplyPart.ts"
/** The spans a run opens on Effect's tracer (`invoke_agent`, `chat`, `execute_tool`), after the GenAI semantic conventions, and the content switch. @since 0.3.0 */
export * as Spans from "./Spans.ts"
/** Tokens and money: the request's bound a reservation counts, and the `spend.settled` / `spend.refused` trace events. @since 0.2.0 */
export * as Spending from "./Spending.ts"
/** Why the loop stopped: the closed list, as a Schema. @since 0.1.0 */
export * as StopReason from "./StopReason.ts"
/** Traces as JSON Lines, one event grammar (`run.started`, `call.answered`...): the events, their Schemas, where they go (`jsonl`, `memory`), and `upgrade` for old traces. @since 0.1.0 */
export * as Trace from "./Trace.ts"
/** The tokens one model call used: camelCase in TypeScript, snake_case on the wire. @since 0.1.0 */
export * as Usage from "./Usage.ts"
