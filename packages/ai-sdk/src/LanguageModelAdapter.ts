/**
 * Drives the loop (and the model-backed planner) with an effect/ai `LanguageModel`, as the
 * executor's `Model`: the history becomes a `Prompt`, the tools
 * are declared from their JSON Schema, and the model's tool calls come back unresolved and
 * unvalidated (`disableToolCallResolution` + `toolCallValidation: "deferred"`), so that our
 * executor, not effect/ai, validates and runs them. Any provider layer plugs in this way. A reply
 * that finished because of the token limit (`length`), an `error` or a `content-filter` is
 * incomplete: it fails the model call with `IncompleteReply` instead of being taken as the end.
 * Reasoning parts are kept as reasoning blocks and sent back as reasoning; the usage and the
 * finish reason of each reply reach the loop's turns. The model streams too (`Loop.stream`):
 * through `streamText`, asked as `generateText` is; an `error` part or a stream that fails
 * part-way is a model failure, and none of that turn's calls run.
 *
 * @since 0.1.0
 */
import { Message, Model, type ReplyPart } from "@agent-harness/executor"
import { JsonSchema, type Tool, type Toolset } from "@agent-harness/tool-schema"
import { Effect, Layer, Stream } from "effect"
import type * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as AiTool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as EffectAiStream from "./internal/effectAiStream.ts"

/**
 * The finish reasons of an incomplete reply (`Model.IncompleteFinishReason`).
 *
 * @since 0.1.0
 */
export type IncompleteFinishReason = Model.IncompleteFinishReason

/**
 * The model's reply did not finish normally (`Model.IncompleteReply`, the same class).
 *
 * @since 0.1.0
 */
export const IncompleteReply: typeof Model.IncompleteReply = Model.IncompleteReply

/**
 * An instance of {@link IncompleteReply}.
 *
 * @since 0.1.0
 */
export type IncompleteReply = Model.IncompleteReply

/** A result's images as effect/ai's model output: its text, then each image as a file part. */
const modelOutputOf = (result: Message.ToolResultBlock) => {
  const images = (result.parts ?? []).flatMap((part) =>
    part.type === "image" ? [{ type: "file" as const, mediaType: part.mediaType, data: part.data }] : []
  )
  return images.length === 0 ? {} : { modelOutput: [{ type: "text" as const, text: result.content }, ...images] }
}

/**
 * The history as an effect/ai prompt. Tool results become `tool` messages whose parts carry
 * `isFailure` and the observation text as `result`; a result with images also carries them as
 * its `modelOutput` (its text, then each image as a file part, base64), for providers that take
 * images in tool results.
 *
 * @since 0.1.0
 */
export const toPrompt = (messages: ReadonlyArray<Message.Message>): Prompt.Prompt => {
  const names = new Map<string, string>()
  const raw: Array<Prompt.MessageEncoded> = []
  for (const message of messages) {
    switch (message.role) {
      case "system":
        raw.push({ role: "system", content: message.content })
        break
      case "assistant":
        raw.push({
          role: "assistant",
          content: message.content.map((block) => {
            if (block.type === "text") return { type: "text", text: block.text }
            if (block.type === "reasoning") return { type: "reasoning", text: block.text }
            names.set(block.id, block.name)
            return { type: "tool-call", id: block.id, name: block.name, params: block.input, providerExecuted: false }
          })
        })
        break
      case "user": {
        if (typeof message.content === "string") {
          raw.push({ role: "user", content: message.content })
          break
        }
        const texts = message.content.filter((b): b is Message.TextBlock => b.type === "text")
        const results = message.content.filter((b): b is Message.ToolResultBlock => b.type === "tool_result")
        if (results.length > 0) {
          raw.push({
            role: "tool",
            content: results.map((r) => ({
              type: "tool-result",
              id: r.tool_use_id,
              name: names.get(r.tool_use_id) ?? "",
              isFailure: r.is_error,
              result: r.content,
              ...modelOutputOf(r)
            }))
          })
        }
        if (texts.length > 0) raw.push({ role: "user", content: texts.map((t) => ({ type: "text", text: t.text })) })
        break
      }
    }
  }
  return Prompt.make(raw)
}

/**
 * A model's response parts as reply blocks (text, tool calls and reasoning; the rest is dropped).
 *
 * @since 0.1.0
 */
export const fromResponse = (parts: ReadonlyArray<Response.AnyPart>): ReadonlyArray<Message.ReplyBlock> =>
  parts.flatMap((part): ReadonlyArray<Message.ReplyBlock> => {
    if (part.type === "text") return [Message.text(part.text)]
    if (part.type === "tool-call") return [Message.toolUse(part.id, part.name, part.params)]
    if (part.type === "reasoning") return [Message.reasoning(part.text)]
    return []
  })

const toolkits = new WeakMap<Toolset.Toolset<Tool.Any>, Toolkit.Toolkit<Record<string, AiTool.Any>>>()

const toolkitOf = (toolset: Toolset.Toolset<Tool.Any>): Toolkit.Toolkit<Record<string, AiTool.Any>> => {
  const cached = toolkits.get(toolset)
  if (cached !== undefined) return cached
  const toolkit = Toolkit.make(
    ...toolset.tools.map((tool) =>
      AiTool.dynamic(tool.name, { description: tool.description, parameters: JsonSchema.parameters(tool) })
    )
  ) as unknown as Toolkit.Toolkit<Record<string, AiTool.Any>>
  toolkits.set(toolset, toolkit)
  return toolkit
}

const finishReasons: Readonly<Record<Response.FinishReason, Model.FinishReason | undefined>> = {
  stop: "stop",
  length: "length",
  "content-filter": "content-filter",
  "tool-calls": "tool-calls",
  error: "error",
  pause: "other",
  other: "other",
  unknown: undefined
}

const finishOf = (reason: Response.FinishReason): Model.FinishReason | undefined => finishReasons[reason]

/** One request's options, streamed or not: the calls left unresolved and unvalidated, for our executor. */
const optionsOf = (request: Model.Request) =>
  ({
    prompt: toPrompt(request.messages),
    toolkit: toolkitOf(request.toolset),
    disableToolCallResolution: true,
    toolCallValidation: "deferred"
  }) as const

const usageOf = (usage: Response.Usage): Model.Usage => ({
  inputTokens: usage.inputTokens.total,
  outputTokens: usage.outputTokens.total,
  reasoningTokens: usage.outputTokens.reasoning,
  cacheReadTokens: usage.inputTokens.cacheRead,
  cacheWriteTokens: usage.inputTokens.cacheWrite
})

/**
 * The `Model` backed by a `LanguageModel` service: `respond` gives the reply with its usage
 * and finish reason (the loop fails an incomplete one with `IncompleteReply`); `stream` gives
 * the same reply as it is written, through `streamText` with the same options (text and
 * reasoning deltas, a call's params as they come, the call whole at its `tool-call`, the
 * finish as usage and finish reason). An `error` part or a failure of the stream fails it with
 * the `AiError`: a model failure, so none of that turn's calls run.
 *
 * @since 0.1.0
 */
export const make = (languageModel: LanguageModel.LanguageModel): Model.Shape => ({
  respond: (request: Model.Request): Effect.Effect<Model.Response, AiError.AiError> =>
    Effect.map(
      // Dynamic tools declared from JSON Schema need no handler and no service.
      languageModel.generateText(optionsOf(request)) as Effect.Effect<
        LanguageModel.GenerateTextResponse<Record<string, AiTool.Any>, "deferred">,
        AiError.AiError
      >,
      (response) => ({
        content: fromResponse(response.content),
        usage: usageOf(response.usage),
        finishReason: finishOf(response.finishReason),
        rawFinishReason: response.finishReason
      })
    ),
  stream: (request: Model.Request): Stream.Stream<ReplyPart.Part, AiError.AiError> =>
    Stream.suspend(() => {
      const map = EffectAiStream.mapper(usageOf, finishOf)
      return Stream.flatMap(
        languageModel.streamText(optionsOf(request)) as Stream.Stream<EffectAiStream.StreamPart, AiError.AiError>,
        (part) => {
          const mapped = map(part)
          return Array.isArray(mapped) ? Stream.fromIterable(mapped) : Stream.fail(mapped as AiError.AiError)
        }
      )
    })
})

/**
 * A `Model` layer over whatever `LanguageModel` layer is provided: the loop and the
 * model-backed planner (`ModelPlanner`) then speak to any effect/ai provider.
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<Model.Model, never, LanguageModel.LanguageModel> = Layer.effect(
  Model.Model,
  Effect.map(Effect.service(LanguageModel.LanguageModel), make)
)
