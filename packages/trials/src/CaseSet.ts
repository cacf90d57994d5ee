/**
 * A set of live cases run as trials under one or two harness variants: every trial independent
 * (a fresh environment, the model's layer built anew), at most `concurrency` at once over all the
 * trials of all the cases, the two variants run on the same cases the same number of times and
 * interleaved (trial i of `a`, then trial i of `b`) so that a drift of the provider hits both
 * alike, and compared on the pairs `(a_i, b_i)`. With a report folder each trial is traced
 * (`DIR/traces/<stem>.<variant>.<i>.jsonl`) and journaled as soon as it ends
 * (`DIR/journal.jsonl`), so that a run stopped half-way and started again runs only what is left.
 *
 * @since 0.1.0
 */
import { type Model, Trace, type Usage } from "@agent-harness/executor"
import { LiveCase, type ScenarioFile, type Variant } from "@agent-harness/scenario"
import { Effect, Fiber, FileSystem, type Layer, Path, type PlatformError } from "effect"
import { stems as stemsOf } from "./internal/stems.ts"
import * as Journal from "./Journal.ts"
import * as Statistics from "./Statistics.ts"
import * as TrialRecord from "./TrialRecord.ts"
import * as Trials from "./Trials.ts"

/**
 * One live case of the set.
 *
 * @since 0.1.0
 */
export interface Case {
  /** The decoded live case. */
  readonly live: ScenarioFile.Live
  /** Its file, as given (reports name it so). */
  readonly file: string
  /** The sha-256 (hex) of the file's bytes (`digest`): the journal's key, with the variant and index. */
  readonly digest: string
  /** Whether it is held out (`reserved: true`). */
  readonly reserved: boolean
}

/**
 * Which trial: the case, the variant, the index (from 0) and the case's stem.
 *
 * @since 0.1.0
 */
export interface TrialAt {
  /** The case. */
  readonly case: Case
  /** The variant it runs under. */
  readonly variant: Variant.Variant
  /** The trial's index, from 0. */
  readonly index: number
  /** The case's path from the cases' common folder, `/` → `-`, without `.json` (names its files). */
  readonly stem: string
  /** The run's id (`Journal.Header.run`; a fresh UUID without a report folder): with the rest, names the trial anywhere. */
  readonly run: string
}

/**
 * A trial that ran, wherever it ran: its record (without the report folder's `trace`,
 * `scenario` and `captureError`, which the run adds) and its trace as JSON Lines text.
 *
 * @since 0.1.0
 */
export interface TrialRun {
  /** What it gave. */
  readonly record: TrialRecord.TrialRecord
  /** Its trace: one JSON line per event (`Trace.line`), each ending with a newline. */
  readonly trace: string
}

/**
 * What `capture` is given for a failing trial: which trial, its trace file and its record.
 *
 * @since 0.1.0
 */
export interface CaptureInfo extends TrialAt {
  /** The trial's trace file (`DIR/traces/<stem>.<variant>.<i>.jsonl`, the folder joined), written before `capture` is called. */
  readonly trace: string
  /** The trace's text (what the file holds). */
  readonly traceText: string
  /** The trial's record, as it will be journaled (without `scenario`). */
  readonly record: TrialRecord.TrialRecord
}

/**
 * What capturing a failing trial gave: the scenario's path relative to the report folder
 * (`captured/<stem>.<variant>.<i>.json`), or why it could not be captured.
 *
 * @since 0.1.0
 */
export interface Captured {
  /** The captured scenario, relative to the report folder. */
  readonly scenario?: string | undefined
  /** Why it was not captured. */
  readonly captureError?: string | undefined
}

/**
 * A trial finished (or read back from the journal), for progress.
 *
 * @since 0.1.0
 */
export interface TrialEvent {
  /** Which trial. */
  readonly at: TrialAt
  /** What it gave. */
  readonly record: TrialRecord.TrialRecord
  /** Whether it was read from the journal instead of run. */
  readonly resumed: boolean
  /** How many trials are finished so far, this one included (resumed ones too). */
  readonly finished: number
  /** How many trials the run has in all. */
  readonly total: number
}

/**
 * How a set of cases runs.
 *
 * @since 0.1.0
 */
export interface Options<E, R> {
  /** Trials per case and variant: a whole number of at least 1. */
  readonly trials: number
  /** One variant, or two to compare (`[a, b]`: `b` is compared with `a`). */
  readonly variants: readonly [Variant.Variant] | readonly [Variant.Variant, Variant.Variant]
  /**
   * The model of a trial, built anew for each: one layer for all, or a layer per trial. Needed
   * unless `runTrial` is given.
   */
  readonly model?: Layer.Layer<Model.Model, E, R> | ((at: TrialAt) => Layer.Layer<Model.Model, E, R>) | undefined
  /**
   * Where a trial runs (default: in this process, {@link trial} with `model`). Another place
   * (the durable engine's runners) gives back the same `TrialRun`.
   */
  readonly runTrial?: ((at: TrialAt) => Effect.Effect<TrialRun, E, R>) | undefined
  /**
   * Which trials' traces are written to the report folder: `failing` (the default; a passing
   * trial's trace is kept in memory until it is judged, then dropped) or `all`.
   */
  readonly traces?: "failing" | "all" | undefined
  /** The model's name for the journal and the summary (`PROVIDER:MODEL`; default `model`). */
  readonly modelName?: string | undefined
  /** How many trials run at once, over all cases (default 1). */
  readonly concurrency?: number | undefined
  /** The confidence of the intervals (default 0.95). */
  readonly confidence?: number | undefined
  /** The report folder: the journal and `traces/` go there (none: nothing is written, nothing resumed). */
  readonly folder?: string | undefined
  /** Replace the folder's journal instead of resuming it (and instead of refusing one of another run). */
  readonly fresh?: boolean | undefined
  /** Captures a failing trial as a scenario (called only with a folder, only for trials run now). */
  readonly capture?: ((info: CaptureInfo) => Effect.Effect<Captured>) | undefined
  /** Called as each trial finishes or is read from the journal. */
  readonly onTrial?: ((event: TrialEvent) => Effect.Effect<void>) | undefined
  /** When it completes, no new trial starts; those running finish and are journaled. */
  readonly interrupt?: Effect.Effect<void> | undefined
  /**
   * The spend each trial's loop starts from, in this process (`Spend.make({}, { price })` of
   * @agent-harness/budgets: nothing refused, every turn settled): with a price, each trial's
   * record keeps its `cost`. A `runTrial` elsewhere prices its trials itself.
   */
  readonly spend?: LiveCase.Spend | undefined
}

/**
 * A case's numbers under one variant, from the trials it has (all `trials` unless interrupted).
 *
 * @since 0.1.0
 */
export interface CaseResult {
  /** The case's file. */
  readonly file: string
  /** The case's name. */
  readonly name: string
  /** The variant's name. */
  readonly variant: string
  /** Whether the case is held out. */
  readonly reserved: boolean
  /** The sha-256 of the case file's bytes. */
  readonly digest: string
  /** The case's stem (names its traces). */
  readonly stem: string
  /** The trials it has, by index (fewer than planned when the run was interrupted). */
  readonly records: ReadonlyArray<TrialRecord.TrialRecord>
  /** The pass rate with its Wilson interval. */
  readonly rate: Statistics.Interval
  /** The confidence of `rate`'s interval. */
  readonly confidence: number
  /** pass@k for k = 1 … n. */
  readonly passAtK: ReadonlyArray<number>
  /** pass^k for k = 1 … n. */
  readonly passHatK: ReadonlyArray<number>
  /** The threshold the case declares (every trial when none). */
  readonly threshold: ScenarioFile.LiveThreshold
  /** Whether it meets it (never with no trial). */
  readonly met: boolean
  /** The trials that failed. */
  readonly failing: ReadonlyArray<TrialRecord.TrialRecord>
  /** The trials' tokens, summed. */
  readonly usage: Usage.Usage
  /** The USD of its trials that have a cost (`TrialRecord.cost`), summed; absent when none has. */
  readonly cost?: number | undefined
  /** How many of its trials have a cost (with `cost`: fewer than `records` when some were journaled without a price). */
  readonly costed?: number | undefined
  /** The trials' time in milliseconds, summed. */
  readonly durationMs: number
  /** How many of its trials were read from the journal. */
  readonly resumed: number
}

/**
 * Variant `b` compared with `a` on one case's pairs, or on all cases' pairs pooled (`file` null).
 *
 * @since 0.1.0
 */
export interface CaseComparison {
  /** The case's file, or `null` for all cases. */
  readonly file: string | null
  /** The case's name, or `all cases`. */
  readonly name: string
  /** The baseline variant's name. */
  readonly a: string
  /** The candidate variant's name. */
  readonly b: string
  /** The paired comparison (`Statistics.compare` on the pairs `(a_i, b_i)`). */
  readonly comparison: Statistics.Comparison
}

/**
 * The run's totals.
 *
 * @since 0.1.0
 */
export interface Summary {
  /** How many cases. */
  readonly cases: number
  /** How many cases meet their threshold under every variant. */
  readonly met: number
  /** How many do not (under at least one variant). */
  readonly notMet: number
  /** Every trial's tokens, summed. */
  readonly usage: Usage.Usage
  /** The USD of every trial that has a cost, summed; absent when none has. */
  readonly cost?: number | undefined
  /** How many trials have a cost (with `cost`). */
  readonly costed?: number | undefined
  /** Every trial's time in milliseconds, summed (resumed ones included). */
  readonly durationMs: number
  /** How many trials were read from the journal. */
  readonly resumed: number
  /** How many trials ran now. */
  readonly ran: number
  /** Whether the run was stopped before every trial ran. */
  readonly interrupted: boolean
}

/**
 * What a run of a set gave.
 *
 * @since 0.1.0
 */
export interface Report {
  /** The model's name. */
  readonly model: string
  /** Trials per case and variant. */
  readonly trialsPerCase: number
  /** The variants' names, in order. */
  readonly variants: ReadonlyArray<string>
  /** The confidence of every interval. */
  readonly confidence: number
  /** One per case and variant, case by case, variants in order. */
  readonly cases: ReadonlyArray<CaseResult>
  /** With two variants: one per case, then one for all cases; otherwise empty. */
  readonly comparisons: ReadonlyArray<CaseComparison>
  /** The totals. */
  readonly summary: Summary
}

/**
 * The sha-256 of a file's bytes (or of a text's UTF-8), in lowercase hex, by WebCrypto.
 *
 * @since 0.1.0
 */
export const digest = (bytes: Uint8Array | string): Effect.Effect<string> =>
  Effect.map(
    Effect.promise(() =>
      globalThis.crypto.subtle.digest(
        "SHA-256",
        typeof bytes === "string" ? new TextEncoder().encode(bytes) : new Uint8Array(bytes)
      )
    ),
    (hash) => Array.from(new Uint8Array(hash), (byte) => byte.toString(16).padStart(2, "0")).join("")
  )

/**
 * The stem of each case file, in order: its path from the files' common folder, `/` → `-`,
 * without `.json` (`cases/a/b.json`, `cases/c.json` → `a-b`, `c`). Two files that would get the
 * same stem (`a/b.json`, `a-b.json`) are told apart by a suffix on the later ones (`a-b~2`).
 *
 * @since 0.1.0
 */
export const stems = (files: ReadonlyArray<string>): ReadonlyArray<string> => stemsOf(files)

/**
 * A trial's trace file, relative to the report folder: `traces/<stem>.<variant>.<i>.jsonl`.
 *
 * @since 0.1.0
 */
export const tracePath = (stem: string, variant: string, index: number): string =>
  `traces/${stem}.${variant}.${index}.jsonl`

/**
 * A failing trial's captured scenario, relative to the report folder: `captured/<stem>.<variant>.<i>.json`.
 *
 * @since 0.1.0
 */
export const capturedPath = (stem: string, variant: string, index: number): string =>
  `captured/${stem}.${variant}.${index}.json`

/**
 * The cost of some trials: the USD of those that have one, summed, and how many have one;
 * nothing when none has (an unpriced run is never shown as $0).
 *
 * @since 0.1.0
 */
export const costOf = (
  records: ReadonlyArray<{ readonly cost?: number | undefined }>
): { readonly cost?: number; readonly costed?: number } => {
  let cost = 0
  let costed = 0
  for (const record of records) {
    if (record.cost === undefined) continue
    cost += record.cost
    costed++
  }
  return costed === 0 ? {} : { cost, costed }
}

/**
 * A case's numbers under one variant from its trials' records (ordered by index).
 *
 * @since 0.1.0
 */
export const caseResult = (
  at: { readonly case: Case; readonly variant: string; readonly stem: string },
  records: ReadonlyArray<TrialRecord.TrialRecord>,
  options?: { readonly confidence?: number | undefined; readonly resumed?: number | undefined }
): CaseResult => {
  const confidence = options?.confidence ?? 0.95
  const n = records.length
  const failing = records.filter((record) => !record.passed)
  const threshold = LiveCase.threshold(at.case.live)
  const { rate, passAtK, passHatK, met } = Trials.numbers(n - failing.length, n, threshold, confidence)
  return {
    file: at.case.file,
    name: at.case.live.name,
    variant: at.variant,
    reserved: at.case.reserved,
    digest: at.case.digest,
    stem: at.stem,
    records,
    rate,
    confidence,
    passAtK,
    passHatK,
    threshold,
    met,
    failing,
    usage: LiveCase.sumUsage(records.map((record) => record.usage)),
    ...costOf(records),
    durationMs: records.reduce((sum, record) => sum + record.durationMs, 0),
    resumed: options?.resumed ?? 0
  }
}

/**
 * Runs one trial in this process: `LiveCase.trial` with the model's layer built for it alone,
 * traced in memory (`Trace.line` per event), its loop given `spend` when one is (a priced one
 * keeps the trial's `cost` in its record). What `run` does for each trial unless given
 * `runTrial`; a runner of the durable engine does the same.
 *
 * @since 0.1.0
 */
export const trial = <E, R>(
  at: TrialAt,
  model: Layer.Layer<Model.Model, E, R>,
  options?: { readonly spend?: LiveCase.Spend | undefined }
): Effect.Effect<TrialRun, E, R> =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const trace: Trace.Trace = {
      record: (event) =>
        Effect.sync(() => {
          lines.push(`${Trace.line(event)}\n`)
        })
    }
    const ran = yield* LiveCase.trial(at.case.live, at.case.file, { variant: at.variant, spend: options?.spend }).pipe(
      Effect.provide(model, { local: true }),
      Effect.provideService(Trace.Trace, trace)
    )
    const record = TrialRecord.fromTrial(ran, {
      file: at.case.file,
      digest: at.case.digest,
      variant: at.variant.name,
      index: at.index
    })
    return { record, trace: lines.join("") }
  })

const pairsOf = (
  a: ReadonlyArray<TrialRecord.TrialRecord>,
  b: ReadonlyArray<TrialRecord.TrialRecord>
): ReadonlyArray<Statistics.Pair> => {
  const byIndex = new Map(b.map((record) => [record.index, record.passed]))
  return a.flatMap((record) => {
    const other = byIndex.get(record.index)
    return other === undefined ? [] : [{ a: record.passed, b: other }]
  })
}

const check = (name: string, value: unknown, min: number, max: number): void => {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(
      `CaseSet.run: '${name}' must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? " up" : ` to ${max}`}, got ${String(value)}`
    )
  }
}

interface Item {
  readonly at: Omit<TrialAt, "run">
  readonly slot: number
}

/**
 * Runs every case `trials` times under each variant and reports the numbers. The work is one
 * list, case by case and, within a case, trial by trial with the variants interleaved
 * (`a_0, b_0, a_1, b_1, …`), run at most `concurrency` at once. Each trial runs
 * `LiveCase.trial` with the model's layer built anew and, with a `folder`, a `Trace.jsonl` of its
 * own; it is journaled as soon as it ends (after `capture`, when it failed). A trial the
 * folder's journal already holds (same digest, variant and index) is not run again: its record
 * is used and counted as `resumed`.
 *
 * Throws a `RangeError` naming the option when `trials` or `concurrency` is not a whole number
 * of at least 1, or `variants` is not one or two variants of different names. Fails when the
 * journal is of another run (`JournalMismatch`, unless `fresh`) or malformed, when a file cannot
 * be written, or when the model's layer cannot be built; a trial whose model fails is a failed
 * trial. When `interrupt` completes (or the fiber is interrupted) no new trial starts; the report
 * then holds the trials that finished and says `interrupted`.
 *
 * @since 0.1.0
 */
export const run = <E, R>(
  cases: ReadonlyArray<Case>,
  options: Options<E, R>
): Effect.Effect<
  Report,
  E | Journal.JournalMismatch | Journal.MalformedJournal | PlatformError.PlatformError,
  R | FileSystem.FileSystem | Path.Path
> => {
  check("trials", options.trials, 1, Statistics.maxTrials)
  check("concurrency", options.concurrency ?? 1, 1, Number.MAX_SAFE_INTEGER)
  const variants = options.variants
  if (!Array.isArray(variants) || variants.length < 1 || variants.length > 2) {
    throw new RangeError(`CaseSet.run: 'variants' must hold one or two variants, got ${String(variants?.length)}`)
  }
  if (variants.length === 2 && variants[0].name === variants[1]?.name) {
    throw new RangeError(`CaseSet.run: 'variants' must have two different names, got ${variants[0].name} twice`)
  }
  const confidence = options.confidence ?? 0.95
  Statistics.criticalValue(confidence)
  const trials = options.trials
  const modelName = options.modelName ?? "model"
  const modelFor = options.model
  const runOne =
    options.runTrial ??
    (modelFor === undefined
      ? undefined
      : (at: TrialAt) => trial(at, typeof modelFor === "function" ? modelFor(at) : modelFor, { spend: options.spend }))
  if (runOne === undefined) {
    throw new RangeError("CaseSet.run: give 'model' (the trials run in this process) or 'runTrial'")
  }
  const keepAll = options.traces === "all"
  if (options.traces !== undefined && options.traces !== "all" && options.traces !== "failing") {
    throw new RangeError(`CaseSet.run: 'traces' must be "failing" or "all", got ${String(options.traces)}`)
  }
  const caseStems = stems(cases.map((c) => c.file))
  const items: Array<Item> = []
  cases.forEach((c, caseIndex) => {
    for (let index = 0; index < trials; index++) {
      variants.forEach((variant, variantIndex) => {
        items.push({
          at: { case: c, variant, index, stem: caseStems[caseIndex] ?? "" },
          slot: (caseIndex * variants.length + variantIndex) * trials + index
        })
      })
    }
  })
  // The journal's file stays open for the run: its scope is the run's.
  return Effect.scoped(
    Effect.gen(function* () {
      const path = yield* Path.Path
      const fs = yield* FileSystem.FileSystem
      const folder = options.folder
      const journal =
        folder === undefined
          ? undefined
          : yield* Journal.open(
              folder,
              { model: modelName, trials, variants: variants.map((v) => v.name) },
              { fresh: options.fresh }
            )
      if (folder !== undefined) yield* fs.makeDirectory(path.join(folder, "traces"), { recursive: true })
      const run = journal?.run ?? globalThis.crypto.randomUUID()
      const slots: Array<TrialRecord.TrialRecord | undefined> = new Array(items.length)
      const wasResumed: Array<boolean> = new Array(items.length).fill(false)
      let stopped = false
      let watcher: Fiber.Fiber<void> | undefined
      let finished = 0
      let ran = 0
      const total = items.length
      const report = (record: TrialRecord.TrialRecord, at: TrialAt, resumed: boolean) =>
        Effect.suspend(() => {
          finished++
          return options.onTrial === undefined ? Effect.void : options.onTrial({ at, record, resumed, finished, total })
        })
      const runItem = (item: Item) =>
        Effect.gen(function* () {
          const at: TrialAt = { ...item.at, run }
          const prior = journal?.done.get(TrialRecord.key(at.case.file, at.case.digest, at.variant.name, at.index))
          if (prior !== undefined) {
            const record = { ...prior, file: at.case.file }
            slots[item.slot] = record
            wasResumed[item.slot] = true
            yield* report(record, at, true)
            return
          }
          // Let the `interrupt` watcher run first, so that a stop requested by the last trial holds.
          if (watcher !== undefined) yield* Effect.yieldNow
          if (stopped) return
          const done = yield* runOne(at)
          let record: TrialRecord.TrialRecord = { ...done.record, file: at.case.file, index: at.index }
          const relative = tracePath(at.stem, at.variant.name, at.index)
          const traceFile = folder === undefined ? undefined : path.join(folder, relative)
          if (traceFile !== undefined && (keepAll || !record.passed)) {
            yield* fs.writeFileString(traceFile, done.trace)
            record = { ...record, trace: relative }
          }
          if (!record.passed && options.capture !== undefined && traceFile !== undefined) {
            const captured = yield* options
              .capture({ ...at, trace: traceFile, traceText: done.trace, record })
              .pipe(Effect.catchDefect((defect) => Effect.succeed<Captured>({ captureError: describe(defect) })))
            record = {
              ...record,
              ...(captured.scenario === undefined ? {} : { scenario: captured.scenario }),
              ...(captured.captureError === undefined ? {} : { captureError: captured.captureError })
            }
          }
          if (journal !== undefined) yield* journal.append(record)
          slots[item.slot] = record
          ran++
          yield* report(record, at, false)
        })
      watcher =
        options.interrupt === undefined
          ? undefined
          : yield* Effect.forkChild(
              Effect.andThen(options.interrupt, () =>
                Effect.sync(() => {
                  stopped = true
                })
              )
            )
      yield* Effect.forEach(items, runItem, { concurrency: options.concurrency ?? 1, discard: true }).pipe(
        Effect.ensuring(watcher === undefined ? Effect.void : Fiber.interrupt(watcher))
      )
      const results: Array<CaseResult> = []
      const comparisons: Array<CaseComparison> = []
      const pooled: Array<Statistics.Pair> = []
      let metCases = 0
      cases.forEach((c, caseIndex) => {
        const perVariant = variants.map((variant, variantIndex) => {
          const base = (caseIndex * variants.length + variantIndex) * trials
          const records: Array<TrialRecord.TrialRecord> = []
          let resumed = 0
          for (let index = 0; index < trials; index++) {
            const record = slots[base + index]
            if (record === undefined) continue
            records.push(record)
            if (wasResumed[base + index]) resumed++
          }
          const result = caseResult({ case: c, variant: variant.name, stem: caseStems[caseIndex] ?? "" }, records, {
            confidence,
            resumed
          })
          results.push(result)
          return result
        })
        if (perVariant.every((r) => r.met)) metCases++
        const [a, b] = perVariant
        if (a !== undefined && b !== undefined) {
          const pairs = pairsOf(a.records, b.records)
          pooled.push(...pairs)
          comparisons.push({
            file: c.file,
            name: c.live.name,
            a: a.variant,
            b: b.variant,
            comparison: Statistics.compare(pairs, { confidence })
          })
        }
      })
      const [first, second] = variants
      if (second !== undefined) {
        comparisons.push({
          file: null,
          name: "all cases",
          a: first.name,
          b: second.name,
          comparison: Statistics.compare(pooled, { confidence })
        })
      }
      const summary: Summary = {
        cases: cases.length,
        met: metCases,
        notMet: cases.length - metCases,
        usage: LiveCase.sumUsage(results.map((r) => r.usage)),
        ...costOf(results.flatMap((r) => r.records)),
        durationMs: results.reduce((sum, r) => sum + r.durationMs, 0),
        resumed: results.reduce((sum, r) => sum + r.resumed, 0),
        ran,
        interrupted: slots.filter((s) => s !== undefined).length < total
      }
      return {
        model: modelName,
        trialsPerCase: trials,
        variants: variants.map((v) => v.name),
        confidence,
        cases: results,
        comparisons,
        summary
      }
    })
  )
}

const describe = (defect: unknown): string => {
  try {
    return defect instanceof Error ? defect.message : String(defect)
  } catch {
    return "capture failed"
  }
}
