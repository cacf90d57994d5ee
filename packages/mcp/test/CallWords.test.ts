/**
 * What a mounted tool's failures say, and what the executor makes of them: it ran and failed,
 * its outcome is unknown, or it never arrived (retry safety follows). With the official SDK's
 * servers over stdio and Streamable HTTP, and with hostile ones.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import process from "node:process"
import { fileURLToPath } from "node:url"
import type { Outcome } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { Mount } from "../src/index.ts"
import { listen, mountIn, run, seen, shut } from "./fixtures/mounting.ts"
import { answerStateless, openSession } from "./fixtures/sdk-http.ts"

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))
// A loaded 2-core machine: starting Node with the SDK can take seconds.
const slow = { timeout: 120_000 }

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("Mount: a hostile stdio server's answers are said for what they are, at once", slow, () => {
  it("off-spec results and answers, JSON-RPC errors, a huge error", async () => {
    const { mounted, close } = await mountIn(Mount.stdio(process.execPath, [fixture("hostile-server.ts")]), {
      prefix: "h",
      callTimeout: 30_000
    })
    try {
      const tools = mounted.toolset
      const unknown = { tag: "Failed", failure: "OutcomeUnknown", safety: "outcome_unknown" }
      const started = Date.now()
      expect(seen(await run(tools, "h__not_object"))).toStrictEqual({
        ...unknown,
        content:
          "the MCP server 'hostile' answered the call off-spec (its 'result' is not an object); whether it ran is unknown"
      })
      expect(seen(await run(tools, "h__no_content"))).toStrictEqual({
        ...unknown,
        content:
          "the MCP server 'hostile' answered the call off-spec (the result has no 'content'); whether it ran is unknown"
      })
      const bad = seen(await run(tools, "h__bad_block"))
      expect(bad).toMatchObject(unknown)
      expect(bad.content).toMatch(
        /^the MCP server 'hostile' answered the call off-spec \(content\[0\]: [^\n]{1,200}\); whether it ran is unknown$/
      )
      expect(seen(await run(tools, "h__not_jsonrpc"))).toStrictEqual({
        ...unknown,
        content: `the MCP server 'hostile' answered the call off-spec (its 'jsonrpc' is not "2.0"); whether it ran is unknown`
      })
      // Each at once: no wait for a timeout, no stall.
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(seen(await run(tools, "h__rpc_error"))).toStrictEqual({
        tag: "Failed",
        failure: "ToolError",
        safety: "may_have_partly_run",
        content: "the MCP server 'hostile' received the call and failed it with error -32000: database is locked"
      })
      const huge = seen(await run(tools, "h__huge_error"))
      expect(huge.content.length).toBeLessThan(700)
      expect(huge.content).toMatch(
        /^the MCP server 'hostile' received the call and failed it with error -32603: boom x+…\(99505 more characters\)$/
      )
      expect((await run(tools, "h__ok")).content).toBe("fine")
    } finally {
      await close()
    }
  })
})

describe("Mount over stdio, the official SDK's McpServer: a call that ran and failed says so", slow, () => {
  it("isError and a thrown error: ran and failed; a server that dies mid-call: unknown; after: not sent", async () => {
    const { mounted, close } = await mountIn(Mount.stdio(process.execPath, [fixture("sdk-server.ts")]), {
      prefix: "fx"
    })
    try {
      const tools = mounted.toolset
      expect(seen(await run(tools, "fx__fail"))).toStrictEqual({
        tag: "Failed",
        failure: "ToolError",
        safety: "may_have_partly_run",
        content: "quota exceeded"
      })
      expect(seen(await run(tools, "fx__throws"))).toMatchObject({ failure: "ToolError", content: "kaboom" })
      expect(seen(await run(tools, "fx__crash"))).toMatchObject({
        failure: "OutcomeUnknown",
        safety: "outcome_unknown"
      })
      expect(seen(await run(tools, "fx__echo", { text: "x" }))).toStrictEqual({
        tag: "Refused",
        failure: undefined,
        safety: "did_not_run",
        content:
          "the MCP server 'fixture' has stopped (exit code 3; stderr: fatal: out of cheese); the call was not sent"
      })
    } finally {
      await close()
    }
  })
})

/** The SDK's server, stateless, behind a switch that makes it answer as a misbehaving HTTP server would. */
const switchable = async () => {
  let mode: "pass" | "401" | "500" | "not-jsonrpc" | "text" = "pass"
  let reached = 0
  const listener = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (mode === "401") {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"invalid_token"}')
      return
    }
    if (mode === "not-jsonrpc") {
      res.writeHead(200, { "content-type": "application/json" }).end('{"nope":1}')
      return
    }
    if (mode === "text") {
      res.writeHead(200, { "content-type": "text/plain" }).end("hello")
      return
    }
    if (mode === "500") {
      reached++
      res.writeHead(500, { "content-type": "text/plain" }).end(`Internal Server Error ${"!".repeat(2000)}`)
      return
    }
    answerStateless()(req, res)
  })
  const port = await listen(listener)
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    set: (next: typeof mode) => {
      mode = next
    },
    reached: () => reached,
    close: () => shut(listener)
  }
}

describe("Mount over Streamable HTTP: what an HTTP failure proves", slow, () => {
  it("4xx never ran; 500 unknown; off-spec bodies at once; refused and reset connections", async () => {
    const server = await switchable()
    const { mounted, close } = await mountIn(Mount.http(server.url), { prefix: "fx", callTimeout: 30_000 })
    try {
      const tools = mounted.toolset
      expect(seen(await run(tools, "fx__echo", { text: "hi" }))).toMatchObject({ tag: "Succeeded", content: "hi" })
      server.set("401")
      expect(seen(await run(tools, "fx__echo", { text: "hi" }))).toStrictEqual({
        tag: "Refused",
        failure: undefined,
        safety: "did_not_run",
        content: `the call never reached the MCP server 'fixture' (HTTP 401: {"error":"invalid_token"}); nothing ran`
      })
      server.set("500")
      const failed = seen(await run(tools, "fx__echo", { text: "hi" }))
      expect(server.reached()).toBe(1)
      expect(failed).toMatchObject({ tag: "Failed", failure: "OutcomeUnknown", safety: "outcome_unknown" })
      expect(failed.content).toMatch(
        /^the MCP server 'fixture' answered the call with HTTP 500 \(Internal Server Error !+…\(1522 more characters\)\); whether it ran is unknown$/
      )
      server.set("not-jsonrpc")
      const started = Date.now()
      const notRpc = seen(await run(tools, "fx__echo", { text: "hi" }))
      expect(notRpc).toMatchObject({ failure: "OutcomeUnknown" })
      expect(notRpc.content).toMatch(
        /^the MCP server 'fixture' answered the call off-spec \(it is not JSON-RPC: [^\n]{1,300}\); whether it ran is unknown$/
      )
      server.set("text")
      expect(seen(await run(tools, "fx__echo", { text: "hi" }))).toMatchObject({
        failure: "OutcomeUnknown",
        content:
          "the MCP server 'fixture' answered the call off-spec (Unexpected content type: text/plain); whether it ran is unknown"
      })
      expect(Date.now() - started).toBeLessThan(10_000)
      server.set("pass")
      await server.close()
      await pause(300)
      // Nothing listens on the port: the connection is refused, so the call never left.
      const refused = seen(await run(tools, "fx__echo", { text: "hi" }))
      expect(refused).toMatchObject({ tag: "Refused", safety: "did_not_run" })
      expect(refused.content).toMatch(
        /^the call never reached the MCP server 'fixture' \(fetch failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)\); nothing ran$/
      )
    } finally {
      await close()
    }
  })
})

/**
 * The SDK's StreamableHTTPServerTransport, stateful (a session per client, as the SDK's example
 * keeps them), answering 404 `Session not found` to a session id it does not know (MCP's rule).
 * `restart` stops it and starts a new one on the same port, with no sessions.
 */
const stateful = async () => {
  const counts = { initialize: 0 }
  let forgetful = false
  const start = () => {
    const sessions = new Map<string, StreamableHTTPServerTransport>()
    const listener = createServer((req, res) => {
      const id = req.headers["mcp-session-id"]
      if (typeof id === "string") {
        const known = forgetful ? undefined : sessions.get(id)
        if (known === undefined) {
          res
            .writeHead(404, { "content-type": "application/json" })
            .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}')
          return
        }
        void known.handleRequest(req, res)
        return
      }
      counts.initialize++
      openSession(sessions, req, res)
    })
    return listener
  }
  let listener = start()
  const port = await listen(listener)
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    counts,
    /** From now on, every session id is unknown: even a new session's. */
    forget: () => {
      forgetful = true
    },
    restart: async () => {
      await shut(listener)
      listener = start()
      await listen(listener, port)
    },
    close: () => shut(listener)
  }
}

describe("Mount over Streamable HTTP: a server that restarts and forgets the session", slow, () => {
  it("starts a new session once and sends the call again (the 404 proves it did not run)", async () => {
    const server = await stateful()
    const { mounted, close } = await mountIn(Mount.http(server.url), { prefix: "fx" })
    try {
      const tools = mounted.toolset
      expect((await run(tools, "fx__echo", { text: "before" })).content).toBe("before")
      expect(server.counts.initialize).toBe(1)
      await server.restart()
      await pause(300)
      expect(seen(await run(tools, "fx__echo", { text: "after" }))).toMatchObject({
        tag: "Succeeded",
        content: "after"
      })
      expect(server.counts.initialize).toBe(2)
      // The new session's server got exactly one call so far (the echo), then this one.
      expect((await run(tools, "fx__calls")).content).toBe("1")
      expect(mounted.status()).toStrictEqual({ _tag: "Running" })
    } finally {
      await close()
      await server.close()
    }
  })

  it("a server that forgets every session: one new session per failure, no loop, and the call did not run", async () => {
    const server = await stateful()
    const { mounted, close } = await mountIn(Mount.http(server.url), { prefix: "fx" })
    server.forget()
    try {
      const outcome = seen(await run(mounted.toolset, "fx__echo", { text: "x" }))
      expect(outcome).toStrictEqual({
        tag: "Refused",
        failure: undefined,
        safety: "did_not_run",
        content:
          "the MCP server 'fixture' had ended its session and a new one could not be started (HTTP 404: Session not found); nothing ran"
      })
      expect(server.counts.initialize).toBe(2)
      await run(mounted.toolset, "fx__echo", { text: "y" })
      expect(server.counts.initialize).toBe(3)
    } finally {
      await close()
      await server.close()
    }
  })
})

describe("Mount.refine: a mounted tool's failures in the executor's words", () => {
  it("leaves every other outcome as it is", () => {
    const base = { id: "c", name: "t" }
    const others: ReadonlyArray<Outcome.Outcome> = [
      { ...base, _tag: "Succeeded", value: 1, content: "1" },
      { ...base, _tag: "Failed", failure: { _tag: "ToolError", error: new Error("x") }, content: "x" },
      { ...base, _tag: "Failed", failure: { _tag: "TimedOut", millis: 5 }, content: "t" }
    ]
    for (const outcome of others) expect(Mount.refine(outcome)).toBe(outcome)
    const ran = {
      ...base,
      _tag: "Failed" as const,
      failure: {
        _tag: "ToolError" as const,
        error: new Mount.CallError({ reason: "ToolError", ran: "yes", message: "m" })
      },
      content: "m"
    }
    expect(Mount.refine(ran)).toBe(ran)
  })
})
