/**
 * A `fetch` for the Streamable HTTP client transport that says at once when a server answers a
 * request with an off-spec event stream. The SDK skips an event whose data is not a JSON-RPC
 * message and, when the stream ends without the answer and without an event id to resume from,
 * leaves the request waiting for its timeout. This fetch passes the stream on unchanged, reads a
 * copy, and when it sees an event that is not JSON-RPC, or the stream ends without answering a
 * request (and gave no event id to resume from), it adds, for each request not yet answered, a
 * JSON-RPC error whose `data[offSpecKey]` says what is wrong, and ends the stream. An answer
 * over `MessageSize.maxBytes` (a JSON body, or one event's data) is not passed on: each request
 * it answers gets a JSON-RPC error whose `data[tooLargeKey]` is its size, as over stdio.
 */
import * as MessageSize from "../MessageSize.ts"
import { offSpecKey, tooLargeKey } from "../StdioChild.ts"

type Id = string | number

/** The ids of the requests in a POST body (one JSON-RPC message or a batch), or none. */
const requestIds = (body: unknown): Array<Id> => {
  if (typeof body !== "string") return []
  try {
    const parsed: unknown = JSON.parse(body)
    const messages: Array<unknown> = Array.isArray(parsed) ? parsed : [parsed]
    const ids: Array<Id> = []
    for (const message of messages) {
      if (typeof message !== "object" || message === null) continue
      const { method, id } = message as { readonly method?: unknown; readonly id?: unknown }
      if (typeof method === "string" && (typeof id === "string" || typeof id === "number")) ids.push(id)
    }
    return ids
  } catch {
    return []
  }
}

/** What is wrong with an event's data, or `undefined` when it is a JSON-RPC message; and the id it answers. */
const readData = (data: string): { readonly problem?: string; readonly answers?: Id } => {
  let parsed: unknown
  try {
    parsed = JSON.parse(data)
  } catch {
    return { problem: `an event's data is not JSON: ${JSON.stringify(data.slice(0, 80))}` }
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { problem: "an event's data is not a JSON-RPC message" }
  }
  const record = parsed as Record<string, unknown>
  if (record.jsonrpc !== "2.0") return { problem: `an event's data is not JSON-RPC (its 'jsonrpc' is not "2.0")` }
  if ("method" in record) return {}
  const id = record.id
  if (!("result" in record) && !("error" in record)) {
    return { problem: "an event's data has neither 'result' nor 'error'" }
  }
  return typeof id === "string" || typeof id === "number" ? { answers: id } : {}
}

const encoder = new TextEncoder()

/** The JSON-RPC error answering `id` for an off-spec answer. */
const offSpecError = (id: Id, problem: string) => ({
  jsonrpc: "2.0",
  id,
  error: { code: -32603, message: `off-spec answer: ${problem}`, data: { [offSpecKey]: problem } }
})

/** The JSON-RPC error answering `id` for an answer of `bytes` bytes, over the limit. */
const tooLargeError = (id: Id, bytes: number) => ({
  jsonrpc: "2.0",
  id,
  error: {
    code: -32603,
    message: `the answer is ${bytes} bytes, more than the limit of ${MessageSize.maxBytes} bytes: it was not read`,
    data: { [tooLargeKey]: bytes }
  }
})

/** An SSE event of one JSON-RPC message. */
const event = (message: unknown): Uint8Array =>
  encoder.encode(`\n\nevent: message\ndata: ${JSON.stringify(message)}\n\n`)

/** The stream of an answer to the requests `ids`, checked as it passes. */
const checked = (ids: ReadonlyArray<Id>): TransformStream<Uint8Array, Uint8Array> => {
  const open = new Set<Id>(ids)
  const decoder = new TextDecoder()
  let partial = ""
  let data: Array<string> = []
  let dataLength = 0
  let resumable = false
  let first = ""
  let done = false
  const fail = (controller: TransformStreamDefaultController<Uint8Array>, problem: string, end: boolean) => {
    for (const id of open) controller.enqueue(event(offSpecError(id, problem)))
    open.clear()
    done = true
    if (end) controller.terminate()
  }
  /** An event over the limit: its bytes are not passed on, each open request is answered so. */
  let held: Array<Uint8Array> = []
  let heldBytes = 0
  /** The bytes so far of an event over the limit, while it is read through. */
  let oversize: number | undefined
  const line = (text: string): string | undefined => {
    if (text === "") {
      const joined = data.join("\n")
      const unchecked = data.length === 0
      data = []
      dataLength = 0
      if (unchecked) return undefined
      const read = readData(joined)
      if (read.problem !== undefined) return read.problem
      if (read.answers !== undefined) open.delete(read.answers)
      return undefined
    }
    if (text.startsWith(":")) return undefined
    const colon = text.indexOf(":")
    const field = colon === -1 ? text : text.slice(0, colon)
    const value = colon === -1 ? "" : text.slice(colon + 1).replace(/^ /, "")
    if (field === "data") {
      dataLength += value.length
      data.push(value)
    } else if (field === "id") {
      if (value !== "") resumable = true
    }
    return undefined
  }
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (done) return
      // Every request answered: the rest passes as it is.
      if (open.size === 0) return controller.enqueue(chunk)
      const text = partial + decoder.decode(chunk, { stream: true })
      if (first.length < 80) first = (first + text).slice(0, 80)
      const lines = text.split(/\r\n|\r|\n/)
      partial = lines.pop() ?? ""
      if (oversize !== undefined) {
        // An event over the limit, read through to its end and not kept.
        oversize += chunk.length
        if (!lines.includes("")) return
        for (const id of open) controller.enqueue(event(tooLargeError(id, oversize)))
        open.clear()
        done = true
        return controller.terminate()
      }
      // Bytes are passed on at the end of each event, so an event over the limit never is.
      held.push(chunk)
      heldBytes += chunk.length
      for (const each of lines) {
        if (each === "" && dataLength > MessageSize.maxBytes) {
          // One event, whole in what was read, over the limit: not passed on.
          const bytes = Math.max(heldBytes, dataLength)
          for (const id of open) controller.enqueue(event(tooLargeError(id, bytes)))
          open.clear()
          done = true
          return controller.terminate()
        }
        const problem = line(each)
        if (problem !== undefined) {
          for (const bytes of held) controller.enqueue(bytes)
          return fail(controller, problem, true)
        }
        if (each === "" || open.size === 0) {
          for (const bytes of held) controller.enqueue(bytes)
          held = []
          heldBytes = 0
          if (open.size === 0) return
        }
      }
      if (heldBytes > MessageSize.maxBytes) {
        oversize = heldBytes
        held = []
        heldBytes = 0
        data = []
      }
    },
    flush(controller) {
      if (oversize !== undefined && !done) {
        for (const id of open) controller.enqueue(event(tooLargeError(id, oversize)))
        open.clear()
        return
      }
      for (const bytes of held) controller.enqueue(bytes)
      held = []
      // An event id to resume from: the SDK asks for the rest (MCP's SSE polling).
      if (done || open.size === 0 || resumable) return
      fail(
        controller,
        first.trim() === ""
          ? "its event stream ended without an answer"
          : `its event stream ended without an answer (it began ${JSON.stringify(first.trim().slice(0, 60))})`,
        false
      )
    }
  })
}

/**
 * A JSON answer read whole up to `MessageSize.maxBytes`; over it, read through (not kept) and
 * replaced by an error for each request it answers, naming its size.
 */
const bounded = async (response: Response, ids: ReadonlyArray<Id>): Promise<Response> => {
  const body = response.body
  if (body === null) return response
  const reader = body.getReader()
  const chunks: Array<Uint8Array> = []
  let bytes = 0
  while (true) {
    const { done, value } = await reader.read()
    if (done) break
    bytes += value.length
    if (bytes <= MessageSize.maxBytes) chunks.push(value)
    else chunks.length = 0
  }
  const init = { status: response.status, statusText: response.statusText, headers: response.headers }
  if (bytes <= MessageSize.maxBytes) {
    const whole = new Uint8Array(bytes)
    let at = 0
    for (const chunk of chunks) {
      whole.set(chunk, at)
      at += chunk.length
    }
    return new Response(whole, init)
  }
  const errors = ids.map((id) => tooLargeError(id, bytes))
  return new Response(JSON.stringify(errors.length === 1 ? errors[0] : errors), init)
}

/**
 * `base` (the global `fetch` by default), with every POST answered by an event stream checked
 * as it passes (see the module's comment). Anything else passes as it is.
 */
export const fetchChecked =
  (base: typeof fetch = fetch): typeof fetch =>
  async (input, init) => {
    const response = await base(input, init)
    if (init?.method !== "POST" || !response.ok || response.body === null) return response
    const ids = requestIds(init.body)
    if (ids.length === 0) return response
    const type = response.headers.get("content-type") ?? ""
    if (type.includes("application/json")) return bounded(response, ids)
    if (!type.includes("text/event-stream")) return response
    return new Response(response.body.pipeThrough(checked(ids)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers
    })
  }
