/**
 * A script: the opening messages, the model's replies in order, and before each next reply
 * the exact observations it must be shown.
 *
 * @since 0.1.0
 */
import type { Message } from "@agent-harness/executor"

/**
 * An observation the model must be shown. `content` is the exact text, or a pattern it must
 * match somewhere (`String.search`).
 *
 * @since 0.1.0
 */
export interface ExpectedResult {
  readonly tool_use_id: string
  readonly is_error: boolean
  readonly content: string | RegExp
}

/**
 * One model call: what it replies, and the results its tool calls must get (checked before
 * the next call, or when the loop stops).
 *
 * @since 0.1.0
 */
export interface Turn {
  readonly reply: ReadonlyArray<Message.ReplyBlock>
  readonly expect?: ReadonlyArray<ExpectedResult> | undefined
}

/**
 * A whole script.
 *
 * @since 0.1.0
 */
export interface Script {
  /** The opening messages the model must be called with first. */
  readonly messages: ReadonlyArray<Message.Message>
  readonly turns: ReadonlyArray<Turn>
}

/** @since 0.1.0 */
export const expected = (toolUseId: string, isError: boolean, content: string | RegExp): ExpectedResult => ({
  tool_use_id: toolUseId,
  is_error: isError,
  content
})

/**
 * Whether an observation is the expected one.
 *
 * @since 0.1.0
 */
export const matches = (expected: ExpectedResult, seen: Message.ToolResultBlock): boolean =>
  expected.tool_use_id === seen.tool_use_id &&
  expected.is_error === seen.is_error &&
  (typeof expected.content === "string"
    ? expected.content === seen.content
    : // `search` ignores `lastIndex`, so a /g or /y pattern gives the same answer every time.
      seen.content.search(expected.content) !== -1)
