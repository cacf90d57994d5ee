/**
 * A served tool asks the MCP client that called it (`Caller`), with the official SDK's Client
 * over Streamable HTTP (`Serve.http` on 127.0.0.1) and over stdio (a child like
 * `harness mcp serve`): a client that declares sampling (or elicitation) answers the tool's
 * request; one that does not gets the tool's `is_error` result naming the missing capability;
 * a refusal, a declined form, no answer in time and a hostile answer (off the result schema,
 * or off the requested schema) are the tool's failures, said in words. Outside `Serve` the
 * tool fails with "no MCP client to ask". Over HTTP the request travels on the call's own
 * event stream.
 */
import process from "node:process"
import { fileURLToPath } from "node:url"
import { Execute } from "@agent-harness/executor"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js"
import {
  type CallToolResult,
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  McpError
} from "@modelcontextprotocol/sdk/types.js"
import { Effect, Exit, Scope } from "effect"
import { Caller, Serve } from "../src/index.ts"
import { askUserSchema, callerTools } from "./fixtures/caller-tools.ts"
import { conformanceTools } from "./fixtures/conformance-tools.ts"

const script = fileURLToPath(new URL("./fixtures/serve-caller-stdio.ts", import.meta.url))
// A loaded 2-core machine: starting Node with the SDK and effect can take seconds.
const slow = { timeout: 120_000 }

type Connect = (capabilities: ClientCapabilities) => Promise<Client>

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }) as Promise<CallToolResult>

const textOf = (result: CallToolResult) => result.content.map((b) => (b.type === "text" ? b.text : b.type)).join("")

/** A handler set past the SDK Client's own checks of what it answers: a hostile client. */
const rawHandler = (
  client: Client,
  schema: typeof CreateMessageRequestSchema | typeof ElicitRequestSchema,
  answer: (request: unknown, extra: { readonly signal: AbortSignal }) => unknown
) => Protocol.prototype.setRequestHandler.call(client, schema, answer as never)

const sampled = {
  role: "assistant",
  content: { type: "text", text: "Paris" },
  model: "fake-model",
  stopReason: "endTurn"
}

/** What every transport must do. */
const contract = (connect: Connect) => {
  const clients: Array<Client> = []
  const open = async (capabilities: ClientCapabilities) => {
    const client = await connect(capabilities)
    clients.push(client)
    return client
  }
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()))
  }, 60_000)

  it("a client that declares sampling answers the tool's sampling/createMessage", slow, async () => {
    const client = await open({ sampling: {} })
    const seen: Array<unknown> = []
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      seen.push(request.params)
      return sampled as never
    })
    const result = await call(client, "ask_model", { prompt: "The capital of France?" })
    expect(result.isError).not.toBe(true)
    expect(textOf(result)).toBe("fake-model said: Paris")
    expect(seen).toStrictEqual([
      {
        messages: [{ role: "user", content: { type: "text", text: "The capital of France?" } }],
        systemPrompt: "Answer in one word.",
        maxTokens: 20
      }
    ])
  })

  it(
    "a client that does not declare sampling gets the tool's is_error result naming the capability",
    slow,
    async () => {
      const client = await open({})
      const result = await call(client, "ask_model", { prompt: "hello?" })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toContain(
        "the MCP client did not declare the 'sampling' capability, so it cannot be asked for sampling/createMessage"
      )
    }
  )

  it("an answer off the result schema is the tool's failure, in one bounded line", slow, async () => {
    const client = await open({ sampling: {} })
    // No model, no text, and a megabyte of junk beside them.
    rawHandler(client, CreateMessageRequestSchema, () => ({
      role: "assistant",
      content: { type: "text" },
      junk: "x".repeat(1_000_000)
    }))
    const result = await call(client, "ask_model", { prompt: "hello?" })
    expect(result.isError).toBe(true)
    const text = textOf(result)
    expect(text).toContain("the MCP client's answer to sampling/createMessage is not a valid result:")
    expect(text).toContain("model")
    expect(text.length).toBeLessThan(2_000)
    // The client's next, valid answer is heard as ever.
    rawHandler(client, CreateMessageRequestSchema, () => sampled)
    expect(textOf(await call(client, "ask_model", { prompt: "again" }))).toBe("fake-model said: Paris")
  })

  it("a client that refuses is said to refuse, with its words", slow, async () => {
    const client = await open({ sampling: {} })
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      throw new McpError(-1, "User rejected sampling request")
    })
    const result = await call(client, "ask_model", { prompt: "hello?" })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain(
      "the MCP client refused sampling/createMessage (error -1): User rejected sampling request"
    )
  })

  it("no answer in time: the tool fails saying so, and the client is told to stop", slow, async () => {
    const client = await open({ sampling: {} })
    let aborted: () => void = () => undefined
    const cancelled = new Promise<void>((resolve) => {
      aborted = resolve
    })
    // The SDK's client ignores a cancellation of request id 0 (`if (!requestId) return`): the
    // server's first request is answered, so the one that times out has id 1.
    client.setRequestHandler(CreateMessageRequestSchema, () => sampled as never)
    expect(textOf(await call(client, "ask_model", { prompt: "first" }))).toBe("fake-model said: Paris")
    rawHandler(
      client,
      CreateMessageRequestSchema,
      (_, extra) =>
        new Promise(() => {
          extra.signal.addEventListener("abort", () => aborted())
        })
    )
    const result = await call(client, "ask_quickly")
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain("the MCP client did not answer sampling/createMessage within 300 ms")
    await cancelled
  })

  it(
    "a client that declares elicitation answers the tool's form; what the user submitted is the tool's",
    slow,
    async () => {
      const client = await open({ elicitation: {} })
      const seen: Array<unknown> = []
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        seen.push(request.params)
        return { action: "accept", content: { name: "Ada", age: 36 } }
      })
      const result = await call(client, "ask_user")
      expect(result.isError).not.toBe(true)
      expect(textOf(result)).toBe('the user said {"name":"Ada","age":36}')
      // The requested schema goes through as the tool wrote it.
      expect(seen).toStrictEqual([{ message: "Who are you?", requestedSchema: askUserSchema }])
    }
  )

  it("a form answered off its requested schema is the tool's failure, naming the field", slow, async () => {
    const client = await open({ elicitation: {} })
    rawHandler(client, ElicitRequestSchema, () => ({ action: "accept", content: { age: -3 } }))
    const result = await call(client, "ask_user")
    expect(result.isError).toBe(true)
    const text = textOf(result)
    expect(text).toContain("the MCP client's answer to elicitation/create does not match the requested schema:")
    expect(text).toContain("name")
  })

  it("a declined form is the tool's failure; a client without elicitation is told the capability", slow, async () => {
    const declining = await open({ elicitation: {} })
    declining.setRequestHandler(ElicitRequestSchema, () => ({ action: "decline" }))
    const declined = await call(declining, "ask_user")
    expect(declined.isError).toBe(true)
    expect(textOf(declined)).toContain("the user declined the elicitation")
    const without = await open({ sampling: {} })
    const result = await call(without, "ask_user")
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain("did not declare the 'elicitation' capability")
  })
}

describe("a served tool asks its client, over Streamable HTTP", slow, () => {
  let scope: Scope.Closeable
  let url: string
  beforeAll(async () => {
    scope = await Effect.runPromise(Scope.make())
    ;({ url } = await Effect.runPromise(Scope.provide(Serve.http(callerTools, { port: 0 }), scope)))
  }, 120_000)
  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }, 60_000)

  contract(async (capabilities) => {
    const client = new Client({ name: "test", version: "1.0.0" }, { capabilities })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 60_000 })
    return client
  })

  it("the request travels on the call's own event stream (raw HTTP, no GET stream open)", slow, async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" }
    const init = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: { sampling: {} },
          clientInfo: { name: "raw", version: "1" }
        }
      })
    })
    const session = init.headers.get("mcp-session-id") ?? ""
    expect(session).not.toBe("")
    await init.text()
    const inSession = { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
    await fetch(url, {
      method: "POST",
      headers: inSession,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
    }).then((r) => r.text())
    const answer = await fetch(url, {
      method: "POST",
      headers: inSession,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "ask_model", arguments: { prompt: "hi" } }
      })
    })
    expect(answer.headers.get("content-type")).toContain("text/event-stream")
    if (answer.body === null) throw new Error("the call's answer has no body")
    const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ""
    const next = async (): Promise<{ readonly id?: unknown; readonly method?: unknown; readonly result?: unknown }> => {
      for (;;) {
        const event = /data: (.*)\n\n/.exec(buffer)
        if (event !== null) {
          buffer = buffer.slice(event.index + event[0].length)
          return JSON.parse(event[1] ?? "null")
        }
        const { value, done } = await reader.read()
        if (done) throw new Error(`the call's stream ended; read: ${buffer}`)
        buffer += value
      }
    }
    const request = await next()
    expect(request.method).toBe("sampling/createMessage")
    const posted = await fetch(url, {
      method: "POST",
      headers: inSession,
      body: JSON.stringify({ jsonrpc: "2.0", id: request.id, result: sampled })
    })
    expect(posted.status).toBe(202)
    const result = await next()
    expect(result).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "fake-model said: Paris" }] } })
    await reader.cancel()
  })

  it("the conformance suite's enum and default forms accept the suite's answers", slow, async () => {
    const inner = await Effect.runPromise(Scope.make())
    try {
      const served = await Effect.runPromise(Scope.provide(Serve.http(conformanceTools, { port: 0 }), inner))
      const client = new Client({ name: "test", version: "1.0.0" }, { capabilities: { elicitation: {} } })
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)), { timeout: 60_000 })
      const answers = [
        {
          untitledSingle: "option1",
          titledSingle: "value1",
          legacyEnum: "opt1",
          untitledMulti: ["option1"],
          titledMulti: ["value2"]
        },
        { name: "Jane Smith", age: 25, score: 88, status: "inactive", verified: false }
      ]
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: answers.shift() ?? {} }))
      const enums = await call(client, "test_elicitation_sep1330_enums")
      expect(enums.isError).not.toBe(true)
      expect(textOf(enums)).toContain('"titledMulti":["value2"]')
      const defaults = await call(client, "test_elicitation_sep1034_defaults")
      expect(defaults.isError).not.toBe(true)
      expect(textOf(defaults)).toContain('"name":"Jane Smith"')
      // An answer outside the enum is refused by the tool's own check.
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { status: "retired" } }))
      const off = await call(client, "test_elicitation_sep1034_defaults")
      expect(off.isError).toBe(true)
      expect(textOf(off)).toContain("does not match the requested schema")
      await client.close()
    } finally {
      await Effect.runPromise(Scope.close(inner, Exit.void))
    }
  })
})

describe("a served tool asks its client, over stdio (a child like `harness mcp serve`)", slow, () => {
  contract(async (capabilities) => {
    const client = new Client({ name: "test", version: "1.0.0" }, { capabilities })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [script], stderr: "pipe" }), {
      timeout: 60_000
    })
    return client
  })
})

describe("a tool that asks, run outside Serve", () => {
  it("fails saying there is no MCP client to ask: an is_error observation, never a crash", async () => {
    const outcome = await Effect.runPromise(
      Execute.execute(callerTools, { id: "c1", name: "ask_model", input: { prompt: "hi" } })
    )
    expect(outcome._tag).toBe("Failed")
    expect(outcome.content).toContain("no MCP client to ask (sampling/createMessage)")
    const asked = await Effect.runPromise(
      Effect.flip(Caller.elicit({ message: "?", requestedSchema: { type: "object", properties: {} } }))
    )
    expect(asked).toBeInstanceOf(Caller.CallerError)
    expect(asked.reason).toBe("NoClient")
  })
})
