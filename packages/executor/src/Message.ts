/**
 * The conversation as the loop keeps it, in the Anthropic Messages shape: text and tool_use
 * blocks from the assistant, tool_result blocks back in one user message per turn.
 *
 * @since 0.1.0
 */

/** A piece of text. @since 0.1.0 */
export interface TextBlock {
  readonly type: "text"
  readonly text: string
}

/** A tool call as the model wrote it; `input` is whatever it sent, valid or not. @since 0.1.0 */
export interface ToolUseBlock {
  readonly type: "tool_use"
  readonly id: string
  readonly name: string
  readonly input: unknown
}

/** The observation the model reads for one tool call. @since 0.1.0 */
export interface ToolResultBlock {
  readonly type: "tool_result"
  readonly tool_use_id: string
  readonly content: string
  readonly is_error: boolean
}

/** What a model replies with. @since 0.1.0 */
export type ReplyBlock = TextBlock | ToolUseBlock

/** A system prompt. @since 0.1.0 */
export interface SystemMessage {
  readonly role: "system"
  readonly content: string
}

/** A user message: text, or the tool results of a turn (in call order). @since 0.1.0 */
export interface UserMessage {
  readonly role: "user"
  readonly content: string | ReadonlyArray<ToolResultBlock | TextBlock>
}

/** A model reply. @since 0.1.0 */
export interface AssistantMessage {
  readonly role: "assistant"
  readonly content: ReadonlyArray<ReplyBlock>
}

/** Any message of the history. @since 0.1.0 */
export type Message = SystemMessage | UserMessage | AssistantMessage

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
