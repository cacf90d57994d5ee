/**
 * An outcome as an MCP `tools/call` result, and a tool's `outputSchema`: what serving writes,
 * without the MCP SDK (its types only), so that serving over stdio never loads it.
 *
 * @internal
 */
import { Outcome } from "@agent-harness/executor"
import { JsonSchema, type Tool, type ToolContent } from "@agent-harness/tool-schema"
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Predicate } from "effect"

type Block = CallToolResult["content"][number]

/** A rich part as an MCP content block. */
const toBlock = (part: ToolContent.Part): Block => {
  switch (part.type) {
    case "image":
    case "audio":
      return { type: part.type, data: part.data, mimeType: part.mediaType }
    case "resource_link":
      return {
        type: "resource_link",
        uri: part.uri,
        name: part.name ?? part.uri,
        ...(part.mimeType === undefined ? {} : { mimeType: part.mimeType }),
        ...(part.description === undefined ? {} : { description: part.description })
      }
    case "resource":
      return {
        type: "resource",
        resource:
          part.text !== undefined
            ? { uri: part.uri, text: part.text, ...(part.mimeType === undefined ? {} : { mimeType: part.mimeType }) }
            : {
                uri: part.uri,
                blob: part.blob ?? "",
                ...(part.mimeType === undefined ? {} : { mimeType: part.mimeType })
              }
      }
  }
}

/** `{ content: [{ type: "text", text }, ...parts], isError }`, with `structuredContent` when it is an object. */
export const fromOutcome = (outcome: Outcome.Outcome): CallToolResult => {
  const parts = Outcome.partsOf(outcome)
  const structured = Outcome.structuredOf(outcome)
  const result: CallToolResult = {
    content:
      parts.length === 0
        ? [{ type: "text", text: outcome.content }]
        : [{ type: "text", text: outcome.content }, ...parts.map(toBlock)],
    isError: Outcome.isError(outcome)
  }
  return Predicate.isObject(structured) ? { ...result, structuredContent: structured } : result
}

/** The `outputSchema` of a tool whose `output` schema's root is an object, as an object to spread. */
export const outputSchemaOf = (tool: Tool.Any): { readonly outputSchema?: { readonly type: "object" } } => {
  const schema = JsonSchema.output(tool)
  return schema !== undefined && schema.type === "object" ? { outputSchema: schema as { readonly type: "object" } } : {}
}

/** An error result with a text of the harness. */
export const error = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true })
