import { createServer } from "node:http"
import { Execute, type Outcome, Progress } from "@agent-harness/executor"
import type { Toolset } from "@agent-harness/tool-schema"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option, References, Scope, Tracer } from "effect"
import { Mount, Serve } from "../src/index.ts"
import * as TraceContext from "../src/internal/TraceContext.ts"
import { answerStateless, serveHttp } from "./fixtures/sdk-http.ts"
import { tools } from "./fixtures/tools.ts"

// A loaded 2-core machine: starting servers and clients can take seconds.
const slow = { timeout: 120_000 }

/** A tracer that keeps every span it opens (no OpenTelemetry). */
const capture = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}

const named = (spans: ReadonlyArray<Tracer.NativeSpan>, name: string): Tracer.NativeSpan => {
  const found = spans.find((span) => span.name === name)
  if (found === undefined) throw new Error(`no span '${name}' among ${spans.map((s) => s.name).join(", ")}`)
  return found
}

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
const spanId = "00f067aa0ba902b7"
const valid = `00-${traceId}-${spanId}-01`

describe("TraceContext.parse", () => {
  it("reads a valid traceparent, its sampled flag and a tracestate", () => {
    expect(TraceContext.parse({ traceparent: valid, tracestate: "vendor=abc" })).toStrictEqual({
      traceId,
      spanId,
      sampled: true,
      traceState: "vendor=abc"
    })
    expect(TraceContext.parse({ traceparent: `00-${traceId}-${spanId}-00` })?.sampled).toBe(false)
  })

  const throwing = Object.defineProperty({}, "traceparent", {
    get() {
      throw new Error("hostile getter")
    }
  })
  const hostile: ReadonlyArray<readonly [string, unknown]> = [
    ["version ff", `ff-${traceId}-${spanId}-01`],
    ["version 01", `01-${traceId}-${spanId}-01`],
    ["an all-zero trace id", `00-${"0".repeat(32)}-${spanId}-01`],
    ["an all-zero span id", `00-${traceId}-${"0".repeat(16)}-01`],
    ["a short trace id", `00-${traceId.slice(1)}-${spanId}-01`],
    ["a long span id", `00-${traceId}-${spanId}a-01`],
    ["uppercase", valid.toUpperCase()],
    ["no flags", `00-${traceId}-${spanId}`],
    ["a trailing part", `${valid}-extra`],
    ["a number", 42],
    ["an object", { traceId, spanId }],
    ["a huge string", `00-${"a".repeat(1_000_000)}`]
  ]
  for (const [what, traceparent] of hostile) {
    it(`ignores ${what}`, () => {
      expect(TraceContext.parse({ traceparent })).toBeUndefined()
    })
  }

  it("ignores a getter that throws, a proxy that throws and a meta that is not an object", () => {
    const proxy = new Proxy(
      {},
      {
        get() {
          throw new Error("hostile proxy")
        }
      }
    )
    expect(TraceContext.parse(throwing)).toBeUndefined()
    expect(TraceContext.parse(proxy)).toBeUndefined()
    expect(TraceContext.parse(null)).toBeUndefined()
    expect(TraceContext.parse("00")).toBeUndefined()
  })

  it("keeps the traceparent and drops a tracestate that is too long, not text, or throws", () => {
    const long = TraceContext.parse({ traceparent: valid, tracestate: `a=${"b".repeat(600)}` })
    expect(long?.traceId).toBe(traceId)
    expect(long?.traceState).toBeUndefined()
    expect(TraceContext.parse({ traceparent: valid, tracestate: "a=\n" })?.traceState).toBeUndefined()
    const getter = Object.defineProperty({ traceparent: valid }, "tracestate", {
      get() {
        throw new Error("hostile getter")
      }
    })
    expect(TraceContext.parse(getter)).toStrictEqual({ traceId, spanId, sampled: true, traceState: undefined })
  })
})

describe("TraceContext.outgoing", () => {
  it.effect("names the current span, and passes on the tracestate of a remote parent in its trace", () =>
    Effect.gen(function* () {
      const parent = TraceContext.externalSpan({ traceId, spanId, sampled: true, traceState: "v=1" })
      const [meta, span] = yield* Effect.all([TraceContext.outgoing, Effect.currentSpan]).pipe(
        Effect.withSpan("inner"),
        Effect.withParentSpan(parent)
      )
      expect(span.traceId).toBe(traceId)
      expect(meta).toStrictEqual({ traceparent: `00-${traceId}-${span.spanId}-01`, tracestate: "v=1" })
    })
  )

  it.effect("sends nothing without a span, with tracing disabled, or for ids that are not W3C's", () =>
    Effect.gen(function* () {
      expect(yield* TraceContext.outgoing).toStrictEqual({})
      const disabled = yield* TraceContext.outgoing.pipe(
        Effect.withSpan("off"),
        Effect.provideService(References.TracerEnabled, false)
      )
      expect(disabled).toStrictEqual({})
      const odd = yield* TraceContext.outgoing.pipe(
        Effect.withParentSpan(Tracer.externalSpan({ traceId: "trace-456", spanId: "span-123" }))
      )
      expect(odd).toStrictEqual({})
      const upper = yield* TraceContext.outgoing.pipe(
        Effect.withParentSpan(Tracer.externalSpan({ traceId: traceId.toUpperCase(), spanId }))
      )
      expect(upper).toStrictEqual({})
    })
  )
})

/** The official SDK's McpServer with a tool that says nothing and keeps the `_meta` of each call. */
const recordingServer = (received: Array<Record<string, unknown>>) => () => {
  const server = new McpServer({ name: "recording", version: "1.0.0" })
  server.registerTool("meta", { description: "Keeps the call's _meta", inputSchema: {} }, async (_args, extra) => {
    received.push({ ...(extra._meta ?? {}) })
    return { content: [{ type: "text", text: "ok" }] }
  })
  return server
}

const mountIn = async (server: Mount.Server) => {
  const scope = Scope.makeUnsafe()
  const mounted = await Effect.runPromise(
    Mount.mount(server, { connectTimeout: 60_000, prefix: "fx" }).pipe(Scope.provide(scope))
  )
  return { mounted, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

describe("a mounted tool's call carries the current span", slow, () => {
  const received: Array<Record<string, unknown>> = []
  let remote: Awaited<ReturnType<typeof serveHttp>>
  let mount: Awaited<ReturnType<typeof mountIn>>
  beforeAll(async () => {
    remote = await serveHttp(createServer(answerStateless(recordingServer(received))))
    mount = await mountIn(Mount.http(remote.url))
  }, 60_000)
  afterAll(async () => {
    await mount.close()
    await remote.close()
  }, 60_000)

  const call = (wrap: (self: Effect.Effect<Outcome.Outcome>) => Effect.Effect<Outcome.Outcome>) =>
    Effect.runPromise(
      Execute.execute(mount.mounted.toolset as Toolset.Toolset<never>, { id: "c1", name: "fx__meta", input: {} }).pipe(
        wrap
      )
    )

  it("sends _meta.traceparent naming the span it runs in, and keeps the progress token and call id", async () => {
    received.length = 0
    const { spans, tracer } = capture()
    const outcome = await call((self) =>
      self.pipe(
        Effect.withSpan("outer"),
        Effect.provideService(Progress.Reporter, () => Effect.void),
        Effect.provideService(Tracer.Tracer, tracer)
      )
    )
    expect(outcome._tag).toBe("Succeeded")
    const outer = named(spans, "outer")
    // The executor's `execute_tool` span is the current one while the tool runs.
    const tool = named(spans, "execute_tool fx__meta")
    expect(tool.traceId).toBe(outer.traceId)
    expect(received).toHaveLength(1)
    const meta = received[0] as Record<string, unknown>
    expect(meta.traceparent).toBe(`00-${outer.traceId}-${tool.spanId}-01`)
    expect(meta.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    expect(meta.tracestate).toBeUndefined()
    expect(typeof meta.progressToken).toBe("string")
    expect(meta[Serve.callIdKey]).toBe("c1")
  })

  it("sends no traceparent when tracing is disabled", async () => {
    received.length = 0
    const { tracer } = capture()
    await call((self) =>
      self.pipe(
        Effect.withSpan("outer"),
        Effect.provideService(Tracer.Tracer, tracer),
        Effect.provideService(References.TracerEnabled, false)
      )
    )
    expect(received).toHaveLength(1)
    expect(received[0]).not.toHaveProperty("traceparent")
    expect(received[0]?.[Serve.callIdKey]).toBe("c1")
  })

  it("sends no traceparent outside any span", async () => {
    received.length = 0
    await call((self) => self)
    expect(received).toHaveLength(1)
    expect(received[0]).not.toHaveProperty("traceparent")
  })
})

/** Our server over HTTP in a scope of its own, its spans kept by a test tracer. */
const serveTraced = async () => {
  const scope = Scope.makeUnsafe()
  const { spans, tracer } = capture()
  const listening = await Effect.runPromise(
    Serve.http(tools, { port: 0 }).pipe(Effect.provideService(Tracer.Tracer, tracer), Scope.provide(scope))
  )
  return { spans, listening, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

describe("our served server continues the caller's trace", slow, () => {
  let server: Awaited<ReturnType<typeof serveTraced>>
  let client: Client
  beforeAll(async () => {
    server = await serveTraced()
    client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.listening.url)), { timeout: 60_000 })
  }, 60_000)
  afterAll(async () => {
    await client.close()
    await server.close()
  }, 60_000)

  const callRead = async (meta: Record<string, unknown>) => {
    server.spans.length = 0
    const result = await client.callTool({ name: "read", arguments: { path: "a" }, _meta: meta })
    expect(result.isError).toBe(false)
    expect(result.content).toStrictEqual([{ type: "text", text: "contents of a" }])
    return named(server.spans, "execute_tool read")
  }

  it("opens the call's execute_tool span under the traceparent the official SDK Client sent", async () => {
    const span = await callRead({ traceparent: valid, [Serve.callIdKey]: "id-7" })
    expect(span.traceId).toBe(traceId)
    const parent = Option.getOrUndefined(span.parent)
    expect(parent?._tag).toBe("ExternalSpan")
    expect(parent?.spanId).toBe(spanId)
    expect(span.sampled).toBe(true)
    expect(span.attributes.get("gen_ai.operation.name")).toBe("execute_tool")
    expect(span.attributes.get("gen_ai.tool.name")).toBe("read")
    expect(span.attributes.get("gen_ai.tool.call.id")).toBe("id-7")
  })

  it("keeps the unsampled flag", async () => {
    const span = await callRead({ traceparent: `00-${traceId}-${spanId}-00` })
    expect(Option.getOrUndefined(span.parent)?.sampled).toBe(false)
  })

  const hostile: ReadonlyArray<readonly [string, unknown]> = [
    ["version ff", `ff-${traceId}-${spanId}-01`],
    ["an all-zero trace id", `00-${"0".repeat(32)}-${spanId}-01`],
    ["an all-zero span id", `00-${traceId}-${"0".repeat(16)}-01`],
    ["wrong lengths", `00-${traceId}a-${spanId}-01`],
    ["uppercase", `00-${traceId.toUpperCase()}-${spanId.toUpperCase()}-01`],
    ["a number", 7],
    ["an array", [valid]],
    ["a huge string", `00-${"a".repeat(200_000)}`]
  ]
  for (const [what, traceparent] of hostile) {
    it(`answers as usual and starts a new trace for ${what}`, async () => {
      const span = await callRead({ traceparent })
      expect(span.traceId).not.toBe(traceId)
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/)
      expect(Option.isNone(span.parent)).toBe(true)
    })
  }
})

describe("end to end: our client to our server", slow, () => {
  it("the server's execute_tool span is in the client's trace, under the client's span", async () => {
    const server = await serveTraced()
    const mount = await mountIn(Mount.http(server.listening.url))
    try {
      const { spans, tracer } = capture()
      const outcome = await Effect.runPromise(
        Execute.execute(mount.mounted.toolset as Toolset.Toolset<never>, {
          id: "e2e",
          name: "fx__read",
          input: { path: "b" }
        }).pipe(Effect.withSpan("outer"), Effect.provideService(Tracer.Tracer, tracer))
      )
      expect(outcome._tag).toBe("Succeeded")
      const outer = named(spans, "outer")
      const clientTool = named(spans, "execute_tool fx__read")
      const served = named(server.spans, "execute_tool read")
      expect(served.traceId).toBe(outer.traceId)
      expect(Option.getOrUndefined(served.parent)?.spanId).toBe(clientTool.spanId)
      // The client's call id travels too: the served span names it.
      expect(served.attributes.get("gen_ai.tool.call.id")).toBe("e2e")
    } finally {
      await mount.close()
      await server.close()
    }
  })
})
