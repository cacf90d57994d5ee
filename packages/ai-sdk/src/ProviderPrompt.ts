/**
 * The loop's history as an AI SDK prompt, and a provider's reply as the loop's blocks, without
 * losing anything the next request needs:
 *
 * - text, tool calls and reasoning keep their order and their `provider_metadata` (Anthropic's
 *   thinking signatures and redacted thinking, OpenAI's item ids, Gemini's thought
 *   signatures), sent back as the provider gave them;
 * - tool names go out as provider-safe aliases and come back as the tool's own name
 *   (`ToolAliases`);
 * - the results of a turn go back as one `tool` message, in call order, each under its call's
 *   id; an `is_error` result is sent as an error (`error-text`: Anthropic's `is_error: true`,
 *   OpenAI's `{"error": …}`), or, for providers without an error flag, as text that says it;
 * - a result's images go as image parts beside its text to providers that take images in tool
 *   results (Anthropic, OpenAI Responses); to the others (OpenAI Chat, whose tool messages are
 *   text only) the text alone, which says what each part is;
 * - a tool call's arguments are parsed as JSON; arguments that are not JSON reach the executor
 *   as the string they are (and are answered `not executed`); empty arguments are `{}`;
 *   arguments nested deeper than `inputLimits.depth` or longer than `inputLimits.size` are not
 *   parsed at all: the executor gets a short string saying why (`[arguments not read: …]`),
 *   answered `not executed` like any input that is not an object, so a hostile or runaway call
 *   never reaches a recursive reader (no stack overflow) and never bloats the history.
 *
 * @since 0.1.0
 */
import type { Message, Model } from "@agent-harness/executor"
import type {
  JSONObject,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4TextPart,
  LanguageModelV4ToolResultOutput,
  LanguageModelV4ToolResultPart,
  LanguageModelV4Usage,
  SharedV4ProviderOptions
} from "@ai-sdk/provider"
import type * as ToolAliases from "./ToolAliases.ts"

/**
 * How an `is_error` result reaches the provider: `"flag"` as the SDK's `error-text` output,
 * which providers with an error flag mark as such (Anthropic `is_error: true`; OpenAI
 * `{"error": "<text>"}`); `"text"` as plain text `{"error": "<text>"}`, for providers whose
 * SDK drops the flag (OpenAI-compatible servers).
 *
 * @since 0.1.0
 */
export type ErrorResults = "flag" | "text"

/**
 * The default for a provider id (`anthropic.messages`, `openai.chat`, `my-server.chat`):
 * `"flag"` for Anthropic, OpenAI and Azure OpenAI, whose SDKs mark errors; `"text"` for any
 * other provider, so that the text says it.
 *
 * @since 0.1.0
 */
export const errorResultsFor = (provider: string): ErrorResults =>
  /^(anthropic|openai|azure)\./.test(provider) ? "flag" : "text"

/**
 * How a result's rich parts reach the provider: `"parts"` as the SDK's `content` output (its
 * text, then each image as a file part), for providers that accept images in tool results;
 * `"text"` as the text alone (it says in one line what each part is).
 *
 * @since 0.1.0
 */
export type MediaResults = "parts" | "text"

/**
 * The default for a provider id: `"parts"` for Anthropic (`anthropic.messages`) and OpenAI
 * Responses (`openai.responses`), whose APIs take images in tool results; `"text"` for any
 * other (OpenAI Chat tool messages are text only).
 *
 * @since 0.1.0
 */
export const mediaResultsFor = (provider: string): MediaResults =>
  /^anthropic\./.test(provider) || provider === "openai.responses" ? "parts" : "text"

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Provider metadata as the SDK's provider options: only its object entries. */
const optionsOf = (metadata: Message.ProviderMetadata | undefined): SharedV4ProviderOptions | undefined => {
  if (metadata === undefined) return undefined
  let options: SharedV4ProviderOptions | undefined
  for (const provider in metadata) {
    const value = metadata[provider]
    if (Object.hasOwn(metadata, provider) && isObject(value)) {
      options ??= {}
      options[provider] = value as JSONObject
    }
  }
  return options
}

/** The images of a result as the SDK's file parts (the only parts both APIs take in a tool result). */
const imageParts = (result: Message.ToolResultBlock) =>
  (result.parts ?? []).flatMap((part) =>
    part.type === "image"
      ? [{ type: "file" as const, mediaType: part.mediaType, data: { type: "data" as const, data: part.data } }]
      : []
  )

const output = (
  result: Message.ToolResultBlock,
  errors: ErrorResults,
  media: MediaResults
): LanguageModelV4ToolResultOutput => {
  if (!result.is_error) {
    const images = media === "parts" ? imageParts(result) : []
    return images.length === 0
      ? { type: "text", value: result.content }
      : {
          type: "content",
          value: result.content === "" ? images : [{ type: "text", text: result.content }, ...images]
        }
  }
  return errors === "flag"
    ? { type: "error-text", value: result.content }
    : { type: "text", value: JSON.stringify({ error: result.content }) }
}

/** One block of an assistant message as a prompt part; a tool call's id is noted with its alias. */
const assistantPart = (block: Message.ReplyBlock, aliases: ToolAliases.Aliases, names: Map<string, string>) => {
  const providerOptions = optionsOf(block.provider_metadata)
  if (block.type === "tool_use") {
    const toolName = aliases.toProvider(block.name)
    names.set(block.id, toolName)
    return providerOptions === undefined
      ? { type: "tool-call" as const, toolCallId: block.id, toolName, input: block.input }
      : { type: "tool-call" as const, toolCallId: block.id, toolName, input: block.input, providerOptions }
  }
  return providerOptions === undefined
    ? { type: block.type, text: block.text }
    : { type: block.type, text: block.text, providerOptions }
}

/**
 * The history as an AI SDK prompt (see the module's notes).
 *
 * @since 0.1.0
 */
export const toPrompt = (
  messages: ReadonlyArray<Message.Message>,
  aliases: ToolAliases.Aliases,
  errors: ErrorResults,
  media: MediaResults = "text"
): LanguageModelV4Prompt => {
  const names = new Map<string, string>()
  const prompt: Array<LanguageModelV4Message> = []
  for (const message of messages) {
    switch (message.role) {
      case "system":
        prompt.push({ role: "system", content: message.content })
        break
      case "assistant":
        prompt.push({
          role: "assistant",
          content: message.content.map((block) => assistantPart(block, aliases, names))
        })
        break
      case "user": {
        if (typeof message.content === "string") {
          prompt.push({ role: "user", content: [{ type: "text", text: message.content }] })
          break
        }
        const results: Array<LanguageModelV4ToolResultPart> = []
        const texts: Array<LanguageModelV4TextPart> = []
        for (const block of message.content) {
          if (block.type === "tool_result") {
            results.push({
              type: "tool-result",
              toolCallId: block.tool_use_id,
              toolName: names.get(block.tool_use_id) ?? "",
              output: output(block, errors, media)
            })
          } else texts.push({ type: "text", text: block.text })
        }
        if (results.length > 0) prompt.push({ role: "tool", content: results })
        if (texts.length > 0) prompt.push({ role: "user", content: texts })
        break
      }
    }
  }
  return prompt
}

/**
 * How deep and how long a tool call's arguments may be before they are not read: 64 levels of
 * arrays and objects, 1,000,000 characters (a tool's JSON Schema is a few levels deep; a model's
 * whole reply is rarely a tenth of that size).
 *
 * @since 0.1.0
 */
export const inputLimits: { readonly depth: number; readonly size: number } = { depth: 64, size: 1_000_000 }

/**
 * How deep the arrays and objects of a JSON text nest, read in one pass without recursion
 * (brackets inside strings do not count); stops counting once past `stop`.
 *
 * @since 0.1.0
 */
export const depthOf = (text: string, stop: number = Number.POSITIVE_INFINITY): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92)
        i++ // a backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      depth++
      if (depth > deepest) {
        deepest = depth
        if (deepest > stop) return deepest
      }
    } else if (c === 93 || c === 125) depth--
  }
  return deepest
}

/**
 * A tool call's arguments as the executor gets them: the parsed JSON, `{}` for empty arguments,
 * the string itself when it is not JSON, or, past `limits` (by default `inputLimits`), a short
 * string saying why they were not read (`[arguments not read: nested more than 64 levels
 * deep]`), which the executor answers `not executed` without running anything. Never throws.
 *
 * @since 0.1.0
 */
export const parseInput = (
  input: string,
  limits: { readonly depth: number; readonly size: number } = inputLimits
): unknown => {
  if (input.length > limits.size) {
    return `[arguments not read: ${input.length} characters, more than the ${limits.size} allowed]`
  }
  if (input.trim() === "") return {}
  if (depthOf(input, limits.depth) > limits.depth) {
    return `[arguments not read: nested more than ${limits.depth} levels deep]`
  }
  try {
    return JSON.parse(input)
  } catch {
    return input
  }
}

/** The metadata of a part, when it has any. */
const metadataOf = (part: { readonly providerMetadata?: SharedV4ProviderOptions | undefined }) =>
  part.providerMetadata === undefined || Object.keys(part.providerMetadata).length === 0
    ? {}
    : { provider_metadata: part.providerMetadata as Message.ProviderMetadata }

/**
 * A provider's reply as the loop's blocks, in order: text, reasoning, and the calls the client
 * is to run (under the tool's own name). Parts with no block in the history (sources, files,
 * calls the provider ran itself and their results) are left out.
 *
 * @since 0.1.0
 */
export const fromContent = (
  content: ReadonlyArray<LanguageModelV4Content>,
  aliases: ToolAliases.Aliases
): ReadonlyArray<Message.ReplyBlock> =>
  content.flatMap((part): ReadonlyArray<Message.ReplyBlock> => {
    switch (part.type) {
      case "text":
        return [{ type: "text", text: part.text, ...metadataOf(part) }]
      case "reasoning":
        return [{ type: "reasoning", text: part.text, ...metadataOf(part) }]
      case "tool-call":
        return part.providerExecuted === true
          ? []
          : [
              {
                type: "tool_use",
                id: part.toolCallId,
                name: aliases.fromProvider(part.toolName),
                input: parseInput(part.input),
                ...metadataOf(part)
              }
            ]
      default:
        return []
    }
  })

/**
 * The SDK's usage as the loop's (the counts it reported).
 *
 * @since 0.1.0
 */
export const usageOf = (usage: LanguageModelV4Usage | undefined): Model.Usage | undefined => {
  if (usage === undefined) return undefined
  const counts: { -readonly [K in keyof Model.Usage]: number } = {}
  const put = (key: keyof Model.Usage, n: number | undefined) => {
    if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) counts[key] = n
  }
  put("inputTokens", usage.inputTokens?.total)
  put("outputTokens", usage.outputTokens?.total)
  put("reasoningTokens", usage.outputTokens?.reasoning)
  put("cacheReadTokens", usage.inputTokens?.cacheRead)
  put("cacheWriteTokens", usage.inputTokens?.cacheWrite)
  return counts
}

/**
 * The SDK's finish reason as the loop's.
 *
 * @since 0.1.0
 */
export const finishOf = (
  finish: LanguageModelV4FinishReason | undefined
): { readonly finishReason?: Model.FinishReason; readonly rawFinishReason?: string } =>
  finish === undefined
    ? {}
    : {
        finishReason: finish.unified,
        ...(typeof finish.raw === "string" ? { rawFinishReason: finish.raw } : {})
      }
