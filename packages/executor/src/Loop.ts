/**
 * The loop of seed 000: call the model; execute every tool_use of its reply; append one user
 * message with every result in call order; stop when a reply has no tool_use (`end`) or after
 * `maxTurns` model calls (`turn_cap`, a `Budget` of kind `turns`). The harness never fixes or
 * retries a call: the model reads what happened and decides.
 *
 * @since 0.1.0
 */
import { Budget, Deadline } from "@agent-harness/budgets"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { type Duration, Effect, Result } from "effect"
import * as Execute from "./Execute.ts"
import * as Message from "./Message.ts"
import { Model, ModelError } from "./Model.ts"
import * as Outcome from "./Outcome.ts"
import * as Trace from "./Trace.ts"

/**
 * Why the loop stopped: a reply without tool calls (`end`), the turn budget spent
 * (`turn_cap`), or the wall-clock budget spent before a model call (`time_budget`).
 *
 * @since 0.1.0
 */
export type StopReason = "end" | "turn_cap" | "time_budget"

/**
 * Options of a run.
 *
 * @since 0.1.0
 */
export interface Options<T extends Tool.Any> {
  readonly toolset: Toolset.Toolset<T>
  /** The opening messages (system prompt, user request). */
  readonly messages: ReadonlyArray<Message.Message>
  /** Model calls at most; default 10. A shorthand for `turns: Budget.turns(n)`. */
  readonly maxTurns?: number | undefined
  /** The turn budget (wins over `maxTurns`); a partly used one continues where it was. */
  readonly turns?: Budget.Budget | undefined
  /** Wall-clock time for the whole run, checked before each model call. */
  readonly timeLimit?: Duration.Input | undefined
  /** How many calls of one turn run at once; results stay in call order. Default 1. */
  readonly concurrency?: number | "unbounded" | undefined
  /** Per-call timeout. */
  readonly timeout?: Execute.Options["timeout"]
  /** Called with each turn's outcomes, in call order, before the model sees them. */
  readonly onTurn?: ((turn: Turn) => Effect.Effect<void>) | undefined
}

/**
 * One model call and what came of it.
 *
 * @since 0.1.0
 */
export interface Turn {
  /** From 1. */
  readonly turn: number
  readonly reply: ReadonlyArray<Message.ReplyBlock>
  /** One per tool_use of the reply, in call order. */
  readonly outcomes: ReadonlyArray<Outcome.Outcome>
}

/**
 * How a run ended.
 *
 * @since 0.1.0
 */
export interface RunResult {
  readonly stop: StopReason
  /** The final reply's text (`end`), or `undefined` at the turn cap. */
  readonly text: string | undefined
  /** The whole history, opening messages included. */
  readonly messages: ReadonlyArray<Message.Message>
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

/**
 * Runs the loop. Fails only with a `ModelError` (a failure that belongs to no tool call).
 *
 * @since 0.1.0
 */
export const run = <T extends Tool.Any>(
  options: Options<T>
): Effect.Effect<RunResult, ModelError, Model | Tool.Services<T>> =>
  Effect.gen(function* () {
    const model = yield* Model
    const trace = yield* Effect.service(Trace.Trace)
    const record = (event: Trace.Event) => (trace === Trace.none ? Effect.void : trace.record(event))
    let budget = options.turns ?? Budget.turns(options.maxTurns ?? defaultMaxTurns)
    const deadline = options.timeLimit === undefined ? undefined : yield* Deadline.start(options.timeLimit)
    const concurrency = options.concurrency ?? 1
    const executeOptions: Execute.Options = { timeout: options.timeout }
    const harness = yield* Execute.harness
    const direct =
      concurrency === 1 && options.timeout === undefined && (yield* Effect.service(Execute.Middleware)) === undefined
    const messages: Array<Message.Message> = [...options.messages]
    const turns: Array<Turn> = []
    yield* record({
      type: "start",
      messages: options.messages,
      max_turns: budget.limit - budget.used,
      tools: options.toolset.tools.map((tool) => tool.name)
    })
    const finish = (stop: StopReason, text: string | undefined) =>
      Effect.andThen(
        record({ type: "stop", stop, ...(text === undefined ? {} : { text }), turns: turns.length }),
        Effect.as(
          model.complete === undefined
            ? Effect.void
            : Effect.mapError(
                model.complete(messages),
                (reason) => new ModelError({ turn: Math.max(turns.length, 1), reason })
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
      const reply = yield* model.reply({ messages: [...messages], toolset: options.toolset }).pipe(
        Effect.tapError((reason) => record({ type: "model.failed", turn, message: reason.message })),
        Effect.mapError((reason) => new ModelError({ turn, reason }))
      )
      yield* record({ type: "model.reply", turn, reply })
      messages.push(Message.assistant(reply))
      const calls = Message.toolUses(reply)
      if (calls.length === 0) {
        turns.push({ turn, reply, outcomes: [] })
        return yield* finish("end", Message.replyText(reply))
      }
      let outcomes: ReadonlyArray<Outcome.Outcome>
      if (direct) {
        // One call at a time, nothing around `execute`: its synchronous core, without an Effect
        // per call (a tool that returns an Effect or a promise is finished in this fiber).
        const done: Array<Outcome.Outcome> = []
        for (const call of calls) {
          if (trace !== Trace.none) yield* record({ type: "call", turn, call })
          const now = Execute.executeSync(options.toolset, call, harness)
          done.push(Effect.isEffect(now) ? yield* now : now)
        }
        outcomes = done
      } else {
        outcomes = yield* Effect.forEach(
          calls,
          (call) =>
            Effect.andThen(
              record({ type: "call", turn, call }),
              Execute.execute(options.toolset, call, executeOptions)
            ),
          { concurrency }
        )
      }
      if (trace !== Trace.none) {
        for (const outcome of outcomes) {
          yield* record({ type: "observation", turn, outcome: outcome._tag, result: Outcome.toToolResult(outcome) })
        }
      }
      const current: Turn = { turn, reply, outcomes }
      turns.push(current)
      if (options.onTurn !== undefined) yield* options.onTurn(current)
      messages.push(Message.user(outcomes.map(Outcome.toToolResult)))
    }
  })
