/**
 * Traces as JSON Lines, one event per line, every type `<noun>.<past participle>`: the loop's
 * own events (`Event`: `run.started`, each `model.requested` and `model.replied`, each
 * `call.started` and `call.answered`, each `breaker.tripped`, `run.ended`), and the events other
 * packages declare and record into the same service (`declare`: the permission gate's
 * `permission.decided`, a provider's `model.retried`, a plan session's). A trace is what
 * `harness capture` turns into a scenario that replays the conversation; a trace written before
 * the grammar reads through `upgrade`. The `Trace` service is off unless provided; point it at a
 * file with `Trace.jsonl(path)` or keep events in memory with `Trace.memory`.
 *
 * Tracing never changes the outcome of a run. A value JSON cannot hold (a cycle, a bigint, an
 * `undefined` input, a getter that throws) is written as `{ "~unencodable": "<rendering>" }` in
 * its place, so every line decodes; a write that fails stops the trace with a warning in the
 * log, and a trace service that throws or dies is skipped the same way.
 *
 * @since 0.1.0
 */
import { Render } from "@agent-harness/tool-schema"
import { Context, Effect, FileSystem, Layer, type PlatformError, Ref, Schema, Semaphore } from "effect"
import * as Ended from "./Ended.ts"
import { FinishReason } from "./FinishReason.ts"
import * as Message from "./Message.ts"
import * as Outcome from "./Outcome.ts"
import type { StopReason } from "./StopReason.ts"
import * as internalUpgrade from "./internal/upgrade.ts"
import * as Usage from "./Usage.ts"

/**
 * A repeated-call breaker's settings as a trace holds them (see `Breaker`).
 *
 * @since 0.1.0
 */
export const BreakerSettings: Schema.Struct<{
  readonly after: Schema.Int
  readonly window: Schema.Int
  readonly action: Schema.Literals<readonly ["tell", "stop"]>
}> = Schema.Struct({
  after: Schema.Int,
  window: Schema.Int,
  action: Schema.Literals(["tell", "stop"])
})

/**
 * The loop started with these opening messages; `breaker` when a repeated-call breaker watches
 * the run.
 *
 * @since 0.1.0
 */
export const Start: Schema.Struct<{
  readonly type: Schema.Literal<"run.started">
  readonly messages: Schema.$Array<typeof Message.Message>
  readonly max_turns: Schema.Int
  readonly tools: Schema.$Array<Schema.String>
  readonly breaker: Schema.optionalKey<typeof BreakerSettings>
}> = Schema.Struct({
  type: Schema.Literal("run.started"),
  messages: Schema.Array(Message.Message),
  max_turns: Schema.Int,
  tools: Schema.Array(Schema.String),
  breaker: Schema.optionalKey(BreakerSettings)
})

/** A runner's note about the environment (e.g. the scenario's locale and files). @since 0.1.0 */
export const Annotation: Schema.Struct<{
  readonly type: Schema.Literal<"trace.annotated">
  readonly key: Schema.String
  readonly value: Schema.Unknown
}> = Schema.Struct({
  type: Schema.Literal("trace.annotated"),
  key: Schema.String,
  value: Schema.Unknown
})

/** The model is called (turn from 1) with a history of `messages` messages. @since 0.1.0 */
export const ModelRequest: Schema.Struct<{
  readonly type: Schema.Literal<"model.requested">
  readonly turn: Schema.Int
  readonly messages: Schema.Int
}> = Schema.Struct({
  type: Schema.Literal("model.requested"),
  turn: Schema.Int,
  messages: Schema.Int
})

/**
 * The model replied; `finish_reason` when the model gave one (`stop`, `tool-calls`...), and the
 * provider's own word for it in `raw_finish_reason`; `streamed: true` when the reply came as a
 * stream (`Loop.stream`). Otherwise a streamed reply's event is the same as an unstreamed one's.
 *
 * @since 0.1.0
 */
export const ModelReply: Schema.Struct<{
  readonly type: Schema.Literal<"model.replied">
  readonly turn: Schema.Int
  readonly reply: Schema.$Array<typeof Message.ReplyBlock>
  readonly finish_reason: Schema.optionalKey<typeof FinishReason>
  readonly raw_finish_reason: Schema.optionalKey<Schema.String>
  readonly streamed: Schema.optionalKey<Schema.Literal<true>>
}> = Schema.Struct({
  type: Schema.Literal("model.replied"),
  turn: Schema.Int,
  reply: Schema.Array(Message.ReplyBlock),
  finish_reason: Schema.optionalKey(FinishReason),
  raw_finish_reason: Schema.optionalKey(Schema.String),
  streamed: Schema.optionalKey(Schema.Literal(true))
})

/**
 * The tokens a model call used, as the provider reported them (a count it did not report is
 * absent). Recorded before the reply or the failure of that call.
 *
 * @since 0.1.0
 */
export const ModelUsage: Schema.Struct<{
  readonly type: Schema.Literal<"usage.reported">
  readonly turn: Schema.Int
  readonly input_tokens: Schema.optionalKey<Schema.Int>
  readonly output_tokens: Schema.optionalKey<Schema.Int>
  readonly reasoning_tokens: Schema.optionalKey<Schema.Int>
  readonly cache_read_tokens: Schema.optionalKey<Schema.Int>
  readonly cache_write_tokens: Schema.optionalKey<Schema.Int>
}> = Schema.Struct({
  type: Schema.Literal("usage.reported"),
  turn: Schema.Int,
  input_tokens: Schema.optionalKey(Schema.Int),
  output_tokens: Schema.optionalKey(Schema.Int),
  reasoning_tokens: Schema.optionalKey(Schema.Int),
  cache_read_tokens: Schema.optionalKey(Schema.Int),
  cache_write_tokens: Schema.optionalKey(Schema.Int)
})

/**
 * The `usage.reported` event of a turn: the counts in their wire form (`Usage.toWire`), the ones
 * that are not whole numbers of at least 0 left out.
 *
 * @since 0.1.0
 */
export const usageEvent = (turn: number, usage: Usage.Usage): typeof ModelUsage.Type => {
  const wire = Usage.toWire(usage)
  const fields: { -readonly [K in keyof typeof wire]?: number } = {}
  for (const [key, n] of Object.entries(wire)) {
    if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) fields[key as keyof typeof wire] = n
  }
  return { type: "usage.reported", turn, ...fields }
}

/**
 * The usage a `usage.reported` event reports, in TypeScript's camelCase (`Usage.fromWire`).
 *
 * @since 0.1.0
 */
export const usageOf = (event: typeof ModelUsage.Type): Usage.Usage => Usage.fromWire(event)

/** The model failed; the loop fails with it. @since 0.1.0 */
export const ModelFailed: Schema.Struct<{
  readonly type: Schema.Literal<"model.failed">
  readonly turn: Schema.Int
  readonly message: Schema.String
}> = Schema.Struct({
  type: Schema.Literal("model.failed"),
  turn: Schema.Int,
  message: Schema.String
})

/**
 * A call of the reply is executed: its id, the tool's name and its input, in their wire
 * spelling (a trace written before 0.2 held them as `call: { id, name, input }`; `upgrade` reads
 * it).
 *
 * @since 0.1.0
 */
export const Call: Schema.Struct<{
  readonly type: Schema.Literal<"call.started">
  readonly turn: Schema.Int
  readonly tool_use_id: Schema.String
  readonly name: Schema.String
  readonly input: Schema.Unknown
}> = Schema.Struct({
  type: Schema.Literal("call.started"),
  turn: Schema.Int,
  tool_use_id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
})

/**
 * The `call.started` event of a call of the reply, in turn `turn`.
 *
 * @since 0.2.0
 */
export const callStarted = (turn: number, call: Message.ToolUseBlock): typeof Call.Type => ({
  type: "call.started",
  turn,
  tool_use_id: call.id,
  name: call.name,
  input: call.input
})

/**
 * The observation of a call, and what happened (`NotExecuted`, `Refused`, `Failed`, `Succeeded`,
 * `Replayed`); for a `Failed` call why (`failure`: the `Failure` tag, so an outcome unknown is
 * told from a failure that ran), for a `Replayed` one what it was when it ran (`original`).
 *
 * @since 0.1.0
 */
export const Observation: Schema.Struct<{
  readonly type: Schema.Literal<"call.answered">
  readonly turn: Schema.Int
  readonly outcome: Schema.Literals<readonly ["NotExecuted", "Refused", "Failed", "Succeeded", "Replayed"]>
  readonly result: typeof Message.ToolResultBlock
  readonly failure: Schema.optionalKey<
    Schema.Literals<readonly ["ToolError", "Defect", "TimedOut", "Interrupted", "StatusError", "OutcomeUnknown"]>
  >
  readonly original: Schema.optionalKey<Schema.Literals<readonly ["NotExecuted", "Refused", "Failed", "Succeeded"]>>
}> = Schema.Struct({
  type: Schema.Literal("call.answered"),
  turn: Schema.Int,
  outcome: Schema.Literals(["NotExecuted", "Refused", "Failed", "Succeeded", "Replayed"]),
  result: Message.ToolResultBlock,
  failure: Schema.optionalKey(
    Schema.Literals(["ToolError", "Defect", "TimedOut", "Interrupted", "StatusError", "OutcomeUnknown"])
  ),
  original: Schema.optionalKey(Schema.Literals(["NotExecuted", "Refused", "Failed", "Succeeded"]))
})

/**
 * The observation event of a call's outcome: what the model is shown, the outcome's tag, and
 * the `failure` tag of a `Failed` call or the `original` outcome of a `Replayed` one.
 *
 * @since 0.1.0
 */
export const observation = (turn: number, outcome: Outcome.Outcome): typeof Observation.Type => ({
  type: "call.answered",
  turn,
  outcome: outcome._tag,
  result: Outcome.toToolResult(outcome),
  ...(outcome._tag === "Failed" ? { failure: outcome.failure._tag } : {}),
  ...(outcome._tag === "Replayed" ? { original: outcome.original } : {})
})

/**
 * The repeated-call breaker tripped on a call: it is the `count`-th identical call (same tool,
 * same input, same observation) within `window` turns, `after` or more. Recorded after the call's
 * observation; under `tell` that observation holds the breaker's line, under `stop` the run stops
 * after this turn (`repeated_call`).
 *
 * @since 0.1.0
 */
export const BreakerTripped: Schema.Struct<{
  readonly type: Schema.Literal<"breaker.tripped">
  readonly turn: Schema.Int
  readonly tool_use_id: Schema.String
  readonly name: Schema.String
  readonly count: Schema.Int
  readonly after: Schema.Int
  readonly window: Schema.Int
  readonly action: Schema.Literals<readonly ["tell", "stop"]>
}> = Schema.Struct({
  type: Schema.Literal("breaker.tripped"),
  turn: Schema.Int,
  tool_use_id: Schema.String,
  name: Schema.String,
  count: Schema.Int,
  after: Schema.Int,
  window: Schema.Int,
  action: Schema.Literals(["tell", "stop"])
})

/**
 * A running tool call reported progress (`Progress.report`): for people watching, never shown to
 * the model. `progress` grows with each update; `total`, when known, is where it ends.
 *
 * @since 0.1.0
 */
export const ToolProgress: Schema.Struct<{
  readonly type: Schema.Literal<"call.progressed">
  readonly turn: Schema.Int
  readonly tool_use_id: Schema.String
  readonly name: Schema.optionalKey<Schema.String>
  readonly progress: Schema.Finite
  readonly total: Schema.optionalKey<Schema.Finite>
  readonly message: Schema.optionalKey<Schema.String>
}> = Schema.Struct({
  type: Schema.Literal("call.progressed"),
  turn: Schema.Int,
  tool_use_id: Schema.String,
  name: Schema.optionalKey(Schema.String),
  progress: Schema.Finite,
  total: Schema.optionalKey(Schema.Finite),
  message: Schema.optionalKey(Schema.String)
})

/** The loop stopped: how the run ended (`Ended`) with its `type`. @since 0.1.0 */
export const Stop: Schema.Struct<{
  readonly type: Schema.Literal<"run.ended">
  readonly stop: typeof StopReason
  readonly text: Schema.optionalKey<Schema.String>
  readonly turns: Schema.Int
}> = Schema.Struct({
  type: Schema.Literal("run.ended"),
  ...Ended.Ended.fields
})

/**
 * Any event of the core (the loop's): the trace's closed vocabulary. An edge declares its own
 * events (`Custom`, `define`): the permission gate's `permission.decided`, a provider's
 * `model.retried`, the plan session's.
 *
 * @since 0.1.0
 */
export const Event: Schema.Union<
  readonly [
    typeof Start,
    typeof Annotation,
    typeof ModelRequest,
    typeof ModelReply,
    typeof ModelUsage,
    typeof ModelFailed,
    typeof Call,
    typeof Observation,
    typeof BreakerTripped,
    typeof ToolProgress,
    typeof Stop
  ]
> = Schema.Union([
  Start,
  Annotation,
  ModelRequest,
  ModelReply,
  ModelUsage,
  ModelFailed,
  Call,
  Observation,
  BreakerTripped,
  ToolProgress,
  Stop
])

/** Any event of the core, discriminated by `type`. @since 0.1.0 */
export type Event = typeof Event.Type

/**
 * An event declared outside the core (by an edge, or a package above it such as the planner):
 * a `type` in the grammar (`<noun>.<past participle>`) and plain data (what JSON holds). The
 * trace writes it as it is; readers keep or skip the types they do not know.
 *
 * @since 0.2.0
 */
export interface Custom {
  /** The event's type, e.g. `permission.decided`. */
  readonly type: string
  /** Its data. */
  readonly [key: string]: unknown
}

/**
 * Anything a trace records: an event of the core, or one declared elsewhere.
 *
 * @since 0.2.0
 */
export type Entry = Event | Custom

const coreTypes: ReadonlySet<string> = new Set(Event.members.map((member) => member.fields.type.literal))

/**
 * Whether an entry is an event of the core (its type is one of `Event`'s), so it can be narrowed
 * by its `type`.
 *
 * @since 0.2.0
 */
export const isEvent = (entry: Entry): entry is Event => coreTypes.has(entry.type)

/**
 * Where events go.
 *
 * @since 0.1.0
 */
export interface Trace {
  /** Records one event (the core's or a `Custom` one); the loop records through `recordOn`, which never fails. */
  readonly record: (event: Entry) => Effect.Effect<void>
}

/**
 * Records nothing (the default).
 *
 * @since 0.1.0
 */
export const none: Trace = { record: () => Effect.void }

/**
 * The trace in use: `none` unless you provide one.
 *
 * @since 0.1.0
 */
export const Trace: Context.Reference<Trace> = Context.Reference<Trace>("@agent-harness/executor/Trace", {
  defaultValue: () => none
})

/**
 * Records an event on a trace without ever failing or dying: a trace that throws or dies is
 * skipped, with a warning in the log. The loop records through this.
 *
 * @since 0.1.0
 */
export const recordOn = (trace: Trace, event: Entry): Effect.Effect<void> =>
  trace === none
    ? Effect.void
    : Effect.suspend(() => {
        const out: unknown = trace.record(event)
        return Effect.isEffect(out) ? (out as Effect.Effect<void>) : Effect.void
      }).pipe(
        Effect.catchDefect((defect) =>
          Effect.logWarning(`trace: an event was not recorded (${Render.thrown(defect)}); the run goes on`)
        )
      )

/**
 * Records an event on the current trace (see `recordOn`).
 *
 * @since 0.1.0
 */
export const record = (event: Entry): Effect.Effect<void> =>
  Effect.flatMap(Effect.service(Trace), (trace) => recordOn(trace, event))

/**
 * The key that marks, in a trace line, a value JSON cannot hold: `{ "~unencodable": "<its
 * rendering>" }` stands where the value was. Also the key of the annotation that stands for a
 * whole event that does not fit `Event`.
 *
 * @since 0.1.0
 */
export const unencodable = "~unencodable"

/**
 * A value of an `unknown` slot (a tool input, an annotation value) as a trace line holds it:
 * itself when JSON holds it, else `{ "~unencodable": "<its rendering>" }`. Never throws.
 *
 * @since 0.1.0
 */
export const encodable = (value: unknown): unknown => {
  try {
    if (JSON.stringify(value) !== undefined) return value
  } catch {
    // Marked below.
  }
  return { [unencodable]: value === undefined ? "undefined" : Render.value(value) }
}

const block = (b: Message.ReplyBlock): Message.ReplyBlock =>
  b.type === "tool_use" ? { ...b, input: encodable(b.input) } : b

const message = (m: Message.Message): Message.Message =>
  m.role === "assistant" ? Message.assistant(m.content.map(block)) : m

/** The event with every `unknown` slot (tool inputs, annotation values) as a line holds it. */
const holdable = (event: Event): Event => {
  switch (event.type) {
    case "run.started":
      return { ...event, messages: event.messages.map(message) }
    case "trace.annotated":
      return { ...event, value: encodable(event.value) }
    case "model.replied":
      return { ...event, reply: event.reply.map(block) }
    case "call.started":
      return { ...event, input: encodable(event.input) }
    default:
      return event
  }
}

const encode = Schema.encodeSync(Event)

/**
 * Every event type a trace written before 0.2 may hold, and its name now: every event is named
 * `<noun>.<past participle>` (`start` → `run.started`, `observation` → `call.answered`, the plan
 * session's `session.start` → `session.started`...). `plan.diff` keeps its name: it is the
 * plan-and-execute idea's own word.
 *
 * @since 0.2.0
 */
export const renamed: ReadonlyMap<string, string> = internalUpgrade.renamed

/**
 * One parsed trace line as written today: an old event type gets its new name (`renamed`) and
 * its moved fields their new place (a `call`'s `call: { id, name, input }` becomes
 * `tool_use_id`, `name`, `input`; a `step.started`'s `call_id` becomes `tool_use_id`; a
 * `session.unencodable` line becomes a `~unencodable` annotation). Anything else, an edge's
 * event included, is returned as it is. Every reader (`harness capture`, the viewer) decodes
 * through this, so old traces still read. Never throws.
 *
 * @example
 * ```ts
 * import { Trace } from "@agent-harness/executor"
 *
 * Trace.upgrade({ type: "model.request", turn: 1, messages: 2 })
 * // { type: "model.requested", turn: 1, messages: 2 }
 * ```
 *
 * @since 0.2.0
 */
export const upgrade: (json: unknown) => unknown = internalUpgrade.upgrade

/**
 * The `trace.annotated` note (key `~unencodable`) that stands for an event that could not be
 * encoded: its type (when it can be read), its rendering, and why (`error`). Never throws.
 *
 * @since 0.2.0
 */
export const unencodableNote = (event: unknown, error: unknown): Event => {
  let type: unknown
  try {
    type = typeof event === "object" && event !== null && "type" in event ? event.type : undefined
  } catch {
    type = undefined
  }
  const value = {
    ...(typeof type === "string" ? { event_type: type } : {}),
    rendering: Render.value(event),
    error: Render.thrown(error)
  }
  return { type: "trace.annotated", key: unencodable, value }
}

/** A `Custom` event as its line: plain data as JSON holds it, else the unencodable note. */
const customLine = (event: Custom): string => {
  try {
    const text = JSON.stringify(event)
    if (text?.startsWith("{")) return text
    return JSON.stringify(encode(unencodableNote(event, "it is not a JSON object")))
  } catch (error) {
    return JSON.stringify(encode(unencodableNote(event, error)))
  }
}

/**
 * One event as its JSON line (without the newline). Never throws. An event of the core always
 * decodes as an `Event`: a value JSON cannot hold is replaced by `{ "~unencodable":
 * "<rendering>" }`, and an event that does not fit `Event` at all becomes a `trace.annotated`
 * event (key `~unencodable`) with its type, its rendering and the reason. A `Custom` event is
 * written as the plain data it is, or as that same note when JSON cannot hold it.
 *
 * @since 0.1.0
 */
export const line = (event: Entry): string => {
  let core: boolean
  try {
    core = isEvent(event)
  } catch {
    core = true
  }
  if (!core) return customLine(event)
  try {
    return JSON.stringify(encode(holdable(event as Event)))
  } catch (error) {
    return JSON.stringify(encode(unencodableNote(event, error)))
  }
}

/**
 * An event declared by an edge (or a package above the core): its `type`, the Schema it is
 * encoded with, a guard, and `record`, which encodes it with that Schema and records it on the
 * current trace (an event the Schema cannot encode is recorded as the `~unencodable` note).
 *
 * @since 0.2.0
 */
export interface Declared<S extends Schema.Codec<unknown, unknown>> {
  /** The event's type, e.g. `permission.decided`. */
  readonly type: string
  /** The Schema of the event. */
  readonly schema: S
  /** Whether a recorded entry is one of these events. */
  readonly is: (entry: Entry) => entry is S["Type"] & Custom
  /** The event encoded with its Schema, as the trace holds it (or the `~unencodable` note); never throws. */
  readonly entry: (event: S["Type"]) => Entry
  /** Records `entry(event)` on the current trace; never fails. */
  readonly record: (event: S["Type"]) => Effect.Effect<void>
}

/**
 * Declares an event outside the core: a Schema of a struct whose `type` is a literal in the
 * grammar (`<noun>.<past participle>`). The permission gate declares `permission.decided` so,
 * a provider adapter `model.retried`, the planner its session's events.
 *
 * @example
 * ```ts
 * import { Trace } from "@agent-harness/executor"
 * import { Schema } from "effect"
 *
 * const Pinged = Trace.declare(Schema.Struct({ type: Schema.Literal("ping.sent"), to: Schema.String }))
 * // Pinged.record({ type: "ping.sent", to: "a" }) is one line of the trace.
 * ```
 *
 * @since 0.2.0
 */
export const declare = <
  S extends Schema.Codec<unknown, unknown> & { readonly fields: { readonly type: { readonly literal: string } } }
>(
  schema: S
): Declared<S> => {
  const type = schema.fields.type.literal
  const encodeIt = Schema.encodeUnknownSync(schema)
  const isIt = Schema.is(schema)
  const entry = (event: S["Type"]): Entry => {
    let encoded: unknown
    try {
      encoded = encodeIt(event)
    } catch (error) {
      return unencodableNote(event, error)
    }
    return typeof encoded === "object" && encoded !== null && "type" in encoded && encoded.type === type
      ? { ...encoded, type }
      : unencodableNote(event, "its Schema does not encode it as an object of its type")
  }
  return {
    type,
    schema,
    is: (candidate): candidate is S["Type"] & Custom => candidate.type === type && isIt(candidate),
    entry,
    record: (event) => Effect.suspend(() => record(entry(event)))
  }
}

/**
 * A trace kept in memory: `events` reads the core's events it holds (to narrow by `type`),
 * `entries` everything it holds, declared events included, in the order recorded.
 *
 * @since 0.1.0
 */
export const memory: Effect.Effect<{
  readonly trace: Trace
  readonly events: Effect.Effect<ReadonlyArray<Event>>
  readonly entries: Effect.Effect<ReadonlyArray<Entry>>
}> = Effect.map(Ref.make<ReadonlyArray<Entry>>([]), (ref) => ({
  trace: { record: (event) => Ref.update(ref, (entries) => [...entries, event]) },
  events: Effect.map(Ref.get(ref), (entries) => entries.filter(isEvent)),
  entries: Ref.get(ref)
}))

/**
 * A trace written to a JSON Lines file: the file is opened (created, or emptied) once when the
 * layer is built and closed when the layer's scope closes, and every event is written as one line
 * as it happens, with a write of its own (no buffering), so a crash keeps what came before it.
 * Events recorded at once are written one at a time, so lines never interleave. A write that
 * fails stops the trace: the failure is logged as a warning, nothing more is written (the file
 * ends without its `run.ended` event, so `harness capture` refuses it as unfinished instead of
 * replaying a trace with holes), and the run goes on unchanged.
 *
 * @since 0.1.0
 */
export const jsonl = (path: string): Layer.Layer<never, PlatformError.PlatformError, FileSystem.FileSystem> =>
  Layer.effect(
    Trace,
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const file = yield* fs.open(path, { flag: "w" })
      const one = yield* Semaphore.make(1)
      const encoder = new TextEncoder()
      let stopped = false
      const write = (event: Entry) =>
        Effect.suspend(() => (stopped ? Effect.void : file.writeAll(encoder.encode(`${line(event)}\n`))))
      return {
        record: (event: Entry) =>
          stopped
            ? Effect.void
            : Semaphore.withPermit(
                one,
                Effect.catch(write(event), (error) => {
                  stopped = true
                  return Effect.logWarning(
                    `Trace.jsonl: writing ${path} failed (${error.message}); the trace stops here, the run goes on`
                  )
                })
              )
      }
    })
  )
