/**
 * Rich results over MCP, both ways. Mounted: a server made with the official SDK answers an
 * image, a resource link, an embedded resource and structured content (its tool has an
 * `outputSchema`), and the mounted call's outcome carries them as parts and structured content
 * beside the text, which still says what each is; an `isError` result's image stays on the error. Served: a `Tool.make` tool returning an
 * image through `ToolContent.make`, and one with an `output` schema, reach the official SDK
 * client as an MCP image block, and as `structuredContent` its `outputSchema` (listed) accepts.
 */
import { createServer } from "node:http"
import { Execute, Outcome } from "@agent-harness/executor"
import { Tool, ToolContent, Toolset } from "@agent-harness/tool-schema"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Exit, Schema, Scope } from "effect"
import * as z from "zod"
import { Mount, Serve } from "../src/index.ts"
import { answerStateless, serveHttp } from "./fixtures/sdk-http.ts"

const slow = { timeout: 120_000 }
const png = "iVBORw0KGgoAAAANSUhEUg=="

/** An official-SDK server with one rich tool, over stateless Streamable HTTP in this process. */
const sdkServer = () => {
  const make = () => {
    const server = new McpServer({ name: "rich", version: "1.0.0" })
    server.registerTool(
      "snapshot",
      {
        description: "A page's picture, its link and its numbers",
        inputSchema: {},
        outputSchema: { width: z.number(), height: z.number() }
      },
      async () => ({
        content: [
          { type: "text" as const, text: "the page" },
          { type: "image" as const, data: png, mimeType: "image/png" },
          { type: "resource_link" as const, uri: "file:///page.html", name: "page.html", mimeType: "text/html" },
          { type: "resource" as const, resource: { uri: "file:///notes.md", text: "notes", mimeType: "text/markdown" } }
        ],
        structuredContent: { width: 800, height: 600 }
      })
    )
    server.registerTool(
      "broken",
      { description: "Fails with a picture of the failure", inputSchema: {} },
      async () => ({
        content: [
          { type: "text" as const, text: "the page did not load" },
          { type: "image" as const, data: png, mimeType: "image/png" }
        ],
        isError: true
      })
    )
    return server
  }
  return serveHttp(createServer(answerStateless(make)))
}

describe("a mounted server's rich result", slow, () => {
  let server: Awaited<ReturnType<typeof sdkServer>>
  const scope = Scope.makeUnsafe()
  let toolset: Toolset.Toolset<Tool.Any>
  beforeAll(async () => {
    server = await sdkServer()
    const mounted = await Effect.runPromise(
      Mount.mount(Mount.http(server.url), { prefix: "web", connectTimeout: 60_000 }).pipe(Scope.provide(scope))
    )
    toolset = mounted.toolset
  }, 120_000)
  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await server.close()
  }, 60_000)

  it("gives parts and structured content beside the text, which says what each is", async () => {
    const outcome = await Effect.runPromise(Execute.execute(toolset, { id: "c1", name: "web__snapshot", input: {} }))
    expect(outcome._tag).toBe("Succeeded")
    expect(outcome.content).toBe(
      "the page\n[image image/png, 16 bytes]\n[resource file:///page.html (page.html)]\nnotes"
    )
    expect(Outcome.partsOf(outcome)).toEqual([
      { type: "image", mediaType: "image/png", data: png },
      { type: "resource_link", uri: "file:///page.html", name: "page.html", mimeType: "text/html" },
      { type: "resource", uri: "file:///notes.md", mimeType: "text/markdown", text: "notes" }
    ])
    expect(Outcome.structuredOf(outcome)).toEqual({ width: 800, height: 600 })
  })

  it("an isError result's image is kept on the error", async () => {
    const outcome = await Effect.runPromise(Execute.execute(toolset, { id: "c3", name: "web__broken", input: {} }))
    expect(outcome._tag).toBe("Failed")
    expect(outcome.content).toBe("the page did not load\n[image image/png, 16 bytes]")
    expect(Outcome.partsOf(outcome)).toEqual([{ type: "image", mediaType: "image/png", data: png }])
    expect(Outcome.toToolResult(outcome)).toMatchObject({ is_error: true, parts: [{ type: "image" }] })
  })

  it("an image over the part limit is dropped and the text says so", async () => {
    const outcome = await Effect.runPromise(
      Execute.execute(toolset, { id: "c2", name: "web__snapshot", input: {} }, { maxPartBytes: 10 })
    )
    expect(outcome.content.split("\n")).toContain("[image image/png: not shown, more than the 10 bytes allowed]")
    expect(Outcome.partsOf(outcome).map((p) => p.type)).toEqual(["resource_link", "resource"])
  })
})

const Chart = Tool.make("chart", {
  description: "Draws a chart",
  parameters: Schema.Struct({}),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: () => ToolContent.make({ text: "the chart", parts: [{ type: "image", mediaType: "image/png", data: png }] })
})

const Size = Tool.make("size", {
  description: "The size of the page",
  parameters: Schema.Struct({}),
  output: Schema.Struct({ width: Schema.Finite, height: Schema.Finite }),
  run: () => ({ width: 800, height: 600 })
})

describe("a served tool's rich result, through the official client", slow, () => {
  const scope = Scope.makeUnsafe()
  let client: Client
  beforeAll(async () => {
    const listening = await Effect.runPromise(
      Serve.http(Toolset.make(Chart, Size), { port: 0 }).pipe(Scope.provide(scope))
    )
    client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(listening.url)), { timeout: 60_000 })
  }, 120_000)
  afterAll(async () => {
    await client.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }, 60_000)

  it("an image from ToolContent.make is an MCP image block", async () => {
    const result = (await client.callTool({ name: "chart", arguments: {} }, undefined, {
      timeout: 60_000
    })) as CallToolResult
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([
      { type: "text", text: "the chart\n[image image/png, 16 bytes]" },
      { type: "image", data: png, mimeType: "image/png" }
    ])
  })

  it("an output schema is listed as outputSchema and the value sent as structuredContent", async () => {
    const { tools } = await client.listTools(undefined, { timeout: 60_000 })
    const size = tools.find((t) => t.name === "size")
    expect(size?.outputSchema).toMatchObject({
      type: "object",
      properties: { width: { type: "number" }, height: { type: "number" } },
      required: ["width", "height"]
    })
    expect(tools.find((t) => t.name === "chart")?.outputSchema).toBeUndefined()
    // The client checks structuredContent against the listed outputSchema.
    const result = (await client.callTool({ name: "size", arguments: {} }, undefined, {
      timeout: 60_000
    })) as CallToolResult
    expect(result.structuredContent).toEqual({ width: 800, height: 600 })
    expect(JSON.parse((result.content[0] as { readonly text: string }).text)).toEqual({ width: 800, height: 600 })
  })
})
