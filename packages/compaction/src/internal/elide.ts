/** Eliding old tool results: the block and its ids stay, the content becomes a marker. */
import type { Message } from "@agent-harness/executor"
import type { Estimator } from "../Estimate.ts"
import { sanitize } from "../Estimate.ts"
import { layout } from "./layout.ts"
import { elided, isElided } from "./markers.ts"
import { characters } from "./text.ts"

/** One elided block: the message it is in, its call id, its content's length, tokens saved. */
export interface Elision {
  readonly index: number
  readonly toolUseId: string
  readonly characters: number
  readonly tokens: number
}

/** The history with its oldest tool results elided until it is under `target`. */
export const elide = (
  history: ReadonlyArray<Message.Message>,
  target: number,
  estimate: Estimator,
  keepLast: number
): { readonly messages: ReadonlyArray<Message.Message>; readonly elisions: ReadonlyArray<Elision> } => {
  const estimates = history.map((m) => sanitize(estimate(m)))
  let total = 0
  for (const e of estimates) total += e
  if (total <= target) return { messages: history, elisions: [] }
  const shape = layout(history)
  const protectedFrom =
    keepLast === 0
      ? history.length
      : shape.turns.length >= keepLast
        ? (shape.turns[shape.turns.length - keepLast]?.start ?? history.length)
        : shape.headEnd
  const names = new Map<string, string>()
  for (let i = 0; i < protectedFrom; i++) {
    const m = history[i]
    if (m?.role !== "assistant") continue
    for (const block of m.content)
      if (block.type === "tool_use" && !names.has(block.id)) names.set(block.id, block.name)
  }
  const messages = [...history]
  const elisions: Array<Elision> = []
  for (let i = 0; i < protectedFrom && total > target; i++) {
    const m = history[i]
    if (m?.role !== "user" || typeof m.content === "string") continue
    let content = m.content
    let current = estimates[i] ?? 0
    for (let b = 0; b < content.length && total > target; b++) {
      const block = content[b]
      if (block?.type !== "tool_result" || isElided(block.content)) continue
      const length = characters(block.content)
      const replacement: Message.ToolResultBlock = {
        type: "tool_result",
        tool_use_id: block.tool_use_id,
        content: elided(length, names.get(block.tool_use_id)),
        is_error: block.is_error
      }
      const candidate = [...content.slice(0, b), replacement, ...content.slice(b + 1)]
      const next = sanitize(estimate({ role: "user", content: candidate }))
      if (!(next < current)) continue
      elisions.push({ index: i, toolUseId: block.tool_use_id, characters: length, tokens: current - next })
      total -= current - next
      current = next
      content = candidate
    }
    if (content !== m.content) messages[i] = { role: "user", content }
  }
  return { messages, elisions }
}
