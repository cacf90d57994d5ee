/**
 * One finished trial as the report and the journal keep it: what a trial run now gives and what
 * a trial read back from the journal gives are the same `TrialRecord`, so a resumed run's numbers
 * are computed exactly as a fresh run's.
 *
 * @since 0.1.0
 */
import type { Usage } from "@agent-harness/executor"
import type { LiveCase } from "@agent-harness/scenario"
import { Duration, Result } from "effect"

/**
 * Why a trial failed, one reason: `kind` is `check` for a pass check that did not hold, otherwise
 * what ended the trial (`ModelError`, `root`, `mcp`, `permission`, ...).
 *
 * @since 0.1.0
 */
export interface Failure {
  /** `check`, or what ended the trial. */
  readonly kind: string
  /** The whole explanation, in words. */
  readonly message: string
}

/**
 * One finished trial of one case under one variant.
 *
 * @since 0.1.0
 */
export interface TrialRecord {
  /** The case's file, as given. */
  readonly file: string
  /** The sha-256 (hex) of the case file's bytes when the trial ran. */
  readonly digest: string
  /** The variant's name (`fixed`, `before`). */
  readonly variant: string
  /** The trial's index, from 0. */
  readonly index: number
  /** Whether the case's pass criterion held. */
  readonly passed: boolean
  /** Why the loop stopped (`end`, `turn_cap`, ...), or `null` when the trial ended with a failure. */
  readonly stop: string | null
  /** Why it failed (empty when it passed). */
  readonly failures: ReadonlyArray<Failure>
  /** The tokens its model calls used. */
  readonly usage: Usage.Usage
  /**
   * What they cost in USD at the run's price, kept when the trial ran priced; absent when it
   * ran without a price (or was journaled before costs were kept).
   */
  readonly cost?: number | undefined
  /** Its wall-clock time in milliseconds. */
  readonly durationMs: number
  /** Its trace, relative to the report folder (`traces/<stem>.<variant>.<i>.jsonl`); absent without a folder. */
  readonly trace?: string | undefined
  /** The captured scenario that replays it, relative to the report folder; absent when not captured. */
  readonly scenario?: string | undefined
  /** Why capturing it failed, when it did. */
  readonly captureError?: string | undefined
  /** Where it ran, when not in this process (a runner's `host:port` on the durable engine). */
  readonly runner?: string | undefined
}

/**
 * The key of a trial: the same case file with the same bytes (`digest`), variant and index are
 * the same trial. Two files with identical bytes are two cases, each with its own trials.
 *
 * @since 0.1.0
 */
export const key = (file: string, digest: string, variant: string, index: number): string =>
  `${file}\u0000${digest}\u0000${variant}\u0000${index}`

const failuresOf = (trial: LiveCase.Trial): ReadonlyArray<Failure> => {
  const ended = Result.isFailure(trial.result) ? trial.result.failure : undefined
  const whole = ended === undefined ? "trial" : ended._tag === "NotRun" ? ended.kind : ended._tag
  return trial.verdict.failures.map((failure) => ({
    kind: failure.check === undefined ? whole : "check",
    message: failure.message
  }))
}

/**
 * The record of a trial just run.
 *
 * @since 0.1.0
 */
export const fromTrial = (
  trial: LiveCase.Trial,
  at: { readonly file: string; readonly digest: string; readonly variant: string; readonly index: number }
): TrialRecord => ({
  file: at.file,
  digest: at.digest,
  variant: at.variant,
  index: at.index,
  passed: trial.verdict.passed,
  stop: Result.isSuccess(trial.result) ? trial.result.success.stop : null,
  failures: failuresOf(trial),
  usage: trial.usage,
  ...(trial.cost === undefined ? {} : { cost: trial.cost }),
  durationMs: Math.max(0, Duration.toMillis(trial.duration))
})
