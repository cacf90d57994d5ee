/**
 * A message counted as OpenAI's chat format sends it, with one encoding's counter. Never throws:
 * a value that cannot be read is counted by what can be read of it.
 */
import type { Message } from "@agent-harness/executor"
import type { Count } from "./encodings.ts"

/** Tokens of each message's framing (`<|start|>`, the role's separator, `<|end|>`), by OpenAI's cookbook. */
export const perMessage = 3

/** Strings longer than this are counted a piece at a time (bounded work per piece; see `pieces`). */
export const pieceLength = 16_384

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/**
 * Where to cut `text` at most `pieceLength` after `start`: before a space that follows a
 * non-space (where the encodings' own pre-tokenizer starts a new piece, so the count is as for
 * the whole text), else at the limit, never inside a surrogate pair.
 */
const cutAfter = (text: string, start: number): number => {
  const limit = start + pieceLength
  if (limit >= text.length) return text.length
  for (let i = limit; i > start + pieceLength / 2; i--) {
    if (text.charCodeAt(i) === 0x20 && !isSpace(text.charCodeAt(i - 1)) && !isSpace(text.charCodeAt(i + 1))) return i
  }
  const before = text.charCodeAt(limit - 1)
  return before >= 0xd800 && before <= 0xdbff ? limit - 1 : limit
}

/** The tokens of `text`: at once when it is short, piece by piece when it is long. */
export const countText = (count: Count, text: string): number => {
  if (text.length <= pieceLength) return count(text)
  let tokens = 0
  for (let start = 0; start < text.length; ) {
    const end = cutAfter(text, start)
    tokens += count(text.slice(start, end))
    start = end
  }
  return tokens
}

/** `JSON.stringify(value)`, or `String(value)` when that throws (cyclic, BigInt, a throwing getter), or `""`. */
export const safeJson = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? ""
  } catch {
    try {
      return String(value)
    } catch {
      return ""
    }
  }
}

/** A string as it is; anything else (hostile input) as its JSON. */
const asText = (value: unknown): string => (typeof value === "string" ? value : safeJson(value))

type Block = Message.ReplyBlock | Message.ToolResultBlock

/** A tool result is a message of its own on the wire (role `tool`): its framing, its role, its content. */
const toolResult = (count: Count, block: Message.ToolResultBlock, role: number): number =>
  perMessage +
  role +
  countText(count, asText(block.content)) +
  (block.parts === undefined ? 0 : countText(count, safeJson(block.parts))) +
  (block.structured === undefined ? 0 : countText(count, safeJson(block.structured)))

/** The tokens of one block other than a tool result: its text, or a call's name and JSON arguments. */
const blockTokens = (count: Count, block: Block): number => {
  switch (block.type) {
    case "text":
    case "reasoning":
      return countText(count, asText(block.text))
    case "tool_use":
      return countText(count, asText(block.name)) + countText(count, safeJson(block.input))
    default:
      return countText(count, safeJson(block))
  }
}

/** The tokens of `message` (see `Tokenizer`'s documentation for the convention). */
export const countMessage = (count: Count, message: Message.Message): number => {
  const content: unknown = message.content
  const role = count(asText(message.role))
  if (!Array.isArray(content)) return perMessage + role + countText(count, asText(content))
  let tokens = 0
  let inline = false
  const toolRole = count("tool")
  for (const block of content as ReadonlyArray<Block>) {
    if (block !== null && typeof block === "object" && block.type === "tool_result") {
      tokens += toolResult(count, block, toolRole)
    } else {
      inline = true
      tokens += blockTokens(count, block)
    }
  }
  // The text and calls of the message travel in one message with its role; a user message of
  // tool results only is sent as those results alone.
  return inline || content.length === 0 ? tokens + perMessage + role : tokens
}
