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
import { ToolContent } from "@agent-harness/tool-schema"
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

/** What a provider attached to a block, by provider name; sent back as it came. @since 0.1.0 */
export type ProviderMetadata = typeof ProviderMetadata.Type

const providerMetadata: Schema.optionalKey<typeof ProviderMetadata> = Schema.optionalKey(ProviderMetadata)

/** A piece of text. @since 0.1.0 */
export const TextBlock: Schema.Struct<{
  readonly type: Schema.Literal<"text">
  readonly text: Schema.String
  readonly provider_metadata: Schema.optionalKey<typeof ProviderMetadata>
}> = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  provider_metadata: providerMetadata
})

/** A piece of text in a reply or a user message. @since 0.1.0 */
export type TextBlock = typeof TextBlock.Type

/** A tool call as the model wrote it; `input` is whatever it sent, valid or not. @since 0.1.0 */
export const ToolUseBlock: Schema.Struct<{
  readonly type: Schema.Literal<"tool_use">
  readonly id: Schema.String
  readonly name: Schema.String
  readonly input: Schema.Unknown
  readonly provider_metadata: Schema.optionalKey<typeof ProviderMetadata>
}> = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown,
  provider_metadata: providerMetadata
})

/** A tool call as the model wrote it: its id, the tool's name and the input as sent. @since 0.1.0 */
export type ToolUseBlock = typeof ToolUseBlock.Type

/**
 * The observation the model reads for one tool call: `content` is its text (what every reader
 * reads); a rich result also has `parts` (images, resources: sent to providers that accept
 * them, and said in `content` in one line each) and `structured` content (JSON). Results
 * recorded before parts existed have neither.
 *
 * @since 0.1.0
 */
export const ToolResultBlock: Schema.Struct<{
  readonly type: Schema.Literal<"tool_result">
  readonly tool_use_id: Schema.String
  readonly content: Schema.String
  readonly is_error: Schema.Boolean
  readonly parts: Schema.optionalKey<Schema.$Array<typeof ToolContent.Part>>
  readonly structured: Schema.optionalKey<Schema.Unknown>
}> = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: Schema.String,
  is_error: Schema.Boolean,
  parts: Schema.optionalKey(Schema.Array(ToolContent.Part)),
  structured: Schema.optionalKey(Schema.Unknown)
})

/** The observation of one tool call: the call's id, what the model reads, and whether it is an error. @since 0.1.0 */
export type ToolResultBlock = typeof ToolResultBlock.Type

/**
 * The model's reasoning (Anthropic's thinking, OpenAI's reasoning items), kept in the history in
 * its place: Anthropic requires a thinking block back, signature and all, when a turn with
 * extended thinking calls tools. A redacted block has empty `text` and its data in
 * `provider_metadata`. Never part of the reply's text, never run.
 *
 * @since 0.1.0
 */
export const ReasoningBlock: Schema.Struct<{
  readonly type: Schema.Literal<"reasoning">
  readonly text: Schema.String
  readonly provider_metadata: Schema.optionalKey<typeof ProviderMetadata>
}> = Schema.Struct({
  type: Schema.Literal("reasoning"),
  text: Schema.String,
  provider_metadata: providerMetadata
})

/** The model's reasoning, kept in the history in its place (never part of the reply's text). @since 0.1.0 */
export type ReasoningBlock = typeof ReasoningBlock.Type

/** What a model replies with. @since 0.1.0 */
export const ReplyBlock: Schema.Union<readonly [typeof TextBlock, typeof ToolUseBlock, typeof ReasoningBlock]> =
  Schema.Union([TextBlock, ToolUseBlock, ReasoningBlock])

/** A block of a model's reply: text, a tool call or reasoning. @since 0.1.0 */
export type ReplyBlock = typeof ReplyBlock.Type

/** A system prompt. @since 0.1.0 */
export const SystemMessage: Schema.Struct<{
  readonly role: Schema.Literal<"system">
  readonly content: Schema.String
}> = Schema.Struct({ role: Schema.Literal("system"), content: Schema.String })

/** A system prompt. @since 0.1.0 */
export type SystemMessage = typeof SystemMessage.Type

/** A user message: text, or the tool results of a turn (in call order). @since 0.1.0 */
export const UserMessage: Schema.Struct<{
  readonly role: Schema.Literal<"user">
  readonly content: Schema.Union<
    readonly [Schema.String, Schema.$Array<Schema.Union<readonly [typeof ToolResultBlock, typeof TextBlock]>>]
  >
}> = Schema.Struct({
  role: Schema.Literal("user"),
  content: Schema.Union([Schema.String, Schema.Array(Schema.Union([ToolResultBlock, TextBlock]))])
})

/** A user message: text, or the tool results of a turn (in call order). @since 0.1.0 */
export type UserMessage = typeof UserMessage.Type

/** A model reply. @since 0.1.0 */
export const AssistantMessage: Schema.Struct<{
  readonly role: Schema.Literal<"assistant">
  readonly content: Schema.$Array<typeof ReplyBlock>
}> = Schema.Struct({ role: Schema.Literal("assistant"), content: Schema.Array(ReplyBlock) })

/** A model reply in the history: its blocks, in order. @since 0.1.0 */
export type AssistantMessage = typeof AssistantMessage.Type

/** Any message of the history, as JSON. @since 0.1.0 */
export const Message: Schema.Union<readonly [typeof SystemMessage, typeof UserMessage, typeof AssistantMessage]> =
  Schema.Union([SystemMessage, UserMessage, AssistantMessage])

/** Any message of the history: system, user or assistant. @since 0.1.0 */
export type Message = typeof Message.Type

/** A text block. @since 0.1.0 */
export const text = (value: string): TextBlock => ({ type: "text", text: value })

/** A tool_use block (a call the model made): its id, the tool's name and the input. @since 0.1.0 */
export const toolUse = (id: string, name: string, input: unknown): ToolUseBlock => ({
  type: "tool_use",
  id,
  name,
  input
})

/** A reasoning block, with the provider's metadata when there is any. @since 0.1.0 */
export const reasoning = (value: string, metadata?: ProviderMetadata): ReasoningBlock =>
  metadata === undefined
    ? { type: "reasoning", text: value }
    : { type: "reasoning", text: value, provider_metadata: metadata }

/**
 * A tool_result block: the observation the model reads for the call `toolUseId`, with its rich
 * parts and structured content when it has any.
 *
 * @since 0.1.0
 */
export const toolResult = (
  toolUseId: string,
  content: string,
  isError: boolean,
  rich?: { readonly parts?: ReadonlyArray<ToolContent.Part> | undefined; readonly structured?: unknown }
): ToolResultBlock => {
  const block: { -readonly [K in keyof ToolResultBlock]: ToolResultBlock[K] } = {
    type: "tool_result",
    tool_use_id: toolUseId,
    content,
    is_error: isError
  }
  if (rich !== undefined) {
    if (rich.parts !== undefined && rich.parts.length > 0) block.parts = rich.parts
    if (rich.structured !== undefined) block.structured = rich.structured
  }
  return block
}

/** A system message. @since 0.1.0 */
export const system = (content: string): SystemMessage => ({ role: "system", content })

/** A user message: text, or the tool_result blocks of a turn. @since 0.1.0 */
export const user = (content: UserMessage["content"]): UserMessage => ({ role: "user", content })

/** An assistant message: a model reply's blocks. @since 0.1.0 */
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
