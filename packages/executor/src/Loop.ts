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
 * @since 0.1.0
 */
import { Budget, Deadline } from "@agent-harness/budgets"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { type Cause, Data, type Duration, Effect, Result } from "effect"
import * as Boundary from "./Boundary.ts"
import * as Breaker from "./Breaker.ts"
import * as Steps from "./internal/steps.ts"
import * as Execute from "./Execute.ts"
import * as Message from "./Message.ts"
import { type FinishReason, Model, type ModelError, type Usage } from "./Model.ts"
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
    const executeOptions: Execute.AllOptions = { timeout: options.timeout, concurrency: options.concurrency ?? 1 }
    const harness = yield* Execute.harness
    const outerReporter = yield* Progress.Reporter
    const messages: Array<Message.Message> = [...options.messages]
    const turns: Array<Turn> = []
    const breaker = options.breaker
    const watch = breaker === undefined ? undefined : Breaker.watch(breaker, harness.catalog)
    yield* record(Steps.startEvent(options.messages, budget, options.toolset, breaker))
    const finish = (stop: StopReason, text: string | undefined) =>
      Effect.andThen(
        record({ type: "run.ended", stop, ...(text === undefined ? {} : { text }), turns: turns.length }),
        Effect.as(Steps.complete(model, Math.max(turns.length, 1), messages), { stop, text, messages, turns, budget })
      )
    while (true) {
      const spent = Budget.spend(budget, 1)
      if (Result.isFailure(spent)) return yield* finish("turn_cap", undefined)
      if (deadline !== undefined && Result.isFailure(yield* Effect.result(Deadline.check(deadline)))) {
        return yield* finish("time_budget", undefined)
      }
      budget = spent.success
      const turn = turns.length + 1
      yield* record({ type: "model.requested", turn, messages: messages.length })
      const request = { messages: [...messages], toolset: options.toolset, turn }
      const { reply, about } = yield* Steps.ask(model, request, record)
      messages.push(Message.assistant(reply))
      const { usage, finishReason } = about
      const seen = {
        ...(usage === undefined ? {} : { usage }),
        ...(finishReason === undefined ? {} : { finishReason })
      }
      const calls = Message.toolUses(reply)
      if (calls.length === 0) {
        turns.push({ turn, reply, outcomes: [], ...seen })
        return yield* finish("end", Message.replyText(reply))
      }
      const { outcomes, tripped } = yield* Steps.act(options.toolset, turn, calls, {
        executeOptions,
        trace,
        record,
        reporter: outerReporter,
        watch,
        breaker
      })
      const current: Turn = { turn, reply, outcomes, ...seen }
      turns.push(current)
      if (options.onTurn !== undefined) yield* options.onTurn(current)
      messages.push(Message.user(outcomes.map(Outcome.toToolResult)))
      if (breaker?.action === "stop" && tripped) {
        return yield* finish("repeated_call", undefined)
      }
    }
  })
