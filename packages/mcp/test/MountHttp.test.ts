/**
 * A mount over Streamable HTTP, against what servers answer in the wild: the official SDK's
 * 400s for a session it no longer has (a new session, once, as for a 404), and event streams
 * that are off-spec (said at once, not after the call's timeout).
 */
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { MessageSize, Mount } from "../src/index.ts"
import { openSession, serveSdkHttp } from "./fixtures/sdk-http.ts"
import { listen, mountIn, run, seen, shut } from "./fixtures/mounting.ts"
import { makeSdkServer } from "./fixtures/sdk-tools.ts"

const slow = { timeout: 60_000 }

/**
 * The official SDK's server as many run it: one McpServer and one stateful transport for the
 * whole process. `restart` stops it and starts a new process-alike on the same port, whose
 * transport is not initialized: it answers 400 `Bad Request: Server not initialized` to the old
 * session's requests.
 */
const singleTransport = async () => {
  const counts = { initialize: 0 }
  const start = () => {
    const server = makeSdkServer()
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: () => {
        counts.initialize++
      }
    })
    const ready = server.connect(transport)
    return createServer((req, res) => {
      void ready.then(() => transport.handleRequest(req, res)).catch(() => res.destroy())
    })
  }
  let listener = start()
  const port = await listen(listener)
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    counts,
    restart: async () => {
      await shut(listener)
      listener = start()
      await listen(listener, port)
    },
    close: () => shut(listener)
  }
}

/**
 * The SDK examples' stateful server: a map of sessions; a request whose session is not in it
 * is answered 400 `Bad Request: No valid session ID provided`. `forget` empties the map.
 */
const sessionMap = async () => {
  const counts = { initialize: 0 }
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const listener = createServer((req, res) => {
    const id = req.headers["mcp-session-id"]
    const known = typeof id === "string" ? sessions.get(id) : undefined
    if (known !== undefined) {
      void known.handleRequest(req, res)
      return
    }
    if (typeof id === "string") {
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(
          '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}'
        )
      return
    }
    counts.initialize++
    openSession(sessions, req, res)
  })
  const port = await listen(listener)
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    counts,
    forget: () => sessions.clear(),
    close: () => shut(listener)
  }
}

describe("Mount over Streamable HTTP: the SDK's 400s for a session that is gone", slow, () => {
  it("'Server not initialized' (a restarted server): a new session, once, and the call is sent again", async () => {
    const server = await singleTransport()
    const { mounted, close } = await mountIn(Mount.http(server.url), { prefix: "fx" })
    try {
      expect((await run(mounted.toolset, "fx__echo", { text: "before" })).content).toBe("before")
      expect(server.counts.initialize).toBe(1)
      await server.restart()
      // The old connections are gone (a restarted process): let the client see them close.
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(seen(await run(mounted.toolset, "fx__echo", { text: "after" }))).toMatchObject({
        tag: "Succeeded",
        content: "after"
      })
      expect(server.counts.initialize).toBe(2)
      expect((await run(mounted.toolset, "fx__calls")).content).toBe("1")
    } finally {
      await close()
      await server.close()
    }
  })

  it("'No valid session ID provided': a new session, and the call is sent again", async () => {
    const server = await sessionMap()
    const { mounted, close } = await mountIn(Mount.http(server.url), { prefix: "fx" })
    try {
      expect((await run(mounted.toolset, "fx__echo", { text: "before" })).content).toBe("before")
      server.forget()
      expect((await run(mounted.toolset, "fx__echo", { text: "after" })).content).toBe("after")
      expect(server.counts.initialize).toBe(2)
    } finally {
      await close()
      await server.close()
    }
  })
})

/**
 * A hand-written server that does the handshake and the listing right, and answers every
 * `tools/call` with the event stream `answer` gives.
 */
const sseServer = async (answer: () => string) => {
  const listener = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end()
      return
    }
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => {
      body += chunk
    })
    req.on("end", () => {
      const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } }
      const json = (result: unknown) =>
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }))
      if (message.method === "initialize") {
        return json({
          protocolVersion: message.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "raw", version: "1" }
        })
      }
      if (message.id === undefined) return res.writeHead(202).end()
      if (message.method === "tools/list") {
        return json({ tools: [{ name: "echo", inputSchema: { type: "object" } }] })
      }
      res.writeHead(200, { "content-type": "text/event-stream" }).end(answer().replaceAll("ID", String(message.id)))
    })
  })
  const port = await listen(listener)
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => shut(listener) }
}

describe("Mount over Streamable HTTP: an off-spec event stream is said to be at once", slow, () => {
  const cases: ReadonlyArray<readonly [string, string, RegExp]> = [
    ["an HTML page", "<html><body>Bad gateway</body></html>", /ended without an answer \(it began "<html>/],
    [
      "an event whose data is not JSON",
      "event: message\ndata: garbage!\n\n",
      /an event's data is not JSON: "garbage!"/
    ],
    ["an event that is not JSON-RPC", 'data: {"hello":1}\n\n', /not JSON-RPC/],
    ["a stream that ends with no event", "", /its event stream ended without an answer/]
  ]
  for (const [what, stream, problem] of cases) {
    it(`${what}: outcome unknown, in well under the call's timeout`, async () => {
      const server = await sseServer(() => stream)
      const { mounted, close } = await mountIn(Mount.http(server.url), { prefix: "raw", callTimeout: 30_000 })
      try {
        const started = performance.now()
        const outcome = seen(await run(mounted.toolset, "raw__echo"))
        expect(performance.now() - started).toBeLessThan(10_000)
        expect(outcome).toMatchObject({ tag: "Failed", failure: "OutcomeUnknown", safety: "outcome_unknown" })
        expect(outcome.content).toMatch(/^the MCP server 'raw' answered the call off-spec \(/)
        expect(outcome.content).toMatch(problem)
      } finally {
        await close()
        await server.close()
      }
    })
  }

  it("a good event stream (a progress notification, then the answer) is read as ever", async () => {
    const server = await sseServer(
      () =>
        'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n' +
        'event: message\ndata: {"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"text","text":"fine"}]}}\n\n'
    )
    const { mounted, close } = await mountIn(Mount.http(server.url), { prefix: "raw", callTimeout: 30_000 })
    try {
      expect(seen(await run(mounted.toolset, "raw__echo"))).toMatchObject({ tag: "Succeeded", content: "fine" })
    } finally {
      await close()
      await server.close()
    }
  })
})

describe("Mount over Streamable HTTP: answers over MessageSize.maxBytes", slow, () => {
  const tooLarge =
    /^the MCP server '(?:fixture|raw)' answered with a message of \d+ bytes \(10\.0 MiB\), more than the limit of 10485760 bytes \(10\.0 MiB\), so it was not read; whether the call ran is unknown$/

  it("a JSON answer over the limit is outcome unknown, naming its size; the next call works", async () => {
    const server = await serveSdkHttp()
    const { mounted, close } = await mountIn(Mount.http(server.url), { prefix: "fx" })
    try {
      const big = seen(await run(mounted.toolset, "fx__big", { bytes: MessageSize.maxBytes + 2000 }))
      expect(big).toMatchObject({ tag: "Failed", failure: "OutcomeUnknown", safety: "outcome_unknown" })
      expect(big.content).toMatch(tooLarge)
      const under = await run(mounted.toolset, "fx__big", { bytes: MessageSize.maxBytes - 2000 })
      expect(under._tag).toBe("Succeeded")
      expect((await run(mounted.toolset, "fx__echo", { text: "after" })).content).toBe("after")
    } finally {
      await close()
      await server.close()
    }
  })

  it("an event over the limit in an event stream is outcome unknown, naming its size", async () => {
    const huge = "z".repeat(MessageSize.maxBytes + 1000)
    const server = await sseServer(
      () =>
        'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n' +
        `event: message\ndata: {"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"text","text":"${huge}"}]}}\n\n`
    )
    const { mounted, close } = await mountIn(Mount.http(server.url), { prefix: "raw", callTimeout: 30_000 })
    try {
      const outcome = seen(await run(mounted.toolset, "raw__echo"))
      expect(outcome).toMatchObject({ tag: "Failed", failure: "OutcomeUnknown" })
      expect(outcome.content).toMatch(tooLarge)
    } finally {
      await close()
      await server.close()
    }
  })
})
