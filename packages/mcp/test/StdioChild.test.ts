/**
 * StdioChild reads messages up to `MessageSize.maxBytes` (bytes, not characters): an answer over
 * it is answered at once with a `tooLargeKey` error for its id, wherever the id is written (first
 * or last), and the messages after it are read as ever; an over-size message that is not an
 * answer is reported and skipped.
 */
import process from "node:process"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { describe, expect, it } from "@effect/vitest"
import { StdioChild } from "../src/index.ts"

/** Starts a child that writes `script`'s lines, and collects what the transport delivers until it exits. */
const read = (script: string, maxMessageBytes?: number) =>
  new Promise<{ readonly messages: Array<JSONRPCMessage>; readonly errors: Array<string> }>((resolve, reject) => {
    const messages: Array<JSONRPCMessage> = []
    const errors: Array<string> = []
    const child = new StdioChild.StdioChild({
      command: process.execPath,
      args: ["-e", script],
      ...(maxMessageBytes === undefined ? {} : { maxMessageBytes })
    })
    child.onmessage = (message) => void messages.push(message)
    child.onerror = (error) => void errors.push(error.message)
    child.onclose = () => resolve({ messages, errors })
    child.start().catch(reject)
  })

const writer = (lines: ReadonlyArray<string>) =>
  `const lines = ${JSON.stringify(lines)}; let i = 0; const next = () => { if (i < lines.length) process.stdout.write(lines[i++] + "\\n", next) }; next()`

describe("StdioChild: message sizes", { timeout: 60_000 }, () => {
  it("an over-size answer, id last or first, is answered with its size at once; the next message is read", async () => {
    const big = "é".repeat(600) // 1200 bytes, 600 characters: the bound is in bytes
    const { messages, errors } = await read(
      writer([
        JSON.stringify({ result: { content: [{ type: "text", text: big }] }, jsonrpc: "2.0", id: 7 }),
        JSON.stringify({ jsonrpc: "2.0", id: "x-1", result: { text: big, nested: { id: 99 } } }),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: big } }),
        JSON.stringify({ jsonrpc: "2.0", id: 8, result: { ok: true } })
      ]),
      1000
    )
    expect(messages).toEqual([
      {
        jsonrpc: "2.0",
        id: 7,
        error: {
          code: -32603,
          message: expect.stringMatching(/^the answer is \d+ bytes, more than the limit of 1000 bytes/),
          data: { [StdioChild.tooLargeKey]: expect.any(Number) }
        }
      },
      {
        jsonrpc: "2.0",
        id: "x-1",
        error: expect.objectContaining({ data: { [StdioChild.tooLargeKey]: expect.any(Number) } })
      },
      { jsonrpc: "2.0", id: 8, result: { ok: true } }
    ])
    const first = messages[0] as { error: { data: Record<string, number> } }
    expect(first.error.data[StdioChild.tooLargeKey]).toBeGreaterThan(1200)
    expect(errors).toEqual([
      expect.stringMatching(/^the server sent a message of \d+ bytes, more than the limit of 1000: skipped$/)
    ])
  })

  it("a line written in many small chunks and one in a single chunk are bounded alike", async () => {
    const script = `const big = JSON.stringify({ jsonrpc: "2.0", id: 3, result: { t: "a".repeat(5000) } });
      let i = 0; const step = () => { if (i < big.length) { process.stdout.write(big.slice(i, i + 100), step); i += 100 } else process.stdout.write("\\n" + JSON.stringify({ jsonrpc: "2.0", id: 4, result: {} }) + "\\n") }; step()`
    const { messages } = await read(script, 1000)
    expect(
      messages.map((m) => ("error" in m ? `error ${String(m.id)}` : `result ${String((m as { id: unknown }).id)}`))
    ).toEqual(["error 3", "result 4"])
  })
})
