/**
 * An MCP client transport over a child process's stdio that knows how the child ended. The
 * SDK's own stdio transport forgets the exit code and keeps stderr to itself; this one records
 * the exit (code or signal) and the tail of stderr, so a dead server's calls say why, and it
 * kills the child on close: stdin is ended, then SIGTERM after 2 s, then SIGKILL after 2 s more.
 * Messages are newline-delimited JSON, read in linear time whatever their size; a line that is
 * not a JSON-RPC message is reported through `onerror` and skipped, except an off-spec answer
 * to a request (a JSON object with an `id` and no `method`): that request is answered at once
 * with a JSON-RPC error whose `data[offSpecKey]` says what is wrong, instead of waiting for
 * its timeout. A message longer than `MessageSize.maxBytes` (the bound our server and the
 * official SDK's agree on) is not kept: it is read through to its end, and when it is an answer
 * whose id can be read, that request is answered at once with a JSON-RPC error whose
 * `data[tooLargeKey]` is its size in bytes; the connection goes on.
 *
 * @since 0.1.0
 */
import { Buffer } from "node:buffer"
import { type ChildProcess, spawn } from "node:child_process"
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport"
// @ts-types="@modelcontextprotocol/sdk/types"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import * as MessageSize from "./MessageSize.ts"

/**
 * What to start.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The program to start. */
  readonly command: string
  /** Its arguments. */
  readonly args?: ReadonlyArray<string> | undefined
  /**
   * Variables added to the safe default environment (`HOME`, `LOGNAME`, `PATH`, `SHELL`,
   * `TERM`, `USER`, as the SDK does): secrets are not passed on unless named here.
   */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** Its working directory (default: ours). */
  readonly cwd?: string | undefined
  /** Each chunk the child writes to stderr (kept in a tail either way). */
  readonly onStderr?: ((text: string) => void) | undefined
  /**
   * The longest message read, in bytes of its line (default `MessageSize.maxBytes`, 10 MiB); a
   * longer one is skipped, and the request it answers is answered with a `tooLargeKey` error.
   */
  readonly maxMessageBytes?: number | undefined
}

/**
 * How the child ended.
 *
 * @since 0.1.0
 */
export interface Ended {
  /** Its exit code, or `null` when a signal ended it. */
  readonly code: number | null
  /** The signal that ended it (`SIGKILL`), or `null` when it exited. */
  readonly signal: string | null
  /** The last lines the child wrote to stderr (at most 1000 characters). */
  readonly stderr: string
}

const tailLength = 1000

/**
 * The key of a JSON-RPC error's `data` that marks an error this transport made for an off-spec
 * answer; its value says what is wrong (`its 'error' is not a JSON-RPC error object`).
 *
 * @since 0.1.0
 */
export const offSpecKey = "agent-harness/off-spec"

/**
 * The key of a JSON-RPC error's `data` that marks an error this transport made for an answer
 * longer than the limit; its value is the answer's size in bytes.
 *
 * @since 0.1.0
 */
export const tooLargeKey = "agent-harness/too-large"

/** How much of an over-size message's start and end is kept, to find its id. */
const edge = 256

/**
 * The id of an over-size answer, from its first or last characters: an object that starts
 * `{"jsonrpc":"2.0","id":…` or ends `"id":…}` (as the SDK writes its answers). Only a top-level
 * id matches either: a nested one is followed by more closing braces, or preceded by other keys.
 */
const idAtEdges = (head: string, tail: string): string | number | undefined => {
  const id =
    /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,200}")\s*[,}]/.exec(head)?.[1] ??
    /"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,200}")\s*\}\s*$/.exec(tail)?.[1]
  if (id === undefined) return undefined
  return id.startsWith('"') ? id.slice(1, -1) : Number(id)
}

/** Whether an over-size message is an answer (it has a result or an error, and no method). */
const looksLikeAnswer = (head: string, tail: string): boolean =>
  !/"method"\s*:/.test(head) && (/"(?:result|error)"\s*:/.test(head) || /"(?:result|error)"\s*:/.test(tail))

/** What is wrong with an answer that is not a JSON-RPC response. */
const offSpecProblem = (answer: Record<string, unknown>): string => {
  if (answer.jsonrpc !== "2.0") return `its 'jsonrpc' is not "2.0"`
  const hasResult = "result" in answer
  const hasError = "error" in answer
  if (hasResult && hasError) return "it has both 'result' and 'error'"
  if (hasError) return "its 'error' is not a JSON-RPC error object with a numeric code and a message"
  if (!hasResult) return "it has neither 'result' nor 'error'"
  const result = answer.result
  return typeof result !== "object" || result === null || Array.isArray(result)
    ? "its 'result' is not an object"
    : "it is not a JSON-RPC response"
}

/** The id of an answer to a request, when the line is one (an object with an id and no method). */
const answerId = (parsed: unknown): string | number | undefined => {
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined
  const record = parsed as Record<string, unknown>
  if ("method" in record) return undefined
  const id = record.id
  return typeof id === "string" || typeof id === "number" ? id : undefined
}

/**
 * The transport. `start` resolves once the child is running, and rejects when it cannot be
 * started (a command that does not exist), naming the command.
 *
 * @since 0.1.0
 */
export class StdioChild implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined

  /** What it starts. */
  readonly options: Options
  #child: ChildProcess | undefined
  #ended: Ended | undefined
  #closed: Promise<void> | undefined
  #stderr = ""
  #chunks: Array<string> = []
  #length = 0
  /** An over-size message being read through: its first and last characters and its size. */
  #skipping: { head: string; tail: string; bytes: number } | undefined

  /** A transport that starts the child on `start`. */
  constructor(options: Options) {
    this.options = options
  }

  /** The child's process id while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid
  }

  /** How the child ended, once it has. */
  get ended(): Ended | undefined {
    return this.#ended
  }

  /** Resolves when the child has ended, or after `millis` if it has not (a child that is dying has). */
  settled(millis: number): Promise<void> {
    const child = this.#child
    if (child === undefined) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, millis)
      child.once("close", () => {
        clearTimeout(timer)
        // After this transport's own close handler has recorded how it ended.
        queueMicrotask(resolve)
      })
    })
  }

  start(): Promise<void> {
    if (this.#child !== undefined) return Promise.reject(new Error("StdioChild: already started"))
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...(this.options.args ?? [])], {
        env: { ...getDefaultEnvironment(), ...this.options.env },
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        ...(this.options.cwd === undefined ? {} : { cwd: this.options.cwd })
      })
      this.#child = child
      let started = false
      child.on("error", (error) => {
        if (!started) reject(new Error(`could not start '${this.options.command}': ${error.message}`))
        else this.onerror?.(error)
      })
      child.on("spawn", () => {
        started = true
        resolve()
      })
      child.on("close", (code, signal) => {
        // A child that never started has no exit to tell (its spawn error says it all).
        if (started) this.#ended = { code, signal, stderr: this.#stderr.trim() }
        this.#child = undefined
        this.onclose?.()
      })
      child.stdin?.on("error", (error) => this.onerror?.(error))
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => this.#read(chunk))
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
        this.#stderr = (this.#stderr + chunk).slice(-tailLength)
        this.options.onStderr?.(chunk)
      })
    })
  }

  #read(chunk: string): void {
    const max = this.options.maxMessageBytes ?? MessageSize.maxBytes
    let rest = chunk
    for (let newline = rest.indexOf("\n"); newline !== -1; newline = rest.indexOf("\n")) {
      const piece = rest.slice(0, newline)
      rest = rest.slice(newline + 1)
      const skipping = this.#skipping
      if (skipping !== undefined) {
        this.#skipped(skipping, piece)
        this.#skipping = undefined
        continue
      }
      const bytes = this.#length + Buffer.byteLength(piece)
      if (bytes > max) {
        const head = (this.#chunks.join("") + piece).slice(0, edge)
        this.#chunks = []
        this.#length = 0
        this.#skipped({ head, tail: "", bytes: bytes - Buffer.byteLength(piece) }, piece)
        continue
      }
      const line = this.#chunks.join("") + piece
      this.#chunks = []
      this.#length = 0
      this.#deliver(line.endsWith("\r") ? line.slice(0, -1) : line)
    }
    if (rest === "") return
    const skipping = this.#skipping
    if (skipping !== undefined) {
      skipping.bytes += Buffer.byteLength(rest)
      skipping.tail = (skipping.tail + rest).slice(-edge)
      return
    }
    const bytes = Buffer.byteLength(rest)
    if (this.#length + bytes > max) {
      const head = (this.#chunks.join("") + rest).slice(0, edge)
      this.#skipping = { head, tail: rest.slice(-edge), bytes: this.#length + bytes }
      this.#chunks = []
      this.#length = 0
      return
    }
    this.#chunks.push(rest)
    this.#length += bytes
  }

  /** An over-size message has ended with `last`: its request, when it answers one, is answered with an error. */
  #skipped(skipping: { head: string; tail: string; bytes: number }, last: string): void {
    const bytes = skipping.bytes + Buffer.byteLength(last)
    const tail = (skipping.tail + last).replace(/\r$/, "").slice(-edge)
    const id = looksLikeAnswer(skipping.head, tail) ? idAtEdges(skipping.head, tail) : undefined
    const max = this.options.maxMessageBytes ?? MessageSize.maxBytes
    if (id === undefined) {
      this.onerror?.(new Error(`the server sent a message of ${bytes} bytes, more than the limit of ${max}: skipped`))
      return
    }
    this.onmessage?.({
      jsonrpc: "2.0",
      id,
      error: {
        code: -32603,
        message: `the answer is ${bytes} bytes, more than the limit of ${max} bytes: it was not read`,
        data: { [tooLargeKey]: bytes }
      }
    })
  }

  #deliver(line: string): void {
    if (line.trim() === "") return
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      this.onerror?.(new Error(`the server wrote a line that is not JSON: ${line.slice(0, 200)}`))
      return
    }
    const checked = JSONRPCMessageSchema.safeParse(parsed)
    if (checked.success) {
      this.onmessage?.(checked.data)
      return
    }
    const id = answerId(parsed)
    if (id === undefined) {
      this.onerror?.(new Error(`the server wrote a line that is not a JSON-RPC message: ${line.slice(0, 200)}`))
      return
    }
    const problem = offSpecProblem(parsed as Record<string, unknown>)
    this.onmessage?.({
      jsonrpc: "2.0",
      id,
      error: { code: -32603, message: `off-spec answer: ${problem}`, data: { [offSpecKey]: problem } }
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin
    if (stdin == null || !stdin.writable) return Promise.reject(new Error("the server is not running"))
    return new Promise((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (error) => (error == null ? resolve() : reject(error)))
    })
  }

  close(): Promise<void> {
    const child = this.#child
    if (child === undefined) return Promise.resolve()
    this.#closed ??= new Promise<void>((resolve) => {
      const gone = () => this.#child === undefined
      child.once("close", () => resolve())
      child.stdin?.end()
      const term = setTimeout(() => {
        if (!gone()) child.kill("SIGTERM")
      }, 2000)
      const kill = setTimeout(() => {
        if (!gone()) child.kill("SIGKILL")
      }, 4000)
      child.once("close", () => {
        clearTimeout(term)
        clearTimeout(kill)
      })
    })
    return this.#closed
  }
}
