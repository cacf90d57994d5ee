/**
 * `Serve.http` reads requests up to `MessageSize.maxBytes`, the bound stdio reads and a mount
 * sends: a call under it is served whole (the SDK's own transport refused anything over 4 MiB),
 * one over it is answered with a JSON-RPC error naming the limit, and the server keeps serving,
 * in a session and without one. Sessions: an unknown one is 404, `DELETE` ends one.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Exit, Scope } from "effect"
import { MessageSize, Serve } from "../src/index.ts"
import { tools } from "./fixtures/tools.ts"

// A loaded 2-core machine: 10 MB bodies and the SDK take seconds.
const slow = { timeout: 120_000 }

const textOf = (result: CallToolResult) => result.content.map((b) => (b.type === "text" ? b.text : b.type)).join("")

/** One POST of `body` to `url`, its status and parsed answer (JSON, or the first event of a stream). */
const post = async (url: string, body: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body
  })
  const text = await response.text()
  const data = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "null")
  return { status: response.status, headers: response.headers, answer: JSON.parse(data) as Record<string, unknown> }
}

const callBody = (id: number, tag: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "slow", arguments: { ms: 1, tag } } })

describe("Serve.http and message sizes", slow, () => {
  let scope: Scope.Closeable
  let url: string
  beforeAll(async () => {
    scope = await Effect.runPromise(Scope.make())
    url = (await Effect.runPromise(Scope.provide(Serve.http(tools, { port: 0 }), scope))).url
  })
  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("serves a 6 MB call in a session, answers an 11 MB one with a JSON-RPC error naming the limit, and goes on", async () => {
    const client = new Client({ name: "test", version: "1.0.0" })
    const transport = new StreamableHTTPClientTransport(new URL(url))
    await client.connect(transport, { timeout: 60_000 })
    try {
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
      const six = "x".repeat(6 * 1024 * 1024)
      const under = (await client.callTool({ name: "read", arguments: { path: six } }, undefined, {
        timeout: 60_000
      })) as CallToolResult
      expect(under.isError).toBe(false)
      expect(textOf(under).length).toBeGreaterThan(0)
      const eleven = "x".repeat(11 * 1024 * 1024)
      const over = client.callTool({ name: "read", arguments: { path: eleven } }, undefined, { timeout: 60_000 })
      const error = await over.then(
        () => undefined,
        (e: unknown) => e
      )
      expect(error).toBeInstanceOf(McpError)
      expect((error as McpError).code).toBe(MessageSize.errorCode)
      expect((error as McpError).message).toContain(`more than the limit of ${MessageSize.maxBytes} bytes (10 MiB)`)
      const next = (await client.callTool({ name: "slow", arguments: { ms: 1, tag: "next" } }, undefined, {
        timeout: 60_000
      })) as CallToolResult
      expect(textOf(next)).toBe("done next")
    } finally {
      await client.close()
    }
  })

  it("without a session: an over-size body whose id cannot be read is 413 naming the limit; the next POST is served", async () => {
    const over = await post(url, `[${"1,".repeat(6 * 1024 * 1024)}1]`)
    expect(over.status).toBe(413)
    expect(over.answer).toStrictEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: MessageSize.errorCode, message: MessageSize.tooLarge(2 * 6 * 1024 * 1024 + 3) }
    })
    const withId = await post(
      url,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "read", arguments: { path: "y".repeat(11 * 1024 * 1024) } }
      })
    )
    expect(withId.answer.id).toBe(7)
    expect((withId.answer.error as { code: number }).code).toBe(MessageSize.errorCode)
    const next = await post(url, callBody(8, "stateless"))
    expect(next.status).toBe(200)
    expect(next.answer.result).toStrictEqual({ content: [{ type: "text", text: "done stateless" }], isError: false })
  })

  it("an unknown session is 404 (the client initializes again); DELETE ends a session", async () => {
    const unknown = await post(url, callBody(1, "x"), { "mcp-session-id": "no-such-session" })
    expect(unknown.status).toBe(404)
    expect((unknown.answer.error as { code: number }).code).toBe(-32001)
    const client = new Client({ name: "test", version: "1.0.0" })
    const transport = new StreamableHTTPClientTransport(new URL(url))
    await client.connect(transport, { timeout: 60_000 })
    const session = transport.sessionId ?? ""
    await transport.terminateSession()
    await client.close()
    const after = await post(url, callBody(2, "x"), { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" })
    expect(after.status).toBe(404)
  })
})
