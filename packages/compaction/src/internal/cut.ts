/**
 * Cutting the oldest turns out of a history and leaving a user text block in their place,
 * merged into the user message before them so that roles still alternate. Shared by
 * `dropOldestTurns` and `summarize`.
 */
import type { Message } from "@agent-harness/executor"
import { sanitize } from "../Estimate.ts"
import type { Estimator } from "../Estimate.ts"
import type { Layout } from "./layout.ts"
import { layout } from "./layout.ts"
import { droppedCount } from "./markers.ts"

/** The units that may be cut, oldest first, as message spans, and what stays in front of them. */
export interface Plan {
  readonly history: ReadonlyArray<Message.Message>
  readonly layout: Layout
  /** Cut units, oldest first: `[start, end)` of each. */
  readonly units: ReadonlyArray<{ readonly start: number; readonly end: number }>
  /** How many units are turns (the head, when cuttable, is one more unit that is not a turn). */
  readonly headCut: boolean
  /** Estimate of each message of `history`. */
  readonly estimates: ReadonlyArray<number>
  readonly total: number
}

/** The plan for `history`: the turns but the last `keepLast`, and the head too when it is not kept. */
export const plan = (
  history: ReadonlyArray<Message.Message>,
  estimate: Estimator,
  keepLast: number,
  keepHead: boolean
): Plan => {
  const shape = layout(history)
  const estimates = history.map((m) => sanitize(estimate(m)))
  let total = 0
  for (const e of estimates) total += e
  const turns = shape.turns.slice(0, Math.max(0, shape.turns.length - keepLast))
  const headCut = !keepHead && shape.headEnd > shape.systemEnd
  const units = headCut ? [{ start: shape.systemEnd, end: shape.headEnd }, ...turns] : turns
  return { history, layout: shape, units, headCut, estimates, total }
}

/** The number of turns (not the head) among the first `k` units. */
export const turnsIn = (p: Plan, k: number): number => (p.headCut ? Math.max(0, k - 1) : k)

const appendText = (content: Message.UserMessage["content"], text: string): Message.UserMessage["content"] => {
  const blocks: Array<Message.ToolResultBlock | Message.TextBlock> =
    typeof content === "string" ? (content === "" ? [] : [{ type: "text", text: content }]) : [...content]
  blocks.push({ type: "text", text })
  return blocks
}

/** The user message that stands before the kept turns, with `text` merged in, and where it goes. */
const anchor = (p: Plan, k: number, note: (previous: number) => string, mergeDropNote: boolean) => {
  const cutEnd = p.units[k - 1]?.end ?? p.layout.headEnd
  const before = p.headCut ? p.layout.systemEnd : p.layout.headEnd
  const last = p.history[before - 1]
  if (before > p.layout.systemEnd && last !== undefined && last.role === "user") {
    const content = last.content
    const lastBlock = typeof content === "string" ? undefined : content[content.length - 1]
    const previous = mergeDropNote && lastBlock?.type === "text" ? droppedCount(lastBlock.text) : undefined
    const merged: Message.UserMessage =
      previous !== undefined && typeof content !== "string"
        ? { role: "user", content: [...content.slice(0, -1), { type: "text", text: note(previous) }] }
        : { role: "user", content: appendText(content, note(0)) }
    return { keep: before - 1, replaced: before - 1, merged, cutEnd }
  }
  const merged: Message.UserMessage = { role: "user", content: [{ type: "text", text: note(0) }] }
  return { keep: before, replaced: -1, merged, cutEnd }
}

/** The tokens the first `k` units take. */
const unitTokens = (p: Plan, k: number): number => {
  let tokens = 0
  const end = p.units[k - 1]?.end ?? 0
  for (let i = p.units[0]?.start ?? end; i < end; i++) tokens += p.estimates[i] ?? 0
  return tokens
}

/** The estimate of the history with the first `k` units (k ≥ 1) cut and the note merged (see `cut`). */
export const cutTotal = (
  p: Plan,
  k: number,
  note: (previous: number) => string,
  mergeDropNote: boolean,
  estimate: Estimator
): number => {
  const a = anchor(p, k, note, mergeDropNote)
  const replacedTokens = a.replaced >= 0 ? (p.estimates[a.replaced] ?? 0) : 0
  return p.total - unitTokens(p, k) - replacedTokens + sanitize(estimate(a.merged))
}

/** What cutting the first `k` units gives: the messages, the cut indexes and the new total. */
export interface Cut {
  readonly messages: ReadonlyArray<Message.Message>
  readonly indexes: ReadonlyArray<number>
  readonly total: number
}

/**
 * The history with the first `k` units (k ≥ 1) cut and `note(previous)` merged into the user
 * message before them (or given its own user message when there is none). With
 * `mergeDropNote`, an earlier drop note ending that message is replaced and `previous` is its
 * count (0 when there is none).
 */
export const cut = (
  p: Plan,
  k: number,
  note: (previous: number) => string,
  mergeDropNote: boolean,
  estimate: Estimator
): Cut => {
  const a = anchor(p, k, note, mergeDropNote)
  const indexes: Array<number> = []
  for (let i = p.units[0]?.start ?? a.cutEnd; i < a.cutEnd; i++) indexes.push(i)
  const replacedTokens = a.replaced >= 0 ? (p.estimates[a.replaced] ?? 0) : 0
  const messages = [...p.history.slice(0, a.keep), a.merged, ...p.history.slice(a.cutEnd)]
  return {
    messages,
    indexes,
    total: p.total - unitTokens(p, k) - replacedTokens + sanitize(estimate(a.merged))
  }
}
