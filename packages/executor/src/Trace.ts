/**
 * Traces of the loop as JSON Lines, one event per line: the start, each model request and
 * reply, each call and its observation, the stop. A trace is what `harness capture` turns into
 * a scenario that replays the conversation. The `Trace` service is off unless provided; point
 * it at a file with `Trace.jsonl(path)` or keep events in memory with `Trace.memory`.
 *
 * @since 0.1.0
 */
import { Context, Effect, FileSystem, Layer, type PlatformError, Ref, Schema } from "effect"
import * as Message from "./Message.ts"

/** The loop started with these opening messages. @since 0.1.0 */
export const Start = Schema.Struct({
  type: Schema.Literal("start"),
  messages: Schema.Array(Message.Message),
  max_turns: Schema.Int,
  tools: Schema.Array(Schema.String)
})

/** A runner's note about the environment (e.g. the scenario's locale and files). @since 0.1.0 */
export const Annotation = Schema.Struct({
  type: Schema.Literal("annotation"),
  key: Schema.String,
  value: Schema.Unknown
})

/** The model is called (turn from 1) with a history of `messages` messages. @since 0.1.0 */
export const ModelRequest = Schema.Struct({
  type: Schema.Literal("model.request"),
  turn: Schema.Int,
  messages: Schema.Int
})

/** The model replied. @since 0.1.0 */
export const ModelReply = Schema.Struct({
  type: Schema.Literal("model.reply"),
  turn: Schema.Int,
  reply: Schema.Array(Message.ReplyBlock)
})

/** The model failed; the loop fails with it. @since 0.1.0 */
export const ModelFailed = Schema.Struct({
  type: Schema.Literal("model.failed"),
  turn: Schema.Int,
  message: Schema.String
})

/** A call of the reply is executed. @since 0.1.0 */
export const Call = Schema.Struct({ type: Schema.Literal("call"), turn: Schema.Int, call: Message.ToolUseBlock })

/** The observation of a call, and what happened (`NotExecuted`, `Refused`, `Failed`, `Succeeded`, `Replayed`). @since 0.1.0 */
export const Observation = Schema.Struct({
  type: Schema.Literal("observation"),
  turn: Schema.Int,
  outcome: Schema.Literals(["NotExecuted", "Refused", "Failed", "Succeeded", "Replayed"]),
  result: Message.ToolResultBlock
})

/** The loop stopped. @since 0.1.0 */
export const Stop = Schema.Struct({
  type: Schema.Literal("stop"),
  stop: Schema.Literals(["end", "turn_cap", "time_budget"]),
  text: Schema.optionalKey(Schema.String),
  turns: Schema.Int
})

/**
 * Any trace event.
 *
 * @since 0.1.0
 */
export const Event = Schema.Union([Start, Annotation, ModelRequest, ModelReply, ModelFailed, Call, Observation, Stop])

/** @since 0.1.0 */
export type Event = typeof Event.Type

/**
 * Where events go.
 *
 * @since 0.1.0
 */
export interface Trace {
  readonly record: (event: Event) => Effect.Effect<void>
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
 * Records an event on the current trace.
 *
 * @since 0.1.0
 */
export const record = (event: Event): Effect.Effect<void> =>
  Effect.flatMap(Effect.service(Trace), (trace) => (trace === none ? Effect.void : trace.record(event)))

/**
 * One event as its JSON line (without the newline).
 *
 * @since 0.1.0
 */
export const line = (event: Event): string => JSON.stringify(Schema.encodeSync(Event)(event))

/**
 * A trace kept in memory, with an Effect to read what it holds.
 *
 * @since 0.1.0
 */
export const memory: Effect.Effect<{ readonly trace: Trace; readonly events: Effect.Effect<ReadonlyArray<Event>> }> =
  Effect.map(Ref.make<ReadonlyArray<Event>>([]), (ref) => ({
    trace: { record: (event) => Ref.update(ref, (events) => [...events, event]) },
    events: Ref.get(ref)
  }))

/**
 * A trace written to a JSON Lines file: the file is created (or emptied) when the layer is
 * built, and every event is appended as one line as it happens, so a crash keeps what came
 * before it. A write that fails is a defect: a trace that silently loses lines would lie.
 *
 * @since 0.1.0
 */
export const jsonl = (path: string): Layer.Layer<never, PlatformError.PlatformError, FileSystem.FileSystem> =>
  Layer.effect(
    Trace,
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      yield* fs.writeFileString(path, "")
      return {
        record: (event: Event) => Effect.orDie(fs.writeFileString(path, `${line(event)}\n`, { flag: "a" }))
      }
    })
  )
