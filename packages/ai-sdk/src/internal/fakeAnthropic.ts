/**
 * The fake provider's Anthropic Messages route: what a request breaks (in the real API's words),
 * the error types by status, and a scripted reply in the Messages wire format.
 */
import type { Reply } from "../FakeProvider.ts"
import { arrayOf, blocksOf, isObject, type Json, rawMark } from "./fakeJson.ts"
import * as SchemaRules from "./schemaRules.ts"

/** The tool names Messages accepts. */
export const namePattern = /^[a-zA-Z0-9_-]{1,128}$/

const imageTypes = ["image/jpeg", "image/png", "image/gif", "image/webp"]

/** What a `tool_result`'s content breaks: only text, image and document blocks, images as the API takes them. */
const toolResultContentProblems = (at: string, block: Json): Array<string> => {
  if (typeof block.content === "string" || block.content === undefined) return []
  if (!Array.isArray(block.content)) return [`${at}.tool_result.content: Input should be a valid list`]
  const problems: Array<string> = []
  for (const [k, part] of block.content.entries()) {
    const where = `${at}.tool_result.content.${k}`
    if (!isObject(part)) {
      problems.push(`${where}: Input should be a valid dictionary`)
      continue
    }
    if (part.type === "text") {
      if (typeof part.text !== "string" || part.text === "")
        problems.push(`${where}: text content blocks must be non-empty`)
    } else if (part.type === "image") {
      const source = isObject(part.source) ? part.source : {}
      if (source.type === "base64") {
        if (!imageTypes.includes(String(source.media_type))) {
          problems.push(
            `${where}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`
          )
        }
        if (typeof source.data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(source.data)) {
          problems.push(`${where}.image.source.base64.data: the image data is not valid base64`)
        }
      } else if (source.type !== "url" && source.type !== "file") {
        problems.push(
          `${where}.image.source: Input tag ${JSON.stringify(source.type)} does not match 'base64', 'url' or 'file'`
        )
      }
    } else if (part.type !== "document" && part.type !== "search_result" && part.type !== "tool_reference") {
      problems.push(
        `${where}: Input tag ${JSON.stringify(part.type)} found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result', 'document', 'tool_reference'`
      )
    }
  }
  return problems
}

/** What a Messages request breaks, in the real API's words where it has some. */
export const problems = (body: unknown): Array<string> => {
  if (!isObject(body)) return ["the body is not a JSON object"]
  const problems: Array<string> = []
  if (typeof body.model !== "string") problems.push("model: Field required")
  if (!Number.isSafeInteger(body.max_tokens) || (body.max_tokens as number) < 1) {
    problems.push("max_tokens: Field required (a whole number of at least 1)")
  }
  for (const [i, tool] of arrayOf(body.tools).entries()) {
    const name = isObject(tool) ? tool.name : undefined
    if (typeof name !== "string" || !namePattern.test(name)) {
      problems.push(
        `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$', got ${JSON.stringify(name)}`
      )
    }
    problems.push(...SchemaRules.anthropicInputSchema(i, isObject(tool) ? tool.input_schema : undefined))
  }
  const messages = arrayOf(body.messages).filter(isObject)
  if (messages.length === 0) problems.push("messages: at least one message is required")
  else if (messages[0]?.role !== "user") problems.push("messages.0.role: the first message must use the 'user' role")
  const thinking = isObject(body.thinking) && (body.thinking.type === "enabled" || body.thinking.type === "adaptive")
  for (const [i, message] of messages.entries()) {
    const blocks = blocksOf(message.content)
    if (message.role === "assistant") {
      const uses = blocks.filter((b) => b.type === "tool_use")
      for (const use of uses) {
        if (typeof use.name !== "string" || !namePattern.test(use.name)) {
          problems.push(
            `messages.${i}: tool_use name ${JSON.stringify(use.name)} does not match '^[a-zA-Z0-9_-]{1,128}$'`
          )
        }
        if (!isObject(use.input)) problems.push(`messages.${i}: tool_use.input: Input should be a valid dictionary`)
      }
      if (uses.length === 0) continue
      const next = messages[i + 1]
      const answered = new Set(
        next?.role === "user"
          ? blocksOf(next.content)
              .filter((b) => b.type === "tool_result")
              .map((b) => b.tool_use_id)
          : []
      )
      const missing = uses.map((u) => u.id).filter((id) => !answered.has(id))
      if (missing.length > 0 && next !== undefined) {
        problems.push(
          `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`
        )
      }
      const first = blocks[0]
      const last = messages.slice(i + 1).every((m) => m.role !== "assistant")
      if (thinking && last && first?.type !== "thinking" && first?.type !== "redacted_thinking") {
        problems.push(
          `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`
        )
      }
      for (const block of blocks) {
        if (block.type === "thinking" && typeof block.signature !== "string") {
          problems.push(`messages.${i}: a thinking block has no signature`)
        }
      }
    } else if (message.role === "user") {
      const previous = messages[i - 1]
      const calls = new Set(
        previous?.role === "assistant"
          ? blocksOf(previous.content)
              .filter((b) => b.type === "tool_use")
              .map((b) => b.id)
          : []
      )
      for (const [j, block] of blocks.entries()) {
        if (block.type === "tool_result" && !calls.has(block.tool_use_id)) {
          problems.push(
            `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`
          )
        }
        if (block.type === "tool_result")
          problems.push(...toolResultContentProblems(`messages.${i}.content.${j}`, block))
      }
    }
  }
  return problems
}

/** The error `type` Messages gives for each status. */
export const errorTypes: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error"
}

/** A Messages reply, and the raw JSON texts of its string tool inputs (see `withRawJson`). */
export const reply = (r: Reply, model: unknown, n: number): { readonly json: Json; readonly raws: Array<string> } => {
  const raws: Array<string> = []
  const content = r.blocks.map((b): Json => {
    if (b.type === "text") return { type: "text", text: b.text }
    if (b.type === "tool_use") {
      if (typeof b.input !== "string") return { type: "tool_use", id: b.id, name: b.name, input: b.input }
      raws.push(b.input)
      return { type: "tool_use", id: b.id, name: b.name, input: rawMark(raws.length - 1) }
    }
    const meta = isObject(b.provider_metadata?.anthropic) ? b.provider_metadata.anthropic : {}
    return typeof meta.redactedData === "string"
      ? { type: "redacted_thinking", data: meta.redactedData }
      : {
          type: "thinking",
          thinking: b.text,
          signature: typeof meta.signature === "string" ? meta.signature : `fake-signature-${n}`
        }
  })
  return {
    raws,
    json: {
      id: `msg_fake_${n}`,
      type: "message",
      role: "assistant",
      model: typeof model === "string" ? model : "fake",
      content,
      stop_reason: r.stop ?? (r.blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"),
      stop_sequence: null,
      usage: { input_tokens: r.usage?.input ?? 10, output_tokens: r.usage?.output ?? 5 }
    }
  }
}
