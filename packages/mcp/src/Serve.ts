/**
 * Serves any toolset over MCP, on stdio or Streamable HTTP, with our semantics: every
 * `tools/call` goes through `Execute.execute`, so an invalid call, an unknown tool, a failing
 * or throwing tool all answer `isError: true` with our texts (`not executed: …`), never a
 * JSON-RPC error and never a scrubbed "internal error". Calls run in the context the serve
 * Effect runs in: provide a journal (`Execute.Middleware`), a permission gate, a
 * `MessageCatalog`, or the tools' services to the serve Effect and every call sees them.
 * While a call runs, its tool can ask the client that called it (its model, its user) with
 * `Caller.sample` and `Caller.elicit`: each call gets a `Caller` bound to it. A call whose
 * `_meta.traceparent` is a valid W3C traceparent runs under that remote span (its
 * `execute_tool` span continues the caller's trace); any other value is ignored.
 *
 * Over Streamable HTTP, built on the official SDK's low-level `Server`: its `McpServer`, and
 * effect's, validate arguments themselves (an extra field is accepted; an unknown tool is a
 * JSON-RPC error in effect's; a thrown message is replaced by "internal error" in effect's).
 * Here `tools/call` is only a transport for `execute`. On stdio, a session of its own answers
 * the same way without loading the SDK (`ServeStdio`).
 *
 * @since 0.1.0
 */
import { createServer } from "node:http"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { Execute } from "@agent-harness/executor"
import { Server } from "@modelcontextprotocol/sdk/server"
// @ts-types="@modelcontextprotocol/sdk/types"
// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js"
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolResult,
  ListToolsRequestSchema,
  type ServerRequest,
  SetLevelRequestSchema,
  type Tool as McpTool
} from "@modelcontextprotocol/sdk/types.js"
import * as z from "zod"
import { Effect, FiberSet, type Scope } from "effect"
import * as HttpEndpoint from "./internal/HttpEndpoint.ts"
import * as ServedCaller from "./internal/ServedCaller.ts"
import type * as ServedLog from "./internal/ServedLog.ts"
import * as ServedResult from "./internal/ServedResult.ts"
import * as serving from "./internal/serving.ts"
import * as ServeStdio from "./ServeStdio.ts"

/**
 * The server could not start: what went wrong, in words.
 *
 * @since 0.1.0
 */
export const ServeError: typeof serving.ServeError = serving.ServeError

/**
 * The server could not start: what went wrong, in words.
 *
 * @since 0.1.0
 */
export type ServeError = serving.ServeError

/**
 * Options of a served toolset: its name (default `agent-harness`), version (default `0.1.0`)
 * and instructions in the MCP handshake, and a call timeout (past it a call answers the
 * catalogue's timed-out text).
 *
 * @since 0.1.0
 */
export type Options = serving.Options

/**
 * The `_meta` key a client may set on `tools/call` to give the call its id (the model's
 * `tool_use_id`): a journal then keys the call by it, so a retried call is replayed, not run
 * again. Without it each call gets a fresh id. `Mount` sends it.
 *
 * @since 0.1.0
 */
export const callIdKey: "agent-harness/call-id" = serving.callIdKey

/**
 * The JSON Schema dialect of the listed input schemas (`$schema`): draft 2020-12, what
 * `JsonSchema.parameters` writes.
 *
 * @since 0.1.0
 */
export const schemaDialect: string = serving.schemaDialect

/**
 * How `tools/list` lists a toolset: each tool's JSON Schema (`JsonSchema.parameters`, its
 * dialect stated as `$schema`) and its annotations as MCP hints. A tool whose parameters have
 * no JSON Schema is a `ServeError` that names it.
 *
 * @since 0.1.0
 */
export const listing: (toolset: Toolset.Toolset<Tool.Any>) => Effect.Effect<ReadonlyArray<McpTool>, ServeError> =
  serving.listing

/**
 * Runs the Effect of one call to its result; `signal` aborts when the client cancels the call.
 *
 * @since 0.1.0
 */
export type Runner = (effect: Effect.Effect<CallToolResult>, signal: AbortSignal) => Promise<CallToolResult>

/** A `tools/call` request as received: its params are checked by `serving.callParams`, in words. */
const LooseCallRequest = z.looseObject({ method: z.literal("tools/call"), params: z.unknown().optional() })

/**
 * An SDK `Server` for a toolset, its tools listed as `tools`, each call answered by
 * `Execute.execute` run through `run`. A call whose run is interrupted (the server closing)
 * answers `interrupted`. For a transport of your own; `http` uses it.
 *
 * @since 0.1.0
 */
export const server = (
  toolset: Toolset.Toolset<Tool.Any>,
  tools: ReadonlyArray<McpTool>,
  run: Runner,
  interrupted: string,
  options?: Options
): Server => {
  const mcp = new Server(
    { name: options?.name ?? "agent-harness", version: options?.version ?? "0.1.0" },
    {
      capabilities: { tools: {}, logging: {} },
      ...(options?.instructions === undefined ? {} : { instructions: options.instructions })
    }
  )
  const timeout = options?.timeout
  mcp.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools] }))
  // The level this client asked for (one server per session or per exchange): none, no logs sent.
  let logLevel: ServedLog.Level | undefined
  mcp.setRequestHandler(SetLevelRequestSchema, (request) => {
    logLevel = request.params.level
    return {}
  })
  const capabilities = () => mcp.getClientCapabilities()
  // Registered past the SDK Server's own `tools/call` check (a zod dump under -32603, or -32602
  // with the dump): the params are checked here, in words.
  Protocol.prototype.setRequestHandler.call(mcp, LooseCallRequest, async (request, extra) => {
    const params = serving.callParams(request.params)
    const exchange: serving.Exchange = {
      // The tool may ask this client (its model, its user) while it runs: `Caller.sample`, `Caller.elicit`.
      caller: ServedCaller.make(capabilities, (ask, schema, sendOptions) =>
        extra.sendRequest(ask as ServerRequest, schema, sendOptions)
      ),
      notify: (notification) => extra.sendNotification(notification as Parameters<typeof extra.sendNotification>[0]),
      logLevel: () => logLevel
    }
    try {
      return await run(serving.answer(toolset, params, timeout, exchange), extra.signal)
    } catch {
      return ServedResult.error(interrupted)
    }
  })
  return mcp
}

/** What the calls of a served toolset need: a runner in the caller's context, and the texts. */
const prepare = <T extends Tool.Any>(toolset: Toolset.Toolset<T>) =>
  Effect.gen(function* () {
    const tools = yield* listing(toolset)
    const { catalog } = yield* Execute.harness
    const fibers = yield* FiberSet.make<CallToolResult>()
    const runPromise = yield* FiberSet.runtimePromise(fibers)<Tool.Services<T>>()
    const run: Runner = (effect, signal) => runPromise(effect, { signal })
    return { tools, run, interrupted: catalog.interrupted }
  })

/**
 * Options of `stdio`: the streams (the process's own by default).
 *
 * @since 0.1.0
 */
export type StdioOptions = ServeStdio.StdioOptions

/**
 * Serves a toolset on stdio until stdin ends, then answers the calls already received and
 * finishes. A message over `MessageSize.maxBytes` is answered with a JSON-RPC error naming the
 * limit (when its id can be read) and skipped; the next is read as usual. While it serves, Effect's logger and `Console` write to stderr (stdout carries the
 * protocol; a tool that writes to `process.stdout` itself breaks it). It loads no part of the
 * MCP SDK unless a tool asks its client (`ServeStdio.stdio`, which this is).
 *
 * @example
 * ```ts
 * import { Serve } from "@agent-harness/mcp"
 * import { MessageCatalog } from "@agent-harness/tool-schema"
 * import { Effect } from "effect"
 *
 * declare const tools: Parameters<typeof Serve.stdio>[0]
 * Effect.runPromise(
 *   Serve.stdio(tools).pipe(Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const stdio: <T extends Tool.Any>(
  toolset: Toolset.Toolset<T>,
  options?: StdioOptions
) => Effect.Effect<void, ServeError, Tool.Services<T>> = ServeStdio.stdio

/**
 * Options of `http`: the port (0 picks a free one), the loopback address (default
 * `127.0.0.1`), the path (default `/mcp`).
 *
 * @since 0.1.0
 */
export interface HttpOptions extends Options {
  /** The port to listen on (0 picks a free one). */
  readonly port: number
  /** The loopback address to listen on (default `127.0.0.1`). */
  readonly host?: "127.0.0.1" | "localhost" | "::1" | undefined
  /** The endpoint's path (default `/mcp`). */
  readonly path?: string | undefined
}

/**
 * Where a served toolset listens.
 *
 * @since 0.1.0
 */
export interface Listening {
  /** The endpoint for clients: `http://127.0.0.1:PORT/mcp`. */
  readonly url: string
  /** The address it listens on. */
  readonly host: string
  /** The port it listens on (the one picked, when 0 was asked for). */
  readonly port: number
}

/** The `Host` and `Origin` headers a loopback server accepts (DNS rebinding protection). */
const loopbackNames = (port: number): ReadonlySet<string> =>
  new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`])

/**
 * Serves a toolset over Streamable HTTP on a loopback address until the scope closes: then it
 * stops listening, closes its connections and sessions and interrupts running calls. A client
 * that initializes gets a session (`Mcp-Session-Id`), so its `notifications/cancelled` reaches
 * the call it names (the call's Effect is interrupted and no result is sent) and the progress
 * of a call it gave a progress token travels on that call's event stream; at most 256
 * sessions are kept (the one idle longest is closed first), `DELETE` ends one, an unknown one
 * is answered 404 (after a restart the client initializes again). A POST without a session
 * that is not an `initialize` is one exchange on its own (stateless). A request body over
 * `MessageSize.maxBytes` is answered with a JSON-RPC error naming the limit, and the server
 * keeps serving. Requests whose `Host` or `Origin` is not this loopback server are refused
 * (403), so a web page cannot reach the tools through DNS rebinding. A port in use, or an
 * address that is not loopback, is a `ServeError`.
 *
 * @since 0.1.0
 */
export const http = <T extends Tool.Any>(
  toolset: Toolset.Toolset<T>,
  options: HttpOptions
): Effect.Effect<Listening, ServeError, Tool.Services<T> | Scope.Scope> =>
  Effect.gen(function* () {
    const host = options.host ?? "127.0.0.1"
    if (!["127.0.0.1", "localhost", "::1"].includes(host)) {
      return yield* new ServeError({
        message: `'${host}' is not a loopback address: the tools would be reachable from the network without authentication`
      })
    }
    if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
      return yield* new ServeError({ message: `'${options.port}' is not a port (0 to 65535)` })
    }
    const path = options.path ?? "/mcp"
    const { tools, run, interrupted } = yield* prepare(toolset)
    let allowed: ReadonlySet<string> = new Set()
    const endpoint = HttpEndpoint.make({
      path,
      allowed: () => allowed,
      newServer: () => server(toolset, tools, run, interrupted, options)
    })
    const listener = createServer((req, res) => {
      endpoint.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent)
          HttpEndpoint.reply(res, 500, `Internal error: ${error instanceof Error ? error.message : String(error)}`)
        else res.destroy()
      })
    })
    const port = yield* Effect.acquireRelease(
      Effect.callback<number, ServeError>((resume) => {
        const failed = (error: NodeJS.ErrnoException) =>
          resume(
            Effect.fail(
              new ServeError({
                message:
                  error.code === "EADDRINUSE"
                    ? `port ${options.port} on ${host} is already in use`
                    : `cannot listen on ${host}:${options.port}: ${error.message}`
              })
            )
          )
        listener.once("error", failed)
        listener.listen(options.port, host, () => {
          listener.off("error", failed)
          const address = listener.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : options.port))
        })
      }),
      () =>
        Effect.callback<void>((resume) => {
          listener.close(() => resume(Effect.void))
          listener.closeAllConnections()
          void endpoint.close()
        })
    )
    allowed = loopbackNames(port)
    const shown = host === "::1" ? "[::1]" : host
    return { url: `http://${shown}:${port}${path}`, host, port }
  })
