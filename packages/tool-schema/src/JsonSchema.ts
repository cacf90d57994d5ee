/**
 * Tool definitions for model APIs, generated from each tool's Schema (never written by hand).
 * Parameters are described with `additionalProperties: false`, as the decoder refuses
 * unexpected fields.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type * as Tool from "./Tool.ts"
import type * as Toolset from "./Toolset.ts"

/** A JSON Schema object. @since 0.1.0 */
export type JsonSchema = { readonly [key: string]: unknown }

/**
 * The JSON Schema (draft 2020-12) of a tool's parameters; definitions inlined under `$defs`.
 *
 * @since 0.1.0
 */
export const parameters = (tool: Tool.Any): JsonSchema => {
  // Effect describes an empty struct as "anything but null"; a tool with no parameters is an
  // empty object to every model API.
  const ast = tool.parameters.ast
  if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) {
    return { type: "object", properties: {}, additionalProperties: false }
  }
  const document = Schema.toJsonSchemaDocument(tool.parameters, { onExcessProperty: "error" })
  const definitions = document.definitions
  return Object.keys(definitions).length === 0
    ? (document.schema as JsonSchema)
    : { ...(document.schema as JsonSchema), $defs: definitions }
}

/** Anthropic Messages API tool definition. @since 0.1.0 */
export interface AnthropicTool {
  /** The tool's name. */
  readonly name: string
  /** The tool's description, as the model reads it. */
  readonly description: string
  /** The JSON Schema of the tool's parameters. */
  readonly input_schema: JsonSchema
}

/** OpenAI Chat Completions function tool definition. @since 0.1.0 */
export interface OpenAiTool {
  /** Always `"function"`. */
  readonly type: "function"
  /** The tool's name, description and the JSON Schema of its parameters. */
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonSchema }
}

/**
 * The Anthropic shape: `{ name, description, input_schema }`.
 *
 * @since 0.1.0
 */
export const anthropic = (tool: Tool.Any): AnthropicTool => ({
  name: tool.name,
  description: tool.description,
  input_schema: parameters(tool)
})

/**
 * The OpenAI shape: `{ type: "function", function: { name, description, parameters } }`.
 *
 * @since 0.1.0
 */
export const openAi = (tool: Tool.Any): OpenAiTool => ({
  type: "function",
  function: { name: tool.name, description: tool.description, parameters: parameters(tool) }
})

/**
 * Every tool of a toolset in the Anthropic shape.
 *
 * @since 0.1.0
 */
export const anthropicTools = (toolset: Toolset.Toolset<Tool.Any>): ReadonlyArray<AnthropicTool> =>
  toolset.tools.map(anthropic)

/**
 * Every tool of a toolset in the OpenAI shape.
 *
 * @since 0.1.0
 */
export const openAiTools = (toolset: Toolset.Toolset<Tool.Any>): ReadonlyArray<OpenAiTool> => toolset.tools.map(openAi)

/**
 * The JSON Schema (draft 2020-12) of a tool's success value, when it declares an `output`
 * schema (MCP's `outputSchema`); definitions inlined under `$defs`. `undefined` for a tool
 * without one.
 *
 * @since 0.1.0
 */
export const output = (tool: Tool.Any): JsonSchema | undefined => {
  const schema = tool.output
  if (schema === undefined) return undefined
  const document = Schema.toJsonSchemaDocument(schema)
  const definitions = document.definitions
  return Object.keys(definitions).length === 0
    ? (document.schema as JsonSchema)
    : { ...(document.schema as JsonSchema), $defs: definitions }
}
