/**
 * The conversation as the loop keeps it, in the Anthropic Messages shape: text and tool_use
 * blocks from the assistant, tool_result blocks back in one user message per turn.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** A piece of text. @since 0.1.0 */
export const TextBlock = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })

/** @since 0.1.0 */
export type TextBlock = typeof TextBlock.Type

/** A tool call as the model wrote it; `input` is whatever it sent, valid or not. @since 0.1.0 */
export const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
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

/** What a model replies with. @since 0.1.0 */
export const ReplyBlock = Schema.Union([TextBlock, ToolUseBlock])

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
 * The text of a reply: its text blocks joined by a space.
 *
 * @since 0.1.0
 */
export const replyText = (reply: ReadonlyArray<ReplyBlock>): string =>
  reply
    .filter((block): block is TextBlock => block.type === "text")
    .map((block) => block.text)
    .join(" ")
