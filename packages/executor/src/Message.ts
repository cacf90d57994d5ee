/**
 * The conversation as the loop keeps it, in the Anthropic Messages shape: text, tool_use and
 * reasoning blocks from the assistant, tool_result blocks back in one user message per turn.
 *
 * A block a provider gave may carry `provider_metadata`, which the history keeps and sends back
 * as it came (Anthropic's thinking signatures, OpenAI's item ids, Gemini's thought signatures):
 * a provider adapter needs it to replay the conversation losslessly; nothing else reads it.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * What a provider attached to a block, by provider name (`{ anthropic: { signature } }`): kept
 * and sent back as it came. JSON.
 *
 * @since 0.1.0
 */
export const ProviderMetadata: Schema.$Record<Schema.String, Schema.Unknown> = Schema.Record(
  Schema.String,
  Schema.Unknown
)

/** @since 0.1.0 */
export type ProviderMetadata = typeof ProviderMetadata.Type

const providerMetadata = Schema.optionalKey(ProviderMetadata)

/** A piece of text. @since 0.1.0 */
export const TextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  provider_metadata: providerMetadata
})

/** @since 0.1.0 */
export type TextBlock = typeof TextBlock.Type

/** A tool call as the model wrote it; `input` is whatever it sent, valid or not. @since 0.1.0 */
export const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown,
  provider_metadata: providerMetadata
})

/** @since 0.1.0 */
export type ToolUseBlock = typeof ToolUseBlock.Type

/** The observation the model reads for one tool call. @since 0.1.0 */
export const ToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: Schema.String,
  is_error: Schema.Boolean
})

/** @since 0.1.0 */
export type ToolResultBlock = typeof ToolResultBlock.Type

/**
 * The model's reasoning (Anthropic's thinking, OpenAI's reasoning items), kept in the history in
 * its place: Anthropic requires a thinking block back, signature and all, when a turn with
 * extended thinking calls tools. A redacted block has empty `text` and its data in
 * `provider_metadata`. Never part of the reply's text, never run.
 *
 * @since 0.1.0
 */
export const ReasoningBlock = Schema.Struct({
  type: Schema.Literal("reasoning"),
  text: Schema.String,
  provider_metadata: providerMetadata
})

/** @since 0.1.0 */
export type ReasoningBlock = typeof ReasoningBlock.Type

/** What a model replies with. @since 0.1.0 */
export const ReplyBlock = Schema.Union([TextBlock, ToolUseBlock, ReasoningBlock])

/** @since 0.1.0 */
export type ReplyBlock = typeof ReplyBlock.Type

/** A system prompt. @since 0.1.0 */
export const SystemMessage = Schema.Struct({ role: Schema.Literal("system"), content: Schema.String })

/** @since 0.1.0 */
export type SystemMessage = typeof SystemMessage.Type

/** A user message: text, or the tool results of a turn (in call order). @since 0.1.0 */
export const UserMessage = Schema.Struct({
  role: Schema.Literal("user"),
  content: Schema.Union([Schema.String, Schema.Array(Schema.Union([ToolResultBlock, TextBlock]))])
})

/** @since 0.1.0 */
export type UserMessage = typeof UserMessage.Type

/** A model reply. @since 0.1.0 */
export const AssistantMessage = Schema.Struct({ role: Schema.Literal("assistant"), content: Schema.Array(ReplyBlock) })

/** @since 0.1.0 */
export type AssistantMessage = typeof AssistantMessage.Type

/** Any message of the history, as JSON. @since 0.1.0 */
export const Message = Schema.Union([SystemMessage, UserMessage, AssistantMessage])

/** @since 0.1.0 */
export type Message = typeof Message.Type

/** @since 0.1.0 */
export const text = (value: string): TextBlock => ({ type: "text", text: value })

/** @since 0.1.0 */
export const toolUse = (id: string, name: string, input: unknown): ToolUseBlock => ({
  type: "tool_use",
  id,
  name,
  input
})

/** @since 0.1.0 */
export const reasoning = (value: string, metadata?: ProviderMetadata): ReasoningBlock =>
  metadata === undefined
    ? { type: "reasoning", text: value }
    : { type: "reasoning", text: value, provider_metadata: metadata }

/** @since 0.1.0 */
export const toolResult = (toolUseId: string, content: string, isError: boolean): ToolResultBlock => ({
  type: "tool_result",
  tool_use_id: toolUseId,
  content,
  is_error: isError
})

/** @since 0.1.0 */
export const system = (content: string): SystemMessage => ({ role: "system", content })

/** @since 0.1.0 */
export const user = (content: UserMessage["content"]): UserMessage => ({ role: "user", content })

/** @since 0.1.0 */
export const assistant = (content: ReadonlyArray<ReplyBlock>): AssistantMessage => ({ role: "assistant", content })

/**
 * The tool calls of a reply, in order.
 *
 * @since 0.1.0
 */
export const toolUses = (reply: ReadonlyArray<ReplyBlock>): ReadonlyArray<ToolUseBlock> =>
  reply.filter((block): block is ToolUseBlock => block.type === "tool_use")

/**
 * The text of a reply: its text blocks joined by a space (reasoning is not text).
 *
 * @since 0.1.0
 */
export const replyText = (reply: ReadonlyArray<ReplyBlock>): string =>
  reply
    .filter((block): block is TextBlock => block.type === "text")
    .map((block) => block.text)
    .join(" ")
