/**
 * The loop of seed 000: call the model; execute every tool_use of its reply; append one user
 * message with every result in call order; stop when a reply has no tool_use (`end`) or after
 * `maxTurns` model calls (`turn_cap`, a `Budget` of kind `turns`), or, with a repeated-call
 * breaker set to `stop`, after a turn with the same call made too often (`repeated_call`). The
 * harness never fixes or retries a call: the model reads what happened and decides.
 *
 * The calls of one turn run in lanes (`Tool.lane`): one lane's calls one after another in call
 * order, different lanes at the same time, so a slow MCP server does not hold up another's
 * calls. A tool's progress (`Progress.report`) is recorded as a `tool.progress` trace event
 * (and passed on to a reporter provided around the run); it never reaches the model.
 *
 * @since 0.1.0
 */
import { Budget, Deadline } from "@agent-harness/budgets"
import { type Tool, Toolset } from "@agent-harness/tool-schema"
import { type Cause, Data, type Duration, Effect, Result } from "effect"
import * as Boundary from "./Boundary.ts"
import * as Breaker from "./Breaker.ts"
import * as Execute from "./Execute.ts"
import * as Message from "./Message.ts"
import {
  type Failure,
  type FinishReason,
  IncompleteReply,
  isIncomplete,
  MalformedReply,
  Model,
  ModelError,
  type Response,
  type Usage
} from "./Model.ts"
import * as Outcome from "./Outcome.ts"
import * as Progress from "./Progress.ts"
import type * as StopReasons from "./StopReason.ts"
import * as Trace from "./Trace.ts"

/**
 * Why the loop stopped: a reply without tool calls (`end`), the turn budget spent
 * (`turn_cap`), the wall-clock budget spent before a model call (`time_budget`), or a
 * repeated-call breaker set to `stop` that tripped during the last turn (`repeated_call`).
 *
 * @since 0.1.0
 */
export type StopReason = StopReasons.StopReason

/**
 * Options of a run.
 *
 * @since 0.1.0
 */
export interface Options<T extends Tool.Any> {
  /** The tools the model may call. */
  readonly toolset: Toolset.Toolset<T>
  /** The opening messages (system prompt, user request). */
  readonly messages: ReadonlyArray<Message.Message>
  /** Model calls at most; default 10. A shorthand for `turns: Budget.turns(n)`. */
  readonly maxTurns?: number | undefined
  /** The turn budget (wins over `maxTurns`); a partly used one continues where it was. */
  readonly turns?: Budget.Budget | undefined
  /** Wall-clock time for the whole run, checked before each model call. */
  readonly timeLimit?: Duration.Input | undefined
  /**
   * How many calls of one turn without a lane (`Tool.lane`) run at once; default 1. Calls of a
   * lane (a mounted MCP server's tools: `mcp:<prefix>`) run one after another in call order,
   * and the lanes, the calls without one among them, run at the same time. Results stay in call
   * order either way.
   */
  readonly concurrency?: number | "unbounded" | undefined
  /** Per-call timeout. */
  readonly timeout?: Execute.Options["timeout"]
  /** Called with each turn's outcomes, in call order, before the model sees them. */
  readonly onTurn?: ((turn: Turn) => Effect.Effect<void>) | undefined
  /**
   * The repeated-call breaker (off by default): after `after` identical calls within `window`
   * turns, tell the model (a line appended to that call's observation) or stop after the turn
   * (`repeated_call`). It never changes or drops a call. See `Breaker`.
   */
  readonly breaker?: Breaker.Breaker | undefined
}

/**
 * One model call and what came of it.
 *
 * @since 0.1.0
 */
export interface Turn {
  /** From 1. */
  readonly turn: number
  /** The model's reply, as it came. */
  readonly reply: ReadonlyArray<Message.ReplyBlock>
  /** One per tool_use of the reply, in call order. */
  readonly outcomes: ReadonlyArray<Outcome.Outcome>
  /** The tokens the model call used, when the model reports them (`Model.respond`). */
  readonly usage?: Usage | undefined
  /** Why the reply ended, when the model reports it (`Model.respond`). */
  readonly finishReason?: FinishReason | undefined
}

/**
 * How a run ended.
 *
 * @since 0.1.0
 */
export interface RunResult {
  /** Why the loop stopped. */
  readonly stop: StopReason
  /** The final reply's text (`end`), or `undefined` otherwise (`turn_cap`, `repeated_call`...). */
  readonly text: string | undefined
  /** The whole history, opening messages included. */
  readonly messages: ReadonlyArray<Message.Message>
  /** Every model call and what came of it, in order. */
  readonly turns: ReadonlyArray<Turn>
  /** The turn budget at the end. */
  readonly budget: Budget.Budget
}

/**
 * The default turn cap.
 *
 * @since 0.1.0
 */
export const defaultMaxTurns = 10

const InvalidOptionBase: new (args: {
  readonly option: string
  readonly problem: string
}) => Cause.YieldableError & {
  readonly _tag: "InvalidOption"
  /** The option's name, as `Options` spells it. */
  readonly option: string
  /** What is wrong with it, and what was given. */
  readonly problem: string
} = Data.TaggedError("InvalidOption")

/**
 * An option of `Loop.run` is invalid (`maxTurns: -1`, `timeout: "banana"`, `concurrency: 0`, a
 * message that is not one...): the run fails with it before the model is called.
 *
 * @since 0.1.0
 */
export class InvalidOption extends InvalidOptionBase {
  /** `Loop.run: option '<option>' <problem>`. */
  override get message(): string {
    return `Loop.run: option '${this.option}' ${this.problem}`
  }
}

/**
 * A call to the model: a throw or a defect, a failure that is not a `Failure`, and a reply that
 * is not a list of blocks all become a typed `ModelError` naming the turn; a trace sees the
 * failure first.
 */
const callModel = <A>(
  turn: number,
  call: () => Effect.Effect<A, Failure>,
  record: (event: Trace.Event) => Effect.Effect<void>
): Effect.Effect<A, ModelError> =>
  Effect.suspend(() => {
    const out: unknown = call()
    return Effect.isEffect(out)
      ? (out as Effect.Effect<A, Failure>)
      : Effect.die(new TypeError(`the model answered ${Boundary.show(out)} instead of an Effect`))
  }).pipe(
    Effect.catchDefect((defect) => Effect.fail(Boundary.defectOf(defect))),
    Effect.mapError(Boundary.failureOf),
    Effect.tapError((reason) => record({ type: "model.failed", turn, message: reason.message })),
    Effect.mapError((reason) => new ModelError({ turn, reason }))
  )

/** A trace event's token counts: the ones the model reported, in snake_case. */
const usageEvent = (turn: number, usage: Usage): Trace.Event => {
  const count = (n: number | undefined) => (typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : undefined)
  const fields: Record<string, number> = {}
  const put = (key: string, n: number | undefined) => {
    const value = count(n)
    if (value !== undefined) fields[key] = value
  }
  put("input_tokens", usage.inputTokens)
  put("output_tokens", usage.outputTokens)
  put("reasoning_tokens", usage.reasoningTokens)
  put("cache_read_tokens", usage.cacheReadTokens)
  put("cache_write_tokens", usage.cacheWriteTokens)
  return { type: "model.usage", turn, ...fields }
}

/** A tool's lane, read without trusting the tool (a throwing getter means no lane). */
const laneOf = (tool: Tool.Any | undefined): string | undefined => {
  try {
    const lane: unknown = tool?.lane
    return typeof lane === "string" ? lane : undefined
  } catch {
    return undefined
  }
}

/**
 * The calls of one turn grouped by lane, each group in call order, as indices into `calls`;
 * the calls without a lane (or of an unknown tool) are the group of `undefined`.
 */
const lanesOf = <T extends Tool.Any>(
  toolset: Toolset.Toolset<T>,
  calls: ReadonlyArray<Message.ToolUseBlock>
): Map<string | undefined, Array<number>> => {
  const lanes = new Map<string | undefined, Array<number>>()
  calls.forEach((call, index) => {
    const lane = laneOf(Toolset.get(toolset, call.name))
    const group = lanes.get(lane)
    if (group === undefined) lanes.set(lane, [index])
    else group.push(index)
  })
  return lanes
}

/**
 * The reporter of one turn: each update recorded as a `tool.progress` event naming the call's
 * tool, then passed on to the reporter the run was given (when it was given one).
 */
const turnReporter =
  (
    turn: number,
    calls: ReadonlyArray<Message.ToolUseBlock>,
    record: (event: Trace.Event) => Effect.Effect<void>,
    outer: Progress.Reporter
  ): Progress.Reporter =>
  (id, update) => {
    const name = calls.find((call) => call.id === id)?.name
    const event: Trace.Event = {
      type: "tool.progress",
      turn,
      tool_use_id: id,
      ...(name === undefined ? {} : { name }),
      progress: update.progress,
      ...(update.total === undefined ? {} : { total: update.total }),
      ...(update.message === undefined ? {} : { message: update.message })
    }
    return outer === Progress.none ? record(event) : Effect.andThen(record(event), outer(id, update))
  }

/**
 * Runs the loop. Fails with `InvalidOption` before anything runs when an option is invalid, and
 * otherwise only with a `ModelError` (a failure that belongs to no tool call: the model failed
 * or died, its reply is not a list of text, tool_use and reasoning blocks with ids, or it did
 * not finish: `IncompleteReply`).
 *
 * @example
 * ```ts
 * import { Effect, Layer, Schema } from "effect"
 * import { Loop, Message, Model } from "@agent-harness/executor"
 * import { Tool, Toolset } from "@agent-harness/tool-schema"
 *
 * const Weather = Tool.make("weather", {
 *   description: "Today's weather in a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   run: ({ city }) => Effect.succeed(`sunny in ${city}`)
 * })
 * // A real model (AiSdkModel.layer) or a scripted one (ScriptedModel.layer).
 * declare const model: Layer.Layer<Model.Model>
 *
 * const program = Effect.gen(function* () {
 *   const result = yield* Loop.run({
 *     toolset: Toolset.make(Weather),
 *     messages: [Message.user("Weather in Sevilla?")],
 *     maxTurns: 5
 *   })
 *   // result.stop: "end" | "turn_cap" | "time_budget" | "repeated_call"; result.messages: the history
 *   return result.text
 * }).pipe(Effect.provide(model))
 * ```
 *
 * @since 0.1.0
 */
export const run = <T extends Tool.Any>(
  options: Options<T>
): Effect.Effect<RunResult, ModelError | InvalidOption, Model | Tool.Services<T>> =>
  Effect.gen(function* () {
    const invalid = Boundary.optionProblem(options)
    if (invalid !== undefined) return yield* new InvalidOption(invalid)
    const model = yield* Model
    const trace = yield* Effect.service(Trace.Trace)
    const record = (event: Trace.Event) => Trace.recordOn(trace, event)
    let budget = options.turns ?? Budget.turns(options.maxTurns ?? defaultMaxTurns)
    const deadline = options.timeLimit === undefined ? undefined : yield* Deadline.start(options.timeLimit)
    const concurrency = options.concurrency ?? 1
    const executeOptions: Execute.Options = { timeout: options.timeout }
    const harness = yield* Execute.harness
    const direct =
      concurrency === 1 && options.timeout === undefined && (yield* Effect.service(Execute.Middleware)) === undefined
    // Lanes are looked for only when some tool has one (a toolset of local tools pays nothing).
    const laned = options.toolset.tools.some((tool) => laneOf(tool) !== undefined)
    const outerReporter = yield* Progress.Reporter
    const messages: Array<Message.Message> = [...options.messages]
    const turns: Array<Turn> = []
    const breaker = options.breaker
    const watch = breaker === undefined ? undefined : Breaker.watch(breaker, harness.catalog)
    yield* record({
      type: "start",
      messages: options.messages,
      max_turns: budget.limit - budget.used,
      tools: options.toolset.tools.map((tool) => tool.name),
      ...(breaker === undefined
        ? {}
        : { breaker: { after: breaker.after, window: breaker.window, action: breaker.action } })
    })
    const finish = (stop: StopReason, text: string | undefined) =>
      Effect.andThen(
        record({ type: "stop", stop, ...(text === undefined ? {} : { text }), turns: turns.length }),
        Effect.as(
          model.complete === undefined
            ? Effect.void
            : callModel(
                Math.max(turns.length, 1),
                () => (model.complete as NonNullable<typeof model.complete>)(messages),
                () => Effect.void
              ),
          { stop, text, messages, turns, budget }
        )
      )
    while (true) {
      const spent = Budget.spend(budget, 1)
      if (Result.isFailure(spent)) return yield* finish("turn_cap", undefined)
      if (deadline !== undefined && Result.isFailure(yield* Effect.result(Deadline.check(deadline)))) {
        return yield* finish("time_budget", undefined)
      }
      budget = spent.success
      const turn = turns.length + 1
      yield* record({ type: "model.request", turn, messages: messages.length })
      const request = { messages: [...messages], toolset: options.toolset, turn }
      let reply: ReadonlyArray<Message.ReplyBlock>
      let about: Omit<Response, "content"> = {}
      if (model.respond === undefined) {
        reply = yield* callModel(turn, () => model.reply(request), record)
      } else {
        const respond = model.respond
        const response = Boundary.readResponse(yield* callModel(turn, () => respond(request), record))
        if (typeof response === "string") {
          yield* record({ type: "model.failed", turn, message: response })
          return yield* new ModelError({ turn, reason: new MalformedReply({ message: response }) })
        }
        reply = response.content
        about = response
        if (about.usage !== undefined) yield* record(usageEvent(turn, about.usage))
        const finishReason = about.finishReason
        if (finishReason !== undefined && isIncomplete(finishReason)) {
          const reason = new IncompleteReply({ finishReason })
          yield* record({ type: "model.failed", turn, message: reason.message })
          return yield* new ModelError({ turn, reason })
        }
      }
      const malformed = Boundary.replyProblem(reply)
      if (malformed !== undefined) {
        yield* record({ type: "model.failed", turn, message: malformed })
        return yield* new ModelError({ turn, reason: new MalformedReply({ message: malformed }) })
      }
      const { usage, finishReason, rawFinishReason } = about
      yield* record({
        type: "model.reply",
        turn,
        reply,
        ...(finishReason === undefined ? {} : { finish_reason: finishReason }),
        ...(rawFinishReason === undefined ? {} : { raw_finish_reason: rawFinishReason })
      })
      messages.push(Message.assistant(reply))
      const seen = {
        ...(usage === undefined ? {} : { usage }),
        ...(finishReason === undefined ? {} : { finishReason })
      }
      const calls = Message.toolUses(reply)
      if (calls.length === 0) {
        turns.push({ turn, reply, outcomes: [], ...seen })
        return yield* finish("end", Message.replyText(reply))
      }
      let outcomes: ReadonlyArray<Outcome.Outcome>
      const lanes = laned ? lanesOf(options.toolset, calls) : undefined
      const withProgress =
        trace === Trace.none
          ? <A>(effect: Effect.Effect<A, never, Tool.Services<T>>) => effect
          : <A>(effect: Effect.Effect<A, never, Tool.Services<T>>) =>
              Effect.provideService(effect, Progress.Reporter, turnReporter(turn, calls, record, outerReporter))
      const one = (call: Message.ToolUseBlock) =>
        Effect.andThen(record({ type: "call", turn, call }), Execute.execute(options.toolset, call, executeOptions))
      if (lanes !== undefined && lanes.size > 1) {
        // Lanes side by side; in each, its calls in call order (the calls without a lane as
        // `concurrency` says); every outcome put back at its call's place.
        const done: Array<Outcome.Outcome> = new Array(calls.length)
        yield* withProgress(
          Effect.forEach(
            [...lanes],
            ([lane, indices]) =>
              Effect.forEach(
                indices,
                (index) =>
                  Effect.map(one(calls[index] as Message.ToolUseBlock), (outcome) => {
                    done[index] = outcome
                  }),
                { concurrency: lane === undefined ? concurrency : 1, discard: true }
              ),
            { concurrency: "unbounded", discard: true }
          )
        )
        outcomes = done
      } else if (lanes !== undefined && !lanes.has(undefined)) {
        // One lane: its calls one after another.
        outcomes = yield* withProgress(Effect.forEach(calls, one, { concurrency: 1 }))
      } else if (direct) {
        // One call at a time, nothing around `execute`: its synchronous core, without an Effect
        // per call (a tool that returns an Effect or a promise is finished in this fiber).
        const done: Array<Outcome.Outcome> = []
        for (const call of calls) {
          if (trace !== Trace.none) yield* record({ type: "call", turn, call })
          const now = Execute.executeSync(options.toolset, call, harness)
          done.push(Effect.isEffect(now) ? yield* withProgress(now) : now)
        }
        outcomes = done
      } else {
        outcomes = yield* withProgress(Effect.forEach(calls, one, { concurrency }))
      }
      const checked = watch === undefined ? undefined : watch.check(turn, calls, outcomes)
      if (checked !== undefined) outcomes = checked.outcomes
      if (trace !== Trace.none) {
        const trips = checked?.trips ?? []
        let next = 0
        for (const [index, outcome] of outcomes.entries()) {
          yield* record(Trace.observation(turn, outcome))
          const trip = trips[next]
          if (breaker !== undefined && trip !== undefined && trip.index === index) {
            next++
            yield* record({
              type: "breaker",
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
      }
      const current: Turn = { turn, reply, outcomes, ...seen }
      turns.push(current)
      if (options.onTurn !== undefined) yield* options.onTurn(current)
      messages.push(Message.user(outcomes.map(Outcome.toToolResult)))
      if (breaker?.action === "stop" && checked !== undefined && checked.trips.length > 0) {
        return yield* finish("repeated_call", undefined)
      }
    }
  })
