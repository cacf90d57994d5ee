/**
 * Any AI SDK `LanguageModelV4` as an effect/ai `LanguageModel`, for what speaks effect/ai:
 * your own `generateText` and `generateObject` calls, and `LanguageModelAdapter` (which makes
 * it the executor's `Model` for the loop and the model-backed planner; `AiSdkModel` is that
 * `Model` directly). Same requests, retries and typed
 * causes as `AiSdkModel` (each provider failure becomes the matching `AiError` reason:
 * `AuthenticationError` for a missing or rejected key, `InvalidRequestError`,
 * `InternalProviderError` when the provider stays unavailable or gives no reply within the
 * request timeout). Structured output is asked
 * with the provider's JSON response format and the schema's JSON Schema. Tool definitions go
 * out as `AiSdkModel` sends them: each JSON Schema rewritten for the provider (`ProviderSchema`;
 * the target from the provider id, or `schemaTarget`), OpenAI's strict mode as `strict` says
 * (`"auto"` by default; a tool's own `Tool.Strict` annotation wins for it), what was relaxed
 * logged once per tool; a call's arguments are mapped
 * back to what the tool's own schema expects before effect/ai decodes them. `streamText` gives
 * the same reply (one `doGenerate`, the same retries) as stream parts, each block whole, so
 * `LanguageModelAdapter`'s `stream` (and `Loop.stream`) work over it; for a reply streamed as the
 * provider writes it, and for the loop generally, prefer `AiSdkModel`: it streams through
 * `doStream`, keeps provider metadata and traces usage and retries per turn.
 *
 * @example
 * ```ts
 * import { EffectAiModel, LanguageModelAdapter } from "@agent-harness/ai-sdk"
 * import { ModelPlanner, Session } from "@agent-harness/planner"
 * import { anthropic } from "@ai-sdk/anthropic"
 *
 * const session = Session.run({
 *   goal: "Write the shopping list",
 *   planner: ModelPlanner.make({ toolset }),
 *   toolset,
 *   maxSteps: 10,
 *   maxReplans: 2
 * }).pipe(
 *   Effect.provide(Layer.provide(LanguageModelAdapter.layer, EffectAiModel.layer(anthropic("claude-sonnet-4-5"))))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { ToolName } from "@agent-harness/tool-schema"
import type {
  JSONSchema7,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4ToolChoice
} from "@ai-sdk/provider"
import { Effect, Layer, Stream } from "effect"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"
import type { Options } from "./AiSdkModel.ts"
import * as Backoff from "./Backoff.ts"
import type * as ProviderError from "./ProviderError.ts"
import * as ProviderPrompt from "./ProviderPrompt.ts"
import * as Retry from "./Retry.ts"
import * as ToolAliases from "./ToolAliases.ts"

const aiError = (method: string, reason: AiError.AiErrorReason): AiError.AiError =>
  AiError.make({ module: "EffectAiModel", method, reason })

/**
 * A provider failure as the `AiError` effect/ai expects.
 *
 * @since 0.1.0
 */
export const toAiError = (error: ProviderError.ProviderError): AiError.AiError => {
  switch (error._tag) {
    case "MissingApiKey":
      return aiError(
        "generateText",
        new AiError.AuthenticationError({ kind: "MissingKey", description: error.message })
      )
    case "RequestRejected":
      return aiError(
        "generateText",
        error.refusal === "api_key_rejected"
          ? new AiError.AuthenticationError({ kind: "InvalidKey", description: error.message })
          : error.refusal === "forbidden"
            ? new AiError.AuthenticationError({ kind: "InsufficientPermissions", description: error.message })
            : new AiError.InvalidRequestError({ description: error.message })
      )
    case "ProviderUnavailable":
    case "ProviderTimeout":
      return aiError("generateText", new AiError.InternalProviderError({ description: error.message }))
    case "ProviderFailure":
      return aiError("generateText", new AiError.UnknownError({ description: error.message }))
  }
}

/**
 * A successful tool result's model output as the SDK's `content` output, when the provider takes
 * images in tool results and the output has some (base64 file parts); otherwise `undefined`.
 */
const contentOutput = (part: Prompt.ToolResultPart, media: ProviderPrompt.MediaResults) => {
  if (part.isFailure || media !== "parts" || part.modelOutput === undefined) return undefined
  const value: Array<
    | { readonly type: "text"; readonly text: string }
    | {
        readonly type: "file"
        readonly mediaType: string
        readonly data: { readonly type: "data"; readonly data: string }
      }
  > = []
  for (const output of part.modelOutput) {
    if (output.type === "text") {
      if (output.text !== "") value.push({ type: "text", text: output.text })
    } else if (typeof output.data === "string" && output.mediaType.startsWith("image/")) {
      value.push({ type: "file", mediaType: output.mediaType, data: { type: "data", data: output.data } })
    }
  }
  return value.some((v) => v.type === "file") ? { type: "content" as const, value } : undefined
}

/**
 * An effect/ai prompt as the SDK's, tool names as aliases; file parts are refused, except the
 * images of a tool result's model output, sent to providers that take them (`media`).
 */
const toPrompt = (
  prompt: Prompt.Prompt,
  alias: (name: string) => string,
  media: ProviderPrompt.MediaResults = "text"
): LanguageModelV4Message[] | string => {
  const out: Array<LanguageModelV4Message> = []
  const result = (part: Prompt.ToolResultPart) => ({
    type: "tool-result" as const,
    toolCallId: part.id,
    toolName: alias(part.name),
    output:
      contentOutput(part, media) ??
      (typeof part.result === "string"
        ? { type: part.isFailure ? ("error-text" as const) : ("text" as const), value: part.result }
        : { type: part.isFailure ? ("error-text" as const) : ("text" as const), value: JSON.stringify(part.result) })
  })
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: message.content })
        break
      case "user": {
        const texts: Array<{ readonly type: "text"; readonly text: string }> = []
        for (const part of message.content) {
          if (part.type !== "text") return `${part.type} parts are not supported by EffectAiModel`
          texts.push({ type: "text", text: part.text })
        }
        out.push({ role: "user", content: texts })
        break
      }
      case "assistant": {
        const content: Array<Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number]> = []
        for (const part of message.content) {
          if (part.type === "text") content.push({ type: "text", text: part.text })
          else if (part.type === "reasoning") content.push({ type: "reasoning", text: part.text })
          else if (part.type === "tool-call") {
            content.push({ type: "tool-call", toolCallId: part.id, toolName: alias(part.name), input: part.params })
          } else if (part.type === "tool-result") content.push(result(part))
          else return `${part.type} parts are not supported by EffectAiModel`
        }
        out.push({ role: "assistant", content })
        break
      }
      case "tool":
        out.push({
          role: "tool",
          content: message.content.flatMap((part) => (part.type === "tool-result" ? [result(part)] : []))
        })
        break
    }
  }
  return out
}

const toolChoiceOf = (
  choice: LanguageModel.ProviderOptions["toolChoice"],
  alias: (name: string) => string
): LanguageModelV4ToolChoice => {
  if (choice === "auto" || choice === "none" || choice === "required") return { type: choice }
  if ("tool" in choice) return { type: "tool", toolName: alias(choice.tool) }
  return { type: choice.mode === "required" ? "required" : "auto" }
}

const finishReasons: Readonly<Record<string, Response.FinishReason>> = {
  stop: "stop",
  length: "length",
  "content-filter": "content-filter",
  "tool-calls": "tool-calls",
  error: "error",
  interrupted: "error",
  other: "other"
}

/**
 * An effect/ai `LanguageModel` over an AI SDK model (the same options as `AiSdkModel`).
 * Throws like `AiSdkModel.make` on a model that is not a `LanguageModelV4`, an invalid retry
 * policy or request timeout, or a `backoff` that is not a `Backoff` (share one with
 * `AiSdkModel`s and other `EffectAiModel`s to pause them together).
 *
 * @since 0.1.0
 */
export const make = (model: LanguageModelV4, options?: Options): Effect.Effect<LanguageModel.LanguageModel> => {
  const version: unknown = (model as { readonly specificationVersion?: unknown } | undefined)?.specificationVersion
  if (version !== "v4" || typeof model.doGenerate !== "function") {
    throw new TypeError(
      `EffectAiModel: expected an AI SDK LanguageModelV4 (specificationVersion "v4"), got ${version === undefined ? "no specificationVersion" : JSON.stringify(version)}`
    )
  }
  const {
    retry,
    errorResults: _errorResults,
    requestTimeout,
    strict,
    schemaTarget,
    backoff,
    ...settings
  } = options ?? {}
  const policy = Retry.resolve(retry)
  const timeout = Retry.timeoutOf(requestTimeout)
  Backoff.check(backoff, "EffectAiModel")
  const declaring: ToolAliases.ProviderOptions = { target: schemaTarget, strict: strict ?? "auto" }
  /** Says each tool schema change and notice once per tool. */
  const report = ToolAliases.reporter()
  const generateText = (request: LanguageModel.ProviderOptions) =>
    Effect.gen(function* () {
      const names = new Map<string, string>()
      const alias = (name: string) => {
        const a = ToolName.alias(name)
        const safe = a._tag === "Alias" ? a.alias : name
        names.set(safe, name)
        return safe
      }
      // Each tool's JSON Schema rewritten for the provider, as AiSdkModel sends them.
      const declared = ToolAliases.declare(
        request.tools.map((tool): ToolAliases.Declared => {
          alias(tool.name)
          return {
            name: tool.name,
            description: Tool.getDescription(tool) ?? "",
            schema: () => Tool.getJsonSchema(tool),
            strict: Tool.getStrictMode(tool)
          }
        }),
        model.provider,
        declaring
      )
      yield* report(declared)
      const tools = [...declared.tools]
      const prompt = toPrompt(request.prompt, alias, ProviderPrompt.mediaResultsFor(model.provider))
      if (typeof prompt === "string") {
        return yield* aiError("generateText", new AiError.InvalidUserInputError({ description: prompt }))
      }
      const format = request.responseFormat
      const call: LanguageModelV4CallOptions = {
        ...settings,
        prompt,
        ...(tools.length === 0 ? {} : { tools, toolChoice: toolChoiceOf(request.toolChoice, alias) }),
        ...(format.type === "json"
          ? {
              responseFormat: {
                type: "json",
                name: format.objectName,
                schema: LanguageModel.defaultCodecTransformer(format.schema).jsonSchema as JSONSchema7
              }
            }
          : {})
      }
      const result = yield* Retry.send({
        provider: model.provider,
        policy,
        turn: 0,
        timeout,
        backoff,
        send: (abortSignal) => model.doGenerate({ ...call, abortSignal })
      }).pipe(Effect.mapError(toAiError))
      const parts: Array<Response.PartEncoded> = []
      for (const part of result.content) {
        if (part.type === "text") parts.push({ type: "text", text: part.text })
        else if (part.type === "reasoning") parts.push({ type: "reasoning", text: part.text })
        else if (part.type === "tool-call" && part.providerExecuted !== true) {
          parts.push({
            type: "tool-call",
            id: part.toolCallId,
            name: names.get(part.toolName) ?? part.toolName,
            params: declared.restore(names.get(part.toolName) ?? part.toolName, ProviderPrompt.parseInput(part.input))
          })
        }
      }
      const usage = result.usage
      parts.push({
        type: "finish",
        reason: finishReasons[result.finishReason.unified] ?? "unknown",
        usage: {
          inputTokens: {
            uncached: usage.inputTokens.noCache,
            total: usage.inputTokens.total,
            cacheRead: usage.inputTokens.cacheRead,
            cacheWrite: usage.inputTokens.cacheWrite
          },
          outputTokens: {
            total: usage.outputTokens.total,
            text: usage.outputTokens.text,
            reasoning: usage.outputTokens.reasoning
          }
        }
      })
      return parts
    })
  return LanguageModel.make({
    generateText,
    // One doGenerate per request, its whole reply given as stream parts.
    streamText: (request) =>
      Stream.unwrap(Effect.map(generateText(request), (parts) => Stream.fromIterable(streamPartsOf(parts))))
  })
}

/**
 * A whole reply's parts as the stream parts of the same reply: each text and reasoning part
 * as one block (start, one delta, end), each call whole (`tool-call`), the finish as it is.
 */
const streamPartsOf = (parts: ReadonlyArray<Response.PartEncoded>): Array<Response.StreamPartEncoded> =>
  parts.flatMap((part, index): ReadonlyArray<Response.StreamPartEncoded> => {
    const id = `${index}`
    switch (part.type) {
      case "text":
        return [
          { type: "text-start", id },
          { type: "text-delta", id, delta: part.text },
          { type: "text-end", id }
        ]
      case "reasoning":
        return [
          { type: "reasoning-start", id },
          { type: "reasoning-delta", id, delta: part.text },
          { type: "reasoning-end", id }
        ]
      case "tool-call":
      case "finish":
        return [part]
      default:
        return []
    }
  })

/**
 * A `LanguageModel` layer over an AI SDK model (see `make`).
 *
 * @since 0.1.0
 */
export const layer = (model: LanguageModelV4, options?: Options): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(LanguageModel.LanguageModel, make(model, options))
