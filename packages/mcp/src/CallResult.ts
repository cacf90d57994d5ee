/**
 * MCP `tools/call` results and our observations, both ways: an `Outcome` becomes a result whose
 * `isError` is the observation's `is_error` and whose one text block is the exact text the model
 * would read; a server's result becomes the observation text (text blocks as they are, other
 * blocks described in one line, structured content as JSON when there is no content).
 *
 * @since 0.1.0
 */
import { Outcome } from "@agent-harness/executor"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types"

/**
 * A result from an `Outcome`: `{ content: [{ type: "text", text }], isError }`.
 *
 * @since 0.1.0
 */
export const fromOutcome = (outcome: Outcome.Outcome): CallToolResult => ({
  content: [{ type: "text", text: outcome.content }],
  isError: Outcome.isError(outcome)
})

/**
 * An error result with a text of the harness (a call interrupted before it answered).
 *
 * @since 0.1.0
 */
export const error = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true })

/** The size in bytes of base64 data, without decoding it. */
const base64Bytes = (data: string): number => {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding)
}

const field = (block: object, key: string): unknown => (block as Record<string, unknown>)[key]

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const json = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** One content block as text. */
const blockText = (block: unknown): string => {
  if (typeof block !== "object" || block === null) return json(block)
  const type = field(block, "type")
  switch (type) {
    case "text":
      return str(field(block, "text")) ?? ""
    case "image":
    case "audio": {
      const data = str(field(block, "data")) ?? ""
      return `[${type} ${str(field(block, "mimeType")) ?? "?"}, ${base64Bytes(data)} bytes]`
    }
    case "resource_link": {
      const name = str(field(block, "name"))
      return `[resource ${str(field(block, "uri")) ?? "?"}${name === undefined ? "" : ` (${name})`}]`
    }
    case "resource": {
      const resource = field(block, "resource")
      if (typeof resource !== "object" || resource === null) return json(block)
      const text = str(field(resource, "text"))
      if (text !== undefined) return text
      const blob = str(field(resource, "blob")) ?? ""
      const mime = str(field(resource, "mimeType"))
      return `[resource ${str(field(resource, "uri")) ?? "?"}${mime === undefined ? "" : `, ${mime}`}, ${base64Bytes(blob)} bytes]`
    }
    default:
      return json(block)
  }
}

/**
 * The observation text of a server's result: its content blocks, one per line (text as it is;
 * images, audio, links and binary resources as `[image image/png, 1024 bytes]`-style lines); the
 * structured content as JSON when there is no content block.
 *
 * @since 0.1.0
 */
export const text = (result: CallToolResult): string => {
  const content: ReadonlyArray<unknown> = Array.isArray(result.content) ? result.content : []
  if (content.length === 0) return result.structuredContent === undefined ? "" : json(result.structuredContent)
  return content.map(blockText).join("\n")
}
