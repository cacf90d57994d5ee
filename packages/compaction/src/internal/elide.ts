/** Eliding old tool results: the block and its ids stay, the content becomes a marker. */
import type { Message } from "@agent-harness/executor"
import type { Estimator } from "../Estimate.ts"
import { sanitize } from "../Estimate.ts"
import { layout } from "./layout.ts"
import { elided, isElided } from "./markers.ts"
import { characters } from "./text.ts"

/** The elided blocks of one message: its index, their call ids, their contents' length, tokens saved. */
export interface Elision {
  readonly index: number
  readonly toolUseIds: ReadonlyArray<string>
  readonly characters: number
  readonly tokens: number
}

type Content = ReadonlyArray<Message.ToolResultBlock | Message.TextBlock>

/** The content with the blocks at `positions` elided, and what that elided. */
const elideAt = (content: Content, positions: ReadonlyArray<number>, names: ReadonlyMap<string, string>) => {
  const blocks = [...content]
  const ids: Array<string> = []
  let count = 0
  for (const b of positions) {
    const block = blocks[b]
    if (block?.type !== "tool_result") continue
    const length = characters(block.content)
    blocks[b] = {
      type: "tool_result",
      tool_use_id: block.tool_use_id,
      content: elided(length, names.get(block.tool_use_id)),
      is_error: block.is_error
    }
    ids.push(block.tool_use_id)
    count += length
  }
  return { content: blocks as Content, ids, characters: count }
}

/**
 * The history with its oldest tool results elided until it is under `target`. A message whose
 * results can all go without reaching the target is elided in one step (one estimate); in the
 * message where the target is reached, results go one at a time, so it stops as soon as it is
 * under. A change that does not lower the message's estimate is not made.
 */
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
    const positions: Array<number> = []
    m.content.forEach((block, b) => {
      if (block.type !== "tool_result" || isElided(block.content)) return
      // A result no longer than its marker stays as it is.
      const marker = elided(block.content.length, names.get(block.tool_use_id))
      if (marker.length < block.content.length) positions.push(b)
    })
    if (positions.length === 0) continue
    const current = estimates[i] ?? 0
    const all = elideAt(m.content, positions, names)
    const allTokens = sanitize(estimate({ role: "user", content: all.content }))
    if (!(allTokens < current)) continue
    if (total - (current - allTokens) > target || positions.length === 1) {
      messages[i] = { role: "user", content: all.content }
      elisions.push({ index: i, toolUseIds: all.ids, characters: all.characters, tokens: current - allTokens })
      total -= current - allTokens
      continue
    }
    // The target is reached inside this message: one result at a time, oldest first.
    for (let k = 1; k <= positions.length; k++) {
      const some = k === positions.length ? all : elideAt(m.content, positions.slice(0, k), names)
      const someTokens =
        k === positions.length ? allTokens : sanitize(estimate({ role: "user", content: some.content }))
      if (!(someTokens < current) || (total - (current - someTokens) > target && k < positions.length)) continue
      messages[i] = { role: "user", content: some.content }
      elisions.push({ index: i, toolUseIds: some.ids, characters: some.characters, tokens: current - someTokens })
      total -= current - someTokens
      break
    }
  }
  return { messages, elisions }
}
