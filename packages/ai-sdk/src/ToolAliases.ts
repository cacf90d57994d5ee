/**
 * The tools of a toolset as a provider sees them: each under its provider-safe alias
 * (`ToolName.alias` of `@agent-harness/tool-schema`: `añadir` → `anadir`, `catalogo.buscar` →
 * `catalogo_buscar`), declared from its JSON Schema. Calls come back under the alias and are
 * mapped to the tool's own name before the loop, the executor or the trace see them, so the
 * history and the trace always hold the real name. `Toolset.make` already refused names
 * without an alias and clashing aliases, so the mapping is one to one. `forProvider` gives the
 * tools with each schema rewritten for the provider they go to (`ProviderSchema`), OpenAI's
 * strict mode switched on where asked (`Strict`), what was changed, and how a call's arguments
 * are mapped back to what the tool's own schema expects (`restore`).
 *
 * @since 0.1.0
 */
import { JsonSchema, type Tool, ToolName, type Toolset } from "@agent-harness/tool-schema"
import type { JSONSchema7, LanguageModelV4FunctionTool } from "@ai-sdk/provider"
import { Effect } from "effect"
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
 * OpenAI's strict mode for tools (Chat Completions and Responses: the model's arguments then
 * always follow the schema sent). `true`: every tool is sent strict, its schema under strict
 * mode's rules, whatever that relaxes or restricts (each said once). `false`: none is. `"auto"`:
 * a tool is sent strict when strict mode's rules cost nothing for its schema (nothing relaxed,
 * nothing the tool accepts made impossible to send), otherwise without, and said once why; only
 * for OpenAI's own API (`openai.*`, `azure.*`), not other OpenAI-compatible servers. Anthropic
 * is never sent strict tools.
 *
 * @since 0.1.0
 */
export type Strict = "auto" | boolean

/**
 * What `forProvider` and `declare` are told: the schema rules to write for (from the provider
 * id when not given) and OpenAI's strict mode (`false` when not given).
 *
 * @since 0.1.0
 */
export interface ProviderOptions {
  /** The schema rules to write for; `ProviderSchema.targetOf(provider)` when not given. */
  readonly target?: ProviderSchema.Target | undefined
  /** OpenAI's strict mode (see `Strict`); `false` when not given. */
  readonly strict?: Strict | undefined
}

/**
 * A toolset's tools as one provider accepts them, every change made to their schemas, and the
 * way back for a call's arguments.
 *
 * @since 0.1.0
 */
export interface ProviderTools {
  /** The tools, each under its alias with its schema rewritten for the provider, in toolset order. */
  readonly tools: ReadonlyArray<LanguageModelV4FunctionTool>
  /**
   * Every change, tool by tool: the relaxed ones (`relaxed: true`) let the model send what the
   * tool refuses, the restricting ones (`restricts`) keep it from sending what the tool accepts.
   */
  readonly changes: ReadonlyArray<ProviderSchema.Relaxed & ProviderSchema.Change>
  /** What else is to be said once per tool: a tool `"auto"` sent without strict mode, and why. */
  readonly notices: ReadonlyArray<ProviderSchema.Relaxed>
  /**
   * A call's arguments as the tool's own schema expects them (`ProviderSchema.restore` for a
   * tool sent strict: a `null` for a property the model left out becomes absent); `name` is
   * the tool's own name. Other tools' arguments come back as they are. Never throws.
   */
  readonly restore: (name: string, input: unknown) => unknown
}

/**
 * One tool to declare: its own name, its description, and its JSON Schema (read once; a
 * schema that throws when read is sent as any object, and said so).
 *
 * @since 0.1.0
 */
export interface Declared {
  /** The tool's own name (sent under its alias). */
  readonly name: string
  /** Its description. */
  readonly description: string
  /** Reads its JSON Schema. */
  readonly schema: () => unknown
  /** The tool's own say on strict mode (effect/ai's `Tool.Strict`), over `ProviderOptions.strict`; OpenAI only. */
  readonly strict?: boolean | undefined
}

const aliasOf = (name: string): string => {
  const a = ToolName.alias(name)
  return a._tag === "Alias" ? a.alias : name
}

const cache = new WeakMap<Toolset.Toolset<Tool.Any>, Aliases>()
const providerCache = new WeakMap<Toolset.Toolset<Tool.Any>, Map<string, ProviderTools>>()

/** A tool's schema for a target; a schema that throws when read is sent as any object, and said so. */
const normalizedOf = (read: () => unknown, target: ProviderSchema.Target): ProviderSchema.Normalized => {
  let schema: unknown
  try {
    schema = read()
  } catch (error) {
    return ProviderSchema.unreadable(error, target)
  }
  return ProviderSchema.normalize(schema, target)
}

/** Whether a provider id is OpenAI's own API (or Azure's), which takes strict tools. */
const takesStrict = (provider: string): boolean => /^(openai|azure|azure-openai)\.(chat|responses)$/.test(provider)

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
 * Tools for an AI SDK provider id (`anthropic.messages`, `openai.chat`, `openai.responses`, …),
 * each under its alias (`ToolName.alias` of its own name), its schema rewritten for the
 * provider (`ProviderSchema.normalize` for `options.target`, by default
 * `ProviderSchema.targetOf(provider)`) and sent strict as `options.strict` says (the target
 * `openai-strict`: always), with every change listed. Never throws.
 *
 * @since 0.1.0
 */
export const declare = (
  declared: ReadonlyArray<Declared>,
  provider: string,
  options?: ProviderOptions
): ProviderTools => {
  const target = options?.target ?? ProviderSchema.targetOf(provider)
  const strict = options?.strict ?? false
  const openAi = target === "openai-chat" || target === "openai-responses"
  const changes: Array<ProviderSchema.Relaxed & ProviderSchema.Change> = []
  const notices: Array<ProviderSchema.Relaxed> = []
  const sentStrict = new Map<string, ProviderSchema.Normalized>()
  const tools = declared.map((tool): LanguageModelV4FunctionTool => {
    let normalized: ProviderSchema.Normalized
    let isStrict = false
    const mode: Strict = tool.strict ?? strict
    if (target === "openai-strict" || (openAi && mode === true)) {
      normalized = normalizedOf(tool.schema, "openai-strict")
      isStrict = true
    } else if (openAi && mode === "auto" && takesStrict(provider)) {
      const asStrict = normalizedOf(tool.schema, "openai-strict")
      const costs = asStrict.changes.filter((c) => c.strict === true && (c.relaxed || c.restricts === true))
      if (costs.length === 0) {
        normalized = asStrict
        isStrict = true
      } else {
        normalized = normalizedOf(tool.schema, target)
        notices.push({
          tool: tool.name,
          provider,
          what: `sent without strict mode, whose rules would cost: ${costs.map((c) => c.what).join("; ")}`
        })
      }
    } else {
      normalized = normalizedOf(tool.schema, target)
    }
    for (const change of normalized.changes) changes.push({ tool: tool.name, provider, ...change })
    if (isStrict && normalized.nulls !== undefined) sentStrict.set(tool.name, normalized)
    return {
      type: "function",
      name: aliasOf(tool.name),
      description: tool.description,
      inputSchema: normalized.schema as JSONSchema7,
      ...(isStrict ? { strict: true } : {})
    }
  })
  return {
    tools,
    changes,
    notices,
    restore: (name, input) => {
      const normalized = sentStrict.get(name)
      return normalized === undefined ? input : ProviderSchema.restore(input, normalized)
    }
  }
}

/**
 * The tools of a toolset for an AI SDK provider id (see `declare`; `options` may also be just
 * the target). Built once per toolset, target and strict mode. The tools' own schemas still
 * check every call.
 *
 * @since 0.1.0
 */
export const forProvider = (
  toolset: Toolset.Toolset<Tool.Any>,
  provider: string,
  options?: ProviderSchema.Target | ProviderOptions
): ProviderTools => {
  const given: ProviderOptions = typeof options === "string" ? { target: options } : (options ?? {})
  const target = given.target ?? ProviderSchema.targetOf(provider)
  const strict = given.strict ?? false
  const key = `${target}\u0000${String(strict)}\u0000${provider}`
  const perToolset = providerCache.get(toolset) ?? new Map<string, ProviderTools>()
  providerCache.set(toolset, perToolset)
  const cached = perToolset.get(key)
  if (cached !== undefined) return cached
  const out = declare(
    toolset.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      schema: () => JsonSchema.parameters(tool)
    })),
    provider,
    { target, strict }
  )
  perToolset.set(key, out)
  return out
}

/**
 * Says what `ProviderTools` changed, each thing once per tool for the life of the reporter: a
 * relaxed or restricting change, or a notice, as a warning; an exact rewrite at debug level.
 *
 * @since 0.1.0
 */
export const reporter = (): ((declared: ProviderTools) => Effect.Effect<void>) => {
  const said = new Set<string>()
  return (declared) =>
    Effect.suspend(() => {
      const lines: Array<readonly [warn: boolean, line: string]> = []
      const once = (tool: string, provider: string, what: string, warn: boolean, line: string) => {
        const key = `${provider}\u0000${tool}\u0000${what}`
        if (said.has(key)) return
        said.add(key)
        lines.push([warn, line])
      }
      for (const c of declared.changes) {
        once(
          c.tool,
          c.provider,
          c.what,
          c.relaxed || c.restricts === true,
          `${c.provider}: tool '${c.tool}': schema ${c.what}`
        )
      }
      for (const n of declared.notices)
        once(n.tool, n.provider, n.what, true, `${n.provider}: tool '${n.tool}': ${n.what}`)
      return Effect.forEach(lines, ([warn, line]) => (warn ? Effect.logWarning(line) : Effect.logDebug(line)), {
        discard: true
      })
    })
}
