/**
 * The HTTP endpoint's sessions are bounded: past the most it keeps, the one idle longest is
 * closed (its id then answers 404), so a client that initializes over and over cannot fill the
 * memory.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import * as HttpEndpoint from "../src/internal/HttpEndpoint.ts"
import * as JsonRpc from "./fixtures/jsonrpc.ts"

const slow = { timeout: 60_000 }

describe("HttpEndpoint sessions", slow, () => {
  let url = ""
  let close: () => Promise<void> = async () => undefined
  beforeAll(async () => {
    let allowed: ReadonlySet<string> = new Set()
    const endpoint = HttpEndpoint.make({
      path: "/mcp",
      allowed: () => allowed,
      newServer: () => new Server({ name: "bounded", version: "1.0.0" }, { capabilities: {} }),
      maxSessions: 2
    })
    const listener = createServer((req, res) => void endpoint.handle(req, res).catch(() => res.destroy()))
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve))
    const address = listener.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    allowed = new Set([`127.0.0.1:${port}`])
    url = `http://127.0.0.1:${port}/mcp`
    close = async () => {
      await endpoint.close()
      await new Promise<void>((resolve) => listener.close(() => resolve()))
      listener.closeAllConnections()
    }
  })
  afterAll(() => close())

  const post = (body: unknown, session?: string) => JsonRpc.post(url, body, session)

  const initialize = async () => {
    const response = await post(JsonRpc.initialize(1))
    await response.text()
    return response.headers.get("mcp-session-id") ?? ""
  }

  const ping = async (session: string) => {
    const response = await post({ jsonrpc: "2.0", id: 2, method: "ping" }, session)
    await response.text()
    return response.status
  }

  it("keeps the sessions used last and closes the one idle longest", async () => {
    const first = await initialize()
    const second = await initialize()
    // The first is used again: the second is now the one idle longest.
    expect(await ping(first)).toBe(200)
    const third = await initialize()
    expect(new Set([first, second, third]).size).toBe(3)
    expect(await ping(second)).toBe(404)
    expect(await ping(first)).toBe(200)
    expect(await ping(third)).toBe(200)
  })
})
