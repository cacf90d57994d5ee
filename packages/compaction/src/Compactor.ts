/**
 * Compaction in the loop: `make` gives the loop's `compact` hook (`Loop.Options.compact` of
 * @agent-harness/executor). Before each model call it estimates the history (the approximation,
 * calibrated by the input tokens the provider reported for the previous call), and near the
 * window applies the strategy once (`Compaction.compact`); the history it gives is what the model
 * is sent. Each compaction is a trace event, `context.compacted` (what was elided, dropped or
 * summarized, and the estimates before and after); a history that cannot get under the window
 * is `context.refused` and stops the run with `context_window` instead of sending a request the
 * provider would refuse. It never loops: one strategy application per model call. A
 * summarizer's call is drawn from the run's spend: refused, it stops the run with the budget's
 * reason (`token_budget`, `cost_budget`); failed, it fails the run as a model call would.
 *
 * @since 0.1.0
 */
import { Spend } from "@agent-harness/budgets"
import { type Loop, type Message, type Model, Trace } from "@agent-harness/executor"
import { Effect, Schema } from "effect"
import * as Compaction from "./Compaction.ts"
import * as Estimate from "./Estimate.ts"
import { defaultStrategy, Removed, type Strategy } from "./Strategy.ts"

/**
 * The trace event of a compaction: the turn about to be sent, the estimates before and after
 * (tokens), the window, and what was removed.
 *
 * @since 0.1.0
 */
export const Compacted: Schema.Struct<{
  readonly type: Schema.Literal<"context.compacted">
  readonly turn: Schema.Int
  readonly before: Schema.Finite
  readonly after: Schema.Finite
  readonly window: Schema.Finite
  readonly removed: Schema.$Array<typeof Removed>
}> = Schema.Struct({
  type: Schema.Literal("context.compacted"),
  turn: Schema.Int,
  before: Schema.Finite,
  after: Schema.Finite,
  window: Schema.Finite,
  removed: Schema.Array(Removed)
})

/**
 * The trace event of a history that could not get under the window: the run stops
 * (`context_window`) before the call.
 *
 * @since 0.1.0
 */
export const Refused: Schema.Struct<{
  readonly type: Schema.Literal<"context.refused">
  readonly turn: Schema.Int
  readonly before: Schema.Number
  readonly after: Schema.Number
  readonly window: Schema.Finite
  readonly message: Schema.String
}> = Schema.Struct({
  type: Schema.Literal("context.refused"),
  turn: Schema.Int,
  before: Schema.Number,
  after: Schema.Number,
  window: Schema.Finite,
  message: Schema.String
})

/** `context.compacted`, declared. @since 0.1.0 */
export const compacted: Trace.Declared<typeof Compacted> = Trace.declare(Compacted)

/** `context.refused`, declared. @since 0.1.0 */
export const refused: Trace.Declared<typeof Refused> = Trace.declare(Refused)

/**
 * Options of the loop's compaction: the window, the threshold and target (fractions of it), the
 * strategy (with no error and no services: a summarizer's model call is the strategy's own), and
 * whether reported usage calibrates the estimate (default true).
 *
 * @since 0.1.0
 */
export interface Options {
  /** The model's context window, in tokens. */
  readonly window: number
  /** Compact above this fraction of the window (default 0.8). */
  readonly threshold?: number | undefined
  /** Aim for this fraction of the window (default: `threshold`). */
  readonly target?: number | undefined
  /**
   * The strategy (default `Strategy.defaultStrategy`: elide old tool results, then drop the
   * oldest turns). It may fail with `Spend.Exhausted` (its summarizer's call did not fit the
   * run's spend: the run stops with `token_budget` or `cost_budget`) or with a model's failure
   * (the run fails with it, as when its own model call fails).
   */
  readonly strategy?: Strategy<Spend.Exhausted | Model.Failure> | undefined
  /** Correct the approximation by the provider's reported input tokens (default true). */
  readonly calibrate?: boolean | undefined
  /**
   * Counts a message's tokens (default `Estimate.message`, the documented approximation): a
   * provider's own tokenizer where one is maintained (@agent-harness/tokenizer for OpenAI's
   * models). One that throws or gives something other than a number ≥ 0 for a message is not
   * believed for it: the approximation counts that message.
   */
  readonly estimate?: Estimate.Estimator | undefined
}

/**
 * The loop's `compact` hook over `options` (see the module). Throws a `RangeError` naming the
 * option when `window`, `threshold` or `target` is out of range.
 *
 * @since 0.1.0
 */
export const make = (options: Options): Loop.Compact => {
  const { window } = options
  if (typeof window !== "number" || !Number.isFinite(window) || !(window > 0)) {
    throw new RangeError(`Compactor.make: 'window' must be a number of tokens > 0, got ${String(window)}`)
  }
  for (const name of ["threshold", "target"] as const) {
    const value = options[name]
    if (value !== undefined && !(typeof value === "number" && value > 0 && value <= 1)) {
      throw new RangeError(`Compactor.make: '${name}' must be a fraction in (0, 1], got ${String(value)}`)
    }
  }
  const strategy = options.strategy ?? defaultStrategy
  const calibrate = options.calibrate ?? true
  // Each message's raw estimate, once for the life of the hook (messages are immutable values;
  // a message no longer in any history is let go).
  const known = new WeakMap<Message.Message, number>()
  const given = options.estimate
  const counted: Estimate.Estimator =
    given === undefined
      ? Estimate.message
      : (m) => {
          try {
            const n: unknown = given(m)
            return typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : Estimate.message(m)
          } catch {
            return Estimate.message(m)
          }
        }
  const raw: Estimate.Estimator = (m) => {
    const cached = known.get(m)
    if (cached !== undefined) return cached
    const tokens = counted(m)
    known.set(m, tokens)
    return tokens
  }
  return (request) =>
    Effect.gen(function* () {
      const estimate =
        calibrate && request.reportedInputTokens !== undefined && request.previousMessages !== undefined
          ? Estimate.calibrated(raw, request.reportedInputTokens, Estimate.total(request.previousMessages, raw))
          : raw
      const done = yield* Effect.result(
        Compaction.compact(request.messages, {
          window,
          threshold: options.threshold,
          target: options.target,
          strategy,
          estimate,
          context: { turn: request.turn, spend: request.spend }
        })
      )
      if (done._tag === "Failure") {
        const error = done.failure
        if (error instanceof Spend.Exhausted) {
          return { _tag: "OverBudget", exhausted: error } satisfies Loop.Compacting
        }
        if (error instanceof Compaction.InvalidOptions) return yield* Effect.die(error)
        if (!(error instanceof Compaction.CannotCompact)) return yield* Effect.fail(error)
        yield* refused.record({
          type: "context.refused",
          turn: request.turn,
          before: error.before,
          after: error.after,
          window,
          message: error.message
        })
        return { _tag: "TooLarge", message: error.message } satisfies Loop.Compacting
      }
      const result = done.success
      if (result.removed.length === 0) return { _tag: "Kept" } satisfies Loop.Compacting
      yield* compacted.record({
        type: "context.compacted",
        turn: request.turn,
        before: result.before,
        after: result.after,
        window,
        removed: result.removed
      })
      return { _tag: "Compacted", messages: result.messages } satisfies Loop.Compacting
    })
}
