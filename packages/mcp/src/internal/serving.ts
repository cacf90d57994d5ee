/**
 * What serving a toolset means, whatever carries it: the listing, the check of a `tools/call`'s
 * params, and the Effect that answers one call (`execute`, with the call's `Caller`, progress,
 * logs and remote parent). Both the SDK `Server` (`Serve.server`, Streamable HTTP) and the
 * stdio session (`ServeStdio`) answer through it, so a call means the same on both. It loads no
 * part of the MCP SDK (types only): `harness mcp serve` starts without it.
 *
 * @internal
 */
import { Execute, type Outcome, Progress } from "@agent-harness/executor"
import { JsonSchema, type Tool, type Toolset } from "@agent-harness/tool-schema"
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import { type Cause, type Duration, Effect, Schema } from "effect"
import * as Caller from "../Caller.ts"
import * as Hints from "../Hints.ts"
import * as ServedLog from "./ServedLog.ts"
import * as ServedProgress from "./ServedProgress.ts"
import * as ServedResult from "./ServedResult.ts"
import * as TraceContext from "./TraceContext.ts"

const ServeErrorBase: Schema.Class<
  ServeError,
  Schema.TaggedStruct<"ServeError", { readonly message: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<ServeError>()("ServeError", { message: Schema.String })

/** The server could not start: what went wrong, in words. */
export class ServeError extends ServeErrorBase {}

/** Options of a served toolset. */
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

/** The `_meta` key of a client-given call id. */
export const callIdKey = "agent-harness/call-id"

/** The JSON Schema dialect of the listed input schemas. */
export const schemaDialect: string = "https://json-schema.org/draft/2020-12/schema"

/** How `tools/list` lists a toolset; a tool without a JSON Schema is a `ServeError` naming it. */
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
            ...ServedResult.outputSchemaOf(tool),
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

/** JSON-RPC's invalid params. */
export const invalidParamsCode = -32602

/** A `tools/call` whose params are not what MCP says: the `-32602` error to answer, in one line. */
export class InvalidParams extends Error {
  /** JSON-RPC's code. */
  readonly code = invalidParamsCode
}

const describeValue = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "an array" : typeof u === "object" ? "an object" : `a ${typeof u}`

/** The params of a `tools/call`, checked. */
export interface CallParams {
  readonly name: string
  readonly arguments: unknown
  readonly meta: unknown
}

/** The params of a `tools/call`, or an `InvalidParams` thrown saying, in one line, what is wrong. */
export const callParams = (params: unknown): CallParams => {
  const invalid = (what: string) => new InvalidParams(`Invalid tools/call params: ${what}`)
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

/** The call's id: the client's (`_meta[callIdKey]`) or a fresh one. */
export const callIdOf = (meta: unknown): string => {
  const given = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)[callIdKey] : undefined
  return typeof given === "string" && given !== "" ? given : `mcp-${globalThis.crypto.randomUUID()}`
}

/** What one call may use of the exchange that carries it. */
export interface Exchange {
  /** The call's `Caller` (its client's model and user). */
  readonly caller: Caller.Caller
  /** Sends a notification about this call (progress, logs). */
  readonly notify: (notification: { readonly method: string; readonly params: object }) => Promise<void>
  /** The log level the client set, if any. */
  readonly logLevel: () => ServedLog.Level | undefined
}

/**
 * The Effect that answers one `tools/call`: `execute` (with the timeout, if any) under the
 * call's remote parent, with its `Caller`, its progress reporter (when the client sent a
 * token) and its logger, to an MCP result.
 */
export const answer = <T extends Tool.Any>(
  toolset: Toolset.Toolset<T>,
  params: CallParams,
  timeout: Duration.Input | undefined,
  exchange: Exchange
): Effect.Effect<CallToolResult, never, Tool.Services<T>> => {
  const call = {
    id: callIdOf(params.meta),
    name: params.name,
    // A tool without parameters is often called without arguments.
    input: params.arguments ?? {}
  }
  // A valid W3C `_meta.traceparent` is the call's remote parent: its `execute_tool` span continues that trace.
  const executed: Effect.Effect<Outcome.Outcome, never, Tool.Services<T>> = Effect.provideService(
    TraceContext.withRemoteParent(
      params.meta,
      Execute.execute(toolset, call, timeout === undefined ? undefined : { timeout })
    ),
    Caller.Caller,
    exchange.caller
  )
  // A client that sent a progress token hears the tool's `Progress.report`s.
  const token = ServedProgress.tokenOf(params.meta)
  const reported =
    token === undefined
      ? executed
      : Effect.provideService(executed, Progress.Reporter, ServedProgress.reporter(call.id, token, exchange.notify))
  // What the call logs reaches a client that set a level (`logging/setLevel`), on the call's own stream.
  return ServedLog.withLogger(
    Effect.map(reported, ServedResult.fromOutcome),
    ServedLog.logger(call.name, exchange.logLevel, exchange.notify)
  )
}
