/**
 * The fake provider's OpenAI Chat Completions route: what a request breaks (in the real API's
 * words), the error types by status, and a scripted reply in the Chat Completions wire format.
 */
import type { Reply } from "../FakeProvider.ts"
import { arrayOf, isObject, type Json } from "./fakeJson.ts"
import * as SchemaRules from "./schemaRules.ts"

/** The tool names Chat Completions accepts. */
export const namePattern = /^[a-zA-Z0-9_-]{1,64}$/

/** What a Chat Completions request breaks, in the real API's words where it has some. */
export const problems = (body: unknown): Array<string> => {
  if (!isObject(body)) return ["the body is not a JSON object"]
  const problems: Array<string> = []
  if (typeof body.model !== "string") problems.push("you must provide a model parameter")
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    problems.push("The 'stream_options' parameter is only allowed when 'stream' is enabled.")
  }
  for (const [i, tool] of arrayOf(body.tools).entries()) {
    const name = isObject(tool) && isObject(tool.function) ? tool.function.name : undefined
    if (typeof name !== "string" || !namePattern.test(name)) {
      problems.push(
        `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`
      )
    }
    if (isObject(tool) && isObject(tool.function)) {
      problems.push(...SchemaRules.openAiParameters(name, tool.function.parameters, tool.function.strict))
    }
  }
  const messages = arrayOf(body.messages).filter(isObject)
  if (messages.length === 0) problems.push("'messages' must contain at least one message")
  const pending = new Set<unknown>()
  let open: number | undefined
  for (const [i, message] of messages.entries()) {
    if (message.role === "tool") {
      // Tool messages are text only: a string, or text parts.
      for (const [j, part] of (Array.isArray(message.content) ? message.content : []).entries()) {
        const type = isObject(part) ? part.type : undefined
        if (type === "image_url") {
          problems.push(
            `Invalid 'messages[${i}]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL.`
          )
        } else if (type !== "text") {
          problems.push(
            `Invalid value: ${JSON.stringify(type)}. Supported values are: 'text'. (messages[${i}].content[${j}].type)`
          )
        }
      }
      if (!pending.delete(message.tool_call_id)) {
        problems.push(
          `Invalid parameter: messages[${i}]: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (tool_call_id ${JSON.stringify(message.tool_call_id)}).`
        )
      }
      continue
    }
    if (pending.size > 0) {
      problems.push(
        `An assistant message with 'tool_calls' (messages[${open}]) must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`
      )
      pending.clear()
    }
    if (message.role === "assistant") {
      for (const call of arrayOf(message.tool_calls).filter(isObject)) {
        pending.add(call.id)
        const fn = isObject(call.function) ? call.function : {}
        if (typeof fn.arguments !== "string") {
          problems.push(`Invalid type for 'messages[${i}].tool_calls.function.arguments': expected a string`)
        }
      }
      open = i
    }
  }
  return problems
}

/** The error `type` and `code` Chat Completions gives for each status. */
export const errorTypes: Readonly<Record<number, { readonly type: string; readonly code: string | null }>> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "invalid_request_error", code: "unsupported_country_region_territory" },
  404: { type: "invalid_request_error", code: "model_not_found" },
  429: { type: "requests", code: "rate_limit_exceeded" },
  500: { type: "server_error", code: null },
  503: { type: "server_error", code: null }
}

/** A scripted reply in the Chat Completions wire format. */
export const reply = (r: Reply, model: unknown, n: number): Json => {
  const text = r.blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
  const reasoning = r.blocks.flatMap((b) => (b.type === "reasoning" ? [b.text] : [])).join("")
  const calls = r.blocks.flatMap((b) =>
    b.type === "tool_use"
      ? [
          {
            id: b.id,
            type: "function",
            function: { name: b.name, arguments: typeof b.input === "string" ? b.input : JSON.stringify(b.input) }
          }
        ]
      : []
  )
  const input = r.usage?.input ?? 10
  const output = r.usage?.output ?? 5
  return {
    id: `chatcmpl-fake-${n}`,
    object: "chat.completion",
    created: 1_700_000_000 + n,
    model: typeof model === "string" ? model : "fake",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text === "" && calls.length > 0 ? null : text,
          ...(reasoning === "" ? {} : { reasoning_content: reasoning }),
          ...(calls.length > 0 ? { tool_calls: calls } : {})
        },
        finish_reason: r.stop ?? (calls.length > 0 ? "tool_calls" : "stop")
      }
    ],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output }
  }
}
