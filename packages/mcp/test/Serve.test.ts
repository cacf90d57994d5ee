import { spawn } from "node:child_process"
import { request } from "node:http"
import process from "node:process"
import { fileURLToPath } from "node:url"
import { Execute, type Outcome } from "@agent-harness/executor"
import { Journal, MemoryStore } from "@agent-harness/idempotency"
import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Exit, Schema, Scope } from "effect"
import { Serve } from "../src/index.ts"
import * as JsonRpc from "./fixtures/jsonrpc.ts"
import { tools } from "./fixtures/tools.ts"

const script = fileURLToPath(new URL("./fixtures/serve-stdio.ts", import.meta.url))
// A loaded 2-core machine: starting Node with the SDK and effect can take seconds.
const slow = { timeout: 120_000 }

const stdioClient = async (lang: "en" | "es"): Promise<Client> => {
  const client = new Client({ name: "test", version: "1.0.0" })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [script, lang], stderr: "pipe" }), {
    timeout: 60_000
  })
  return client
}

const call = (client: Client, name: string, args?: Record<string, unknown>) =>
  client.callTool({ name, ...(args === undefined ? {} : { arguments: args }) }, undefined, {
    timeout: 60_000
  }) as Promise<CallToolResult>

const textOf = (result: CallToolResult) => ({
  isError: result.isError,
  text: result.content.map((b) => (b.type === "text" ? b.text : b.type)).join("")
})

/** What every transport must answer: the same semantics as `execute`. */
const contract = (connect: () => Promise<Client>) => {
  let client: Client
  beforeAll(async () => {
    client = await connect()
  }, 120_000)
  afterAll(async () => {
    await client.close()
  }, 60_000)

  it("lists each tool with its JSON Schema and its annotations as hints", async () => {
    const { tools: listed } = await client.listTools(undefined, { timeout: 60_000 })
    expect(listed.map((t) => t.name)).toStrictEqual(["read", "full", "throws", "slow", "big", "append"])
    const read = listed[0]
    expect(read?.title).toBe("Read a file")
    expect(read?.inputSchema).toStrictEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
      additionalProperties: false
    })
    expect(read?.annotations).toStrictEqual({
      title: "Read a file",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false
    })
    // A tool that says nothing about itself is listed with MCP's defaults, stated.
    expect(listed[5]?.annotations).toStrictEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true
    })
  })

  it("answers a valid call with the tool's content", async () => {
    expect(textOf(await call(client, "read", { path: "a.txt" }))).toStrictEqual({
      isError: false,
      text: "contents of a.txt"
    })
  })

  it("answers an invalid call, an unknown tool, a failing and a throwing tool with isError and our texts", async () => {
    expect(textOf(await call(client, "read", {}))).toStrictEqual({
      isError: true,
      text: "not executed: missing field 'path'"
    })
    expect(textOf(await call(client, "read", { path: "a", mode: "x" }))).toStrictEqual({
      isError: true,
      text: "not executed: unexpected field 'mode'"
    })
    expect(textOf(await call(client, "read", { path: 3 }))).toStrictEqual({
      isError: true,
      text: "not executed: field 'path' must be a string"
    })
    expect(textOf(await call(client, "nope", {}))).toStrictEqual({
      isError: true,
      text: "not executed: unknown tool 'nope'"
    })
    expect(textOf(await call(client, "full"))).toStrictEqual({ isError: true, text: "disk full" })
    expect(textOf(await call(client, "throws", {}))).toStrictEqual({ isError: true, text: "kaboom" })
  })

  it("answers concurrent calls, each with its own result", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(client, "slow", { ms: (i % 5) * 20, tag: `t${i}` }))
    )
    expect(results.map((r) => textOf(r).text)).toStrictEqual(Array.from({ length: 20 }, (_, i) => `done t${i}`))
  })

  it("carries a 5 MB result whole", async () => {
    const { text, isError } = textOf(await call(client, "big", { bytes: 5 * 1024 * 1024 }))
    expect(isError).toBe(false)
    expect(text.length).toBe(5 * 1024 * 1024)
  })
}

describe("the official SDK's Client against our server over stdio", slow, () => {
  contract(() => stdioClient("en"))

  it("speaks the catalogue the server was given (Spanish)", async () => {
    const client = await stdioClient("es")
    try {
      expect(textOf(await call(client, "read", {}))).toStrictEqual({
        isError: true,
        text: "no se ha ejecutado: falta el campo 'path'"
      })
      expect(textOf(await call(client, "nope", {}))).toStrictEqual({
        isError: true,
        text: "no se ha ejecutado: no existe la herramienta 'nope'"
      })
    } finally {
      await client.close()
    }
  })

  it("answers the calls it has read when stdin ends, then exits 0", async () => {
    const child = spawn(process.execPath, [script, "en"], { stdio: ["pipe", "pipe", "pipe"] })
    const lines: Array<string> = []
    let buffer = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk
      const parts = buffer.split("\n")
      buffer = parts.pop() ?? ""
      lines.push(...parts)
    })
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
    send(JsonRpc.initialize(1, "2025-11-25"))
    send(JsonRpc.initialized)
    send(JsonRpc.toolsCall(2, "slow", { ms: 200, tag: "last" }))
    child.stdin.end()
    expect(await exited).toBe(0)
    const answers = lines.map((l) => JSON.parse(l) as { id: number; result: CallToolResult })
    expect(answers.find((a) => a.id === 2)?.result).toStrictEqual({
      content: [{ type: "text", text: "done last" }],
      isError: false
    })
  })
})

/** Serves `tools` over HTTP in a scope of its own, with `wrap` applied to the serve Effect. */
const serveHttp = async (wrap: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> = (self) => self) => {
  const scope = Scope.makeUnsafe()
  const listening = await Effect.runPromise(Serve.http(tools, { port: 0 }).pipe(wrap, Scope.provide(scope)))
  return { listening, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const httpClient = async (url: string): Promise<Client> => {
  const client = new Client({ name: "test", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 60_000 })
  return client
}

/** A raw request to the server, with the headers given (a browser's `Origin`, a rebinding `Host`). */
const raw = (url: string, method: string, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on("error", reject)
    req.end(method === "POST" ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) : undefined)
  })

describe("the official SDK's Client against our server over Streamable HTTP", slow, () => {
  let server: Awaited<ReturnType<typeof serveHttp>>
  beforeAll(async () => {
    // The contract checks what the transport carries (5 MB whole): the content cap is lifted.
    server = await serveHttp(Effect.provideService(Execute.Limits, { ...Execute.defaultLimits, maxContent: Infinity }))
  }, 60_000)
  afterAll(() => server.close(), 60_000)

  describe("the contract", () => {
    contract(() => httpClient(server.listening.url))
  })

  it("listens on 127.0.0.1 at /mcp", () => {
    expect(server.listening.url).toBe(`http://127.0.0.1:${server.listening.port}/mcp`)
  })

  it("refuses another Host or Origin (DNS rebinding), other paths and methods", async () => {
    const { url, port } = server.listening
    const json = { "content-type": "application/json", accept: "application/json, text/event-stream" }
    expect(await raw(url, "POST", { ...json, host: `evil.example:${port}` })).toBe(403)
    expect(await raw(url, "POST", { ...json, origin: "http://evil.example" })).toBe(403)
    expect(await raw(url.replace("/mcp", "/other"), "POST", json)).toBe(404)
    expect(await raw(url, "GET", { accept: "text/event-stream" })).toBe(405)
    expect(await raw(url, "POST", { ...json, origin: `http://localhost:${port}` })).toBe(200)
  })

  it("a port in use and an address that is not loopback are clear errors", async () => {
    const taken = await Effect.runPromise(
      Effect.scoped(Serve.http(tools, { port: server.listening.port })).pipe(Effect.flip)
    )
    expect(taken.message).toBe(`port ${server.listening.port} on 127.0.0.1 is already in use`)
    const open = await Effect.runPromise(
      Effect.scoped(Serve.http(tools, { port: 0, host: "0.0.0.0" as "127.0.0.1" })).pipe(Effect.flip)
    )
    expect(open.message).toBe(
      "'0.0.0.0' is not a loopback address: the tools would be reachable from the network without authentication"
    )
  })
})

describe("calls run in the serve Effect's context", slow, () => {
  it("a middleware (a journal, a permission gate) and the catalogue apply to every call", async () => {
    const gate: Execute.Middleware = (call, tool, run) =>
      tool.annotations.readOnly
        ? run
        : Effect.succeed<Outcome.Outcome>({
            _tag: "Refused",
            id: call.id,
            name: call.name,
            reason: "denied",
            content: `permiso denegado para '${call.name}' (${call.id})`
          })
    const served = await serveHttp((self) =>
      self.pipe(
        Effect.provideService(Execute.Middleware, gate),
        Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
      )
    )
    const client = await httpClient(served.listening.url)
    try {
      expect(textOf(await call(client, "read", { path: "a" }))).toStrictEqual({
        isError: false,
        text: "contents of a"
      })
      expect(textOf(await call(client, "read", {}))).toStrictEqual({
        isError: true,
        text: "no se ha ejecutado: falta el campo 'path'"
      })
      // The call id a client gives in _meta is the id the middleware sees.
      const given = (await client.callTool(
        { name: "append", arguments: { line: "x" }, _meta: { [Serve.callIdKey]: "toolu_42" } },
        undefined,
        { timeout: 60_000 }
      )) as CallToolResult
      expect(textOf(given)).toStrictEqual({ isError: true, text: "permiso denegado para 'append' (toolu_42)" })
      const fresh = textOf(await call(client, "append", { line: "x" }))
      expect(fresh.text).toMatch(/^permiso denegado para 'append' \(mcp-[0-9a-f-]{36}\)$/)
    } finally {
      await client.close()
      await served.close()
    }
  })

  it("a journal keys calls by the client's call id: a retried call is replayed, not run again", async () => {
    let appended = 0
    const Append = Tool.make("append", {
      description: "Appends (not idempotent)",
      parameters: Schema.Struct({ line: Schema.String }),
      run: ({ line }) => `${line} #${++appended}`
    })
    const store = await Effect.runPromise(MemoryStore.make)
    const scope = Scope.makeUnsafe()
    const listening = await Effect.runPromise(
      Serve.http(Toolset.make(Append), { port: 0 }).pipe(Effect.provide(Journal.layer(store)), Scope.provide(scope))
    )
    const client = await httpClient(listening.url)
    try {
      const once = { name: "append", arguments: { line: "a" }, _meta: { [Serve.callIdKey]: "toolu_7" } }
      const first = (await client.callTool(once, undefined, { timeout: 60_000 })) as CallToolResult
      const again = (await client.callTool(once, undefined, { timeout: 60_000 })) as CallToolResult
      expect(textOf(first)).toStrictEqual({ isError: false, text: "a #1" })
      expect(textOf(again)).toStrictEqual({ isError: false, text: "a #1" })
      expect(appended).toBe(1)
    } finally {
      await client.close()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("closing the scope stops listening", async () => {
    const served = await serveHttp()
    await served.close()
    await expect(raw(served.listening.url, "POST", { "content-type": "application/json" })).rejects.toThrow(
      /ECONNREFUSED/
    )
  })
})
