/**
 * A `fetch` for the Streamable HTTP client transport that says at once when a server answers a
 * request with an off-spec event stream. The SDK skips an event whose data is not a JSON-RPC
 * message and, when the stream ends without the answer and without an event id to resume from,
 * leaves the request waiting for its timeout. This fetch passes the stream on unchanged, reads a
 * copy, and when it sees an event that is not JSON-RPC, or the stream ends without answering a
 * request (and gave no event id to resume from), it adds, for each request not yet answered, a
 * JSON-RPC error whose `data[offSpecKey]` says what is wrong, and ends the stream.
 */
import { offSpecKey } from "../StdioChild.ts"

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

/** An SSE event answering `id` with an off-spec error. */
const errorEvent = (id: Id, problem: string): Uint8Array =>
  encoder.encode(
    `\n\nevent: message\ndata: ${JSON.stringify({
      jsonrpc: "2.0",
      id,
      error: { code: -32603, message: `off-spec answer: ${problem}`, data: { [offSpecKey]: problem } }
    })}\n\n`
  )

/** The most of one event's data kept to check it; a longer event is passed on unchecked. */
const maxChecked = 64 * 1024 * 1024

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
    for (const id of open) controller.enqueue(errorEvent(id, problem))
    open.clear()
    done = true
    if (end) controller.terminate()
  }
  const line = (text: string): string | undefined => {
    if (text === "") {
      const joined = data.join("\n")
      const unchecked = data.length === 0 || dataLength > maxChecked
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
      if (dataLength <= maxChecked) data.push(value)
    } else if (field === "id") {
      if (value !== "") resumable = true
    }
    return undefined
  }
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (done) return
      controller.enqueue(chunk)
      const text = partial + decoder.decode(chunk, { stream: true })
      if (first.length < 80) first = (first + text).slice(0, 80)
      const lines = text.split(/\r\n|\r|\n/)
      partial = lines.pop() ?? ""
      for (const each of lines) {
        const problem = line(each)
        if (problem !== undefined) return fail(controller, problem, true)
        if (open.size === 0) return
      }
    },
    flush(controller) {
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
 * `base` (the global `fetch` by default), with every POST answered by an event stream checked
 * as it passes (see the module's comment). Anything else passes as it is.
 */
export const fetchChecked =
  (base: typeof fetch = fetch): typeof fetch =>
  async (input, init) => {
    const response = await base(input, init)
    if (init?.method !== "POST" || !response.ok || response.body === null) return response
    if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) return response
    const ids = requestIds(init.body)
    if (ids.length === 0) return response
    return new Response(response.body.pipeThrough(checked(ids)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers
    })
  }
