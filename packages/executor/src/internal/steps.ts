/**
 * The steps of the loop (`Loop.run`), each a small function: the `start` event (`startEvent`),
 * call the model and check its reply (`ask`), run a turn's calls and record what they came to
 * (`act`, through `Execute.executeAll`), tell the model the run is over (`complete`).
 *
 * @internal
 */
import type { Budget } from "@agent-harness/budgets"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { Effect } from "effect"
import * as Boundary from "../Boundary.ts"
import type * as Breaker from "../Breaker.ts"
import * as Execute from "../Execute.ts"
import type * as Message from "../Message.ts"
import * as Model from "../Model.ts"
import {
  type Failure,
  guard,
  IncompleteReply,
  isIncomplete,
  MalformedReply,
  ModelError,
  type Request,
  type Response,
  type Shape
} from "../Model.ts"
import type * as Outcome from "../Outcome.ts"
import * as Progress from "../Progress.ts"
import * as ReplyPart from "../ReplyPart.ts"
import * as Trace from "../Trace.ts"

/** Records a trace event (never fails). */
export type Recorder = (event: Trace.Event) => Effect.Effect<void>

/**
 * A call to the model: a throw or a defect, a failure that is not a `Failure`, and a reply that
 * is not a list of blocks all become a typed `ModelError` naming the turn; a trace sees the
 * failure first.
 */
export const callModel = <A>(
  turn: number,
  call: () => Effect.Effect<A, Failure>,
  record: Recorder
): Effect.Effect<A, ModelError> =>
  guard(call).pipe(
    Effect.tapError((reason) => record({ type: "model.failed", turn, message: reason.message })),
    Effect.mapError((reason) => new ModelError({ turn, reason }))
  )

/**
 * The reporter of one turn: each update recorded as a `call.progressed` event naming the call's
 * tool, then passed on to the reporter the run was given (when it was given one).
 */
export const turnReporter =
  (
    turn: number,
    calls: ReadonlyArray<Message.ToolUseBlock>,
    record: Recorder,
    outer: Progress.Reporter
  ): Progress.Reporter =>
  (id, update) => {
    const name = calls.find((call) => call.id === id)?.name
    const event: Trace.Event = {
      type: "call.progressed",
      turn,
      tool_use_id: id,
      ...(name === undefined ? {} : { name }),
      progress: update.progress,
      ...(update.total === undefined ? {} : { total: update.total }),
      ...(update.message === undefined ? {} : { message: update.message })
    }
    return outer === Progress.none ? record(event) : Effect.andThen(record(event), outer(id, update))
  }

/** A checked reply: its blocks, and what the model said about it (usage, finish reason). */
export interface Asked {
  /** The reply's blocks, checked (`Boundary.replyProblem`). */
  readonly reply: ReadonlyArray<Message.ReplyBlock>
  /** Its usage and finish reason, when the model reports them (`Model.respond`). */
  readonly about: Omit<Response, "content">
}

/**
 * One model call and its checks: `respond` (its usage recorded, an incomplete finish a
 * `ModelError`); a reply that is not a list of blocks is a `ModelError` (`MalformedReply`); a
 * good one is recorded as `model.replied`.
 */
export const ask = (
  model: Shape,
  request: Request & { readonly turn: number },
  record: Recorder
): Effect.Effect<Asked, ModelError> =>
  Effect.flatMap(
    callModel(request.turn, () => model.respond(request), record),
    (response) => checkResponse(request.turn, response, record, false)
  )

/** What a streamed turn shows as it comes: its text and reasoning, its calls as they are written. */
export interface Shown {
  readonly text: (text: string) => Effect.Effect<void>
  readonly reasoning: (text: string) => Effect.Effect<void>
  readonly drafted: (id: string, name: string) => Effect.Effect<void>
  readonly argued: (id: string, delta: string) => Effect.Effect<void>
}

/**
 * One model call streamed (`Model.partsOf`): each part shown as it comes (`shown`) and folded
 * (`fold`, whose `text` is what was written so far, for an interrupted turn); the folded
 * response then checked as `ask` checks a whole one, and recorded with `streamed: true`. A stream
 * that fails, or ends with a call still open, is a `ModelError` and nothing of it runs.
 */
export const askStreamed = (
  model: Shape,
  request: Request & { readonly turn: number },
  record: Recorder,
  shown: Shown,
  fold: ReplyPart.Folder
): Effect.Effect<Asked, ModelError> => {
  const turn = request.turn
  const show = (part: ReplyPart.Part): Effect.Effect<void> => {
    switch (part.type) {
      case "text-delta":
        return part.text === "" ? Effect.void : shown.text(part.text)
      case "reasoning-delta":
        return part.text === "" ? Effect.void : shown.reasoning(part.text)
      case "call-started":
        return shown.drafted(part.id, part.name)
      case "call-delta":
        return shown.argued(part.id, part.delta)
      default:
        return Effect.void
    }
  }
  const folded: Effect.Effect<Response, Failure> = ReplyPart.foldInto(Model.partsOf(model, request), fold, show)
  return Effect.flatMap(
    callModel(turn, () => folded, record),
    (response) => checkResponse(turn, response, record, true)
  )
}

/** The checks of a reply, whole or folded from a stream, and its `model.replied` event. */
const checkResponse = (
  turn: number,
  answered: unknown,
  record: Recorder,
  streamed: boolean
): Effect.Effect<Asked, ModelError> =>
  Effect.gen(function* () {
    const response = Boundary.readResponse(answered)
    if (typeof response === "string") {
      yield* record({ type: "model.failed", turn, message: response })
      return yield* new ModelError({ turn, reason: new MalformedReply({ message: response }) })
    }
    const { content: reply, ...about } = response
    if (about.usage !== undefined) yield* record(Trace.usageEvent(turn, about.usage))
    const finishReason = about.finishReason
    if (finishReason !== undefined && isIncomplete(finishReason)) {
      const reason = new IncompleteReply({ finishReason })
      yield* record({ type: "model.failed", turn, message: reason.message })
      return yield* new ModelError({ turn, reason })
    }
    const malformed = Boundary.replyProblem(reply)
    if (malformed !== undefined) {
      yield* record({ type: "model.failed", turn, message: malformed })
      return yield* new ModelError({ turn, reason: new MalformedReply({ message: malformed }) })
    }
    const { rawFinishReason } = about
    yield* record({
      type: "model.replied",
      turn,
      reply,
      ...(finishReason === undefined ? {} : { finish_reason: finishReason }),
      ...(rawFinishReason === undefined ? {} : { raw_finish_reason: rawFinishReason }),
      ...(streamed ? { streamed: true as const } : {})
    })
    return { reply, about }
  })

/**
 * Records what a turn's calls came to, in call order: a `call.answered` per outcome, each
 * followed by the `breaker.tripped` event of the trip at its call (if any).
 */
export const observe = (
  turn: number,
  outcomes: ReadonlyArray<Outcome.Outcome>,
  trips: ReadonlyArray<Breaker.Trip>,
  breaker: Breaker.Breaker | undefined,
  record: Recorder,
  observations = true
): Effect.Effect<void> =>
  Effect.gen(function* () {
    let next = 0
    for (const [index, outcome] of outcomes.entries()) {
      if (observations) yield* record(Trace.observation(turn, outcome))
      const trip = trips[next]
      if (breaker !== undefined && trip !== undefined && trip.index === index) {
        next++
        yield* record({
          type: "breaker.tripped",
          turn,
          tool_use_id: trip.id,
          name: trip.name,
          count: trip.count,
          after: breaker.after,
          window: breaker.window,
          action: breaker.action
        })
      }
    }
  })

/** The `run.started` event of a run: its opening messages, its turns left, its tools, its breaker. */
export const startEvent = (
  messages: ReadonlyArray<Message.Message>,
  budget: Budget.Budget,
  toolset: Toolset.Toolset<Tool.Any>,
  breaker: Breaker.Breaker | undefined
): Trace.Event => ({
  type: "run.started",
  messages,
  max_turns: budget.limit - budget.used,
  tools: toolset.tools.map((tool) => tool.name),
  ...(breaker === undefined
    ? {}
    : { breaker: { after: breaker.after, window: breaker.window, action: breaker.action } })
})

/** Tells the model the run is over (`complete`, when it has it); a failure there fails the run. */
export const complete = (
  model: Shape,
  turn: number,
  messages: ReadonlyArray<Message.Message>
): Effect.Effect<void, ModelError> => {
  if (model.complete === undefined) return Effect.void
  return callModel(
    turn,
    () => (model.complete as NonNullable<Shape["complete"]>)(messages),
    () => Effect.void
  )
}

/** What a turn's calls run with. */
export interface ActOptions {
  /** The options of every call (timeout, concurrency). */
  readonly executeOptions: Execute.AllOptions
  /** The trace in use: `Trace.none` records nothing, and no call or progress event is made. */
  readonly trace: Trace.Trace
  /** Spans are read: a breaker trip is recorded (a span event) even when the trace is `none`. */
  readonly spanEvents?: boolean | undefined
  /** Records on that trace. */
  readonly record: Recorder
  /** The reporter the run was given, passed each progress update after the trace. */
  readonly reporter: Progress.Reporter
  /** The repeated-call breaker's watch, when the run has one. */
  readonly watch: Breaker.Watch | undefined
  /** The breaker itself, for its trace events. */
  readonly breaker: Breaker.Breaker | undefined
  /** Told of each call as it starts and of every outcome after the trace (a streamed run's events). */
  readonly told?:
    | {
        readonly started: (call: Message.ToolUseBlock) => Effect.Effect<void>
        readonly answered: (outcome: Outcome.Outcome) => Effect.Effect<void>
      }
    | undefined
}

/**
 * A turn's calls: run (`Execute.executeAll`, each recorded as `call` before it runs), checked
 * by the breaker, recorded (`observe`). Their outcomes in call order, and whether the breaker
 * tripped.
 */
export const act = <T extends Tool.Any>(
  toolset: Toolset.Toolset<T>,
  turn: number,
  calls: ReadonlyArray<Message.ToolUseBlock>,
  options: ActOptions
): Effect.Effect<
  { readonly outcomes: ReadonlyArray<Outcome.Outcome>; readonly tripped: boolean },
  never,
  Tool.Services<T>
> =>
  Effect.gen(function* () {
    const { trace, record, watch, breaker, told } = options
    const traced = trace !== Trace.none
    const onCall =
      told === undefined
        ? (call: Message.ToolUseBlock) => record(Trace.callStarted(turn, call))
        : (call: Message.ToolUseBlock) => Effect.andThen(record(Trace.callStarted(turn, call)), told.started(call))
    const ran = yield* Execute.executeAll(toolset, calls, {
      ...options.executeOptions,
      ...(traced || told !== undefined ? { onCall } : {}),
      ...(traced ? { reporter: turnReporter(turn, calls, record, options.reporter) } : {})
    })
    const checked = watch === undefined ? undefined : watch.check(turn, calls, ran)
    const outcomes = checked === undefined ? ran : checked.outcomes
    const trips = checked?.trips ?? []
    if (traced) yield* observe(turn, outcomes, trips, breaker, record)
    else if (options.spanEvents === true && trips.length > 0)
      yield* observe(turn, outcomes, trips, breaker, record, false)
    if (told !== undefined) yield* Effect.forEach(outcomes, told.answered, { discard: true })
    return { outcomes, tripped: checked !== undefined && checked.trips.length > 0 }
  })
