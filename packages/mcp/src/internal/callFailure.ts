/**
 * Sending a mounted tool's call and saying what went wrong when no answer came back: the SDK's
 * errors told from a server's, a session renewed once when a Streamable HTTP server forgot it,
 * and each failure as the model reads it, with whether the call ran.
 */
import { Buffer } from "node:buffer"
import type { MessageCatalog } from "@agent-harness/tool-schema"
import type { Client } from "@modelcontextprotocol/sdk/client"
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import * as z from "zod"
import * as MessageSize from "../MessageSize.ts"
import * as Messages from "../Messages.ts"
import * as StdioChild from "../StdioChild.ts"
import { type Connection, howText } from "./connection.ts"

/** Why a call to a mounted tool failed (`CallError`'s reasons). */
export const reasons = [
  "ToolError",
  "ServerError",
  "TimedOut",
  "Stopped",
  "ConnectionLost",
  "OffSpec",
  "HttpStatus",
  "NotSent",
  "TooLarge"
] as const

/** A failed call's fields, as `CallError` holds them. */
export interface Failure {
  readonly reason: (typeof reasons)[number]
  readonly ran: "yes" | "unknown" | "no"
  readonly message: string
}

export const errorText = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? error.cause.message : undefined
  return cause === undefined || error.message.includes(cause) ? error.message : `${error.message} (${cause})`
}

/**
 * The SDK's own errors, told from a server's (which may use the same codes: -32000 and -32001
 * are common server error codes): the request timed out here, or the connection closed here.
 */
export class TimedOutHere {}
export class ClosedHere {}

/** A new session could not be started after the server ended the old one (the call did not run). */
export class SessionRenewFailed {
  readonly cause: unknown
  constructor(cause: unknown) {
    this.cause = cause
  }
}

/**
 * The server no longer knows the session of a request that carried a session id, and did not
 * run it: an HTTP 404 (MCP's rule), or the 400 the official SDK's servers answer when their
 * session is gone (`Bad Request: Server not initialized` from a restarted transport, `Bad
 * Request: No valid session ID provided` from the SDK's examples' session map).
 */
export const isSessionGone = (error: unknown, client: Client): boolean =>
  error instanceof StreamableHTTPError &&
  client.transport?.sessionId !== undefined &&
  (error.code === 404 ||
    (error.code === 400 && /server not initialized|no valid session id/i.test(error.message.slice(0, 1000))))

/**
 * HTTP statuses that prove the server did not run the call: every 4xx (the server refused the
 * request as a request: bad, unauthorized, forbidden, unknown session, too large, too many), and
 * 501/505 (it does not do what was asked). Any other 5xx may come after the call ran.
 */
export const provesNotRun = (status: number): boolean =>
  (status >= 400 && status < 500) || status === 501 || status === 505

/** Codes of a connection that was never made: the request was not sent. */
export const notConnected = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_NONAME",
  "EHOSTUNREACH",
  "ENETUNREACH"
])

export const codeOf = (error: unknown): unknown =>
  typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined

/** Whether a fetch failed before the request left (no connection was made). */
export const neverConnected = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false
  const cause = error.cause
  const code = codeOf(cause)
  if (typeof code === "string" && notConnected.has(code)) return true
  // Happy eyeballs: every address refused.
  const errors =
    typeof cause === "object" && cause !== null ? (cause as { readonly errors?: unknown }).errors : undefined
  return (
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((e) => {
      const c = codeOf(e)
      return typeof c === "string" && notConnected.has(c)
    })
  )
}

/** A JSON-RPC error's message without the SDK's `MCP error <code>: ` prefixes (it adds one per hop). */
export const withoutPrefix = (message: string): string => message.replace(/^(?:MCP error -?\d+: )+/, "")

/** The body of an HTTP error answer: a JSON-RPC error's message when it is one, else the text. */
export const httpBody = (error: StreamableHTTPError): string => {
  const text = error.message.replace(/^Streamable HTTP error: (?:Error POSTing to endpoint: )?/, "")
  try {
    const parsed: unknown = JSON.parse(text)
    const message = (parsed as { readonly error?: { readonly message?: unknown } } | null)?.error?.message
    if (typeof message === "string") return message
  } catch {
    // Not JSON: the text as it is.
  }
  return text === "" || text === "null" ? "no body" : text
}

/** The first issue of a zod error, in one line, or `undefined` when `error` is none. */
export const zodIssue = (error: unknown): string | undefined => {
  const issues =
    typeof error === "object" && error !== null ? (error as { readonly issues?: unknown }).issues : undefined
  if (!(error instanceof Error) || !Array.isArray(issues)) return undefined
  const first: unknown = issues[0]
  if (typeof first !== "object" || first === null) return "it is not JSON-RPC"
  const { path, message } = first as { readonly path?: unknown; readonly message?: unknown }
  const at = Array.isArray(path) && path.length > 0 ? `${path.join(".")}: ` : ""
  return `it is not JSON-RPC: ${at}${typeof message === "string" ? message : "invalid"}`
}

/**
 * Sends one `tools/call`. When a Streamable HTTP server answers that it no longer knows the
 * session (it restarted), a new session is started, once, and the call is sent again: the 404
 * proves it did not run. The answer is returned unchecked.
 */
export const send = async (
  connection: Connection,
  params: Record<string, unknown>,
  signal: AbortSignal,
  timeout: number
): Promise<unknown> => {
  const deadline = Date.now() + timeout
  const once = async (client: Client, millis: number): Promise<unknown> => {
    try {
      return await client.request({ method: "tools/call", params }, Answer, { signal, timeout: millis })
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        const data: unknown = error.data
        if (typeof data === "object" && data !== null && (data as { timeout?: unknown }).timeout === millis) {
          throw new TimedOutHere()
        }
      }
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed && client.transport === undefined) {
        throw new ClosedHere()
      }
      // A write to a child that is exiting fails before its exit is known: wait for it.
      if (connection.child !== undefined && !(error instanceof McpError) && !signal.aborted) {
        await connection.child.settled(2000)
      }
      throw error
    }
  }
  const client = connection.client
  try {
    return await once(client, timeout)
  } catch (error) {
    if (connection.renew === undefined || !isSessionGone(error, client)) throw error
    try {
      await connection.renew(client)
    } catch (cause) {
      throw new SessionRenewFailed(cause)
    }
    return await once(connection.client, Math.max(1, deadline - Date.now()))
  }
}

/** A call whose JSON-RPC message is over `MessageSize.maxBytes`: not sent. */
export class TooLargeToSend {
  readonly bytes: number
  constructor(bytes: number) {
    this.bytes = bytes
  }
}

/**
 * The size in bytes of the `tools/call` message for `params`, as the SDK writes it (with an id
 * of at most 15 digits: a little over, never under), or `undefined` when it cannot be written
 * (the SDK would fail to send it, and says why).
 */
export const messageBytes = (params: Record<string, unknown>): number | undefined => {
  try {
    const line = JSON.stringify({ method: "tools/call", params, jsonrpc: "2.0", id: 999_999_999_999_999 })
    return typeof line === "string" ? Buffer.byteLength(line) + 1 : undefined
  } catch {
    return undefined
  }
}

/** Any answer: it is checked by `CallResult.check`, so an off-spec one is said to be at once. */
export const Answer = z.unknown()

/** What went wrong with a call that did not return an answer, as the model reads it. */
export const failure = (
  error: unknown,
  connection: Connection,
  server: string,
  texts: Messages.Messages,
  catalog: MessageCatalog.MessageCatalog,
  timeout: number
): Failure => {
  if (error instanceof SessionRenewFailed) {
    return {
      reason: "NotSent",
      ran: "no",
      message: texts.sessionLost(
        server,
        Messages.bounded(
          error.cause instanceof StreamableHTTPError
            ? `HTTP ${error.cause.code}: ${httpBody(error.cause)}`
            : errorText(error.cause)
        )
      )
    }
  }
  if (error instanceof TimedOutHere) {
    return { reason: "TimedOut", ran: "unknown", message: catalog.timedOut(timeout) }
  }
  if (error instanceof ClosedHere) {
    const how = connection.status._tag === "Stopped" ? howText(connection, texts) : texts.closed
    return { reason: "Stopped", ran: "unknown", message: texts.stoppedDuringCall(server, how) }
  }
  if (error instanceof TooLargeToSend) {
    return {
      reason: "TooLarge",
      ran: "no",
      message: texts.callTooLarge(server, error.bytes, MessageSize.maxBytes)
    }
  }
  if (error instanceof McpError) {
    const data: unknown = error.data
    const tooLarge =
      typeof data === "object" && data !== null ? (data as Record<string, unknown>)[StdioChild.tooLargeKey] : undefined
    if (typeof tooLarge === "number") {
      return {
        reason: "TooLarge",
        ran: "unknown",
        message: texts.answerTooLarge(server, tooLarge, MessageSize.maxBytes)
      }
    }
    const offSpec =
      typeof data === "object" && data !== null ? (data as Record<string, unknown>)[StdioChild.offSpecKey] : undefined
    if (typeof offSpec === "string") {
      return {
        reason: "OffSpec",
        ran: "unknown",
        message: texts.offSpec(server, Messages.bounded(offSpec))
      }
    }
    return {
      reason: "ServerError",
      ran: "yes",
      message: texts.failed(server, error.code, Messages.bounded(withoutPrefix(error.message)))
    }
  }
  if (error instanceof StreamableHTTPError) {
    const body = Messages.bounded(httpBody(error))
    const status = error.code ?? -1
    if (status === -1) {
      return { reason: "OffSpec", ran: "unknown", message: texts.offSpec(server, body) }
    }
    if (provesNotRun(status)) {
      return { reason: "NotSent", ran: "no", message: texts.notSent(server, `HTTP ${status}: ${body}`) }
    }
    return { reason: "HttpStatus", ran: "unknown", message: texts.httpStatus(server, status, body) }
  }
  const notJsonRpc = zodIssue(error) ?? (error instanceof SyntaxError ? "it is not JSON" : undefined)
  if (notJsonRpc !== undefined) {
    return {
      reason: "OffSpec",
      ran: "unknown",
      message: texts.offSpec(server, Messages.bounded(notJsonRpc))
    }
  }
  if (connection.status._tag === "Stopped") {
    return { reason: "Stopped", ran: "no", message: texts.stopped(server, howText(connection, texts)) }
  }
  if (connection.child === undefined && neverConnected(error)) {
    return {
      reason: "NotSent",
      ran: "no",
      message: texts.notSent(server, Messages.bounded(errorText(error)))
    }
  }
  return {
    reason: "ConnectionLost",
    ran: "unknown",
    message: texts.connectionLost(server, Messages.bounded(errorText(error)))
  }
}
