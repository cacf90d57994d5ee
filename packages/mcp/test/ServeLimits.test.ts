import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import process from "node:process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client"
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
// @ts-types="@modelcontextprotocol/sdk/types"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import * as z from "zod"
import { MessageSize } from "../src/index.ts"

const script = fileURLToPath(new URL("./fixtures/serve-stdio.ts", import.meta.url))
// A loaded 2-core machine: starting Node with the SDK and effect can take seconds.
const slow = { timeout: 120_000 }

/** The served fixture, spoken to by raw writes: each answer line parsed, by id. */
const rawServer = () => {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [script, "en"], { stdio: "pipe" })
  const answers = new Map<unknown, Record<string, unknown>>()
  const waiting = new Map<unknown, (answer: Record<string, unknown>) => void>()
  let buffered = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk
    for (let at = buffered.indexOf("\n"); at !== -1; at = buffered.indexOf("\n")) {
      const answer = JSON.parse(buffered.slice(0, at)) as Record<string, unknown>
      buffered = buffered.slice(at + 1)
      answers.set(answer.id, answer)
      waiting.get(answer.id)?.(answer)
    }
  })
  const write = (text: string) => new Promise<void>((resolve) => child.stdin.write(text, () => resolve()))
  const answer = (id: unknown, within = 60_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const known = answers.get(id)
      if (known !== undefined) return resolve(known)
      const timer = setTimeout(() => reject(new Error(`no answer to request ${String(id)}`)), within)
      waiting.set(id, (a) => {
        clearTimeout(timer)
        resolve(a)
      })
    })
  const close = () =>
    new Promise<void>((resolve) => {
      child.once("close", () => resolve())
      child.stdin.end()
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref()
    })
  return { write, answer, close }
}

const request = (id: number | string, method: string, params: unknown) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`

const initialize = request(0, "initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "raw", version: "1" }
})

describe("Serve.stdio under load: message sizes", slow, () => {
  it("an 11 MB line is answered with an error naming the limit, and the next request is answered", async () => {
    const server = rawServer()
    try {
      await server.write(initialize)
      await server.answer(0)
      await server.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`)
      // Id first (as most clients write it), then id last (as the official SDK writes it).
      const big = "x".repeat(11_000_000)
      await server.write(request(1, "tools/call", { name: "read", arguments: { path: big } }))
      await server.write(
        `${JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { name: "read", arguments: { path: big } }, id: "last" })}\n`
      )
      await server.write(request(2, "tools/call", { name: "read", arguments: { path: "a.txt" } }))
      const limit = {
        code: MessageSize.errorCode,
        message: expect.stringContaining(`limit of ${MessageSize.maxBytes} bytes`)
      }
      expect((await server.answer(1)).error).toStrictEqual(limit)
      expect((await server.answer("last")).error).toStrictEqual(limit)
      expect((await server.answer(2)).result).toStrictEqual({
        content: [{ type: "text", text: "contents of a.txt" }],
        isError: false
      })
    } finally {
      await server.close()
    }
  }, 120_000)

  it("a line just under the limit is read (the limit is the limit, not less)", async () => {
    const server = rawServer()
    try {
      await server.write(initialize)
      await server.answer(0)
      const overhead = request(3, "tools/call", { name: "big", arguments: { bytes: 1 }, pad: "" }).length
      const pad = "p".repeat(MessageSize.maxBytes - overhead - 16)
      await server.write(request(3, "tools/call", { name: "big", arguments: { bytes: 1 }, pad }))
      expect((await server.answer(3)).result).toStrictEqual({ content: [{ type: "text", text: "x" }], isError: false })
    } finally {
      await server.close()
    }
  }, 120_000)
})

describe("Serve.stdio: malformed tools/call params (the official SDK client)", slow, () => {
  it("answer -32602 with a short readable message, and the server keeps serving", async () => {
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [script, "en"], stderr: "pipe" }),
      {
        timeout: 60_000
      }
    )
    try {
      const Any = z.looseObject({})
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ arguments: {} }, "Invalid tools/call params: 'name' (the tool to call) is missing"],
        [{ name: 7 }, "Invalid tools/call params: 'name' must be a string, not a number"],
        [{ name: "read", arguments: [1] }, "Invalid tools/call params: 'arguments' must be an object, not an array"],
        [{ name: "read", arguments: "x" }, "Invalid tools/call params: 'arguments' must be an object, not a string"]
      ]
      for (const [params, message] of cases) {
        const error = await client
          .request({ method: "tools/call", params: params as { name: string } }, Any, { timeout: 60_000 })
          .then(
            () => undefined,
            (e: unknown) => e
          )
        expect(error).toBeInstanceOf(McpError)
        expect((error as McpError).code).toBe(-32602)
        expect((error as McpError).message).toBe(`MCP error -32602: ${message}`)
      }
      const ok = await client.callTool({ name: "read", arguments: { path: "b" } }, undefined, { timeout: 60_000 })
      expect(ok.content).toStrictEqual([{ type: "text", text: "contents of b" }])
    } finally {
      await client.close()
    }
  }, 120_000)
})
