/**
 * The Streamable HTTP endpoint of a served toolset: one request at a time in, an SDK transport
 * per exchange or per session out.
 *
 * - A client that initializes gets a session (`Mcp-Session-Id`): its later requests reach the
 *   same server, so a `notifications/cancelled` it sends reaches the call it names (without a
 *   session it would reach a fresh server that never saw the call) and progress travels on the
 *   call's own event stream. `DELETE` ends a session; at most `maxSessions` are kept (the
 *   least recently used is closed first). A restarted server answers an unknown session 404, as the spec
 *   says, and the client initializes again.
 * - A POST without a session that is not an `initialize` is served alone (stateless), as
 *   before: JSON, or an event stream when it asks for progress.
 * - A body over `MessageSize.maxBytes` is answered with a JSON-RPC error naming the limit (its
 *   id read from the body's head or tail), and the endpoint keeps serving.
 * - `Host` or `Origin` other than this loopback server is refused (403, DNS rebinding).
 *
 * @internal
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Server } from "@modelcontextprotocol/sdk/server"
// @ts-types="@modelcontextprotocol/sdk/server/streamableHttp"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import * as MessageSize from "../MessageSize.ts"
import * as HttpBody from "./HttpBody.ts"
import * as ServedProgress from "./ServedProgress.ts"

/** The sessions kept at most; past it the least recently used is closed. */
export const maxSessions = 256

/** Answers a JSON-RPC error on its own (not through a transport). */
export const reply = (
  res: ServerResponse,
  status: number,
  message: string,
  options: {
    readonly code?: number
    readonly id?: string | number | undefined
    readonly headers?: Record<string, string>
  } = {}
): void => {
  res.writeHead(status, { "content-type": "application/json", ...options.headers })
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: options.code ?? -32000, message }, id: options.id ?? null }))
}

interface Session {
  readonly mcp: Server
  readonly transport: StreamableHTTPServerTransport
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

const messages = (body: unknown): ReadonlyArray<unknown> => (Array.isArray(body) ? body : [body])

const isInitialize = (body: unknown): boolean =>
  messages(body).some((m) => isObject(m) && m.method === "initialize" && "id" in m)

const asksProgress = (body: unknown): boolean =>
  messages(body).some((m) => isObject(m) && isObject(m.params) && ServedProgress.tokenOf(m.params._meta) !== undefined)

/** The request ids a `notifications/cancelled` names. */
const cancelledIds = (body: unknown): ReadonlyArray<string | number> =>
  messages(body).flatMap((m) => {
    if (!isObject(m) || m.method !== "notifications/cancelled" || !isObject(m.params)) return []
    const id = m.params.requestId
    return typeof id === "string" || typeof id === "number" ? [id] : []
  })

/** The endpoint. */
export interface Endpoint {
  /** Answers one HTTP request. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>
  /** Closes every session (their running calls are cancelled). */
  readonly close: () => Promise<void>
}

/** An endpoint at `path`, for the names in `allowed()`, each exchange or session served by a fresh `newServer()`. */
export const make = (options: {
  readonly path: string
  readonly allowed: () => ReadonlySet<string>
  readonly newServer: () => Server
  readonly maxBytes?: number | undefined
  readonly maxSessions?: number | undefined
}): Endpoint => {
  const sessions = new Map<string, Session>()
  const maxBytes = options.maxBytes ?? MessageSize.maxBytes
  const most = options.maxSessions ?? maxSessions

  const closeSession = async (session: Session) => {
    const id = session.transport.sessionId
    if (id !== undefined) sessions.delete(id)
    await session.transport.close().catch(() => undefined)
    await session.mcp.close().catch(() => undefined)
  }

  /** The body, parsed, or undefined when it has been answered (too large, not JSON). */
  const bodyOf = async (req: IncomingMessage, res: ServerResponse): Promise<{ readonly json: unknown } | undefined> => {
    const body = await HttpBody.read(req, maxBytes)
    if (body._tag === "TooLarge") {
      const message = MessageSize.tooLarge(body.bytes)
      const headers: Record<string, string> = body.drained ? {} : { connection: "close" }
      // With its id, a JSON-RPC error the client matches to its request; without, a 413.
      if (body.id !== undefined) reply(res, 200, message, { code: MessageSize.errorCode, id: body.id, headers })
      else reply(res, 413, message, { code: MessageSize.errorCode, headers })
      if (!body.drained) res.once("finish", () => req.destroy())
      return undefined
    }
    try {
      return { json: JSON.parse(body.text) as unknown }
    } catch {
      reply(res, 400, "Parse error: the request body is not JSON", { code: -32700 })
      return undefined
    }
  }

  const startSession = async (req: IncomingMessage, res: ServerResponse, json: unknown) => {
    const mcp = options.newServer()
    const session: Session = {
      mcp,
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => globalThis.crypto.randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, session)
          if (sessions.size > most) {
            const idlest = sessions.values().next().value
            if (idlest !== undefined) void closeSession(idlest)
          }
        },
        onsessionclosed: (id) => void sessions.delete(id)
      })
    }
    await mcp.connect(session.transport)
    await session.transport.handleRequest(req, res, json)
  }

  const inSession = async (req: IncomingMessage, res: ServerResponse, session: Session) => {
    if (req.method === "DELETE") {
      await session.transport.handleRequest(req, res)
      return closeSession(session)
    }
    if (req.method !== "POST") {
      return reply(
        res,
        405,
        "Method not allowed: this server sends nothing unasked (POST, or DELETE to end the session)",
        {
          headers: { allow: "POST, DELETE" }
        }
      )
    }
    const body = await bodyOf(req, res)
    if (body === undefined) return
    await session.transport.handleRequest(req, res, body.json)
    // A cancelled call sends no result: its event stream ends now instead of staying open.
    for (const id of cancelledIds(body.json)) session.transport.closeSSEStream(id)
  }

  const alone = async (req: IncomingMessage, res: ServerResponse, json: unknown) => {
    const mcp = options.newServer()
    // No session id: stateless. JSON, unless a call asks for progress (it travels on the call's event stream).
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: !asksProgress(json) })
    res.on("close", () => {
      void transport.close().catch(() => undefined)
      void mcp.close().catch(() => undefined)
    })
    await mcp.connect(transport)
    await transport.handleRequest(req, res, json)
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const allowed = options.allowed()
    const origin = req.headers.origin
    if (
      !allowed.has(req.headers.host ?? "") ||
      (origin !== undefined && !allowed.has(origin.replace(/^http:\/\//, "")))
    ) {
      return reply(res, 403, "Forbidden: this server only answers its own loopback address")
    }
    if (new URL(req.url ?? "/", "http://localhost").pathname !== options.path) {
      return reply(res, 404, `Not found: use ${options.path}`)
    }
    const sessionId = req.headers["mcp-session-id"]
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId)
      if (session === undefined) {
        return reply(res, 404, "Session not found: initialize a new session", { code: -32001 })
      }
      // The most recently used last: the one closed when there are too many has been idle longest.
      sessions.delete(sessionId)
      sessions.set(sessionId, session)
      return inSession(req, res, session)
    }
    if (req.method !== "POST") {
      return reply(res, 405, "Method not allowed: POST (a session's DELETE needs its Mcp-Session-Id)", {
        headers: { allow: "POST" }
      })
    }
    const body = await bodyOf(req, res)
    if (body === undefined) return
    return isInitialize(body.json) ? startSession(req, res, body.json) : alone(req, res, body.json)
  }

  return {
    handle,
    close: async () => {
      await Promise.all([...sessions.values()].map(closeSession))
    }
  }
}
