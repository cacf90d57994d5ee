/**
 * A live case run as repeated trials: each trial independent (`LiveCase.trial`: a fresh
 * environment, no shared history, the model's layer built anew), at most `concurrency` at once,
 * and the case's numbers over them — passes c of n, the pass rate with its Wilson interval,
 * pass@k and pass^k, whether the case meets its declared threshold, the tokens and the time.
 *
 * @since 0.1.0
 */
import type { Model, Usage } from "@agent-harness/executor"
import { LiveCase, type ScenarioFile, type Variant } from "@agent-harness/scenario"
import { Duration, Effect, type Layer } from "effect"
import * as Statistics from "./Statistics.ts"

/**
 * How a case's trials run.
 *
 * @since 0.1.0
 */
export interface Options<E, R> {
  /** How many trials; a whole number of at least 1. */
  readonly trials: number
  /** The model of one trial: built anew for each (no state shared between trials). */
  readonly model: Layer.Layer<Model.Model, E, R>
  /** How many trials run at once (default 1). */
  readonly concurrency?: number | undefined
  /** The harness variant the trials run under. */
  readonly variant?: Variant.Variant | undefined
  /** The confidence of the pass rate's interval (default 0.95). */
  readonly confidence?: number | undefined
}

/**
 * A case's numbers over its trials.
 *
 * @since 0.1.0
 */
export interface CaseReport {
  /** The case's file. */
  readonly file: string
  /** Every trial, in the order they were started. */
  readonly trials: ReadonlyArray<LiveCase.Trial>
  /** The pass rate with its Wilson interval (`passes` of `n`). */
  readonly rate: Statistics.Interval
  /** pass@k for k = 1 … n: the chance that at least one of k trials passes (unbiased estimator). */
  readonly passAtK: ReadonlyArray<number>
  /** pass^k for k = 1 … n: the chance that all of k trials pass (unbiased estimator). */
  readonly passHatK: ReadonlyArray<number>
  /** The threshold the case declares (every trial must pass when it declares none). */
  readonly threshold: ScenarioFile.LiveThreshold
  /** Whether the case meets it: the rate at least `minPassRate`, the interval's lower bound at least `minLowerBound`. */
  readonly met: boolean
  /** The indices (from 0) of the trials that failed. */
  readonly failing: ReadonlyArray<number>
  /** The tokens of every trial, summed. */
  readonly usage: Usage.Usage
  /** The trials' time, summed. */
  readonly duration: Duration.Duration
}

/**
 * Whether a pass rate meets a threshold: `minPassRate` against the rate, `minLowerBound` against
 * the interval's lower bound (both when both are given).
 *
 * @since 0.1.0
 */
export const meets = (rate: Statistics.Interval, threshold: ScenarioFile.LiveThreshold): boolean =>
  (threshold.minPassRate === undefined || rate.rate >= threshold.minPassRate) &&
  (threshold.minLowerBound === undefined || rate.low >= threshold.minLowerBound)

/**
 * The numbers of `passes` of `n` trials against a threshold: the pass rate with its Wilson
 * interval, pass@k and pass^k for k = 1 … n, and whether the threshold is met (never with no
 * trials).
 *
 * @since 0.1.0
 */
export const numbers = (
  passes: number,
  n: number,
  threshold: ScenarioFile.LiveThreshold,
  confidence = 0.95
): {
  readonly rate: Statistics.Interval
  readonly passAtK: ReadonlyArray<number>
  readonly passHatK: ReadonlyArray<number>
  readonly met: boolean
} => {
  const rate = Statistics.wilson(passes, n, confidence)
  const ks = Array.from({ length: n }, (_, i) => i + 1)
  return {
    rate,
    passAtK: ks.map((k) => Statistics.passAtK(n, passes, k)),
    passHatK: ks.map((k) => Statistics.passHatK(n, passes, k)),
    met: n > 0 && meets(rate, threshold)
  }
}

/**
 * A case's numbers from its trials (see `CaseReport`).
 *
 * @since 0.1.0
 */
export const report = (
  live: ScenarioFile.Live,
  file: string,
  trials: ReadonlyArray<LiveCase.Trial>,
  confidence = 0.95
): CaseReport => {
  const n = trials.length
  const failing = trials.flatMap((trial, i) => (trial.verdict.passed ? [] : [i]))
  const threshold = LiveCase.threshold(live)
  const { rate, passAtK, passHatK, met } = numbers(n - failing.length, n, threshold, confidence)
  return {
    file,
    trials,
    rate,
    passAtK,
    passHatK,
    threshold,
    met,
    failing,
    usage: LiveCase.sumUsage(trials.map((trial) => trial.usage)),
    duration: trials.reduce((sum, trial) => Duration.sum(sum, trial.duration), Duration.zero)
  }
}

/**
 * Runs a live case `trials` times, each trial with the model's layer built anew, at most
 * `concurrency` at once, and reports its numbers. Throws a `RangeError` naming the option when
 * `trials` or `concurrency` is not a whole number of at least 1. Fails only when the model's
 * layer cannot be built; a trial whose model fails is a failed trial.
 *
 * @since 0.1.0
 */
export const run = <E, R>(
  live: ScenarioFile.Live,
  file: string,
  options: Options<E, R>
): Effect.Effect<CaseReport, E, R> => {
  const { trials } = options
  const concurrency = options.concurrency ?? 1
  if (!Number.isSafeInteger(trials) || trials < 1 || trials > Statistics.maxTrials) {
    throw new RangeError(
      `Trials.run: 'trials' must be a whole number from 1 to ${Statistics.maxTrials}, got ${String(trials)}`
    )
  }
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`Trials.run: 'concurrency' must be a whole number of at least 1, got ${String(concurrency)}`)
  }
  const one = LiveCase.trial(live, file, { variant: options.variant }).pipe(
    Effect.provide(options.model, { local: true })
  )
  return Effect.map(
    Effect.forEach(Array.from({ length: trials }), () => one, { concurrency }),
    (done) => report(live, file, done, options.confidence)
  )
}
