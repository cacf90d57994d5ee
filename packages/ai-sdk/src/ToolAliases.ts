/**
 * The tools of a toolset as a provider sees them: each under its provider-safe alias
 * (`ToolName.alias` of `@agent-harness/tool-schema`: `añadir` → `anadir`, `catalogo.buscar` →
 * `catalogo_buscar`), declared from its JSON Schema. Calls come back under the alias and are
 * mapped to the tool's own name before the loop, the executor or the trace see them, so the
 * history and the trace always hold the real name. `Toolset.make` already refused names
 * without an alias and clashing aliases, so the mapping is one to one.
 *
 * @since 0.1.0
 */
import { JsonSchema, type Tool, ToolName, type Toolset } from "@agent-harness/tool-schema"
import type { JSONSchema7, LanguageModelV4FunctionTool } from "@ai-sdk/provider"

/**
 * A toolset's names both ways, and its tools declared for a provider.
 *
 * @since 0.1.0
 */
export interface Aliases {
  /** The name a provider is sent for a tool name (a name outside the toolset: its alias if it has one). */
  readonly toProvider: (name: string) => string
  /** The tool name a provider's alias stands for (a name that is no alias comes back as it is). */
  readonly fromProvider: (alias: string) => string
  /** The tools, each under its alias, in toolset order. */
  readonly tools: ReadonlyArray<LanguageModelV4FunctionTool>
}

const aliasOf = (name: string): string => {
  const a = ToolName.alias(name)
  return a._tag === "Alias" ? a.alias : name
}

const cache = new WeakMap<Toolset.Toolset<Tool.Any>, Aliases>()

/**
 * The aliases of a toolset, built once per toolset.
 *
 * @since 0.1.0
 */
export const of = (toolset: Toolset.Toolset<Tool.Any>): Aliases => {
  const cached = cache.get(toolset)
  if (cached !== undefined) return cached
  const toAlias = new Map<string, string>()
  const toName = new Map<string, string>()
  for (const tool of toolset.tools) {
    const alias = aliasOf(tool.name)
    toAlias.set(tool.name, alias)
    toName.set(alias, tool.name)
  }
  const aliases: Aliases = {
    toProvider: (name) => toAlias.get(name) ?? aliasOf(name),
    fromProvider: (alias) => toName.get(alias) ?? alias,
    tools: toolset.tools.map(
      (tool): LanguageModelV4FunctionTool => ({
        type: "function",
        name: toAlias.get(tool.name) ?? tool.name,
        description: tool.description,
        inputSchema: JsonSchema.parameters(tool) as JSONSchema7
      })
    )
  }
  cache.set(toolset, aliases)
  return aliases
}
