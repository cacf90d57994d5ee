/**
 * A loopback fake of the model providers' HTTP APIs, for tests that must not reach the network:
 * a `node:http` server on 127.0.0.1 (a free port) that speaks Anthropic Messages
 * (`POST /v1/messages`), OpenAI Chat Completions (`POST /v1/chat/completions`) and OpenAI
 * Responses (`POST /v1/responses`). Point the real providers at it with
 * `baseURL: fake.url + "/v1"`.
 *
 * - Each route answers from its own script, in order: replies (text, tool calls, reasoning,
 *   any stop reason and usage, rendered in the route's wire format), errors with the body
 *   shape the real API uses (and `retry-after` when asked), raw responses, and the ways real
 *   servers misbehave: no answer at all (`hang`), a body that stalls halfway (`stall`), a body
 *   cut off by a closed connection (`cut`).
 * - A request that asks to stream (`"stream": true`, as the providers' `doStream` sends) is
 *   answered `text/event-stream`, exactly as the real API streams: Anthropic's
 *   `message_start` / `content_block_start` / `content_block_delta` (`text_delta`,
 *   `input_json_delta`, `thinking_delta`, `signature_delta`) / `content_block_stop` /
 *   `message_delta` / `message_stop`; Chat Completions' `chat.completion.chunk`s (`delta.content`,
 *   `delta.tool_calls[i]` with `id` and `function.name` on the first fragment, then
 *   `function.arguments` fragments, `finish_reason` on the last, a usage chunk when
 *   `stream_options.include_usage`, then `[DONE]`); Responses' `response.created`,
 *   `response.output_item.added`, `response.output_text.delta`,
 *   `response.function_call_arguments.delta` / `.done`, `response.output_item.done`,
 *   `response.completed` (or `.incomplete`). The same scripted `Reply` streams, cut as its
 *   `Chunking` says (deterministic: text every `textChars` characters, arguments every
 *   `argumentChars`, so a fragment can end inside a string or an escape), with keep-alive pings
 *   when asked; `streamError` and `streamCut` script an error event or a connection cut
 *   mid-stream.
 * - The Responses route keeps the items it answered (unless the request says `store: false`)
 *   and resolves `item_reference` inputs to them, as the real API does with stored responses.
 * - Every request is recorded (headers, body as sent, parsed JSON) and checked the way the real
 *   API checks it: the API key, required fields, tool names, every tool call answered in the
 *   next message by its id and no result without its call (Responses: every `function_call`
 *   has its `function_call_output`, every output has its call, every reference is to a stored
 *   item), and (Anthropic, with thinking on) a thinking block before the tool calls it led to.
 * - Tool schemas are checked as the real APIs check them: Anthropic's `input_schema` must be
 *   `type: "object"` with no top-level `oneOf`/`allOf`/`anyOf` and tool names must match
 *   `^[a-zA-Z0-9_-]{1,128}$`; OpenAI's `parameters` must be an object schema, names must match
 *   `^[a-zA-Z0-9_-]{1,64}$`, and a tool sent with `strict: true` must follow strict mode's rules
 *   (`additionalProperties: false` on every object, every property required, supported
 *   keywords only). A request that fails a check is answered
 *   400 (401 for a wrong key) with the real error shape, and its `problems` say why.
 *
 * @example
 * ```ts
 * import { FakeProvider } from "@agent-harness/ai-sdk/testing"
 * import { createAnthropic } from "@ai-sdk/anthropic"
 *
 * const fake = await FakeProvider.start({
 *   anthropic: [FakeProvider.reply([Message.toolUse("c1", "read", { path: "a.txt" })]), FakeProvider.reply([Message.text("done")])]
 * })
 * const model = createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: "test" })("claude-test")
 * // … run the loop, then look at fake.requests …
 * await fake.close()
 * ```
 *
 * @since 0.1.0
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import type { Message } from "@agent-harness/executor"
import { Effect, type Scope } from "effect"
import * as Anthropic from "./internal/fakeAnthropic.ts"
import { isObject, type Json, withRawJson } from "./internal/fakeJson.ts"
import * as OpenAi from "./internal/fakeOpenAi.ts"
import * as FakeStream from "./internal/fakeStream.ts"
import * as ResponsesWire from "./internal/responsesWire.ts"

/**
 * The wire formats the fake speaks: Anthropic Messages, OpenAI Chat Completions, OpenAI
 * Responses.
 *
 * @since 0.1.0
 */
export type Route = "anthropic" | "openai" | "responses"

/**
 * A scripted reply: blocks in the loop's shape, rendered in the route's wire format. A
 * reasoning block becomes Anthropic `thinking` (its `provider_metadata.anthropic.signature`,
 * or a made-up one) or `redacted_thinking` (with `provider_metadata.anthropic.redactedData`),
 * and OpenAI `reasoning_content` (Responses: a `reasoning` item with a summary). A tool_use whose
 * input is a string is sent to OpenAI as those arguments, as they are (JSON or not), and to
 * Anthropic as the JSON text of its `input`, as it is (so a test can send what no
 * `JSON.stringify` would write, such as 10,000 levels of nesting). `stop` is the wire's stop
 * reason (`max_tokens`, `length`, …; by default `tool_use` / `tool_calls` when the reply calls
 * tools, else `end_turn` / `stop`); on the Responses route, `max_output_tokens` or
 * `content_filter` make the response `incomplete` for that reason.
 *
 * @since 0.1.0
 */
export interface Reply {
  /** Discriminates the scripted response. */
  readonly _tag: "Reply"
  /** The reply's blocks, in the loop's shape. */
  readonly blocks: ReadonlyArray<Message.ReplyBlock>
  /** The wire's stop reason; chosen from the blocks when not given. */
  readonly stop?: string | undefined
  /** The token counts reported (10 in, 5 out when not given). */
  readonly usage?: { readonly input: number; readonly output: number } | undefined
  /** How the reply is cut when streamed; the fake's `Options.chunking` when not given. */
  readonly chunking?: Chunking | undefined
}

/**
 * How a streamed reply is cut into events; deterministic, so a test can say where a fragment
 * ends. Every field is optional: 4 characters of text (and reasoning) per delta, 5 of a tool
 * call's JSON arguments per fragment (cut in code points, so a fragment can end inside a string
 * or inside an escape such as `\"` or `\u00e9`), calls one after the other, no pings.
 *
 * @since 0.1.0
 */
export interface Chunking {
  /** Characters of text or reasoning per delta event (4 when not given). */
  readonly textChars?: number | undefined
  /** Characters of a tool call's JSON arguments per fragment (5 when not given). */
  readonly argumentChars?: number | undefined
  /**
   * Chat Completions only: the tool calls' argument fragments alternate (index 0, 1, 0, 1, …)
   * instead of each call's fragments coming together, as parallel calls stream from the API.
   */
  readonly interleave?: boolean | undefined
  /**
   * A keep-alive ping before every `pingEvery`-th event (Anthropic's `ping` event, an SSE comment
   * on the OpenAI routes); none when not given or 0.
   */
  readonly pingEvery?: number | undefined
  /** Milliseconds between events (0 when not given: each event still goes out in its own write). */
  readonly delayMs?: number | undefined
}

/**
 * A scripted error: the HTTP status, the error body of the route's API (its `type` defaults
 * from the status: `rate_limit_error`, `overloaded_error`, …), and `retry-after` (seconds) or
 * `retry-after-ms` headers when given.
 *
 * @since 0.1.0
 */
export interface Failure {
  /** Discriminates the scripted response. */
  readonly _tag: "Failure"
  /** The HTTP status. */
  readonly status: number
  /** The error body's `type`; from the status when not given. */
  readonly type?: string | undefined
  /** The error body's message (`scripted error <status>` when not given). */
  readonly message?: string | undefined
  /** A `retry-after` header, in seconds. */
  readonly retryAfter?: number | undefined
  /** A `retry-after-ms` header, in milliseconds. */
  readonly retryAfterMs?: number | undefined
}

/**
 * A scripted raw response: status, body and headers as given.
 *
 * @since 0.1.0
 */
export interface Raw {
  /** Discriminates the scripted response. */
  readonly _tag: "Raw"
  /** The HTTP status. */
  readonly status: number
  /** The body, sent as it is. */
  readonly body: string
  /** Response headers. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * A scripted misbehaviour, as real servers and the networks in front of them produce it:
 * `"hang"` accepts the request and never answers (no status, no headers); `"stall"` sends the
 * status, the headers (with the whole reply's `content-length`) and the first half of the
 * reply's body, then nothing more; `"cut"` sends the same and then closes the connection
 * (`framing: "length"`, with `content-length`) or ends a chunked body without its last chunk
 * (`framing: "chunked"`, the connection closing too). After a hang or a stall the connection
 * stays open until the client gives up (its timeout) or the fake is closed.
 *
 * @since 0.1.0
 */
export interface Misbehave {
  /** Discriminates the scripted response. */
  readonly _tag: "Misbehave"
  /** What goes wrong. */
  readonly how: "hang" | "stall" | "cut"
  /** The reply whose body is stalled or cut (rendered in the route's format). */
  readonly reply: Reply
  /** How the cut body was framed. */
  readonly framing: "length" | "chunked"
}

/**
 * A scripted stream that goes wrong: the reply's events up to `after` (pings count; by default
 * up to and including the first tool-call argument fragment, or half the events when no call
 * streams), then, for `how: "error"`, the route's error event (Anthropic
 * `event: error` with `{"type":"error","error":{type,message}}`, Chat Completions
 * `data: {"error":{…}}`, Responses `event: error` with `code` and `message`, or
 * `response.failed` when `event` says so) and the end of the
 * stream, or, for `how: "cut"`, the connection destroyed. A request that does not stream gets
 * the same failure whole: the error as a 500 with that type, or half the body and a cut.
 *
 * @since 0.1.0
 */
export interface StreamFault {
  /** Discriminates the scripted response. */
  readonly _tag: "StreamFault"
  /** An error event, or the connection cut. */
  readonly how: "error" | "cut"
  /** The reply whose events stream before the fault. */
  readonly reply: Reply
  /** How many events go out before the fault. */
  readonly after?: number | undefined
  /** The error's `type` (`overloaded_error` on Anthropic, `server_error` on OpenAI when not given). */
  readonly type?: string | undefined
  /** The error's message (`scripted stream error` when not given). */
  readonly message?: string | undefined
  /**
   * Responses only: the fault as an `error` event (the default) or as `response.failed`, the
   * response `failed` with the error in it.
   */
  readonly event?: "error" | "response.failed" | undefined
}

/**
 * One scripted response.
 *
 * @since 0.1.0
 */
export type Scripted = Reply | Failure | Raw | Misbehave | StreamFault

/**
 * A reply (see `Reply`).
 *
 * @since 0.1.0
 */
export const reply = (
  blocks: ReadonlyArray<Message.ReplyBlock>,
  options?: {
    readonly stop?: string
    readonly usage?: { readonly input: number; readonly output: number }
    readonly chunking?: Chunking
  }
): Reply => ({ _tag: "Reply", blocks, stop: options?.stop, usage: options?.usage, chunking: options?.chunking })

/**
 * An error response (see `Failure`).
 *
 * @since 0.1.0
 */
export const error = (
  status: number,
  options?: {
    readonly type?: string
    readonly message?: string
    readonly retryAfter?: number
    readonly retryAfterMs?: number
  }
): Failure => ({ _tag: "Failure", status, ...options })

/**
 * A raw response (see `Raw`).
 *
 * @since 0.1.0
 */
export const raw = (status: number, body: string, headers?: Readonly<Record<string, string>>): Raw => ({
  _tag: "Raw",
  status,
  body,
  headers
})

/**
 * A request accepted and never answered (see `Misbehave`).
 *
 * @since 0.1.0
 */
export const hang = (): Misbehave => ({ _tag: "Misbehave", how: "hang", reply: reply([]), framing: "length" })

/**
 * The status, the headers and half the body of `reply`, then nothing (see `Misbehave`).
 *
 * @since 0.1.0
 */
export const stall = (r: Reply): Misbehave => ({ _tag: "Misbehave", how: "stall", reply: r, framing: "length" })

/**
 * The status, the headers and half the body of `reply`, then the connection closes (see
 * `Misbehave`).
 *
 * @since 0.1.0
 */
export const cut = (r: Reply, options?: { readonly framing?: "length" | "chunked" }): Misbehave => ({
  _tag: "Misbehave",
  how: "cut",
  reply: r,
  framing: options?.framing ?? "length"
})

/**
 * A streamed reply that sends an error event mid-stream, after `after` events (see `StreamFault`).
 *
 * @since 0.1.0
 */
export const streamError = (
  r: Reply,
  options?: {
    readonly after?: number
    readonly type?: string
    readonly message?: string
    readonly event?: "error" | "response.failed"
  }
): StreamFault => ({ _tag: "StreamFault", how: "error", reply: r, ...options })

/**
 * A streamed reply whose connection is destroyed mid-stream, after `after` events (by default
 * just after a tool call's first argument fragment; see `StreamFault`).
 *
 * @since 0.1.0
 */
export const streamCut = (r: Reply, options?: { readonly after?: number }): StreamFault => ({
  _tag: "StreamFault",
  how: "cut",
  reply: r,
  ...options
})

/**
 * A request the fake received.
 *
 * @since 0.1.0
 */
export interface Recorded {
  /** The route it went to, or `undefined` for a path the fake does not serve. */
  readonly route: Route | undefined
  /** The HTTP method. */
  readonly method: string
  /** The request's path (`/v1/messages`). */
  readonly path: string
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  /** The body exactly as sent. */
  readonly body: string
  /** The body parsed, or `undefined` when it is not JSON. */
  readonly json: unknown
  /** What the checks found wrong (the request was then answered with an error); empty when none. */
  readonly problems: ReadonlyArray<string>
}

/**
 * The running fake.
 *
 * @since 0.1.0
 */
export interface Fake {
  /** `http://127.0.0.1:<port>`; the providers' `baseURL` is this plus `/v1`. */
  readonly url: string
  /** Every request so far, in order. */
  readonly requests: ReadonlyArray<Recorded>
  /** The requests to one route. */
  readonly requestsTo: (route: Route) => ReadonlyArray<Recorded>
  /** Adds responses to the end of a route's script. */
  readonly push: (route: Route, ...responses: ReadonlyArray<Scripted>) => void
  /** How many scripted responses a route has left. */
  readonly left: (route: Route) => number
  /**
   * How many streamed answers have begun writing their last event so far (a test can tell that
   * what a client shows came before the stream's last chunk was sent).
   */
  readonly streamsSent: () => number
  /** Stops the server. */
  readonly close: () => Promise<void>
}

/**
 * The fake's options: each route's script, and the API key it accepts (any non-empty key when
 * not given).
 *
 * @since 0.1.0
 */
export interface Options {
  /** The responses of the Anthropic route, in order. */
  readonly anthropic?: ReadonlyArray<Scripted> | undefined
  /** The responses of the OpenAI Chat Completions route, in order. */
  readonly openai?: ReadonlyArray<Scripted> | undefined
  /** The responses of the OpenAI Responses route, in order. */
  readonly responses?: ReadonlyArray<Scripted> | undefined
  /** The only API key accepted; any non-empty key when not given. */
  readonly apiKey?: string | undefined
  /** How streamed replies are cut, unless a reply says otherwise (see `Chunking`). */
  readonly chunking?: Chunking | undefined
  /**
   * Answers a request by what it asks, before its route's script is read: a response, or
   * `undefined` to take the script's next one (a function that throws counts as `undefined`).
   */
  readonly answer?: ((route: Route, json: unknown) => Scripted | undefined) | undefined
}

const errorBody = (route: Route, status: number, type: string | undefined, message: string): string =>
  route === "anthropic"
    ? JSON.stringify({
        type: "error",
        error: {
          type: type ?? Anthropic.errorTypes[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"),
          message
        }
      })
    : JSON.stringify({
        error: {
          message,
          type: type ?? OpenAi.errorTypes[status]?.type ?? (status >= 500 ? "server_error" : "invalid_request_error"),
          param: null,
          code: OpenAi.errorTypes[status]?.code ?? null
        }
      })

const routes: Readonly<Record<string, Route>> = {
  "/v1/messages": "anthropic",
  "/v1/chat/completions": "openai",
  "/v1/responses": "responses"
}

const routeOf = (method: string, path: string): Route | undefined =>
  method === "POST" && Object.hasOwn(routes, path) ? routes[path] : undefined

/** How a response goes out: whole, in one of the `Misbehave` ways, or as server-sent events. */
type Delivery = "whole" | "hang" | "stall" | "cut-length" | "cut-chunked" | "stream" | "stream-cut"

interface Answer {
  readonly status: number
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
  readonly delivery: Delivery
  /** The events of a streamed answer, in order, and the pause between them. */
  readonly stream?: { readonly frames: ReadonlyArray<FakeStream.Frame>; readonly delayMs: number } | undefined
}

const keyOf = (route: Route, headers: Readonly<Record<string, string>>): string | undefined => {
  if (route === "anthropic") return headers["x-api-key"]
  const auth = headers.authorization
  return auth?.startsWith("Bearer ") ? auth.slice("Bearer ".length) : undefined
}

/** Sends an answer whole, or misbehaves as scripted (the connection is left open, or destroyed). */
const deliver = (res: Http.ServerResponse, out: Answer, onStreamSent: () => void): void => {
  if (out.delivery === "stream" || out.delivery === "stream-cut") {
    FakeStream.send(res, out.headers, out.stream?.frames ?? [], {
      cut: out.delivery === "stream-cut",
      delayMs: out.stream?.delayMs ?? 0,
      onSent: onStreamSent
    })
    return
  }
  if (out.delivery === "whole") {
    res.writeHead(out.status, { "content-type": "application/json", ...out.headers })
    res.end(out.body)
    return
  }
  if (out.delivery === "hang") return
  const bytes = Buffer.from(out.body, "utf8")
  const half = bytes.subarray(0, Math.floor(bytes.length / 2))
  res.writeHead(out.status, {
    "content-type": "application/json",
    ...out.headers,
    ...(out.delivery === "cut-chunked" ? {} : { "content-length": String(bytes.length) })
  })
  res.write(half, () => {
    if (out.delivery === "stall") return
    // Let the half reach the client, then drop the connection mid-body.
    setTimeout(() => res.socket?.destroy(), 20)
  })
}

/**
 * Starts the fake on 127.0.0.1 at a free port.
 *
 * @since 0.1.0
 */
export const start = (options?: Options): Promise<Fake> => {
  try {
    FakeStream.chunking(undefined, options?.chunking)
  } catch (error) {
    return Promise.reject(error)
  }
  const scripts: Record<Route, Array<Scripted>> = {
    anthropic: [...(options?.anthropic ?? [])],
    openai: [...(options?.openai ?? [])],
    responses: [...(options?.responses ?? [])]
  }
  const requests: Array<Recorded> = []
  let streamsSent = 0
  /** The Responses route's stored output items, by id. */
  const stored = new Map<string, Json>()
  const answer = (route: Route | undefined, recorded: Omit<Recorded, "problems" | "route">): Answer => {
    const send = (
      status: number,
      body: string,
      headers: Readonly<Record<string, string>> = {},
      problems: Array<string> = [],
      delivery: Delivery = "whole",
      stream?: Answer["stream"]
    ): Answer => {
      requests.push({ ...recorded, route, problems })
      return { status, body, headers, delivery, stream }
    }
    if (route === undefined) {
      return send(
        404,
        JSON.stringify({ error: { message: `the fake provider does not serve ${recorded.method} ${recorded.path}` } }),
        {},
        [`no route for ${recorded.method} ${recorded.path}`]
      )
    }
    const key = keyOf(route, recorded.headers)
    if (key === undefined || key === "" || (options?.apiKey !== undefined && key !== options.apiKey)) {
      const message =
        route === "anthropic"
          ? key === undefined || key === ""
            ? "x-api-key header is required"
            : "invalid x-api-key"
          : "Incorrect API key provided."
      return send(401, errorBody(route, 401, undefined, message), {}, [message])
    }
    const problems =
      recorded.json === undefined
        ? ["the body is not JSON"]
        : route === "anthropic"
          ? Anthropic.problems(recorded.json)
          : route === "openai"
            ? OpenAi.problems(recorded.json)
            : ResponsesWire.problems(recorded.json, stored)
    if (problems.length > 0) return send(400, errorBody(route, 400, undefined, problems.join("; ")), {}, problems)
    const chosen = (() => {
      try {
        return options?.answer?.(route, recorded.json)
      } catch {
        return undefined
      }
    })()
    const next = chosen ?? scripts[route].shift()
    const n = requests.length + 1
    if (next === undefined) {
      const message = `the fake provider has no scripted response left for ${recorded.method} ${recorded.path} (request ${n})`
      return send(500, errorBody(route, 500, "api_error", message), {}, [message])
    }
    const model = isObject(recorded.json) ? recorded.json.model : undefined
    const streaming = isObject(recorded.json) && recorded.json.stream === true
    const chunkingOf = (r: Reply): FakeStream.Chunking => FakeStream.chunking(r.chunking, options?.chunking)
    /** The reply whole (`body`) and as the events of its stream (`frames`, computed only for a streaming request). */
    const render = (r: Reply): { readonly body: string; readonly frames: ReadonlyArray<FakeStream.Frame> } => {
      const chunking = chunkingOf(r)
      if (route === "anthropic") {
        const { json, raws } = Anthropic.reply(r, model, n)
        return { body: withRawJson(json, raws), frames: streaming ? FakeStream.anthropic(json, raws, chunking) : [] }
      }
      if (route === "openai") {
        const json = OpenAi.reply(r, model, n)
        const asked = isObject(recorded.json) ? recorded.json.stream_options : undefined
        const includeUsage = isObject(asked) && asked.include_usage === true
        return { body: JSON.stringify(json), frames: streaming ? FakeStream.openAi(json, includeUsage, chunking) : [] }
      }
      const { response, items } = ResponsesWire.reply(r.blocks, { stop: r.stop, usage: r.usage, model, n })
      if (!(isObject(recorded.json) && recorded.json.store === false)) {
        for (const item of items) if (typeof item.id === "string") stored.set(item.id, item)
      }
      return {
        body: JSON.stringify(response),
        frames: streaming ? FakeStream.responses(response, items, chunking) : []
      }
    }
    const sse = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" }
    switch (next._tag) {
      case "Raw":
        return send(next.status, next.body, next.headers)
      case "Misbehave":
        return send(
          200,
          render(next.reply).body,
          {},
          [],
          next.how === "hang"
            ? "hang"
            : next.how === "stall"
              ? "stall"
              : next.framing === "chunked"
                ? "cut-chunked"
                : "cut-length"
        )
      case "StreamFault": {
        const type = next.type ?? (route === "anthropic" ? "overloaded_error" : "server_error")
        const message = next.message ?? "scripted stream error"
        const { body, frames } = render(next.reply)
        if (!streaming) {
          return next.how === "cut"
            ? send(200, body, {}, [], "cut-length")
            : send(500, errorBody(route, 500, type, message))
        }
        const faulty = FakeStream.withFault(route, frames, {
          how: next.how,
          after: next.after,
          type,
          message,
          event: next.event ?? "error",
          responseId: `resp_fake_${n}`
        })
        return send(200, "", sse, [], next.how === "cut" ? "stream-cut" : "stream", {
          frames: faulty,
          delayMs: chunkingOf(next.reply).delayMs
        })
      }
      case "Failure":
        return send(
          next.status,
          errorBody(route, next.status, next.type, next.message ?? `scripted error ${next.status}`),
          {
            ...(next.retryAfter === undefined ? {} : { "retry-after": String(next.retryAfter) }),
            ...(next.retryAfterMs === undefined ? {} : { "retry-after-ms": String(next.retryAfterMs) })
          }
        )
      case "Reply": {
        const { body, frames } = render(next)
        return streaming
          ? send(200, "", sse, [], "stream", { frames, delayMs: chunkingOf(next).delayMs })
          : send(200, body)
      }
    }
  }
  /** `answer`, and a 500 naming what went wrong if rendering or checking threw (the fake never crashes). */
  const answerSafely = (route: Route | undefined, recorded: Omit<Recorded, "problems" | "route">): Answer => {
    try {
      return answer(route, recorded)
    } catch (error) {
      const message = `the fake provider could not answer: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`
      requests.push({ ...recorded, route, problems: [message] })
      return {
        status: 500,
        body: errorBody(route ?? "openai", 500, undefined, message),
        headers: {},
        delivery: "whole"
      }
    }
  }
  const server = Http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      let json: unknown
      try {
        json = JSON.parse(body)
      } catch {
        json = undefined
      }
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string") headers[name.toLowerCase()] = value
        else if (Array.isArray(value)) headers[name.toLowerCase()] = value.join(", ")
      }
      const method = req.method ?? "GET"
      const path = (req.url ?? "/").split("?")[0] ?? "/"
      const out = answerSafely(routeOf(method, path), { method, path, headers, body, json })
      deliver(res, out, () => {
        streamsSent++
      })
    })
  })
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as Net.AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        requestsTo: (route) => requests.filter((r) => r.route === route),
        push: (route, ...responses) => {
          scripts[route].push(...responses)
        },
        left: (route) => scripts[route].length,
        streamsSent: () => streamsSent,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}

/**
 * The fake as a scoped resource: started when acquired, closed when the scope closes.
 *
 * @since 0.1.0
 */
export const scoped = (options?: Options): Effect.Effect<Fake, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => start(options)),
    (fake) => Effect.promise(() => fake.close())
  )
