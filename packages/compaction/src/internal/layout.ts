/**
 * The shape of a history the strategies cut along: the system messages at its start, the head
 * (the messages before the first assistant message: the first user message), and the turns (an
 * assistant message with the messages after it up to the next assistant message: the user
 * message holding its tool_results). Cutting between turns never separates a tool_use from its
 * tool_result.
 */
import type { Message } from "@agent-harness/executor"

/** A run of messages `[start, end)`. */
export interface Span {
  readonly start: number
  readonly end: number
}

/** Where the system messages end, the head ends and each turn starts and ends. */
export interface Layout {
  /** The system messages at the start are `[0, systemEnd)`. */
  readonly systemEnd: number
  /** The head is `[systemEnd, headEnd)`: normally the first user message. */
  readonly headEnd: number
  /** The turns, oldest first; the last ends at the history's length. */
  readonly turns: ReadonlyArray<Span>
}

/** The layout of `history`. */
export const layout = (history: ReadonlyArray<Message.Message>): Layout => {
  const n = history.length
  let systemEnd = 0
  while (systemEnd < n && history[systemEnd]?.role === "system") systemEnd++
  let headEnd = systemEnd
  while (headEnd < n && history[headEnd]?.role !== "assistant") headEnd++
  const turns: Array<Span> = []
  let start = headEnd
  for (let i = headEnd + 1; i <= n; i++) {
    if (i === n || history[i]?.role === "assistant") {
      turns.push({ start, end: i })
      start = i
    }
  }
  return { systemEnd, headEnd, turns }
}
