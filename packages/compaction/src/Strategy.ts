/**
 * Compaction strategies: what to take out of a history so that it fits a target number of
 * tokens, without ever separating a `tool_use` from its `tool_result`.
 *
 * A strategy gets the history, the target and the estimator, and gives back the compacted
 * messages with a `Removed` entry for everything it elided, dropped or summarized. Each one
 * stops as soon as the history is under the target, never gives more estimated tokens than it
 * was given, and keeps the system messages, the first user message and the last turn. A turn
 * is an assistant message and the messages after it up to the next assistant message (the
 * user message holding its tool results), so cutting between turns keeps every call with its
 * result.
 *
 * `defaultStrategy` is the conservative one: elide old tool results (the last 2 turns kept as
 * they are), then, only if that was not enough, drop the oldest turns.
 *
 * @since 0.1.0
 */
import type { SpendMeter } from "@agent-harness/budgets"
import type { Message } from "@agent-harness/executor"
import { Effect, Schema } from "effect"
import type { Estimator } from "./Estimate.ts"
import { memoized, total } from "./Estimate.ts"
import { cut, cutTotal, plan, turnsIn } from "./internal/cut.ts"
import type { Plan } from "./internal/cut.ts"
import { elide } from "./internal/elide.ts"
import * as Markers from "./internal/markers.ts"
import { characters, safeJson } from "./internal/text.ts"

/** What a compaction did to a part of the history: elided, dropped or summarized. @since 0.1.0 */
export const Kind: Schema.Literals<readonly ["elided", "dropped", "summarized"]> = Schema.Literals([
  "elided",
  "dropped",
  "summarized"
])

/** `elided` (a tool result's content replaced by a marker), `dropped` or `summarized` (turns cut). @since 0.1.0 */
export type Kind = typeof Kind.Type

/**
 * One thing a strategy took out: what it did, the indexes of the messages it touched (in the
 * history that strategy was given; eliding keeps every index), the tool_use ids concerned, how
 * many characters went and how many estimated tokens that saved (net of the marker or note
 * left in their place). A Schema, so a trace can carry it.
 *
 * @since 0.1.0
 */
export const Removed: Schema.Struct<{
  readonly kind: typeof Kind
  readonly indexes: Schema.$Array<Schema.Int>
  readonly tool_use_ids: Schema.$Array<Schema.String>
  readonly characters: Schema.Int
  readonly tokens: Schema.Number
}> = Schema.Struct({
  kind: Kind,
  indexes: Schema.Array(Schema.Int),
  tool_use_ids: Schema.Array(Schema.String),
  characters: Schema.Int,
  tokens: Schema.Number
})

/** One thing a strategy elided, dropped or summarized, with the tokens that saved. @since 0.1.0 */
export type Removed = typeof Removed.Type

/** What a strategy gives back. @since 0.1.0 */
export interface Result {
  /** The compacted history. */
  readonly messages: ReadonlyArray<Message.Message>
  /** What was elided, dropped or summarized, in the order it was done. */
  readonly removed: ReadonlyArray<Removed>
}

/**
 * What a strategy is told about the run it compacts for: the turn about to be made and the
 * run's spend (a summarizer's model call draws from it).
 *
 * @since 0.1.0
 */
export interface Context {
  /** The model call about to be made, from 1. */
  readonly turn?: number | undefined
  /** The run's spend, when it has one. */
  readonly spend?: SpendMeter.SpendMeter | undefined
}

/**
 * A compaction strategy: the history, the target in estimated tokens, the estimator and the
 * run's context in; the compacted history and what was removed out. It fails only with its own
 * `E` (a summarizer's failure, or its call refused by the spend: `Spend.Exhausted`).
 *
 * @since 0.1.0
 */
export type Strategy<E = never, R = never> = (
  history: ReadonlyArray<Message.Message>,
  target: number,
  estimate: Estimator,
  context?: Context
) => Effect.Effect<Result, E, R>

/** The error type of a strategy. @since 0.1.0 */
export type Error<S> = S extends Strategy<infer E, infer _R> ? E : never

/** The services a strategy needs. @since 0.1.0 */
export type Services<S> = S extends Strategy<infer _E, infer R> ? R : never

/**
 * The marker an elided tool_result's content becomes:
 * `[elided by compaction: N characters of the <tool name> result]`.
 *
 * @since 0.1.0
 */
export const elidedMarker: (characters: number, toolName: string | undefined) => string = Markers.elided

/** Whether a tool_result's content is an elision marker (eliding it again would save nothing). @since 0.1.0 */
export const isElidedMarker: (content: string) => boolean = Markers.isElided

/** The note left where turns were dropped: `[N earlier turns removed by compaction]`. @since 0.1.0 */
export const droppedNote: (count: number) => string = Markers.dropped

/** The text block that holds a summary: `[N earlier turns summarized by compaction]` and the summary. @since 0.1.0 */
export const summaryText: (count: number, summary: string) => string = Markers.summary

const wholeNumber = (what: string, value: number | undefined, fallback: number): number => {
  const n = value ?? fallback
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`${what} must be a whole number ≥ 0, got ${String(n)}`)
  }
  return n
}

const unchanged = (history: ReadonlyArray<Message.Message>): Result => ({ messages: history, removed: [] })

/** Options of `elideToolResults`. @since 0.1.0 */
export interface ElideOptions {
  /** How many of the last turns are left as they are (a whole number ≥ 0; default 2). */
  readonly keepLast?: number | undefined
}

/**
 * Elides tool results, oldest first: each `tool_result` block keeps its place, its
 * `tool_use_id` and its `is_error`, and its content becomes
 * `[elided by compaction: N characters of the <tool name> result]` (the name from the matching
 * `tool_use`; its parts and structured content go too). The last `keepLast` turns (default 2)
 * are left as they are, a result whose marker would not be shorter is left too, and it stops
 * as soon as the history is under the target. One `Removed` entry per user message it changed
 * (its index, the ids of the results elided there). Throws a `RangeError` for a bad `keepLast`.
 *
 * @since 0.1.0
 */
export const elideToolResults = (options?: ElideOptions): Strategy => {
  const keepLast = wholeNumber("elideToolResults options.keepLast", options?.keepLast, 2)
  return (history, target, estimate) =>
    Effect.sync(() => {
      const { elisions, messages } = elide(history, target, estimate, keepLast)
      return {
        messages,
        removed: elisions.map(
          (e): Removed => ({
            kind: "elided",
            indexes: [e.index],
            tool_use_ids: e.toolUseIds,
            characters: e.characters,
            tokens: e.tokens
          })
        )
      }
    })
}

/** The characters and tool_use ids of the messages at `indexes`. */
const contentsOf = (history: ReadonlyArray<Message.Message>, indexes: ReadonlyArray<number>) => {
  let count = 0
  const ids: Array<string> = []
  for (const i of indexes) {
    const m = history[i]
    if (m === undefined) continue
    const content = m.content
    if (typeof content === "string") {
      count += characters(content)
      continue
    }
    for (const block of content) {
      if (block.type === "text" || block.type === "reasoning") count += characters(block.text)
      else if (block.type === "tool_result") count += characters(block.content)
      else if (block.type === "tool_use") {
        ids.push(block.id)
        count += characters(safeJson(block.input))
      }
    }
  }
  return { characters: count, ids }
}

/** The fewest units whose cut brings `p` under `target`, else the cut that saves the most; undefined if none saves. */
const bestCut = (
  p: Plan,
  target: number,
  note: (k: number) => (previous: number) => string,
  merge: boolean,
  estimate: Estimator
) => {
  let best: { readonly k: number; readonly total: number } | undefined
  for (let k = 1; k <= p.units.length; k++) {
    const t = cutTotal(p, k, note(k), merge, estimate)
    if (t <= target) return k
    if (t < (best?.total ?? p.total)) best = { k, total: t }
  }
  return best?.k
}

/** Options of `dropOldestTurns`. @since 0.1.0 */
export interface DropOptions {
  /** Keep the first user message (the task); default true. When false it may be dropped too. */
  readonly keepFirstUser?: boolean | undefined
  /** How many of the last turns are never dropped (a whole number ≥ 0; default 1). */
  readonly keepLast?: number | undefined
}

/**
 * Drops whole turns, oldest first, after the system messages and the first user message: an
 * assistant message goes with the user message holding its tool results, so no `tool_use` is
 * left without its `tool_result` nor the other way round. In their place it leaves the note
 * `[N earlier turns removed by compaction]` as a text block of the user message before them
 * (an earlier note there is replaced by one with the sum), so roles still alternate and the
 * history never starts with an assistant message. The last `keepLast` turns (default 1) are
 * kept; it stops as soon as the history is under the target. Throws a `RangeError` for a bad
 * `keepLast`.
 *
 * @since 0.1.0
 */
export const dropOldestTurns = (options?: DropOptions): Strategy => {
  const keepLast = wholeNumber("dropOldestTurns options.keepLast", options?.keepLast, 1)
  const keepHead = options?.keepFirstUser ?? true
  return (history, target, estimate) =>
    Effect.sync(() => {
      const p = plan(history, estimate, keepLast, keepHead)
      if (p.total <= target) return unchanged(history)
      const note = (k: number) => (previous: number) => Markers.dropped(previous + turnsIn(p, k))
      const k = bestCut(p, target, note, true, estimate)
      if (k === undefined) return unchanged(history)
      const done = cut(p, k, note(k), true, estimate)
      const what = contentsOf(history, done.indexes)
      return {
        messages: done.messages,
        removed: [
          {
            kind: "dropped",
            indexes: done.indexes,
            tool_use_ids: what.ids,
            characters: what.characters,
            tokens: p.total - done.total
          }
        ]
      }
    })
}

/** Options of `summarize`. @since 0.1.0 */
export interface SummarizeOptions<E, R> {
  /**
   * Writes the summary of the turns it is given (the removed messages, oldest first), with the
   * run's context (`Summarizer.make` asks a model, drawing from the context's spend).
   */
  readonly summarize: (turns: ReadonlyArray<Message.Message>, context: Context) => Effect.Effect<string, E, R>
  /** How many of the last turns are never summarized (a whole number ≥ 0; default 1). */
  readonly keepLast?: number | undefined
  /** Estimated tokens set aside for the summary when choosing how many turns to summarize (default 512). */
  readonly reserve?: number | undefined
}

/**
 * Replaces the oldest turns (the same turns `dropOldestTurns` would cut) by one user text
 * block `[N earlier turns summarized by compaction]` followed by the summary, merged into the
 * user message before them. It summarizes the fewest turns that bring the history under the
 * target with `reserve` tokens left for the summary (all but the last `keepLast` when none
 * does); the summarizer is called once, with the removed messages, and its failure is the
 * strategy's. A summary that would not make the history smaller is not used. Throws a
 * `RangeError` for a bad `keepLast` or `reserve`.
 *
 * @since 0.1.0
 */
export const summarize = <E, R>(options: SummarizeOptions<E, R>): Strategy<E, R> => {
  const keepLast = wholeNumber("summarize options.keepLast", options.keepLast, 1)
  const reserve = wholeNumber("summarize options.reserve", options.reserve, 512)
  return (history, target, estimate, context) =>
    Effect.suspend(() => {
      const p = plan(history, estimate, keepLast, true)
      if (p.total <= target || p.units.length === 0) return Effect.succeed(unchanged(history))
      const placeholder = (k: number) => () => Markers.summary(turnsIn(p, k), "")
      const k = bestCut(p, Math.max(0, target - reserve), placeholder, false, estimate) ?? p.units.length
      const first = p.units[0]?.start ?? 0
      const last = p.units[k - 1]?.end ?? first
      const turns = history.slice(first, last)
      return Effect.map(options.summarize(turns, context ?? {}), (summary): Result => {
        const text = Markers.summary(turnsIn(p, k), typeof summary === "string" ? summary : String(summary))
        const done = cut(p, k, () => text, false, estimate)
        if (!(done.total < p.total)) return unchanged(history)
        const what = contentsOf(history, done.indexes)
        return {
          messages: done.messages,
          removed: [
            {
              kind: "summarized",
              indexes: done.indexes,
              tool_use_ids: what.ids,
              characters: what.characters,
              tokens: p.total - done.total
            }
          ]
        }
      })
    })
}

/**
 * The strategies in order, each applied once to what the one before gave, until the history
 * is under the target; their `removed` entries in the order they were made (each one's indexes
 * refer to the history that strategy was given).
 *
 * @since 0.1.0
 */
export const chain = <const S extends ReadonlyArray<Strategy<unknown, unknown>>>(
  ...strategies: S
): Strategy<Error<S[number]>, Services<S[number]>> =>
  ((history, target, given, context) => {
    const estimate = memoized(given)
    const step = (i: number, done: Result): Effect.Effect<Result, unknown, unknown> => {
      const strategy = strategies[i]
      if (strategy === undefined || total(done.messages, estimate) <= target) return Effect.succeed(done)
      return Effect.flatMap(strategy(done.messages, target, estimate, context), (result) =>
        step(i + 1, { messages: result.messages, removed: [...done.removed, ...result.removed] })
      )
    }
    return Effect.suspend(() => step(0, unchanged(history)))
  }) as Strategy<Error<S[number]>, Services<S[number]>>

/**
 * The default, conservative strategy: elide tool results but those of the last 2 turns, then,
 * if the history is still over the target, drop the oldest turns (the system messages, the
 * first user message and the last turn are always kept).
 *
 * @since 0.1.0
 */
export const defaultStrategy: Strategy = chain(
  elideToolResults({ keepLast: 2 }),
  dropOldestTurns({ keepFirstUser: true })
)
