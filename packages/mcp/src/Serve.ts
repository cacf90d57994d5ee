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
 * Built on the official SDK's low-level `Server`: its `McpServer`, and effect's, validate
 * arguments themselves (an extra field is accepted; an unknown tool is a JSON-RPC error in
 * effect's; a thrown message is replaced by "internal error" in effect's). Here `tools/call`
 * is only a transport for `execute`.
 *
 * @since 0.1.0
 */
import { Console as NodeConsole } from "node:console"
import { createServer } from "node:http"
import process from "node:process"
import type { Readable, Writable } from "node:stream"
import { Execute, Progress } from "@agent-harness/executor"
import { JsonSchema, type Tool, type Toolset } from "@agent-harness/tool-schema"
import { Server } from "@modelcontextprotocol/sdk/server"
// @ts-types="@modelcontextprotocol/sdk/types"
// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js"
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ServerRequest,
  SetLevelRequestSchema,
  type Tool as McpTool
} from "@modelcontextprotocol/sdk/types.js"
import * as z from "zod"
import { type Cause, Console, type Duration, Effect, FiberSet, Logger, Schema, type Scope } from "effect"
import * as Caller from "./Caller.ts"
import * as CallResult from "./CallResult.ts"
import * as Hints from "./Hints.ts"
import * as HttpEndpoint from "./internal/HttpEndpoint.ts"
import * as ServedCaller from "./internal/ServedCaller.ts"
import * as ServedLog from "./internal/ServedLog.ts"
import * as ServedProgress from "./internal/ServedProgress.ts"
import { StdioServer } from "./internal/StdioServer.ts"
import * as TraceContext from "./internal/TraceContext.ts"

const ServeErrorBase: Schema.Class<
  ServeError,
  Schema.TaggedStruct<"ServeError", { readonly message: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<ServeError>()("ServeError", { message: Schema.String })

/**
 * The server could not start: what went wrong, in words.
 *
 * @since 0.1.0
 */
export class ServeError extends ServeErrorBase {}

/**
 * Options of a served toolset.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The server's name in the MCP handshake (default `agent-harness`). */
  readonly name?: string | undefined
  /** The server's version in the MCP handshake (default `0.1.0`). */
  readonly version?: string | undefined
  /** Instructions for the client's model, sent in the handshake. */
  readonly instructions?: string | undefined
  /** Interrupt a call after this long: it answers the catalogue's timed-out text. */
  readonly timeout?: Duration.Input | undefined
}

/**
 * The `_meta` key a client may set on `tools/call` to give the call its id (the model's
 * `tool_use_id`): a journal then keys the call by it, so a retried call is replayed, not run
 * again. Without it each call gets a fresh id. `Mount` sends it.
 *
 * @since 0.1.0
 */
export const callIdKey = "agent-harness/call-id"

/**
 * The JSON Schema dialect of the listed input schemas (`$schema`): draft 2020-12, what
 * `JsonSchema.parameters` writes.
 *
 * @since 0.1.0
 */
export const schemaDialect: string = "https://json-schema.org/draft/2020-12/schema"

/**
 * How `tools/list` lists a toolset: each tool's JSON Schema (`JsonSchema.parameters`, its
 * dialect stated as `$schema`) and its annotations as MCP hints. A tool whose parameters have
 * no JSON Schema is a `ServeError` that names it.
 *
 * @since 0.1.0
 */
export const listing = (toolset: Toolset.Toolset<Tool.Any>): Effect.Effect<ReadonlyArray<McpTool>, ServeError> =>
  Effect.try({
    try: () =>
      toolset.tools.map((tool): McpTool => {
        try {
          return {
            name: tool.name,
            ...(tool.annotations.title === undefined ? {} : { title: tool.annotations.title }),
            description: tool.description,
            // Its dialect said, as MCP 2025-11-25 allows (2020-12 is also the default).
            inputSchema: {
              $schema: schemaDialect,
              ...JsonSchema.parameters(tool)
            } as unknown as McpTool["inputSchema"],
            ...CallResult.outputSchemaOf(tool),
            annotations: Hints.fromAnnotations(tool.annotations)
          }
        } catch (error) {
          throw new ServeError({
            message: `tool '${tool.name}': its parameters have no JSON Schema (${error instanceof Error ? error.message : String(error)})`
          })
        }
      }),
    catch: (error) => (error instanceof ServeError ? error : new ServeError({ message: String(error) }))
  })

/**
 * Runs the Effect of one call to its result; `signal` aborts when the client cancels the call.
 *
 * @since 0.1.0
 */
export type Runner = (effect: Effect.Effect<CallToolResult>, signal: AbortSignal) => Promise<CallToolResult>

/** A `tools/call` request as received: its params are checked by `callParams`, in words. */
const LooseCallRequest = z.looseObject({ method: z.literal("tools/call"), params: z.unknown().optional() })

const describeValue = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "an array" : typeof u === "object" ? "an object" : `a ${typeof u}`

/**
 * The params of a `tools/call`, or a `-32602` error saying, in one line, what is wrong (the
 * SDK's own check answers `-32603` with its validator's dump).
 */
const callParams = (
  params: unknown
): { readonly name: string; readonly arguments: unknown; readonly meta: unknown } => {
  // What the SDK sends as the error: `code` and `message` as they are (an McpError's message would be prefixed twice).
  const invalid = (what: string) =>
    Object.assign(new Error(`Invalid tools/call params: ${what}`), { code: ErrorCode.InvalidParams })
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    throw invalid(`params must be an object with a 'name', not ${describeValue(params)}`)
  }
  const { name, arguments: args, _meta: meta } = params as Record<string, unknown>
  if (name === undefined) throw invalid("'name' (the tool to call) is missing")
  if (typeof name !== "string") throw invalid(`'name' must be a string, not ${describeValue(name)}`)
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    throw invalid(`'arguments' must be an object, not ${describeValue(args)}`)
  }
  if (meta !== undefined && (typeof meta !== "object" || meta === null || Array.isArray(meta))) {
    throw invalid(`'_meta' must be an object, not ${describeValue(meta)}`)
  }
  return { name, arguments: args, meta }
}

const callIdOf = (meta: unknown): string => {
  const given = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)[callIdKey] : undefined
  return typeof given === "string" && given !== "" ? given : `mcp-${globalThis.crypto.randomUUID()}`
}

/**
 * An SDK `Server` for a toolset, its tools listed as `tools`, each call answered by
 * `Execute.execute` run through `run`. A call whose run is interrupted (the server closing)
 * answers `interrupted`. For a transport of your own; `stdio` and `http` use it.
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
  // Registered past the SDK Server's own `tools/call` check (a zod dump under -32603, or -32602
  // with the dump): the params are checked here, in words.
  Protocol.prototype.setRequestHandler.call(mcp, LooseCallRequest, async (request, extra) => {
    const params = callParams(request.params)
    const call = {
      id: callIdOf(params.meta),
      name: params.name,
      // A tool without parameters is often called without arguments.
      input: params.arguments ?? {}
    }
    // The tool may ask this client (its model, its user) while it runs: `Caller.sample`, `Caller.elicit`.
    // A valid W3C `_meta.traceparent` is the call's remote parent: its `execute_tool` span continues that trace.
    const executed = Effect.provideService(
      TraceContext.withRemoteParent(
        params.meta,
        Execute.execute(toolset, call, timeout === undefined ? undefined : { timeout })
      ),
      Caller.Caller,
      ServedCaller.make(
        () => mcp.getClientCapabilities(),
        (ask, schema, sendOptions) => extra.sendRequest(ask as ServerRequest, schema, sendOptions)
      )
    )
    // A client that sent a progress token hears the tool's `Progress.report`s.
    const token = ServedProgress.tokenOf(params.meta)
    const answer = (
      token === undefined
        ? executed
        : Effect.provideService(
            executed,
            Progress.Reporter,
            ServedProgress.reporter(call.id, token, (notification) => extra.sendNotification(notification))
          )
    ).pipe(Effect.map(CallResult.fromOutcome))
    // What the call logs reaches a client that set a level (`logging/setLevel`), on the call's own stream.
    const logged = ServedLog.withLogger(
      answer,
      ServedLog.logger(
        call.name,
        () => logLevel,
        (notification) => extra.sendNotification(notification)
      )
    )
    try {
      return await run(logged, extra.signal)
    } catch {
      return CallResult.error(interrupted)
    }
  })
  return mcp
}

/** The next turn of the event loop: every message already read has reached its handler, every answer its transport. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** What the calls of a served toolset need: a runner in the caller's context, and the texts. */
const prepare = <T extends Tool.Any>(toolset: Toolset.Toolset<T>) =>
  Effect.gen(function* () {
    const tools = yield* listing(toolset)
    const { catalog } = yield* Execute.harness
    const fibers = yield* FiberSet.make<CallToolResult>()
    const runPromise = yield* FiberSet.runtimePromise(fibers)<Tool.Services<T>>()
    const pending = new Set<Promise<CallToolResult>>()
    const run: Runner = (effect, signal) => {
      const running = runPromise(effect, { signal })
      pending.add(running)
      const forget = () => void pending.delete(running)
      running.then(forget, forget)
      return running
    }
    /** Resolves once every call received so far has been answered. */
    const idle = async (): Promise<void> => {
      await nextTurn()
      while (pending.size > 0) {
        await Promise.allSettled([...pending])
        await nextTurn()
      }
    }
    return { tools, run, idle, interrupted: catalog.interrupted }
  })

/**
 * Options of `stdio`: the streams (the process's own by default).
 *
 * @since 0.1.0
 */
export interface StdioOptions extends Options {
  /** Where requests are read (default `process.stdin`). */
  readonly stdin?: Readable | undefined
  /** Where answers are written (default `process.stdout`). */
  readonly stdout?: Writable | undefined
}

/** A console on stderr: stdout carries the protocol. */
const stderrConsole = (): Console.Console => new NodeConsole({ stdout: process.stderr, stderr: process.stderr })

/**
 * Serves a toolset on stdio until stdin ends, then answers the calls already received and
 * finishes. A message over `MessageSize.maxBytes` is answered with a JSON-RPC error naming the
 * limit (when its id can be read) and skipped; the next is read as usual. While it serves, Effect's logger and `Console` write to stderr (stdout carries the
 * protocol; a tool that writes to `process.stdout` itself breaks it).
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
export const stdio = <T extends Tool.Any>(
  toolset: Toolset.Toolset<T>,
  options?: StdioOptions
): Effect.Effect<void, ServeError, Tool.Services<T>> => {
  const stdin = options?.stdin ?? process.stdin
  const stdout = options?.stdout ?? process.stdout
  return Effect.scoped(
    Effect.gen(function* () {
      const { tools, run, idle, interrupted } = yield* prepare(toolset)
      const mcp = server(toolset, tools, run, interrupted, options)
      const transport = new StdioServer(stdin, stdout)
      yield* Effect.acquireRelease(
        Effect.promise(() => mcp.connect(transport)),
        () =>
          Effect.promise(async () => {
            await mcp.close()
            // The last answers are written before the Effect finishes.
            await new Promise<void>((resolve) => stdout.write("", () => resolve()))
          })
      )
      yield* Effect.callback<void>((resume) => {
        if (stdin.readableEnded) return resume(Effect.void)
        const done = () => resume(Effect.void)
        stdin.once("end", done)
        stdin.once("close", done)
        return Effect.sync(() => {
          stdin.off("end", done)
          stdin.off("close", done)
        })
      })
      // Closing the server cancels the calls it is answering: answer them first.
      yield* Effect.promise(idle)
    })
  ).pipe(Effect.provideService(Console.Console, stderrConsole()), Effect.provideService(Logger.LogToStderr, true))
}

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
