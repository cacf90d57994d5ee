/**
 * A plan session in the trace (`Trace` of the executor, the loop's own): the events the
 * planner declares there — `session.started`, every `Event`, `session.recorded` — and how the
 * session records them. Internal: `SessionTrace` is its public face; `Session.run` records
 * through it.
 */
import { Trace } from "@agent-harness/executor"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { Effect, Schema, Struct } from "effect"
import * as Event from "../Event.ts"
import * as SessionResult from "../SessionResult.ts"
import type * as Step from "../Step.ts"

/** The event that opens a session: its goal, budgets, strategy and tools. */
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

/** A `SessionResult` without its events (in a trace they are the lines above it). */
export const Recorded: Schema.Struct<Omit<(typeof SessionResult.SessionResult)["fields"], "events">> =
  SessionResult.SessionResult.mapFields(Struct.omit(["events"]))

/** The event that closes a session: its result. */
export const Finish: Schema.Struct<{
  readonly type: Schema.Literal<"session.recorded">
  readonly result: typeof Recorded
}> = Schema.Struct({ type: Schema.Literal("session.recorded"), result: Recorded })

/** The `session.started` fields of a session run with these options. */
export const startOf = (options: {
  readonly goal: string
  readonly maxSteps: number
  readonly maxReplans: number
  readonly onFailure?: "replan" | "skip" | "abort" | undefined
  readonly toolset?: Toolset.Toolset<Tool.Any> | undefined
}): Omit<typeof Start.Type, "type"> => ({
  goal: options.goal,
  max_steps: options.maxSteps,
  max_replans: options.maxReplans,
  on_failure: options.onFailure ?? "replan",
  ...(options.toolset === undefined ? {} : { tools: options.toolset.tools.map((tool) => tool.name) })
})

const started = Trace.declare(Start)
const finished = Trace.declare(Finish)
const declared = new Map(Event.Event.members.map((member) => [member.fields.type.literal, Trace.declare(member)]))

/** A step with every argument as a trace line holds it (`Trace.encodable`). */
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

/** The trace entry of `session.started` (the `~unencodable` note when it does not fit `Start`). */
export const startEntry = (start: Omit<typeof Start.Type, "type">): Trace.Entry =>
  started.entry({ ...start, type: "session.started" })

/** The trace entry of one session event. Never throws. */
export const eventEntry = (event: Event.Event): Trace.Entry => {
  const kind = declared.get(event.type)
  if (kind === undefined) return event
  try {
    return kind.entry(holdable(event))
  } catch (error) {
    return Trace.unencodableNote(event, error)
  }
}

/** The trace entry of `session.recorded`: the result without its events. Never throws. */
export const resultEntry = (result: SessionResult.SessionResult): Trace.Entry => {
  try {
    const { events: _events, ...rest } = result
    return finished.entry({ type: "session.recorded", result: { ...rest, history: rest.history.map(holdableStep) } })
  } catch (error) {
    return Trace.unencodableNote({ type: "session.recorded", result }, error)
  }
}

/** Records one entry on the current trace (made only when a trace is provided); never fails. */
export const record = (entry: () => Trace.Entry): Effect.Effect<void> =>
  Effect.flatMap(Effect.service(Trace.Trace), (trace) =>
    trace === Trace.none ? Effect.void : Trace.recordOn(trace, entry())
  )
