/**
 * A server transport over stdio that survives any input. The SDK's own stops reading for good
 * when one line is over its 10 MiB buffer; this one reads newline-delimited JSON in linear time,
 * skips a line over `MessageSize.maxBytes` (keeping only its first and last few kilobytes, to
 * read its id), answers it with a JSON-RPC error naming the limit when the id can be read,
 * and goes on with the next line. A line that is not JSON-RPC is reported and skipped.
 *
 * @internal
 */
import type { Readable, Writable } from "node:stream"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport"
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as MessageSize from "../MessageSize.ts"
import * as JsonRpc from "./JsonRpc.ts"

/** How much of the start and of the end of an over-size line is kept, to find its id. */
const kept = 4096

type Id = string | number

const isId = (u: unknown): u is Id => typeof u === "string" || (typeof u === "number" && Number.isFinite(u))

/** An id's JSON text (a number or a string) as an `Id`, or `undefined` when it is none. */
const parseId = (text: string): Id | undefined => {
  try {
    const id: unknown = JSON.parse(text)
    return isId(id) ? id : undefined
  } catch {
    return undefined
  }
}

/** The top-level `"id"` of a JSON object's first bytes, scanned member by member (values skipped). */
export const idFromHead = (head: string): Id | undefined => {
  let i = 0
  const n = head.length
  const ws = () => {
    while (i < n && " \t\r\n".includes(head[i] as string)) i++
  }
  const string = (): string | undefined => {
    if (head[i] !== '"') return undefined
    const start = i
    for (i++; i < n; i++) {
      if (head[i] === "\\") i++
      else if (head[i] === '"') {
        i++
        try {
          return JSON.parse(head.slice(start, i)) as string
        } catch {
          return undefined
        }
      }
    }
    return undefined
  }
  /** Skips one value; false when the head ends inside it. */
  const skip = (): boolean => {
    let depth = 0
    for (; i < n; i++) {
      const c = head[i]
      if (c === '"') {
        if (string() === undefined) return false
        i--
      } else if (c === "{" || c === "[") depth++
      else if (c === "}" || c === "]") {
        if (depth === 0) return true
        depth--
      } else if (c === "," && depth === 0) return true
    }
    return false
  }
  ws()
  if (head[i] !== "{") return undefined
  i++
  for (;;) {
    ws()
    const key = string()
    if (key === undefined) return undefined
    ws()
    if (head[i] !== ":") return undefined
    i++
    ws()
    if (key === "id") {
      const match = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*[,}]/.exec(head.slice(i, i + 600))
      return match === null ? undefined : parseId(match[1] as string)
    }
    if (!skip()) return undefined
    ws()
    if (head[i] !== ",") return undefined
    i++
  }
}

/** The top-level `"id"` of a JSON object's last bytes, when it is the last member (as the SDK writes it). */
export const idFromTail = (tail: string): Id | undefined => {
  const match = /,\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.){0,512}")\s*\}\s*$/.exec(
    tail.slice(-1024)
  )
  return match === null ? undefined : parseId(match[1] as string)
}

/** The transport. */
export class StdioServer implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined

  readonly #stdin: Readable
  readonly #stdout: Writable
  readonly #max: number
  #chunks: Array<Buffer> = []
  #length = 0
  /** Over the limit: only the head and a rolling tail are kept until the line ends. */
  #skipping: { head: string; tail: Buffer; bytes: number } | undefined
  #closed = false

  constructor(stdin: Readable, stdout: Writable, max: number = MessageSize.maxBytes) {
    this.#stdin = stdin
    this.#stdout = stdout
    this.#max = max
  }

  readonly #onData = (chunk: Buffer | string): void => {
    try {
      this.#read(typeof chunk === "string" ? Buffer.from(chunk) : chunk)
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
    }
  }

  readonly #onError = (error: Error): void => this.onerror?.(error)

  start(): Promise<void> {
    this.#stdin.on("data", this.#onData)
    this.#stdin.on("error", this.#onError)
    return Promise.resolve()
  }

  #read(chunk: Buffer): void {
    let rest = chunk
    for (let newline = rest.indexOf(10); newline !== -1; newline = rest.indexOf(10)) {
      const piece = rest.subarray(0, newline)
      rest = rest.subarray(newline + 1)
      if (this.#skipping !== undefined) {
        this.#skipAlso(piece)
        const skipped = this.#skipping
        this.#skipping = undefined
        this.#oversize(skipped.head, skipped.tail.toString("utf8"), skipped.bytes)
        continue
      }
      if (this.#length + piece.length > this.#max) {
        this.#startSkipping(piece)
        const skipped = this.#skipping as unknown as { head: string; tail: Buffer; bytes: number }
        this.#skipping = undefined
        this.#oversize(skipped.head, skipped.tail.toString("utf8"), skipped.bytes)
        continue
      }
      const line = Buffer.concat([...this.#chunks, piece]).toString("utf8")
      this.#chunks = []
      this.#length = 0
      this.#deliver(line.endsWith("\r") ? line.slice(0, -1) : line)
    }
    if (rest.length === 0) return
    if (this.#skipping !== undefined) this.#skipAlso(rest)
    else if (this.#length + rest.length > this.#max) this.#startSkipping(rest)
    else {
      this.#chunks.push(rest)
      this.#length += rest.length
    }
  }

  #startSkipping(piece: Buffer): void {
    const all = Buffer.concat([...this.#chunks, piece])
    this.#chunks = []
    this.#length = 0
    this.#skipping = {
      head: all.subarray(0, kept).toString("utf8"),
      tail: Buffer.from(all.subarray(-kept)),
      bytes: all.length
    }
  }

  #skipAlso(piece: Buffer): void {
    const skipping = this.#skipping
    if (skipping === undefined) return
    skipping.bytes += piece.length
    skipping.tail = Buffer.from(Buffer.concat([skipping.tail, piece.subarray(-kept)]).subarray(-kept))
  }

  #oversize(head: string, tail: string, bytes: number): void {
    const message = MessageSize.tooLarge(bytes)
    this.onerror?.(new Error(`skipped a message: ${message}`))
    const id = idFromHead(head) ?? idFromTail(tail.trimEnd())
    // A notification or an id that cannot be read: nothing to answer.
    if (id === undefined) return
    void this.send({ jsonrpc: "2.0", id, error: { code: MessageSize.errorCode, message } }).catch(() => undefined)
  }

  #deliver(line: string): void {
    if (line.trim() === "") return
    let message: unknown
    try {
      message = JSON.parse(line)
    } catch {
      message = undefined
    }
    if (!JsonRpc.isMessage(message)) {
      this.onerror?.(new Error(`a line that is not a JSON-RPC message was skipped: ${line.slice(0, 200)}`))
      return
    }
    this.onmessage?.(message)
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.resolve()
    return new Promise((resolve) => {
      if (this.#stdout.write(`${JSON.stringify(message)}\n`)) resolve()
      else this.#stdout.once("drain", resolve)
    })
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve()
    this.#closed = true
    this.#stdin.off("data", this.#onData)
    this.#stdin.off("error", this.#onError)
    if (this.#stdin.listenerCount("data") === 0) this.#stdin.pause()
    this.#chunks = []
    this.#skipping = undefined
    this.onclose?.()
    return Promise.resolve()
  }
}
