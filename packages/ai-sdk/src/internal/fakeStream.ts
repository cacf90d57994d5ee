/**
 * The fake provider's streamed replies: a reply already rendered in a route's whole-JSON wire
 * format, cut into the server-sent events that route's real API streams. Anthropic Messages
 * (`message_start`, `content_block_start`/`_delta`/`_stop`, `message_delta`, `message_stop`,
 * `ping`, `error`), OpenAI Chat Completions (`data: {chunk}` lines, a usage chunk when asked,
 * `data: [DONE]`) and OpenAI Responses (`response.created`, `response.output_item.added`/`.done`,
 * the text, summary and argument deltas, `response.completed`/`.incomplete`, `error`).
 *
 * @internal
 */
import type * as Http from "node:http"
import type * as FakeProvider from "../FakeProvider.ts"
import { arrayOf, isObject, type Json, rawMark } from "./fakeJson.ts"

/** How a streamed reply is cut (see `FakeProvider.Chunking`). */
export interface Chunking {
  readonly textChars: number
  readonly argumentChars: number
  readonly interleave: boolean
  readonly pingEvery: number
  readonly delayMs: number
}

const whole = (name: string, value: unknown, least: number, fallback: number): number => {
  if (value === undefined) return fallback
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < least) {
    throw new TypeError(
      `FakeProvider chunking.${name} must be a whole number of at least ${least}, got ${typeof value === "number" ? String(value) : typeof value}`
    )
  }
  return value
}

/**
 * A reply's chunking over the fake's (each field from the reply, else the fake's options, else
 * the default); a field that is not a whole number in range throws a `TypeError` naming it.
 */
export const chunking = (
  reply: FakeProvider.Chunking | undefined,
  options: FakeProvider.Chunking | undefined
): Chunking => {
  const interleave = reply?.interleave ?? options?.interleave ?? false
  if (typeof interleave !== "boolean") {
    throw new TypeError(`FakeProvider chunking.interleave must be a boolean, got ${typeof interleave}`)
  }
  return {
    textChars: whole("textChars", reply?.textChars ?? options?.textChars, 1, 4),
    argumentChars: whole("argumentChars", reply?.argumentChars ?? options?.argumentChars, 1, 5),
    interleave,
    pingEvery: whole("pingEvery", reply?.pingEvery ?? options?.pingEvery, 0, 0),
    delayMs: whole("delayMs", reply?.delayMs ?? options?.delayMs, 0, 0)
  }
}

/** One server-sent event, framed; `arg` marks an event that carries a tool call's argument fragment. */
export interface Frame {
  readonly text: string
  readonly arg: boolean
}

/** The given string in pieces of `size` code points (a whole number of at least 1; at least one piece, maybe empty). */
export const pieces = (text: string, size: number): Array<string> => {
  const points = Array.from(text)
  const out: Array<string> = []
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(""))
  return out.length === 0 ? [""] : out
}

const sse = (event: string | undefined, data: Json | string, arg = false): Frame => ({
  text: `${event === undefined ? "" : `event: ${event}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`,
  arg
})

/** Keep-alive pings between events: Anthropic's `ping` event, an SSE comment on the OpenAI routes. */
const withPings = (frames: Array<Frame>, every: number, ping: Frame): Array<Frame> => {
  if (every <= 0) return frames
  const out: Array<Frame> = []
  frames.forEach((f, i) => {
    if (i > 0 && i % every === 0) out.push(ping)
    out.push(f)
  })
  return out
}

/** A route's keep-alive ping, for `withPings`. */
const ping = (route: "anthropic" | "openai" | "responses"): Frame =>
  route === "anthropic"
    ? { text: `event: ping\ndata: {"type": "ping"}\n\n`, arg: false }
    : { text: ": keep-alive\n\n", arg: false }

/** An Anthropic Messages reply (as `fakeAnthropic.reply` renders it) as its stream of events. */
export const anthropic = (json: Json, raws: ReadonlyArray<string>, chunking: Chunking): Array<Frame> => {
  const usage = isObject(json.usage) ? json.usage : {}
  const frames: Array<Frame> = [
    sse("message_start", {
      type: "message_start",
      message: {
        ...json,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 1 }
      }
    })
  ]
  arrayOf(json.content)
    .filter(isObject)
    .forEach((block, index) => {
      const delta = (d: Json, arg = false) =>
        sse("content_block_delta", { type: "content_block_delta", index, delta: d }, arg)
      if (block.type === "text") {
        frames.push(
          sse("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } })
        )
        for (const p of pieces(String(block.text), chunking.textChars))
          frames.push(delta({ type: "text_delta", text: p }))
      } else if (block.type === "thinking") {
        frames.push(
          sse("content_block_start", {
            type: "content_block_start",
            index,
            content_block: { type: "thinking", thinking: "" }
          })
        )
        for (const p of pieces(String(block.thinking), chunking.textChars)) {
          frames.push(delta({ type: "thinking_delta", thinking: p }))
        }
        frames.push(delta({ type: "signature_delta", signature: String(block.signature) }))
      } else if (block.type === "tool_use") {
        frames.push(
          sse("content_block_start", {
            type: "content_block_start",
            index,
            content_block: { type: "tool_use", id: block.id, name: block.name, input: {} }
          })
        )
        const mark = raws.findIndex((_, i) => block.input === rawMark(i))
        const args = mark >= 0 ? (raws[mark] ?? "") : JSON.stringify(block.input)
        for (const p of pieces(args, chunking.argumentChars))
          frames.push(delta({ type: "input_json_delta", partial_json: p }, true))
      } else {
        frames.push(sse("content_block_start", { type: "content_block_start", index, content_block: block }))
      }
      frames.push(sse("content_block_stop", { type: "content_block_stop", index }))
    })
  frames.push(
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: json.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens }
    }),
    sse("message_stop", { type: "message_stop" })
  )
  return withPings(frames, chunking.pingEvery, ping("anthropic"))
}

/**
 * A Chat Completions reply (as `fakeOpenAi.reply` renders it) as its chunks: the role, the
 * content and reasoning deltas, each tool call's first fragment with `id` and `function.name`
 * and then its `function.arguments` fragments (round-robin over the calls when `interleave`),
 * `finish_reason` on the last choice chunk, the usage chunk when `includeUsage`, `[DONE]`.
 */
export const openAi = (json: Json, includeUsage: boolean, chunking: Chunking): Array<Frame> => {
  const choice = isObject(arrayOf(json.choices)[0]) ? (arrayOf(json.choices)[0] as Json) : {}
  const message = isObject(choice.message) ? choice.message : {}
  const head = { id: json.id, object: "chat.completion.chunk", created: json.created, model: json.model }
  const chunk = (delta: Json, finish: unknown = null, arg = false): Frame =>
    sse(undefined, { ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }, arg)
  const frames: Array<Frame> = [chunk({ role: "assistant", content: "", refusal: null })]
  if (typeof message.reasoning_content === "string") {
    for (const p of pieces(message.reasoning_content, chunking.textChars)) frames.push(chunk({ reasoning_content: p }))
  }
  if (typeof message.content === "string" && message.content !== "") {
    for (const p of pieces(message.content, chunking.textChars)) frames.push(chunk({ content: p }))
  }
  const calls = arrayOf(message.tool_calls).filter(isObject)
  const fragments = calls.map((call, index) => {
    const fn = isObject(call.function) ? call.function : {}
    return pieces(String(fn.arguments), chunking.argumentChars).map((p, k) =>
      chunk(
        {
          tool_calls: [
            k === 0
              ? { index, id: call.id, type: "function", function: { name: fn.name, arguments: p } }
              : { index, function: { arguments: p } }
          ]
        },
        null,
        true
      )
    )
  })
  if (chunking.interleave) {
    const longest = Math.max(0, ...fragments.map((f) => f.length))
    for (let k = 0; k < longest; k++) for (const f of fragments) if (k < f.length) frames.push(f[k] as Frame)
  } else for (const f of fragments) frames.push(...f)
  frames.push(chunk({}, choice.finish_reason))
  if (includeUsage) frames.push(sse(undefined, { ...head, choices: [], usage: json.usage }))
  frames.push(sse(undefined, "[DONE]"))
  return withPings(frames, chunking.pingEvery, ping("openai"))
}

/**
 * A Responses reply (as `responsesWire.reply` renders it) as its stream events, each with its
 * `sequence_number`: `response.created`, per output item `response.output_item.added`, its
 * deltas and `response.output_item.done`, then `response.completed` (or `.incomplete`).
 */
export const responses = (response: Json, items: ReadonlyArray<Json>, chunking: Chunking): Array<Frame> => {
  let seq = 0
  const event = (type: string, data: Json, arg = false): Frame =>
    sse(type, { type, sequence_number: seq++, ...data }, arg)
  const frames: Array<Frame> = [
    event("response.created", { response: { ...response, status: "in_progress", output: [], usage: null } }),
    event("response.in_progress", { response: { ...response, status: "in_progress", output: [], usage: null } })
  ]
  items.forEach((item, output_index) => {
    const item_id = item.id
    if (item.type === "message") {
      const part = isObject(arrayOf(item.content)[0]) ? (arrayOf(item.content)[0] as Json) : {}
      const text = String(part.text ?? "")
      frames.push(
        event("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } }),
        event("response.content_part.added", {
          item_id,
          output_index,
          content_index: 0,
          part: { type: "output_text", text: "", annotations: [] }
        })
      )
      for (const p of pieces(text, chunking.textChars)) {
        frames.push(
          event("response.output_text.delta", { item_id, output_index, content_index: 0, delta: p, logprobs: [] })
        )
      }
      frames.push(
        event("response.output_text.done", { item_id, output_index, content_index: 0, text, logprobs: [] }),
        event("response.content_part.done", { item_id, output_index, content_index: 0, part })
      )
    } else if (item.type === "reasoning") {
      const part = isObject(arrayOf(item.summary)[0]) ? (arrayOf(item.summary)[0] as Json) : {}
      const text = String(part.text ?? "")
      frames.push(
        event("response.output_item.added", { output_index, item: { ...item, summary: [] } }),
        event("response.reasoning_summary_part.added", {
          item_id,
          output_index,
          summary_index: 0,
          part: { type: "summary_text", text: "" }
        })
      )
      for (const p of pieces(text, chunking.textChars)) {
        frames.push(
          event("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta: p })
        )
      }
      frames.push(event("response.reasoning_summary_part.done", { item_id, output_index, summary_index: 0, part }))
    } else {
      const args = String(item.arguments)
      frames.push(
        event("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } })
      )
      for (const p of pieces(args, chunking.argumentChars)) {
        frames.push(event("response.function_call_arguments.delta", { item_id, output_index, delta: p }, true))
      }
      frames.push(event("response.function_call_arguments.done", { item_id, output_index, arguments: args }))
    }
    frames.push(event("response.output_item.done", { output_index, item }))
  })
  frames.push(event(response.status === "incomplete" ? "response.incomplete" : "response.completed", { response }))
  return withPings(frames, chunking.pingEvery, ping("responses"))
}

/** A scripted fault of a streamed reply: an error event, or the connection cut, after `after` events. */
export interface Fault {
  readonly how: "error" | "cut"
  readonly after: number | undefined
  readonly type: string
  readonly message: string
  /** Responses only: an `error` event, or `response.failed` with the error in the response (of id `responseId`). */
  readonly event: "error" | "response.failed"
  readonly responseId: string
}

/** The route's error event, as its API sends it mid-stream (`sequence` numbers a Responses event). */
const errorFrame = (route: "anthropic" | "openai" | "responses", fault: Fault, sequence: number): Frame => {
  const { type, message } = fault
  if (route === "anthropic") return sse("error", { type: "error", error: { type, message } })
  if (route === "openai") return sse(undefined, { error: { message, type, param: null, code: null } })
  if (fault.event === "error") {
    return sse("error", { type: "error", sequence_number: sequence, code: type, message, param: null })
  }
  return sse("response.failed", {
    type: "response.failed",
    sequence_number: sequence,
    response: {
      id: fault.responseId,
      object: "response",
      status: "failed",
      error: { code: type, message },
      incomplete_details: null,
      output: [],
      usage: null
    }
  })
}

/**
 * The events sent when a fault is scripted: the first `after` events (by default up to and
 * including the first argument fragment, so the cut or the error lands inside a tool call, or
 * half the events when no call streams), then the error event (the stream then ends) or nothing
 * (the connection is then destroyed).
 */
export const withFault = (
  route: "anthropic" | "openai" | "responses",
  frames: ReadonlyArray<Frame>,
  fault: Fault
): Array<Frame> => {
  const firstArg = frames.findIndex((f) => f.arg)
  const after = Math.min(
    frames.length,
    Math.max(0, Math.floor(fault.after ?? (firstArg >= 0 ? firstArg + 1 : frames.length / 2)))
  )
  const sent = frames.slice(0, after)
  // Responses numbers its events; the keep-alive comments are not events.
  const sequence = sent.filter((f) => !f.text.startsWith(":")).length
  return fault.how === "cut" ? sent : [...sent, errorFrame(route, fault, sequence)]
}

/**
 * Sends the events as a `text/event-stream` body, each in its own write (`delayMs` apart, else
 * on the next turn of the event loop), then ends the body, or, when `cut`, lets the last events
 * reach the client and destroys the connection. Stops when the client goes away.
 */
export const send = (
  res: Http.ServerResponse,
  headers: Readonly<Record<string, string>>,
  frames: ReadonlyArray<Frame>,
  options: {
    readonly cut: boolean
    readonly delayMs: number
    /** Told as the last event is written (at once when there is none), before the stream ends (or is cut). */
    readonly onSent?: (() => void) | undefined
  }
): void => {
  res.writeHead(200, headers)
  res.flushHeaders()
  const next = (i: number): void => {
    if (res.destroyed || res.writableEnded) return
    const frame = frames[i]
    if (frame === undefined) {
      if (frames.length === 0) options.onSent?.()
      if (options.cut) setTimeout(() => res.socket?.destroy(), 20)
      else res.end()
      return
    }
    if (i === frames.length - 1) options.onSent?.()
    res.write(frame.text, () => {
      if (options.delayMs > 0) setTimeout(() => next(i + 1), options.delayMs)
      else setImmediate(() => next(i + 1))
    })
  }
  next(0)
}
