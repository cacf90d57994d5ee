/**
 * Live cases (`kind: "live"`): a case that runs against a live model instead of a script. Each
 * trial runs the real loop (`Loop.run`) with the `Model` the caller provides, in a fresh
 * environment (the conversation kind's: inline files or a fresh copy of the `root` folder, the
 * scripted tools, the mounted MCP servers, the gate of the `policy`), with no history but the
 * file's opening messages; and it is judged by the file's pass criterion, written before
 * running. A model failure is a failed trial, never a crash. How many trials must pass is the
 * file's `threshold`, judged over many trials elsewhere (`@agent-harness/trials`).
 *
 * @since 0.2.0
 */
import { SpendMeter } from "@agent-harness/budgets"
import { Loop, Message, type Model, type Usage } from "@agent-harness/executor"
import { type Cause, Clock, Duration, Effect, Result, Schema } from "effect"
import * as Criteria from "./internal/criteria.ts"
import * as Environment from "./internal/environment.ts"
import type * as ScenarioFile from "./ScenarioFile.ts"
import * as Variant from "./Variant.ts"
import * as Verdict from "./Verdict.ts"

/**
 * What one trial gave, to be judged: how the loop ended (its `RunResult`, or the failure it
 * ended with: a `ModelError` is a failed trial), and the files after it.
 *
 * @since 0.2.0
 */
export type Run = Criteria.Run

/**
 * A check that did not hold: its index in `pass` (absent when the trial failed as a whole),
 * what it asks for, what the trial did, and the whole explanation.
 *
 * @since 0.2.0
 */
export type CheckFailure = Criteria.CheckFailure

/**
 * A trial judged by the criterion: passed when every check held, and each that did not.
 *
 * @since 0.2.0
 */
export type Judged = Criteria.Judged

/**
 * Judges one trial by the case's pass criterion (pure). Each check that does not hold is a
 * failure with its index: the final text (exact, or a pattern matched in linear time), a file's
 * content or absence, an observation seen or never seen (over every turn's results), a call made
 * or never made (its input containing the check's: objects key by key, more keys allowed), the
 * stop reason. A trial that ended with a failure (the model failed) fails with it. A hostile
 * value never escapes as a throw: its check fails, saying why; values are shown cut short.
 *
 * @since 0.2.0
 */
export const evaluate = (live: ScenarioFile.Live | ScenarioFile.LiveFile, run: Run): Judged =>
  Criteria.evaluate("pass" in live ? live.pass : live.file.pass, run)

/**
 * The threshold a live case must reach over its trials: the file's, or, when it declares none,
 * every trial (`{ minPassRate: 1 }`).
 *
 * @since 0.2.0
 */
export const threshold = (live: ScenarioFile.Live): ScenarioFile.LiveThreshold =>
  live.file.threshold ?? { minPassRate: 1 }

/**
 * The opening messages of a live case: its `system` prompt, if any, and its `user` prompt.
 *
 * @since 0.2.0
 */
export const opening = (file: ScenarioFile.LiveFile): ReadonlyArray<Message.Message> => [
  ...(file.system === undefined ? [] : [Message.system(file.system)]),
  Message.user(file.user)
]

const NotRunBase: Schema.Class<
  NotRun,
  Schema.TaggedStruct<"NotRun", { readonly kind: Schema.String; readonly message: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<NotRun>()("NotRun", { kind: Schema.String, message: Schema.String })

/**
 * A trial whose environment could not be made (its root folder not copied, an MCP server not
 * mounted, its policy not enforced): nothing ran, and the trial failed. `kind` is the
 * verdict's (`root`, `mcp`, `permission`).
 *
 * @since 0.2.0
 */
export class NotRun extends NotRunBase {}

/**
 * The tokens and money a trial's loop reserves from and settles into (`Spend.make(limits, {
 * price })` of @agent-harness/budgets): `Spend.make({}, { price })` refuses nothing and prices
 * every turn.
 *
 * @since 0.2.0
 */
export type Spend = NonNullable<Loop.RunResult["spend"]>

/**
 * One trial of a live case: the verdict of the criterion, how the loop ended, the files after
 * it, the tokens its model calls used (summed over the turns that report usage; a count no turn
 * reported is absent), what they cost when the trial was priced, and how long it took.
 *
 * @since 0.2.0
 */
export interface Trial {
  /** The criterion's verdict on this trial. */
  readonly verdict: Judged
  /** The loop's result, or what ended the trial (the model failed, the environment was not made). */
  readonly result: Result.Result<Loop.RunResult, Model.ModelError | Loop.InvalidOption | NotRun>
  /** The files after the trial. */
  readonly files: Readonly<Record<string, string>>
  /** The tokens used, summed over the turns. */
  readonly usage: Usage.Usage
  /**
   * What they cost in USD, when the trial ran with a priced `spend` (the loop's settled turns;
   * 0 when the loop did not end with a result, like `usage`); absent without a price.
   */
  readonly cost?: number | undefined
  /** The trial's wall-clock time, environment included. */
  readonly duration: Duration.Duration
}

const usageKeys = ["inputTokens", "outputTokens", "reasoningTokens", "cacheReadTokens", "cacheWriteTokens"] as const

/**
 * The tokens of many model calls, summed count by count; a count none of them reported is
 * absent.
 *
 * @since 0.2.0
 */
export const sumUsage = (usages: ReadonlyArray<Usage.Usage | undefined>): Usage.Usage => {
  const sum: { -readonly [K in (typeof usageKeys)[number]]?: number } = {}
  for (const usage of usages) {
    if (usage === undefined) continue
    for (const key of usageKeys) {
      const n = usage[key]
      if (n !== undefined) sum[key] = (sum[key] ?? 0) + n
    }
  }
  return sum
}

/** A priced trial's cost: what the loop's spend settled beyond what it was given; none without a price. */
const costOf = (given: Spend | undefined, after: Spend | undefined): { readonly cost?: number } =>
  given?.price === undefined ? {} : { cost: Math.max(0, (after?.spent.cost ?? given.spent.cost) - given.spent.cost) }

/**
 * Runs one trial of a live case, under a harness variant (default `fixed`): a fresh environment
 * (inline files, or a fresh copy of the `root` folder made by the `Roots` service and removed
 * after; the scripted tools' counters from zero; the MCP servers mounted for the trial; the gate
 * of the policy), then `Loop.run` with the `Model` the caller provides and the file's opening
 * messages only (no history shared with another trial), recorded on the caller's `Trace` with
 * the annotations a conversation records (`Capture` reads them); with a `spend`, the loop reserves
 * from it and records `spend.settled` per turn, and a priced one gives the trial its `cost`. Never fails: a model failure,
 * or an environment that could not be made, is a failed trial.
 *
 * @example
 * ```ts
 * import { Effect, type Layer, Result } from "effect"
 * import type { Model } from "@agent-harness/executor"
 * import { LiveCase, ScenarioFile } from "@agent-harness/scenario"
 *
 * declare const text: string // the live case's JSON text
 * declare const model: Layer.Layer<Model.Model> // a live model (AiSdkModel.layer)
 * const parsed = ScenarioFile.parse("refund.json", text)
 * if (Result.isSuccess(parsed) && parsed.success.kind === "live") {
 *   const program = Effect.map(LiveCase.trial(parsed.success, "refund.json"), (trial) => trial.verdict.passed)
 *   Effect.runPromise(Effect.provide(program, model))
 * }
 * ```
 *
 * @since 0.2.0
 */
export const trial = (
  live: ScenarioFile.Live,
  file: string,
  options?: {
    readonly variant?: Variant.Variant | undefined
    readonly onTurn?: ((turn: Loop.Turn) => Effect.Effect<void>) | undefined
    /** The loop's spend (`Loop.Options.spend`): with a price, the trial's `cost` is kept. */
    readonly spend?: Spend | undefined
  }
): Effect.Effect<Trial, never, Model.Model> =>
  Effect.gen(function* () {
    const spec = live.file
    const spend = options?.spend
    const variant = options?.variant ?? Variant.defaultVariant
    const started = yield* Clock.currentTimeMillis
    const elapsed = Effect.map(Clock.currentTimeMillis, (now) => Duration.millis(Math.max(0, now - started)))
    const opened = yield* Effect.result(Environment.open(spec, file, variant.name))
    if (Result.isFailure(opened)) {
      const { failure, files } = opened.failure
      const result = Result.fail(new NotRun({ kind: failure.kind, message: failure.message }))
      const verdict = Criteria.evaluate(spec.pass, { ended: result, files })
      return { verdict, result, files, usage: {}, ...costOf(spend, undefined), duration: yield* elapsed }
    }
    const environment = opened.success
    // A meter of its own, read whatever the end: a trial whose model failed still paid for its turns.
    const meter = spend === undefined ? undefined : SpendMeter.makeUnsafe(spend)
    const result = yield* Loop.run({
      toolset: environment.toolset,
      messages: opening(spec),
      maxTurns: spec.maxTurns ?? Loop.defaultMaxTurns,
      onTurn: options?.onTurn,
      ...(meter === undefined ? {} : { spend: meter })
    }).pipe(Environment.provide(environment, variant), Effect.result)
    const { files } = yield* Environment.close(environment)
    const verdict = Criteria.evaluate(spec.pass, { ended: result, files })
    const usage = Result.isSuccess(result) ? sumUsage(result.success.turns.map((t) => t.usage)) : {}
    const after = meter === undefined ? undefined : yield* meter.current
    return { verdict, result, files, usage, ...costOf(spend, after), duration: yield* elapsed }
  }).pipe(Effect.scoped)

/**
 * Why a live case did not run in a run without a live model (`harness test` without `--model`).
 *
 * @since 0.2.0
 */
export const needsModel =
  "needs --model: a live case runs as trials against a live model (harness test --trials N --model PROVIDER:MODEL)"

/**
 * The verdict on a live case in a run without a live model: not run (`notRun` says why), so it
 * neither passes nor fails the run; reports list it on its own `SKIP` line.
 *
 * @since 0.2.0
 */
export const withoutModel = (live: ScenarioFile.Live, file: string, variant: Variant.Variant): Verdict.Verdict => ({
  ...Verdict.make(live, file, variant.name, { stop: "diverged", turns: 0 }, []),
  passed: false,
  notRun: needsModel
})
