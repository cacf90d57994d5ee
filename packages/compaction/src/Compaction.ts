/**
 * Compacting a history before a model call: nothing happens while its estimate is at most
 * `threshold × window`; above that, the strategy is applied once (never in a loop) with the
 * target `target × window`, and a history that still does not fit the window is refused with
 * `CannotCompact` instead of being sent to a provider that would refuse it. `pairingProblem`
 * is the protocol check every compacted history passes.
 *
 * @since 0.1.0
 */
import type { Message } from "@agent-harness/executor"
import { type Cause, Effect, Schema } from "effect"
import type { Estimator } from "./Estimate.ts"
import * as Estimate from "./Estimate.ts"
import type { Context, Removed, Strategy } from "./Strategy.ts"
import { defaultStrategy } from "./Strategy.ts"

const CannotCompactBase: Schema.Class<
  CannotCompact,
  Schema.TaggedStruct<
    "CannotCompact",
    {
      readonly before: Schema.Number
      readonly after: Schema.Number
      readonly target: Schema.Finite
      readonly window: Schema.Finite
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<CannotCompact>()("CannotCompact", {
  before: Schema.Number,
  after: Schema.Number,
  target: Schema.Finite,
  window: Schema.Finite
})

/**
 * The strategy could not bring the history under the window: the run must stop rather than
 * send it. Its fields are the estimates before and after (`Infinity` when the estimator gave
 * something that is not a number ≥ 0), the target and the window (tokens).
 *
 * @since 0.1.0
 */
export class CannotCompact extends CannotCompactBase {
  /** The numbers: `cannot compact: 1200 estimated tokens after compaction (1900 before), window 1000, target 800`. */
  override get message(): string {
    return `cannot compact: ${this.after} estimated tokens after compaction (${this.before} before), window ${this.window}, target ${this.target}`
  }
}

const InvalidOptionsBase: Schema.Class<
  InvalidOptions,
  Schema.TaggedStruct<"InvalidCompactionOptions", { readonly field: Schema.String; readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<InvalidOptions>()("InvalidCompactionOptions", {
  field: Schema.String,
  problem: Schema.String
})

/**
 * An option of `compact` is out of range: `field` names it (`window`, `threshold`, `target`),
 * `problem` says what it must be and what it was.
 *
 * @since 0.1.0
 */
export class InvalidOptions extends InvalidOptionsBase {
  /** `compact options.<field>: <problem>`. */
  override get message(): string {
    return `compact options.${this.field}: ${this.problem}`
  }
}

/** Options of `compact`. @since 0.1.0 */
export interface Options<E, R> {
  /** The model's context window, in tokens (a number > 0). */
  readonly window: number
  /** The fraction of the window above which the history is compacted (in (0, 1]; default 0.8). */
  readonly threshold?: number | undefined
  /** The fraction of the window the strategy aims for (in (0, 1]; default: `threshold`). */
  readonly target?: number | undefined
  /** The strategy (default `Strategy.defaultStrategy`). */
  readonly strategy?: Strategy<E, R> | undefined
  /** The estimator (default `Estimate.message`, the approximation). */
  readonly estimate?: Estimator | undefined
  /** What the strategy is told about the run (its turn, its spend). */
  readonly context?: Context | undefined
}

/** A compacted history, what was removed, and the estimates before and after (tokens). @since 0.1.0 */
export interface Compacted {
  /** The history to send (the one given, unchanged, when it was under the threshold). */
  readonly messages: ReadonlyArray<Message.Message>
  /** What the strategy elided, dropped or summarized; empty when nothing was done. */
  readonly removed: ReadonlyArray<Removed>
  /** The estimate of the history given. */
  readonly before: number
  /** The estimate of `messages`. */
  readonly after: number
}

const fraction = (field: string, value: number | undefined, fallback: number): InvalidOptions | number => {
  const n = value ?? fallback
  return typeof n === "number" && n > 0 && n <= 1
    ? n
    : new InvalidOptions({ field, problem: `must be a fraction in (0, 1], got ${String(n)}` })
}

/**
 * Compacts `history` when its estimate is above `threshold × window` (see the module's
 * documentation): the strategy is applied once with the target `target × window`; the result
 * fails with `CannotCompact` when it is still over the window, with `InvalidOptions` for an
 * option out of range, and with the strategy's own error.
 *
 * @since 0.1.0
 */
export const compact = <E = never, R = never>(
  history: ReadonlyArray<Message.Message>,
  options: Options<E, R>
): Effect.Effect<Compacted, CannotCompact | InvalidOptions | E, R> =>
  Effect.suspend((): Effect.Effect<Compacted, CannotCompact | InvalidOptions | E, R> => {
    const window = options.window
    if (typeof window !== "number" || !(window > 0) || !Number.isFinite(window)) {
      return Effect.fail(
        new InvalidOptions({ field: "window", problem: `must be a number > 0, got ${String(window)}` })
      )
    }
    const threshold = fraction("threshold", options.threshold, 0.8)
    if (typeof threshold !== "number") return Effect.fail(threshold)
    const targetFraction = fraction("target", options.target, threshold)
    if (typeof targetFraction !== "number") return Effect.fail(targetFraction)
    const estimate = Estimate.memoized(options.estimate ?? Estimate.message)
    const before = Estimate.total(history, estimate)
    if (before <= threshold * window) return Effect.succeed({ messages: history, removed: [], before, after: before })
    const target = targetFraction * window
    const strategy: Strategy<E, R> = options.strategy ?? (defaultStrategy as Strategy<E, R>)
    return Effect.flatMap(
      strategy(history, target, estimate, options.context ?? {}),
      (result): Effect.Effect<Compacted, CannotCompact> => {
        const after = Estimate.total(result.messages, estimate)
        return after > window
          ? Effect.fail(new CannotCompact({ before, after, target, window }))
          : Effect.succeed({ messages: result.messages, removed: result.removed, before, after })
      }
    )
  })

/**
 * The protocol check: after the system messages the history starts with a user message, user
 * and assistant messages alternate, every `tool_use` of an assistant message is answered by
 * exactly one `tool_result` in the next message, a user message, in the same order, and no
 * `tool_result` answers nothing. `undefined` when all hold, else the first problem, naming the
 * message's index and the id.
 *
 * @since 0.1.0
 */
export const pairingProblem = (messages: ReadonlyArray<Message.Message>): string | undefined => {
  let start = 0
  while (start < messages.length && messages[start]?.role === "system") start++
  if (messages[start]?.role === "assistant") {
    return `message ${start}: the conversation starts with an assistant message (after the system messages)`
  }
  let calls: Array<string> = []
  for (let i = start; i < messages.length; i++) {
    const m = messages[i] as Message.Message
    if (m.role === "system") return `message ${i}: a system message after the conversation started`
    if (i > start && messages[i - 1]?.role === m.role)
      return `messages ${i - 1} and ${i}: two ${m.role} messages in a row`
    if (m.role === "user") {
      const problem = answers(i, calls, m.content)
      if (problem !== undefined) return problem
      calls = []
      continue
    }
    calls = []
    for (const block of m.content) {
      if (block.type !== "tool_use") continue
      if (calls.includes(block.id)) return `message ${i}: tool_use ${block.id} appears twice in the same reply`
      calls.push(block.id)
    }
    if (calls.length > 0 && i === messages.length - 1) {
      return `message ${i}: tool_use ${calls[0]} has no tool_result (no message follows the reply)`
    }
  }
  return undefined
}

/** The problem with the tool results of the user message `i`, answering `calls` (the calls of message `i - 1`). */
const answers = (
  i: number,
  calls: ReadonlyArray<string>,
  content: Message.UserMessage["content"]
): string | undefined => {
  let k = 0
  if (typeof content !== "string") {
    for (const block of content) {
      if (block.type !== "tool_result") continue
      const result = block.tool_use_id
      const call = calls[k]
      if (call !== result) return misanswered(i, calls, content, k, result)
      k++
    }
  }
  return k < calls.length ? `message ${i - 1}: tool_use ${calls[k]} has no tool_result in message ${i}` : undefined
}

const misanswered = (
  i: number,
  calls: ReadonlyArray<string>,
  content: ReadonlyArray<Message.ToolResultBlock | Message.TextBlock>,
  k: number,
  result: string
): string => {
  if (!calls.includes(result)) {
    return calls.length === 0
      ? `message ${i}: tool_result ${result} answers no tool_use (message ${i - 1} made no call)`
      : `message ${i}: tool_result ${result} answers no tool_use of message ${i - 1}`
  }
  const times = content.filter((b) => b.type === "tool_result" && b.tool_use_id === result).length
  if (times > 1) return `message ${i}: tool_use ${result} is answered ${times} times`
  return `message ${i}: tool_result ${result} is out of order (expected ${calls[k] ?? "none"} at position ${k})`
}
