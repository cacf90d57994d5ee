/**
 * The loop of the errors-as-observations idea: call the model; execute every tool_use of its reply; append one user
 * message with every result in call order; stop when a reply has no tool_use (`end`) or after
 * `maxTurns` model calls (`turn_cap`, a `Budget` of kind `turns`), or, with a repeated-call
 * breaker set to `stop`, after a turn with the same call made too often (`repeated_call`). The
 * harness never fixes or retries a call: the model reads what happened and decides.
 *
 * The calls of one turn run in lanes (`Tool.lane`): one lane's calls one after another in call
 * order, different lanes at the same time, so a slow MCP server does not hold up another's
 * calls. A tool's progress (`Progress.report`) is recorded as a `call.progressed` trace event
 * (and passed on to a reporter provided around the run); it never reaches the model.
 *
 * Before each model call, in this order: the `compact` hook may replace the history (or stop the
 * run with `context_window`), then a `spend` reserves the call's worst case (or stops the run
 * with `token_budget` / `cost_budget`, the call not made); after the call the reported usage
 * settles it (`Spending`).
 *
 * `Loop.stream` is the same loop as a `Stream` of events (`Event`): each reply's text and
 * reasoning as it is written, each call as the model writes it, starts and is answered, each
 * turn's and the run's end. A call runs only once its block is complete (`ReplyPart`); a stream
 * that fails or ends inside a call fails the run with a `ModelError` and none of that turn's
 * calls run. `Loop.run` is the same loop with nothing shown, and `fold(stream(options))` gives
 * what `run(options)` gives, with the same trace (a streamed reply's `model.replied` says
 * `streamed: true`).
 *
 * @since 0.1.0
 */
import type { Budget, Spend, SpendMeter } from "@agent-harness/budgets"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { type Cause, Data, type Duration, Effect, Queue, Stream } from "effect"
import type * as Breaker from "./Breaker.ts"
import * as Drive from "./internal/drive.ts"
import type * as Execute from "./Execute.ts"
import type * as Message from "./Message.ts"
import type { Failure, FinishReason, Model, ModelError, Usage } from "./Model.ts"
import type * as Outcome from "./Outcome.ts"
import type * as StopReasons from "./StopReason.ts"

/**
 * Why the loop stopped: a reply without tool calls (`end`), the turn budget spent
 * (`turn_cap`), the wall-clock budget spent before a model call (`time_budget`), a model call
 * refused because its worst case did not fit the `spend` (`token_budget`, `cost_budget`), a
 * history the `compact` hook could not fit (`context_window`), a repeated-call breaker set to
 * `stop` that tripped during the last turn (`repeated_call`), or the `interrupt` option
 * (`interrupted`).
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
   * Tokens and money (`Spend.make(limits, { price })`; a partly spent one continues where it
   * was): before each model call its worst case is reserved (`Spending.requestTokens` of the
   * request and `maxOutputTokens`, at the dearest prices) and the call is refused, the run
   * stopping with `token_budget` or `cost_budget`, when that does not fit; after it the reported
   * usage settles the reservation (an unreported one spends it whole). A `SpendMeter` instead
   * shares its limits with whatever else draws from it (a session's planner, the run that
   * started this one as a sub-agent, the compaction hook's summarizer).
   */
  readonly spend?: Spend.Spend | SpendMeter.SpendMeter | undefined
  /**
   * The most output tokens one reply may have: the output side of a call's worst case (default:
   * the model's own `maxOutputTokens`). Needed with a limited `spend`.
   */
  readonly maxOutputTokens?: number | undefined
  /**
   * Compaction (`Compactor.make` of @agent-harness/compaction, or your own): called once before
   * each model call with the history about to be sent; the history it gives (`Compacted`) is
   * sent, and kept, instead; `TooLarge` stops the run with `context_window` instead of sending a
   * request the provider would refuse. It must keep every `tool_use` with its one `tool_result`.
   */
  readonly compact?: Compact | undefined
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
  /**
   * Stops the run when it completes (`Deferred.await(d)`, a signal's Effect): the model call
   * in hand is cut off (its text so far is the result's `text`), no call starts after it (a
   * call of the turn in hand that had not started is answered `not executed`, so every call
   * keeps its one result), and the run ends with `interrupted`. Interrupting the run's fiber
   * instead ends it too, with the trace's `run.ended` saying `interrupted`.
   */
  readonly interrupt?: Effect.Effect<void> | undefined
}

/**
 * What a compaction hook is given before a model call: the history about to be sent, the turn,
 * and the input tokens the provider reported for the previous call (to calibrate an estimate).
 *
 * @since 0.2.0
 */
export interface CompactRequest {
  /** The history about to be sent. */
  readonly messages: ReadonlyArray<Message.Message>
  /** The model call about to be made, from 1. */
  readonly turn: number
  /** The input tokens the provider reported for the previous call, when it did. */
  readonly reportedInputTokens?: number | undefined
  /** The history that previous call was sent, when there was one. */
  readonly previousMessages?: ReadonlyArray<Message.Message> | undefined
  /** The run's spend, when it has one: a summarizer's model call draws from it. */
  readonly spend?: SpendMeter.SpendMeter | undefined
}

/**
 * What a compaction hook decides: keep the history, send a compacted one, stop the run
 * (`context_window`) because it cannot fit the window, or stop it (`token_budget`,
 * `cost_budget`) because a summarizer's call did not fit the spend.
 *
 * @since 0.2.0
 */
export type Compacting =
  | { readonly _tag: "Kept" }
  | { readonly _tag: "Compacted"; readonly messages: ReadonlyArray<Message.Message> }
  | { readonly _tag: "TooLarge"; readonly message: string }
  | { readonly _tag: "OverBudget"; readonly exhausted: Spend.Exhausted }

/**
 * A compaction hook (`Options.compact`). It fails only when a model call of its own (a
 * summarizer's) failed: the run then fails with that `ModelError` at the turn it was for.
 *
 * @since 0.2.0
 */
export type Compact = (request: CompactRequest) => Effect.Effect<Compacting, Failure>

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
  /**
   * The final reply's text (`end`); for `interrupted`, the text the cut-off reply had written
   * so far (streamed only); `undefined` otherwise (`turn_cap`, `repeated_call`...).
   */
  readonly text: string | undefined
  /** The whole history, opening messages included. */
  readonly messages: ReadonlyArray<Message.Message>
  /** Every model call and what came of it, in order. */
  readonly turns: ReadonlyArray<Turn>
  /** The turn budget at the end. */
  readonly budget: Budget.Budget
  /** The tokens and money spent, when the run was given a `spend` (a meter's: all it holds, not only this run's). */
  readonly spend?: Spend.Spend | undefined
}

/**
 * The default turn cap.
 *
 * @since 0.1.0
 */
export const defaultMaxTurns: number = Drive.defaultMaxTurns

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
 *   // result.stop: "end" | "turn_cap" | "time_budget" | "token_budget" | ...; result.messages: the history
 *   return result.text
 * }).pipe(Effect.provide(model))
 * ```
 *
 * @since 0.1.0
 */
export const run = <T extends Tool.Any>(
  options: Options<T>
): Effect.Effect<RunResult, ModelError | InvalidOption, Model | Tool.Services<T>> =>
  Drive.drive(options, undefined, (problem) => new InvalidOption(problem))

/**
 * What a streamed run shows, in order: a turn starts (`turn.started`); its text and reasoning
 * as they are written (`text.delta`, `reasoning.delta`); a call as the model writes it
 * (`call.drafted`, then its arguments' pieces, `call.delta`: not run, not even complete); once
 * the reply is complete and checked, each call as it starts (`call.started`) and what it came
 * to (`call.answered`, in call order, the observation the model reads); the turn's end
 * (`turn.ended`, the same `Turn` `onTurn` sees); the run's end (`run.ended`, the `RunResult`).
 *
 * @since 0.2.0
 */
export type Event =
  | { readonly type: "turn.started"; readonly turn: number }
  | { readonly type: "text.delta"; readonly turn: number; readonly text: string }
  | { readonly type: "reasoning.delta"; readonly turn: number; readonly text: string }
  | { readonly type: "call.drafted"; readonly turn: number; readonly tool_use_id: string; readonly name: string }
  | { readonly type: "call.delta"; readonly turn: number; readonly tool_use_id: string; readonly delta: string }
  | { readonly type: "call.started"; readonly turn: number; readonly call: Message.ToolUseBlock }
  | { readonly type: "call.answered"; readonly turn: number; readonly outcome: Outcome.Outcome }
  | { readonly type: "turn.ended"; readonly turn: Turn }
  | { readonly type: "run.ended"; readonly result: RunResult }

/**
 * The loop as a `Stream` of its events (`Event`), each model call streamed (`Model.partsOf`:
 * a model's `stream`, or its whole reply at once when it has none). The stream fails as `run`
 * does (`InvalidOption` before anything runs, otherwise a `ModelError`); its last event is
 * `run.ended` with the result. Stopping the stream (interrupting its consumer) stops the run:
 * no call starts after it. Non-Effect code reads it with `Stream.toAsyncIterable`.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Loop, Message } from "@agent-harness/executor"
 * import { Toolset } from "@agent-harness/tool-schema"
 *
 * const shown = Loop.stream({ toolset: Toolset.make(), messages: [Message.user("Hello")] }).pipe(
 *   Stream.runForEach((event) =>
 *     event.type === "text.delta" ? Effect.sync(() => process.stdout.write(event.text)) : Effect.void
 *   )
 * )
 * ```
 *
 * @since 0.2.0
 */
export const stream = <T extends Tool.Any>(
  options: Options<T>
): Stream.Stream<Event, ModelError | InvalidOption, Model | Tool.Services<T>> =>
  Stream.callback<Event, ModelError | InvalidOption, Model | Tool.Services<T>>(
    (queue) =>
      Effect.matchCauseEffect(
        Drive.drive(
          options,
          (event) => Effect.asVoid(Queue.offer(queue, event)),
          (problem) => new InvalidOption(problem)
        ),
        {
          onSuccess: () => Queue.end(queue),
          onFailure: (cause) => Queue.failCause(queue, cause)
        }
      ),
    { bufferSize: eventBuffer, strategy: "suspend" }
  )

/**
 * How many events `stream` holds before the run waits for its reader (a slow terminal slows
 * the run instead of growing memory).
 *
 * @since 0.2.0
 */
export const eventBuffer = 1024

const NoResultBase: new (args: {
  readonly events: number
}) => Cause.YieldableError & { readonly _tag: "NoResult"; readonly events: number } = Data.TaggedError("NoResult")

/**
 * A stream of loop events that ended without its `run.ended` event (it was cut short with
 * `Stream.take`, or is not a loop's stream): there is no result to give. `events` is how many
 * events it had.
 *
 * @since 0.2.0
 */
export class NoResult extends NoResultBase {
  /** What went wrong. */
  override get message(): string {
    return `Loop.fold: the stream ended after ${this.events} events without its run.ended event`
  }
}

/**
 * A stream of loop events folded into the run's result (its `run.ended` event's); `NoResult`
 * when it has none. `fold(stream(options))` gives what `run(options)` gives.
 *
 * @since 0.2.0
 */
export const fold = <E, R>(events: Stream.Stream<Event, E, R>): Effect.Effect<RunResult, E | NoResult, R> =>
  Effect.flatMap(
    Stream.runFold(
      events,
      () => ({ count: 0, result: undefined as RunResult | undefined }),
      (state, event) => {
        state.count++
        if (event.type === "run.ended") state.result = event.result
        return state
      }
    ),
    ({ count, result }) =>
      result === undefined ? Effect.fail(new NoResult({ events: count })) : Effect.succeed(result)
  )
