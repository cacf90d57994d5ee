/**
 * Long served calls, with the official SDK's Client: a client cancels a call (its Effect is
 * interrupted, its finalizer runs, no result is sent, the next call is answered) and a client
 * that sends a progress token hears the tool's progress, increasing only; one that set a log
 * level hears what a call logs. Over stdio (a child
 * like `harness mcp serve`) and over Streamable HTTP (`Serve.http`).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import process from "node:process"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { type CallToolResult, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Exit, Scope } from "effect"
import { Serve } from "../src/index.ts"
import * as JsonRpc from "./fixtures/jsonrpc.ts"
import { longTools } from "./fixtures/long-tools.ts"

const script = fileURLToPath(new URL("./fixtures/serve-long-stdio.ts", import.meta.url))
// A loaded 2-core machine: starting Node with the SDK and effect can take seconds.
const slow = { timeout: 120_000 }

/** What a server said about its `wait` calls, with the time it was heard. */
class Heard {
  readonly events: Array<{ readonly what: string; readonly at: number }> = []
  readonly #waiting: Array<{ readonly what: string; readonly resolve: (at: number) => void }> = []
  hear(what: string): void {
    const at = performance.now()
    this.events.push({ what, at })
    for (const w of this.#waiting.filter((w) => w.what === what)) w.resolve(at)
  }
  /** When `what` was heard (waits for it, up to 60 s). */
  when(what: string): Promise<number> {
    const seen = this.events.find((e) => e.what === what)
    if (seen !== undefined) return Promise.resolve(seen.at)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`never heard '${what}'`)), 60_000)
      this.#waiting.push({
        what,
        resolve: (at) => {
          clearTimeout(timer)
          resolve(at)
        }
      })
    })
  }
}

const call = (client: Client, name: string, args: Record<string, unknown>, signal?: AbortSignal) =>
  client.callTool({ name, arguments: args }, undefined, {
    timeout: 60_000,
    ...(signal === undefined ? {} : { signal })
  }) as Promise<CallToolResult>

/**
 * Every `notifications/progress` the client's transport receives, in order. Read off the
 * transport, not the SDK's `onprogress`: the SDK Client hands a progress notification to its
 * handler a microtask late, after an answer that came in the same chunk removed the handler, so
 * under load it drops updates the server did send.
 */
const tapProgress = (transport: Transport): Array<Record<string, unknown>> => {
  const heard: Array<Record<string, unknown>> = []
  const onmessage = transport.onmessage
  transport.onmessage = (message, extra) => {
    if ("method" in message && message.method === "notifications/progress") {
      const { progressToken: _token, ...update } = (message.params ?? {}) as Record<string, unknown>
      heard.push(update)
    }
    onmessage?.(message, extra)
  }
  return heard
}

const textOf = (result: CallToolResult) => result.content.map((b) => (b.type === "text" ? b.text : b.type)).join("")

/** What every transport must do with long calls. */
const contract = (
  connect: () => Promise<{
    readonly client: Client
    readonly heard: Heard
    readonly progress: Array<Record<string, unknown>>
  }>
) => {
  let client: Client
  let heard: Heard
  let progress: Array<Record<string, unknown>>
  beforeAll(async () => {
    ;({ client, heard, progress } = await connect())
  }, 120_000)
  afterAll(async () => {
    await client.close()
  }, 60_000)

  it("a cancelled Effect tool is interrupted: its finalizer runs within a second, and the next call is answered", async () => {
    const abort = new AbortController()
    const running = call(client, "wait", { ms: 30_000, tag: "cancelled" }, abort.signal)
    running.catch(() => undefined)
    await heard.when("started cancelled")
    const cancelledAt = performance.now()
    abort.abort("the user pressed Esc")
    await expect(running).rejects.toThrow()
    const finalizedAt = await heard.when("finalized cancelled")
    expect(finalizedAt - cancelledAt).toBeLessThan(1_000)
    expect(textOf(await call(client, "wait", { ms: 1, tag: "next" }))).toBe("waited next")
  })

  it("sends progress to a client that sent a progress token, increasing only", async () => {
    const before = progress.length
    const result = (await client.callTool({ name: "count", arguments: { to: 4 } }, undefined, {
      timeout: 60_000,
      // Asks for progress (a token is sent); what arrives is read off the transport.
      onprogress: () => undefined
    })) as CallToolResult
    expect(textOf(result)).toBe("counted to 4")
    // Every notification sent before the answer has passed the transport by now.
    expect(progress.slice(before)).toStrictEqual(
      [1, 2, 3, 4].map((n) => ({ progress: n, total: 4, message: `step ${n}` }))
    )
  })

  it("a call without a progress token is answered without progress", async () => {
    expect(textOf(await call(client, "count", { to: 3 }))).toBe("counted to 3")
  })

  it("sends what a call logs once the client set a level, at or above it", async () => {
    const heardLogs: Array<unknown> = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      heardLogs.push(notification.params)
    })
    expect(textOf(await call(client, "chatty", {}))).toBe("said it")
    // No level set yet: nothing is sent.
    expect(heardLogs).toStrictEqual([])
    await client.setLoggingLevel("info", { timeout: 60_000 })
    expect(textOf(await call(client, "chatty", {}))).toBe("said it")
    expect(heardLogs).toStrictEqual([
      { level: "info", logger: "chatty", data: 'working {"step":1}' },
      { level: "warning", logger: "chatty", data: "careful" }
    ])
  })
}

describe("long calls over stdio (a child like `harness mcp serve`)", slow, () => {
  contract(async () => {
    const heard = new Heard()
    const transport = new StdioClientTransport({ command: process.execPath, args: [script], stderr: "pipe" })
    let buffer = ""
    transport.stderr?.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8")
      const lines = buffer.split("\n")
      buffer = lines.pop() ?? ""
      for (const line of lines) heard.hear(line.trim())
    })
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(transport, { timeout: 60_000 })
    return { client, heard, progress: tapProgress(transport) }
  })

  it("sends no result for a cancelled request (raw JSON-RPC)", async () => {
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [script])
    const heard = new Heard()
    const lines: Array<{ readonly id?: unknown; readonly method?: unknown }> = []
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const parts = out.split("\n")
      out = parts.pop() ?? ""
      for (const part of parts) if (part.trim() !== "") lines.push(JSON.parse(part))
    })
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8")
      const parts = err.split("\n")
      err = parts.pop() ?? ""
      for (const part of parts) heard.hear(part.trim())
    })
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`)
    const answered = (id: number) =>
      new Promise<void>((resolve) => {
        const check = () => (lines.some((l) => l.id === id) ? resolve() : setTimeout(check, 10))
        check()
      })
    try {
      send(JsonRpc.initialize(1))
      await answered(1)
      send(JsonRpc.initialized)
      send(JsonRpc.toolsCall(2, "wait", { ms: 30_000, tag: "raw" }))
      await heard.when("started raw")
      send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2, reason: "no longer needed" } })
      await heard.when("finalized raw")
      send({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "wait", arguments: { ms: 1, tag: "after" } }
      })
      await answered(3)
      // Anything the server would still send for 2 has been written before 3's answer.
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(lines.filter((l) => l.id === 2)).toStrictEqual([])
    } finally {
      child.kill()
    }
  })
})

describe("long calls over Streamable HTTP (Serve.http)", slow, () => {
  let scope: Scope.Closeable
  beforeAll(async () => {
    scope = await Effect.runPromise(Scope.make())
  })
  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("without a session, a call that asks for progress gets it on its own event stream (raw HTTP)", async () => {
    const tools = longTools({ started: () => undefined, finalized: () => undefined })
    const { url } = await Effect.runPromise(Scope.provide(Serve.http(tools, { port: 0 }), scope))
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "count", arguments: { to: 2 }, _meta: { progressToken: "t-9" } }
      })
    })
    expect(response.headers.get("content-type")).toContain("text/event-stream")
    const events = (await response.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as { method?: string; params?: unknown; id?: number })
    expect(events.filter((e) => e.method === "notifications/progress").map((e) => e.params)).toStrictEqual([
      { progressToken: "t-9", progress: 1, total: 2, message: "step 1" },
      { progressToken: "t-9", progress: 2, total: 2, message: "step 2" }
    ])
    expect(events.at(-1)?.id).toBe(9)
  })

  it("sends no result for a cancelled request, and ends its stream (raw HTTP)", async () => {
    const heard = new Heard()
    const tools = longTools({
      started: (tag) => heard.hear(`started ${tag}`),
      finalized: (tag) => heard.hear(`finalized ${tag}`)
    })
    const { url } = await Effect.runPromise(Scope.provide(Serve.http(tools, { port: 0 }), scope))
    const post = (body: unknown, session?: string) => JsonRpc.post(url, body, session)
    const initialized = await post(JsonRpc.initialize(1))
    const session = initialized.headers.get("mcp-session-id") ?? ""
    expect(session).not.toBe("")
    await initialized.text()
    await (await post(JsonRpc.initialized, session)).text()
    const running = await post(JsonRpc.toolsCall(2, "wait", { ms: 30_000, tag: "raw" }), session)
    await heard.when("started raw")
    const cancelled = await post(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2, reason: "no longer needed" } },
      session
    )
    expect(cancelled.status).toBe(202)
    await heard.when("finalized raw")
    // The call's stream ends without its result (well before the 30 s the tool would take).
    const stream = await Promise.race([
      running.text(),
      new Promise<string>((_, reject) =>
        setTimeout(() => reject(new Error("the cancelled call's stream is still open after 5 s")), 5_000)
      )
    ])
    expect(stream).not.toContain('"id":2')
    const next = await post(JsonRpc.toolsCall(3, "wait", { ms: 1, tag: "after" }), session)
    expect(await next.text()).toContain("waited after")
  })
  contract(async () => {
    const heard = new Heard()
    const tools = longTools({
      started: (tag) => heard.hear(`started ${tag}`),
      finalized: (tag) => heard.hear(`finalized ${tag}`)
    })
    const listening = await Effect.runPromise(Scope.provide(Serve.http(tools, { port: 0 }), scope))
    const client = new Client({ name: "test", version: "1.0.0" })
    const transport = new StreamableHTTPClientTransport(new URL(listening.url))
    await client.connect(transport, { timeout: 60_000 })
    return { client, heard, progress: tapProgress(transport) }
  })
})
