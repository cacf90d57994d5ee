import { Message } from "@agent-harness/executor"

/** A tool call of a hand-made turn: its id, tool, result and whether the result is an error. */
export interface Call {
  readonly id: string
  readonly tool?: string
  readonly result: string
  readonly isError?: boolean
}

/** An assistant message with `text` and the calls, and the user message with their results. */
export const turn = (text: string, calls: ReadonlyArray<Call>): ReadonlyArray<Message.Message> =>
  calls.length === 0
    ? [Message.assistant([Message.text(text)]), Message.user(`reply to ${text}`)]
    : [
        Message.assistant([
          Message.text(text),
          ...calls.map((c) => Message.toolUse(c.id, c.tool ?? "read", { path: c.id }))
        ]),
        Message.user(calls.map((c) => Message.toolResult(c.id, c.result, c.isError ?? false)))
      ]

/** A history: a system prompt, the task, then the turns. */
export const history = (...turns: ReadonlyArray<ReadonlyArray<Message.Message>>): ReadonlyArray<Message.Message> => [
  Message.system("You are careful."),
  Message.user("Do the task."),
  ...turns.flat()
]

/** `n` characters of text. */
export const long = (n: number): string => "abcdefghij".repeat(Math.ceil(n / 10)).slice(0, n)

/** Every tool_use id of a history, in order. */
export const toolUseIds = (messages: ReadonlyArray<Message.Message>): ReadonlyArray<string> =>
  messages.flatMap((m) =>
    m.role === "assistant" ? m.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])) : []
  )

/** Every tool_result block of a history, in order. */
export const toolResults = (messages: ReadonlyArray<Message.Message>): ReadonlyArray<Message.ToolResultBlock> =>
  messages.flatMap((m) =>
    m.role === "user" && typeof m.content !== "string" ? m.content.filter((b) => b.type === "tool_result") : []
  )
