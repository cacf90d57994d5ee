/**
 * The tools of a toolset as a provider sees them: each under its provider-safe alias
 * (`ToolName.alias` of `@agent-harness/tool-schema`: `añadir` → `anadir`, `catalogo.buscar` →
 * `catalogo_buscar`), declared from its JSON Schema. Calls come back under the alias and are
 * mapped to the tool's own name before the loop, the executor or the trace see them, so the
 * history and the trace always hold the real name. `Toolset.make` already refused names
 * without an alias and clashing aliases, so the mapping is one to one. `forProvider` gives the
 * tools with each schema rewritten for the provider they go to (`ProviderSchema`), and what was
 * changed.
 *
 * @since 0.1.0
 */
import { JsonSchema, type Tool, ToolName, type Toolset } from "@agent-harness/tool-schema"
import type { JSONSchema7, LanguageModelV4FunctionTool } from "@ai-sdk/provider"
import * as ProviderSchema from "./ProviderSchema.ts"

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
  /** The tools, each under its alias, in toolset order, with their schemas as the tools give them. */
  readonly tools: ReadonlyArray<LanguageModelV4FunctionTool>
}

/**
 * A toolset's tools as one provider accepts them, and every change made to their schemas.
 *
 * @since 0.1.0
 */
export interface ProviderTools {
  /** The tools, each under its alias with its schema rewritten for the provider, in toolset order. */
  readonly tools: ReadonlyArray<LanguageModelV4FunctionTool>
  /** Every change, tool by tool: the relaxed ones (`relaxed: true`) let the model send what the tool refuses. */
  readonly changes: ReadonlyArray<ProviderSchema.Relaxed & { readonly relaxed: boolean }>
}

const aliasOf = (name: string): string => {
  const a = ToolName.alias(name)
  return a._tag === "Alias" ? a.alias : name
}

const cache = new WeakMap<Toolset.Toolset<Tool.Any>, Aliases>()
const providerCache = new WeakMap<Toolset.Toolset<Tool.Any>, Map<string, ProviderTools>>()

/** A tool's schema for a target; a schema that throws when built is sent as any object, and said so. */
const normalizedOf = (tool: Tool.Any, target: ProviderSchema.Target): ProviderSchema.Normalized => {
  let schema: unknown
  try {
    schema = JsonSchema.parameters(tool)
  } catch (error) {
    return ProviderSchema.unreadable(error, target)
  }
  return ProviderSchema.normalize(schema, target)
}

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

/**
 * The tools of a toolset for an AI SDK provider id (`anthropic.messages`, `openai.chat`,
 * `openai.responses`, …): each under its alias, its schema rewritten for the provider
 * (`ProviderSchema.normalize` for `ProviderSchema.targetOf(provider)`, or the `target` given),
 * with every change listed. Built once per toolset and target. The tools' own schemas still
 * check every call.
 *
 * @since 0.1.0
 */
export const forProvider = (
  toolset: Toolset.Toolset<Tool.Any>,
  provider: string,
  target: ProviderSchema.Target = ProviderSchema.targetOf(provider)
): ProviderTools => {
  const key = `${target}\u0000${provider}`
  const perToolset = providerCache.get(toolset) ?? new Map<string, ProviderTools>()
  providerCache.set(toolset, perToolset)
  const cached = perToolset.get(key)
  if (cached !== undefined) return cached
  const names = of(toolset)
  const changes: Array<ProviderSchema.Relaxed & { readonly relaxed: boolean }> = []
  const tools = toolset.tools.map((tool): LanguageModelV4FunctionTool => {
    const normalized = normalizedOf(tool, target)
    for (const change of normalized.changes) {
      changes.push({ tool: tool.name, provider, what: change.what, relaxed: change.relaxed })
    }
    return {
      type: "function",
      name: names.toProvider(tool.name),
      description: tool.description,
      inputSchema: normalized.schema as JSONSchema7,
      ...(target === "openai-strict" ? { strict: true } : {})
    }
  })
  const out: ProviderTools = { tools, changes }
  perToolset.set(key, out)
  return out
}
