/**
 * A plan session as JSON Lines, written as it happens: a `session.started` line (the goal, the
 * budgets, the strategy and the tools), each of the session's `Event`s, and a `session.recorded`
 * line (the `SessionResult` without its events, which are the lines above it). `harness run
 * PLAN.json --trace FILE` writes one; `harness view FILE` draws it.
 *
 * ```jsonl
 * {"type":"session.started","goal":"…","max_steps":10,"max_replans":2,"on_failure":"replan","tools":["read",…]}
 * {"type":"plan.created","revision":0,"plan":[…]}
 * …
 * {"type":"session.finished","status":"completed","reason":"goal_met","session_id":"…"}
 * {"type":"session.recorded","result":{"session_id":"…","status":"completed",…}}
 * ```
 *
 * Writing never changes the session. Every line is written when it happens (a crash keeps the
 * lines before it; a trace without its `session.recorded` line is a session that did not finish).
 * A value JSON cannot hold (a step argument that is a cycle, a bigint, `undefined`) is written as
 * `{ "~unencodable": "<rendering>" }` in its place, as in the executor's traces; anything that
 * cannot be encoded at all becomes a `session.unencodable` line naming its type and why. A write
 * that fails stops the trace with a warning in the log, and the session goes on.
 *
 * @since 0.1.0
 */
import { Trace } from "@agent-harness/executor"
import { Render, type Tool, type Toolset } from "@agent-harness/tool-schema"
import { Effect, FileSystem, type PlatformError, Schema, Struct } from "effect"
import * as Event from "./Event.ts"
import * as Session from "./Session.ts"
import * as SessionResult from "./SessionResult.ts"
import type * as Step from "./Step.ts"

/**
 * The line that opens a session: what it is for, its budgets, what it does when a step fails,
 * and the tools its steps may call.
 *
 * @since 0.1.0
 */
export const Start: Schema.Struct<{
  readonly type: Schema.Literal<"session.started">
  readonly goal: Schema.String
  readonly max_steps: Schema.optionalKey<Schema.Int>
  readonly max_replans: Schema.optionalKey<Schema.Int>
  readonly on_failure: Schema.optionalKey<Schema.Literals<readonly ["replan", "skip", "abort"]>>
  readonly tools: Schema.optionalKey<Schema.$Array<Schema.String>>
}> = Schema.Struct({
  type: Schema.Literal("session.started"),
  goal: Schema.String,
  max_steps: Schema.optionalKey(Schema.Int),
  max_replans: Schema.optionalKey(Schema.Int),
  on_failure: Schema.optionalKey(Schema.Literals(["replan", "skip", "abort"])),
  tools: Schema.optionalKey(Schema.Array(Schema.String))
})

/** The line that opens a session. @since 0.1.0 */
export type Start = typeof Start.Type

/**
 * A `SessionResult` without its events (in a trace they are the lines above it).
 *
 * @since 0.1.0
 */
export const Recorded: Schema.Struct<Omit<(typeof SessionResult.SessionResult)["fields"], "events">> =
  SessionResult.SessionResult.mapFields(Struct.omit(["events"]))

/** A `SessionResult` without its events. @since 0.1.0 */
export type Recorded = typeof Recorded.Type

/**
 * The line that closes a session: its result.
 *
 * @since 0.1.0
 */
export const Finish: Schema.Struct<{
  readonly type: Schema.Literal<"session.recorded">
  readonly result: typeof Recorded
}> = Schema.Struct({ type: Schema.Literal("session.recorded"), result: Recorded })

/** The line that closes a session. @since 0.1.0 */
export type Finish = typeof Finish.Type

/**
 * The line that stands for something the trace could not encode at all: the event's type (when
 * it could be read), a rendering of it, and why it could not be encoded.
 *
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

/** A line for something the trace could not encode. @since 0.1.0 */
export type Unencodable = typeof Unencodable.Type

/**
 * Any line of a session trace.
 *
 * @since 0.1.0
 */
export const Line: Schema.Union<readonly [typeof Start, typeof Event.Event, typeof Finish, typeof Unencodable]> =
  Schema.Union([Start, Event.Event, Finish, Unencodable])

/** Any line of a session trace. @since 0.1.0 */
export type Line = typeof Line.Type

/**
 * The `session.started` of a session run with these options: its goal, budgets, strategy (the
 * default `replan` when none is given, as `Session.run` does) and the names of its tools.
 *
 * @since 0.1.0
 */
export const startOf = (options: {
  readonly goal: string
  readonly maxSteps: number
  readonly maxReplans: number
  readonly onFailure?: Session.Strategy | undefined
  readonly toolset?: Toolset.Toolset<Tool.Any> | undefined
}): Omit<Start, "type"> => ({
  goal: options.goal,
  max_steps: options.maxSteps,
  max_replans: options.maxReplans,
  on_failure: options.onFailure ?? "replan",
  ...(options.toolset === undefined ? {} : { tools: options.toolset.tools.map((tool) => tool.name) })
})

const encodeStart = Schema.encodeSync(Start)
const encodeEvent = Schema.encodeSync(Event.Event)
const encodeFinish = Schema.encodeSync(Finish)
const encodeUnencodable = Schema.encodeSync(Unencodable)

/** A step with every argument as a line holds it (`Trace.encodable`). */
const holdableStep = (step: Step.Step): Step.Step => ({
  ...step,
  args: Object.fromEntries(Object.entries(step.args).map(([key, value]) => [key, Trace.encodable(value)]))
})

/** The event with every step's arguments as a line holds them. */
const holdable = (event: Event.Event): Event.Event => {
  switch (event.type) {
    case "plan.created":
    case "plan.rejected":
      return { ...event, plan: event.plan.map(holdableStep) }
    case "step.started":
      return { ...event, step: holdableStep(event.step) }
    default:
      return event
  }
}

/** The line of something that could not be encoded: its type if it has one, its rendering, why. */
const unencodableLine = (value: unknown, error: unknown): string => {
  let type: unknown
  try {
    type = typeof value === "object" && value !== null && "type" in value ? value.type : undefined
  } catch {
    type = undefined
  }
  return JSON.stringify(
    encodeUnencodable({
      type: "session.unencodable",
      ...(typeof type === "string" ? { event_type: type } : {}),
      rendering: Render.value(value),
      error: Render.thrown(error)
    })
  )
}

/** A line from an encoder, or the `session.unencodable` line when it throws. */
const safely = (value: unknown, encode: () => unknown): string => {
  try {
    return JSON.stringify(encode())
  } catch (error) {
    return unencodableLine(value, error)
  }
}

/**
 * The `session.started` line (without the newline). Never throws: a start that does not fit
 * `Start` (a budget that is not an integer) becomes a `session.unencodable` line.
 *
 * @since 0.1.0
 */
export const startLine = (start: Omit<Start, "type">): string =>
  safely(start, () => encodeStart({ ...start, type: "session.started" }))

/**
 * The line of one session event (without the newline). Never throws; the line decodes as a
 * `Line`.
 *
 * @since 0.1.0
 */
export const eventLine = (event: Event.Event): string => safely(event, () => encodeEvent(holdable(event)))

/**
 * The `session.recorded` line (without the newline): the result without its events. Never throws.
 *
 * @since 0.1.0
 */
export const resultLine = (result: SessionResult.SessionResult): string =>
  safely(result, () => {
    const { events: _events, ...rest } = result
    return encodeFinish({ type: "session.recorded", result: { ...rest, history: rest.history.map(holdableStep) } })
  })

/**
 * Where a running session's lines go: give `onEvent` to `Session.run`, and its result to
 * `finish`. Neither ever fails.
 *
 * @since 0.1.0
 */
export interface Recorder {
  /** Writes one event's line, as the session tells it. */
  readonly onEvent: (event: Event.Event) => Effect.Effect<void>
  /** Writes the closing `session.recorded` line (the result without its events). */
  readonly finish: (result: SessionResult.SessionResult) => Effect.Effect<void>
}

/**
 * A session trace written to a JSON Lines file: the file is created (or emptied) with its
 * `session.started` line now, failing only if that write fails; then every line is appended as it
 * happens, so a crash keeps what came before. A later write that fails stops the trace: the
 * failure is logged as a warning, nothing more is written, and the session goes on unchanged.
 *
 * @since 0.1.0
 */
export const jsonl = (
  path: string,
  start: Omit<Start, "type">
): Effect.Effect<Recorder, PlatformError.PlatformError, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    yield* fs.writeFileString(path, `${startLine(start)}\n`)
    let stopped = false
    const append = (line: () => string): Effect.Effect<void> =>
      Effect.suspend(() =>
        stopped
          ? Effect.void
          : Effect.catch(fs.writeFileString(path, `${line()}\n`, { flag: "a" }), (error) => {
              stopped = true
              return Effect.logWarning(
                `SessionTrace.jsonl: writing ${path} failed (${error.message}); the trace stops here, the session goes on`
              )
            })
      )
    return {
      onEvent: (event) => append(() => eventLine(event)),
      finish: (result) => append(() => resultLine(result))
    }
  })

/**
 * Runs a session (`Session.run`) and records it to a JSON Lines file (`jsonl`): the start line
 * from its options, every event as it happens (the options' own `onEvent` still sees each), the
 * result. Fails with the `PlatformError` only when the file cannot be created, before the session
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
> =>
  Effect.gen(function* () {
    const recorder = yield* jsonl(path, startOf(options))
    const own = options.onEvent
    const result = yield* Session.run({
      ...options,
      onEvent: own === undefined ? recorder.onEvent : (event) => Effect.andThen(own(event), recorder.onEvent(event))
    })
    yield* recorder.finish(result)
    return result
  })
