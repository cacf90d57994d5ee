/**
 * One MCP session over stdio, without the MCP SDK: the JSON-RPC exchange a served toolset needs,
 * as the SDK's `Server` (1.32) answers it. `initialize` (the client's protocol version when the
 * SDK supports it, the latest otherwise), `ping`, `tools/list`, `logging/setLevel` and
 * `tools/call` (through `serving.answer`, as over HTTP); any other method `-32601 Method not
 * found`; `notifications/cancelled` aborts the call it names, which then gets no answer. A
 * tool's own requests to the client (`Caller`) are sent with ids from 0, time out, send
 * `notifications/cancelled` when abandoned, and fail with `Connection closed` when the session
 * closes; the SDK's result schemas check their answers, loaded only when a tool first asks.
 *
 * @internal
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  CallToolResult,
  ClientCapabilities,
  JSONRPCMessage,
  Tool as McpTool
} from "@modelcontextprotocol/sdk/types.js"
import type * as Caller from "../Caller.ts"
import type * as JsonRpc from "./JsonRpc.ts"
import * as ServedLog from "./ServedLog.ts"
import * as ServedResult from "./ServedResult.ts"
import type { StdioServer } from "./StdioServer.ts"
import * as serving from "./serving.ts"

/** The protocol versions the SDK's server accepts from a client, the latest first. */
const supportedVersions: ReadonlyArray<string> = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"]

/** JSON-RPC and MCP error codes used here. */
const codes = { methodNotFound: -32601, invalidParams: -32602, connectionClosed: -32000, requestTimeout: -32001 }

/** A request of ours the client answered with an error, or could not answer. */
export interface Failure {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/** How a tool's request reaches the client: the raw result, or a `Failure`. */
export type Request = (
  request: { readonly method: string; readonly params: object },
  options: { readonly signal: AbortSignal; readonly timeout: number }
) => Promise<unknown>

/** What the session needs to answer calls. */
export interface Config {
  /** The listing of `tools/list`. */
  readonly tools: ReadonlyArray<McpTool>
  /**
   * Starts answering one call (`serving.answer` run in the serve Effect's context): `done` gets
   * its result, or `undefined` when it was interrupted; the function returned interrupts it.
   */
  readonly call: (
    params: serving.CallParams,
    exchange: serving.Exchange,
    done: (result: CallToolResult | undefined) => void
  ) => () => void
  /** The text of a call interrupted before it answered. */
  readonly interrupted: string
  /** The server's name and version, its instructions. */
  readonly name: string
  readonly version: string
  readonly instructions?: string | undefined
  /** A `Caller` over `request`, for a call (loaded when first asked). */
  readonly caller: (capabilities: () => ClientCapabilities | undefined, request: Request) => Caller.Caller
}

type RequestMessage = {
  readonly id: JsonRpc.Id
  readonly method: string
  readonly params?: Record<string, unknown> | undefined
}

/** A call being answered: whether the client gave up on it, and how to interrupt it. */
interface Running {
  cancelled: boolean
  interrupt: () => void
}

interface Pending {
  readonly settle: (outcome: { readonly result: unknown } | { readonly failure: Failure }) => void
}

const noop = (): void => undefined

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The `initialize` params MCP requires, or the problem with them. */
const initializeProblem = (params: Record<string, unknown> | undefined): string | undefined => {
  if (params === undefined) return "params are missing"
  if (typeof params.protocolVersion !== "string") return "'protocolVersion' must be a string"
  if (!isRecord(params.capabilities)) return "'capabilities' must be an object"
  const info = params.clientInfo
  if (!isRecord(info) || typeof info.name !== "string" || typeof info.version !== "string") {
    return "'clientInfo' must be an object with a 'name' and a 'version'"
  }
  return undefined
}

/** The session. */
export class StdioSession {
  readonly #transport: StdioServer
  readonly #config: Config
  /** The calls being answered, by request id. */
  readonly #calls = new Map<JsonRpc.Id, Running>()
  /** Our requests waiting for the client's answer. */
  readonly #pending = new Map<number, Pending>()
  #nextId = 0
  #capabilities: ClientCapabilities | undefined
  #logLevel: ServedLog.Level | undefined
  readonly #capabilitiesOf = () => this.#capabilities
  readonly #logLevelOf = () => this.#logLevel

  constructor(transport: StdioServer, config: Config) {
    this.#transport = transport
    this.#config = config
  }

  /** Starts reading; every message read from then on is answered. */
  start(): Promise<void> {
    this.#transport.onmessage = (message) => this.#onmessage(message)
    this.#transport.onclose = () => this.#onclose()
    return this.#transport.start()
  }

  /** Stops reading: the calls still running are aborted, our requests fail with `Connection closed`. */
  close(): Promise<void> {
    return this.#transport.close()
  }

  #send(message: object): void {
    void this.#transport.send(message as JSONRPCMessage).catch(() => undefined)
  }

  #result(id: JsonRpc.Id, result: unknown): void {
    this.#send({ result, jsonrpc: "2.0", id })
  }

  #error(id: JsonRpc.Id, code: number, message: string): void {
    this.#send({ jsonrpc: "2.0", id, error: { code, message } })
  }

  #onmessage(message: JSONRPCMessage): void {
    const m = message as unknown as Record<string, unknown>
    if (typeof m.method === "string") {
      if ("id" in m) this.#onrequest(m as unknown as RequestMessage)
      else this.#onnotification(m.method, m.params as Record<string, unknown> | undefined)
    } else {
      this.#onresponse(m)
    }
  }

  #onrequest(request: RequestMessage): void {
    const { id, params } = request
    switch (request.method) {
      case "tools/call":
        this.#call(id, params)
        return
      case "tools/list":
        this.#result(id, { tools: [...this.#config.tools] })
        return
      case "ping":
        this.#result(id, {})
        return
      case "initialize": {
        const problem = initializeProblem(params)
        if (problem !== undefined) {
          this.#error(id, codes.invalidParams, `Invalid initialize params: ${problem}`)
          return
        }
        const requested = (params as Record<string, unknown>).protocolVersion as string
        this.#capabilities = (params as Record<string, unknown>).capabilities as ClientCapabilities
        const instructions = this.#config.instructions
        this.#result(id, {
          protocolVersion: supportedVersions.includes(requested) ? requested : supportedVersions[0],
          capabilities: { tools: {}, logging: {} },
          serverInfo: { name: this.#config.name, version: this.#config.version },
          ...(instructions === undefined || instructions === "" ? {} : { instructions })
        })
        return
      }
      case "logging/setLevel": {
        const level = params?.level
        if (!ServedLog.isLevel(level)) {
          this.#error(
            id,
            codes.invalidParams,
            "Invalid logging/setLevel params: 'level' must be one of debug, info, notice, warning, error, critical, alert, emergency"
          )
          return
        }
        this.#logLevel = level
        this.#result(id, {})
        return
      }
      default:
        this.#error(id, codes.methodNotFound, "Method not found")
        return
    }
  }

  #onnotification(method: string, params: Record<string, unknown> | undefined): void {
    // The client gave up on a call: it is interrupted and gets no answer.
    if (method === "notifications/cancelled" && params !== undefined && params.requestId !== undefined) {
      const requestId = params.requestId
      if (typeof requestId === "string" || typeof requestId === "number") {
        const running = this.#calls.get(requestId)
        if (running !== undefined && !running.cancelled) {
          running.cancelled = true
          running.interrupt()
        }
      }
    }
  }

  #onresponse(response: Record<string, unknown>): void {
    const id = Number(response.id)
    const pending = this.#pending.get(id)
    if (pending === undefined) return
    this.#pending.delete(id)
    if ("result" in response) {
      pending.settle({ result: response.result })
      return
    }
    const error = response.error as Record<string, unknown>
    pending.settle({
      failure: {
        code: error.code as number,
        message: error.message as string,
        ...(error.data === undefined ? {} : { data: error.data })
      }
    })
  }

  #onclose(): void {
    const calls = [...this.#calls.values()]
    this.#calls.clear()
    for (const running of calls) {
      running.cancelled = true
      running.interrupt()
    }
    const pending = [...this.#pending.values()]
    this.#pending.clear()
    for (const one of pending) one.settle({ failure: { code: codes.connectionClosed, message: "Connection closed" } })
  }

  #call(id: JsonRpc.Id, params: Record<string, unknown> | undefined): void {
    let checked: serving.CallParams
    try {
      checked = serving.callParams(params)
    } catch (error) {
      const code = (error as { readonly code?: unknown }).code
      this.#error(
        id,
        typeof code === "number" && Number.isSafeInteger(code) ? code : codes.invalidParams,
        error instanceof Error ? error.message : String(error)
      )
      return
    }
    const running: Running = { cancelled: false, interrupt: noop }
    this.#calls.set(id, running)
    const notify = (notification: { readonly method: string; readonly params: object }): Promise<void> =>
      running.cancelled
        ? Promise.resolve()
        : this.#transport.send({ ...notification, jsonrpc: "2.0" } as JSONRPCMessage)
    const request: Request = (ask, options) =>
      running.cancelled
        ? Promise.reject<unknown>({ code: codes.connectionClosed, message: "Request was cancelled" })
        : this.#request(ask, options)
    const exchange: serving.Exchange = {
      caller: this.#config.caller(this.#capabilitiesOf, request),
      notify,
      logLevel: this.#logLevelOf
    }
    running.interrupt = this.#config.call(checked, exchange, (result) => {
      if (this.#calls.get(id) === running) this.#calls.delete(id)
      if (!running.cancelled) this.#result(id, result ?? ServedResult.error(this.#config.interrupted))
    })
  }

  /** Sends one of our requests; its raw result, or a `Failure` (timed out, abandoned, refused, closed). */
  #request(
    ask: { readonly method: string; readonly params: object },
    options: { readonly signal: AbortSignal; readonly timeout: number }
  ): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      const { signal } = options
      if (signal.aborted) return reject(signal.reason)
      const id = this.#nextId++
      const finish = () => {
        clearTimeout(timer)
        signal.removeEventListener("abort", onAbort)
      }
      /** Abandoned (timed out or aborted): the client is told to stop. */
      const cancel = (failure: Failure, reason: unknown) => {
        if (!this.#pending.delete(id)) return
        finish()
        this.#send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason: String(reason) }
        })
        reject(failure)
      }
      const onAbort = () => cancel({ code: codes.requestTimeout, message: String(signal.reason) }, signal.reason)
      const timer = setTimeout(
        () =>
          cancel(
            { code: codes.requestTimeout, message: "Request timed out", data: { timeout: options.timeout } },
            "McpError: MCP error -32001: Request timed out"
          ),
        options.timeout
      )
      signal.addEventListener("abort", onAbort, { once: true })
      this.#pending.set(id, {
        settle: (outcome) => {
          finish()
          if ("result" in outcome) resolve(outcome.result)
          else reject(outcome.failure)
        }
      })
      this.#send({ ...ask, jsonrpc: "2.0", id })
    })
  }
}
