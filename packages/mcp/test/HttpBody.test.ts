/**
 * Reading a served HTTP request's body within a bound: under it the text; over it only the
 * size and the id (from the head or the tail), drained to the end; far over it (four times)
 * reading stops; a client that goes away mid-body is a rejection, not a crash.
 */
import type { IncomingMessage } from "node:http"
import { PassThrough } from "node:stream"
import { describe, expect, it } from "@effect/vitest"
import * as HttpBody from "../src/internal/HttpBody.ts"

/** A request whose body arrives as `chunks` (then ends, unless `end` is false). */
const request = (chunks: ReadonlyArray<string>, end = true): IncomingMessage => {
  const stream = new PassThrough()
  setImmediate(() => {
    for (const chunk of chunks) stream.write(chunk)
    if (end) stream.end()
  })
  return stream as unknown as IncomingMessage
}

describe("HttpBody.read", () => {
  it("reads a body within the bound whole, in any chunks", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
    expect(await HttpBody.read(request([body.slice(0, 5), body.slice(5)]), body.length)).toStrictEqual({
      _tag: "Read",
      text: body
    })
  })

  it("over the bound: the size and the id from the head", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 42, method: "tools/call", params: { x: "y".repeat(20_000) } })
    expect(await HttpBody.read(request([body.slice(0, 100), body.slice(100)]), 10_000)).toStrictEqual({
      _tag: "TooLarge",
      bytes: body.length,
      id: 42,
      drained: true
    })
  })

  it("over the bound: the id from the tail when it comes last", async () => {
    const body = `{"jsonrpc":"2.0","method":"tools/call","params":{"x":"${"y".repeat(20_000)}"},"id":"last"}`
    const read = await HttpBody.read(request([body]), 10_000)
    expect(read).toStrictEqual({ _tag: "TooLarge", bytes: body.length, id: "last", drained: true })
  })

  it("far over the bound: reading stops without waiting for the end", async () => {
    const chunk = "z".repeat(10_000)
    // Never ends: the read must answer by itself.
    const read = await HttpBody.read(request([chunk, chunk, chunk, chunk, chunk], false), 10_000)
    expect(read).toMatchObject({ _tag: "TooLarge", id: undefined, drained: false })
  })

  it("a client that goes away mid-body is a rejection", async () => {
    const stream = new PassThrough()
    setImmediate(() => {
      stream.write("{")
      stream.destroy(new Error("socket hang up"))
    })
    await expect(HttpBody.read(stream as unknown as IncomingMessage, 100)).rejects.toThrow("socket hang up")
  })
})
