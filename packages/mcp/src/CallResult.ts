/**
 * MCP `tools/call` results and our observations, both ways: an `Outcome` becomes a result whose
 * `isError` is the observation's `is_error`, whose first text block is the exact text the model
 * would read, followed by its rich parts as MCP blocks (images, audio, resource links, embedded
 * resources), with its structured content as `structuredContent`; a server's result becomes the
 * observation text (text blocks as they are, other blocks described in one line, structured
 * content as JSON when there is no content) with its non-text blocks as rich parts and its
 * `structuredContent` as structured content (`content`).
 *
 * @since 0.1.0
 */
import type { Outcome } from "@agent-harness/executor"
import { JsonPath, type Tool, ToolContent } from "@agent-harness/tool-schema"
// @ts-types="@modelcontextprotocol/sdk/types"
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js"
import * as ServedResult from "./internal/ServedResult.ts"

/**
 * A result from an `Outcome`: `{ content: [{ type: "text", text }, ...parts], isError }`, with
 * `structuredContent` when the outcome has structured content that is an object (MCP's rule).
 *
 * @since 0.1.0
 */
export const fromOutcome: (outcome: Outcome.Outcome) => CallToolResult = ServedResult.fromOutcome

/**
 * The `outputSchema` of a tool for `tools/list`, as an object to spread into its listing: the
 * JSON Schema of its `output` when it declares one whose root is an object (MCP requires
 * `type: "object"`), otherwise nothing.
 *
 * @since 0.1.0
 */
export const outputSchemaOf: (tool: Tool.Any) => { readonly outputSchema?: { readonly type: "object" } } =
  ServedResult.outputSchemaOf

/**
 * An error result with a text of the harness (a call interrupted before it answered).
 *
 * @since 0.1.0
 */
export const error: (text: string) => CallToolResult = ServedResult.error

const base64Bytes = ToolContent.base64Bytes

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

/** One content block as a rich part, when it is one (text blocks are the text). */
const blockPart = (block: unknown): ToolContent.Part | undefined => {
  if (typeof block !== "object" || block === null) return undefined
  const type = field(block, "type")
  switch (type) {
    case "image":
    case "audio": {
      const data = str(field(block, "data"))
      const mediaType = str(field(block, "mimeType"))
      return data === undefined || mediaType === undefined ? undefined : { type, mediaType, data }
    }
    case "resource_link": {
      const uri = str(field(block, "uri"))
      if (uri === undefined) return undefined
      const name = str(field(block, "name"))
      const mimeType = str(field(block, "mimeType"))
      const description = str(field(block, "description"))
      return {
        type,
        uri,
        ...(name === undefined ? {} : { name }),
        ...(mimeType === undefined ? {} : { mimeType }),
        ...(description === undefined ? {} : { description })
      }
    }
    case "resource": {
      const resource = field(block, "resource")
      if (typeof resource !== "object" || resource === null) return undefined
      const uri = str(field(resource, "uri"))
      const text = str(field(resource, "text"))
      const blob = str(field(resource, "blob"))
      const mimeType = str(field(resource, "mimeType"))
      if (uri === undefined || (text === undefined && blob === undefined)) return undefined
      return {
        type,
        uri,
        ...(mimeType === undefined ? {} : { mimeType }),
        ...(text !== undefined ? { text } : { blob: blob as string })
      }
    }
    default:
      return undefined
  }
}

/**
 * A server's result as a mounted tool's content: the observation `text` (which already says
 * what each block is), its non-text blocks as rich parts, and its `structuredContent` as
 * structured content. The executor checks the parts (size, base64) before they go anywhere.
 *
 * @since 0.1.0
 */
export const content = (result: CallToolResult): ToolContent.Content => {
  const blocks: ReadonlyArray<unknown> = Array.isArray(result.content) ? result.content : []
  const parts = blocks.flatMap((block) => {
    const part = blockPart(block)
    return part === undefined ? [] : [part]
  })
  return ToolContent.make({
    text: text(result),
    parts,
    structured: result.structuredContent,
    described: true
  })
}

/**
 * What a server answered to `tools/call`, checked against MCP: the result, or the first thing
 * about it that is off-spec, in one line (`content[0].type: …`).
 *
 * @since 0.1.0
 */
export type Checked =
  | { readonly _tag: "Valid"; readonly result: CallToolResult }
  | { readonly _tag: "OffSpec"; readonly problem: string }

const pathText = JsonPath.plain

/**
 * Checks an answer to `tools/call` (as MCP's schema does, and more strictly on one point: a
 * result with neither `content` nor `structuredContent` is off-spec, since MCP requires
 * `content` unless the tool has an output schema). Never throws, whatever it is given.
 *
 * @since 0.1.0
 */
export const check = (answer: unknown): Checked => {
  try {
    if (typeof answer !== "object" || answer === null || Array.isArray(answer)) {
      return {
        _tag: "OffSpec",
        problem: `the result is ${answer === null ? "null" : Array.isArray(answer) ? "an array" : typeof answer}, not an object`
      }
    }
    const record = answer as Record<string, unknown>
    if (record.content === undefined && record.structuredContent === undefined) {
      return { _tag: "OffSpec", problem: "the result has no 'content'" }
    }
    const parsed = CallToolResultSchema.safeParse(answer)
    if (parsed.success) return { _tag: "Valid", result: parsed.data }
    const issue = parsed.error.issues[0]
    if (issue === undefined) return { _tag: "OffSpec", problem: "the result is not an MCP tool result" }
    const at = pathText(issue.path)
    return { _tag: "OffSpec", problem: `${at === "" ? "the result" : at}: ${issue.message}` }
  } catch {
    return { _tag: "OffSpec", problem: "the result cannot be read" }
  }
}
