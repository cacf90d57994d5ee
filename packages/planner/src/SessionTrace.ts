/**
 * A plan session in the trace: the loop's own `Trace` service (of the executor), one vocabulary
 * for both. `Session.run` records into the `Trace` in use, as it happens: a `session.started`
 * event (the goal, the budgets, the strategy and the tools), each of the session's `Event`s, and
 * a `session.recorded` event (the `SessionResult` without its events, which are the lines above
 * it). With `Trace.jsonl(path)` provided that is a JSON Lines file — `harness run PLAN.json
 * --trace FILE` writes one, `harness view FILE` draws it — and a plan session inside or beside a
 * loop writes into the loop's file.
 *
 * ```jsonl
 * {"type":"session.started","goal":"…","max_steps":10,"max_replans":2,"on_failure":"replan","tools":["read",…]}
 * {"type":"plan.created","revision":0,"plan":[…]}
 * …
 * {"type":"session.finished","status":"completed","reason":"goal_met","session_id":"…"}
 * {"type":"session.recorded","result":{"session_id":"…","status":"completed",…}}
 * ```
 *
 * Tracing never changes the session, and the lines are the trace's (`Trace.line`): a value JSON
 * cannot hold (a step argument that is a cycle, a bigint, `undefined`) is written as
 * `{ "~unencodable": "<rendering>" }` in its place; an event that cannot be encoded at all
 * becomes the trace's `trace.annotated` note (key `~unencodable`) naming its type and why. A
 * trace written before 0.2 (`session.start`, `session.result`, `session.unencodable`) still
 * reads through `Trace.upgrade`.
 *
 * @since 0.1.0
 */
import { Trace } from "@agent-harness/executor"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { Effect, type FileSystem, type PlatformError, Schema } from "effect"
import * as Event from "./Event.ts"
import * as internal from "./internal/trace.ts"
import * as Session from "./Session.ts"
import type * as SessionResult from "./SessionResult.ts"

/**
 * The event that opens a session: what it is for, its budgets, what it does when a step fails,
 * and the tools its steps may call.
 *
 * @since 0.1.0
 */
export const Start: typeof internal.Start = internal.Start

/** The event that opens a session. @since 0.1.0 */
export type Start = typeof Start.Type

/**
 * A `SessionResult` without its events (in a trace they are the lines above it).
 *
 * @since 0.1.0
 */
export const Recorded: typeof internal.Recorded = internal.Recorded

/** A `SessionResult` without its events. @since 0.1.0 */
export type Recorded = typeof Recorded.Type

/**
 * The event that closes a session: its result.
 *
 * @since 0.1.0
 */
export const Finish: typeof internal.Finish = internal.Finish

/** The event that closes a session. @since 0.1.0 */
export type Finish = typeof Finish.Type

/**
 * The line a session trace written before 0.2 has for something it could not encode at all.
 * Nothing writes it now (the trace's `~unencodable` note stands for it, and `Trace.upgrade`
 * reads an old one as that note).
 *
 * @deprecated Old traces only: read them through `Trace.upgrade`.
 * @since 0.1.0
 */
export const Unencodable: Schema.Struct<{
  readonly type: Schema.Literal<"session.unencodable">
  readonly event_type: Schema.optionalKey<Schema.String>
  readonly rendering: Schema.String
  readonly error: Schema.String
}> = Schema.Struct({
  type: Schema.Literal("session.unencodable"),
  event_type: Schema.optionalKey(Schema.String),
  rendering: Schema.String,
  error: Schema.String
})

/** A line for something an old trace could not encode. @deprecated Old traces only. @since 0.1.0 */
export type Unencodable = typeof Unencodable.Type

/**
 * Any event of a plan session in a trace.
 *
 * @since 0.1.0
 */
export const Line: Schema.Union<readonly [typeof Start, typeof Event.Event, typeof Finish]> = Schema.Union([
  Start,
  Event.Event,
  Finish
])

/** Any event of a plan session in a trace. @since 0.1.0 */
export type Line = typeof Line.Type

/**
 * The `session.started` of a session run with these options: its goal, budgets, strategy (the
 * default `replan` when none is given, as `Session.run` does) and the names of its tools.
 *
 * @since 0.1.0
 */
export const startOf: (options: {
  readonly goal: string
  readonly maxSteps: number
  readonly maxReplans: number
  readonly onFailure?: Session.Strategy | undefined
  readonly toolset?: Toolset.Toolset<Tool.Any> | undefined
}) => Omit<Start, "type"> = internal.startOf

/**
 * The `session.started` line (without the newline). Never throws: a start that does not fit
 * `Start` (a budget that is not an integer) becomes the trace's `~unencodable` note.
 *
 * @since 0.1.0
 */
export const startLine = (start: Omit<Start, "type">): string => Trace.line(internal.startEntry(start))

/**
 * The line of one session event (without the newline), as `Session.run` records it. Never
 * throws.
 *
 * @since 0.1.0
 */
export const eventLine = (event: Event.Event): string => Trace.line(internal.eventEntry(event))

/**
 * The `session.recorded` line (without the newline): the result without its events. Never
 * throws.
 *
 * @since 0.1.0
 */
export const resultLine = (result: SessionResult.SessionResult): string => Trace.line(internal.resultEntry(result))

/**
 * Runs a session (`Session.run`) with its trace written to a JSON Lines file (`Trace.jsonl`):
 * the start, every event as it happens (the options' own `onEvent` still sees each), the result.
 * Fails with the `PlatformError` only when the file cannot be created, before the session
 * starts.
 *
 * @since 0.1.0
 */
export const run = <T extends Tool.Any, E, R>(
  path: string,
  options: Session.Options<T, E, R>
): Effect.Effect<
  SessionResult.SessionResult,
  E | PlatformError.PlatformError,
  R | Tool.Services<T> | FileSystem.FileSystem
> => Effect.provide(Session.run(options), Trace.jsonl(path))
