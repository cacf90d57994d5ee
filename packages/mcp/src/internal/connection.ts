/**
 * A mount's connection to its server: the client of the current session (a new one after a
 * Streamable HTTP server forgot the old), the stdio child, the server's status, and the taps
 * that hand each progress notification to its call as soon as it is read.
 */
import { Client } from "@modelcontextprotocol/sdk/client"
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport"
import { Effect, type Scope } from "effect"
import type { Http, Options, Server, Status } from "../Mount.ts"
import * as Messages from "../Messages.ts"
import * as StdioChild from "../StdioChild.ts"
import * as SseCheck from "./SseCheck.ts"

/**
 * Progress of the calls in flight, by the progress token each was sent with. The SDK hands a
 * `notifications/progress` to its handler a microtask late, after an answer that follows it on
 * the wire has already removed the handler (so a server's last update was lost): the transport
 * is tapped instead, and each update reaches its call as it is read.
 */
export type ProgressTaps = Map<string, (params: unknown) => void>

/** Sees every message `transport` delivers before the client does: progress goes to its call at once. */
export const tap = (transport: Transport | undefined, taps: ProgressTaps): void => {
  if (transport === undefined) return
  const deliver = transport.onmessage
  if (deliver === undefined) return
  transport.onmessage = (message, extra) => {
    try {
      const { method, params } = message as { readonly method?: unknown; readonly params?: unknown }
      if (method === "notifications/progress" && typeof params === "object" && params !== null) {
        const token = (params as { readonly progressToken?: unknown }).progressToken
        if (typeof token === "string") taps.get(token)?.(params)
      }
    } catch {
      // A message that cannot be read is the client's to judge.
    }
    deliver.call(transport, message, extra)
  }
}

export interface Connection {
  /** The calls in flight that listen for progress, by their progress token. */
  readonly progress: ProgressTaps
  /** The client of the current session (a new one after a Streamable HTTP session ended). */
  client: Client
  readonly child: StdioChild.StdioChild | undefined
  status: Status
  /** Streamable HTTP: starts a new session in place of `stale`'s; `client` is the new one after. */
  readonly renew: ((stale: Client) => Promise<void>) | undefined
}

export const open = (
  server: Server,
  options: Options | undefined,
  connectTimeout: number
): Effect.Effect<Connection, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync((): Connection => {
      const clientFor = (): Client => {
        const client = new Client({ name: options?.clientName ?? "agent-harness", version: "0.1.0" })
        client.onclose = () => {
          // A client replaced by a new session's closes quietly.
          if (connection.client === client) {
            connection.status = { _tag: "Stopped", how: howText(connection, Messages.english) }
          }
        }
        // Protocol noise (a stray line on stdout) must not crash anything; calls report their own errors.
        client.onerror = () => undefined
        return client
      }
      const child =
        server._tag === "Stdio"
          ? new StdioChild.StdioChild({
              command: server.command,
              args: server.args,
              env: server.env,
              cwd: server.cwd,
              onStderr: options?.onStderr
            })
          : undefined
      let renewing: Promise<void> | undefined
      const renew = (stale: Client): Promise<void> => {
        if (connection.client !== stale) return Promise.resolve()
        renewing ??= (async () => {
          const fresh = clientFor()
          await fresh.connect(transportOf(server, connection), { timeout: connectTimeout })
          tap(fresh.transport, connection.progress)
          connection.client = fresh
          void stale.close().catch(() => undefined)
        })().finally(() => {
          renewing = undefined
        })
        return renewing
      }
      const connection: Connection = {
        progress: new Map(),
        client: clientFor(),
        child,
        status: { _tag: "Running" },
        renew: server._tag === "Http" ? renew : undefined
      }
      return connection
    }),
    (connection) =>
      Effect.promise(async () => {
        await connection.client.close().catch(() => undefined)
        await connection.child?.close()
      })
  )

export const transportOf = (server: Server, connection: Connection): Transport =>
  connection.child ??
  new StreamableHTTPClientTransport(new URL((server as Http).url), {
    requestInit: { headers: { ...(server as Http).headers } },
    fetch: SseCheck.fetchChecked()
  })

/** How the server stopped, in the language of `texts`. */
export const howText = (connection: Connection, texts: Messages.Messages): string => {
  const ended = connection.child?.ended
  return ended === undefined ? texts.closed : texts.ended(ended)
}
