/**
 * The OpenAI Responses API (`POST /v1/responses`) as the fake provider speaks it: what a
 * request breaks, in the real API's words, and a scripted reply as a response object.
 *
 * What the real API refuses, and so the fake: a missing `model` or `input`; a tool that is not
 * `type: "function"` (the fake serves no built-in tools), without a `name`, or with a name
 * outside `^[a-zA-Z0-9_-]+$` or longer than 64; an input item without its required fields
 * (`call_id`, `name`, string `arguments`, `output`, a message's `role` and `content`); a
 * `function_call_output` whose `call_id` matches no `function_call` before it ("No tool call
 * found for function call output with call_id …"); a `function_call` with no output ("No tool
 * output found for function call …"); an `item_reference` to an item that was not stored
 * ("Item with id '…' not found."); `parameters` that are not an object schema, or break strict
 * mode's rules for a tool sent with `strict: true` (see `schemaRules`).
 *
 * @internal
 */
import * as SchemaRules from "./schemaRules.ts"

type Json = Record<string, unknown>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const typeName = (u: unknown): string => (u === null ? "null" : Array.isArray(u) ? "array" : typeof u)

const toolNamePattern = /^[a-zA-Z0-9_-]+$/

/** What a required field that is a string or an array of content parts breaks (`at` names it). */
const textOrParts = (at: string, value: unknown): Array<string> =>
  value === undefined
    ? [`Missing required parameter: '${at}'.`]
    : typeof value !== "string" && !Array.isArray(value)
      ? [
          `Invalid type for '${at}': expected one of a string or an array of content parts, but got ${typeName(value)} instead.`
        ]
      : []

const roles = new Set(["user", "assistant", "system", "developer"])

/** The problems of a Responses request; `stored` holds the items of earlier responses by id. */
export const problems = (body: unknown, stored: ReadonlyMap<string, Json>): Array<string> => {
  if (!isObject(body)) return ["the body is not a JSON object"]
  const out: Array<string> = []
  if (typeof body.model !== "string" || body.model === "") out.push("Missing required parameter: 'model'.")
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    out.push("previous_response_id: the fake provider keeps no conversations (send the whole input)")
  }
  const tools = body.tools
  if (tools !== undefined && !Array.isArray(tools))
    out.push(`Invalid type for 'tools': expected an array, but got ${typeName(tools)} instead.`)
  for (const [i, tool] of (Array.isArray(tools) ? tools : []).entries()) {
    if (!isObject(tool)) {
      out.push(`Invalid type for 'tools[${i}]': expected an object, but got ${typeName(tool)} instead.`)
      continue
    }
    if (tool.type !== "function") {
      out.push(
        `Invalid value for 'tools[${i}].type': the fake provider serves only 'function' tools, got ${JSON.stringify(tool.type)}.`
      )
      continue
    }
    const name = tool.name
    if (name === undefined) out.push(`Missing required parameter: 'tools[${i}].name'.`)
    else if (typeof name !== "string")
      out.push(`Invalid type for 'tools[${i}].name': expected a string, but got ${typeName(name)} instead.`)
    else if (name.length > 64) {
      out.push(
        `Invalid 'tools[${i}].name': string too long. Expected a string with maximum length 64, but got a string with length ${name.length} instead.`
      )
    } else if (!toolNamePattern.test(name)) {
      out.push(
        `Invalid 'tools[${i}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`
      )
    }
    if (tool.parameters !== undefined && tool.parameters !== null && !isObject(tool.parameters)) {
      out.push(
        `Invalid type for 'tools[${i}].parameters': expected an object, but got ${typeName(tool.parameters)} instead.`
      )
    } else out.push(...SchemaRules.openAiParameters(name, tool.parameters, tool.strict))
  }
  const input = body.input
  if (input === undefined) {
    out.push("Missing required parameter: 'input'.")
    return out
  }
  if (typeof input === "string") return out
  if (!Array.isArray(input)) {
    out.push(
      `Invalid type for 'input': expected one of a string or an array of input items, but got ${typeName(input)} instead.`
    )
    return out
  }
  const calls = new Map<string, number>()
  const answered = new Set<string>()
  for (const [i, raw] of input.entries()) {
    const at = `input[${i}]`
    if (!isObject(raw)) {
      out.push(`Invalid type for '${at}': expected an object, but got ${typeName(raw)} instead.`)
      continue
    }
    let item: Json = raw
    if (raw.type === "item_reference") {
      const found = typeof raw.id === "string" ? stored.get(raw.id) : undefined
      if (typeof raw.id !== "string") {
        out.push(`Missing required parameter: '${at}.id'.`)
        continue
      }
      if (found === undefined) {
        out.push(`Item with id '${raw.id}' not found.`)
        continue
      }
      item = found
    }
    const type = item.type ?? "message"
    switch (type) {
      case "message": {
        if (typeof item.role !== "string" || !roles.has(item.role)) {
          out.push(
            item.role === undefined
              ? `Missing required parameter: '${at}.role'.`
              : `Invalid value: ${JSON.stringify(item.role)}. Supported values are: 'assistant', 'system', 'developer', and 'user'.`
          )
        }
        out.push(...textOrParts(`${at}.content`, item.content))
        break
      }
      case "function_call": {
        if (typeof item.call_id !== "string" || item.call_id === "")
          out.push(`Missing required parameter: '${at}.call_id'.`)
        else calls.set(item.call_id, i)
        if (typeof item.name !== "string") out.push(`Missing required parameter: '${at}.name'.`)
        else if (!toolNamePattern.test(item.name)) {
          out.push(
            `Invalid '${at}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`
          )
        }
        if (typeof item.arguments !== "string") {
          out.push(
            item.arguments === undefined
              ? `Missing required parameter: '${at}.arguments'.`
              : `Invalid type for '${at}.arguments': expected a string, but got ${typeName(item.arguments)} instead.`
          )
        }
        break
      }
      case "function_call_output": {
        if (typeof item.call_id !== "string" || item.call_id === "") {
          out.push(`Missing required parameter: '${at}.call_id'.`)
        } else if (!calls.has(item.call_id)) {
          out.push(`No tool call found for function call output with call_id ${item.call_id}.`)
        } else answered.add(item.call_id)
        out.push(...textOrParts(`${at}.output`, item.output))
        break
      }
      case "reasoning": {
        if (!Array.isArray(item.summary)) out.push(`Missing required parameter: '${at}.summary'.`)
        break
      }
      default:
        out.push(
          `Invalid value for '${at}.type': ${JSON.stringify(type)} (the fake provider knows message, function_call, function_call_output, reasoning and item_reference).`
        )
    }
  }
  for (const id of calls.keys()) if (!answered.has(id)) out.push(`No tool output found for function call ${id}.`)
  return out
}

/** A block of a scripted reply, as the fake renders it. */
export type Block =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "reasoning"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }

/** The stop reasons that make a response `incomplete`. */
const incomplete = new Set(["max_output_tokens", "content_filter"])

/**
 * A reply as a Responses response object: its output items in order (`reasoning`, `message`,
 * `function_call` with its `call_id`), `status`, `incomplete_details` and `usage`. `arguments`
 * is the tool_use's input as JSON, or the string it is.
 */
export const reply = (
  blocks: ReadonlyArray<Block>,
  options: {
    readonly stop: string | undefined
    readonly usage: { readonly input: number; readonly output: number } | undefined
    readonly model: unknown
    readonly n: number
  }
): { readonly response: Json; readonly items: ReadonlyArray<Json> } => {
  const { n } = options
  const items = blocks.map((b, i): Json => {
    switch (b.type) {
      case "text":
        return {
          type: "message",
          id: `msg_fake_${n}_${i}`,
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: b.text, annotations: [] }]
        }
      case "reasoning":
        return { type: "reasoning", id: `rs_fake_${n}_${i}`, summary: [{ type: "summary_text", text: b.text }] }
      default:
        return {
          type: "function_call",
          id: `fc_fake_${n}_${i}`,
          call_id: b.id,
          name: b.name,
          arguments: typeof b.input === "string" ? b.input : JSON.stringify(b.input),
          status: "completed"
        }
    }
  })
  const stop = options.stop
  const input = options.usage?.input ?? 10
  const output = options.usage?.output ?? 5
  const done = stop === undefined || !incomplete.has(stop)
  return {
    items,
    response: {
      id: `resp_fake_${n}`,
      object: "response",
      created_at: 1_700_000_000 + n,
      status: done ? "completed" : "incomplete",
      error: null,
      incomplete_details: done ? null : { reason: stop },
      model: typeof options.model === "string" ? options.model : "fake",
      output: items,
      parallel_tool_calls: true,
      usage: {
        input_tokens: input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: input + output
      }
    }
  }
}
