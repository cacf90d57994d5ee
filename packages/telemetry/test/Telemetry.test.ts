import { Spans } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { ExportResultCode } from "@opentelemetry/core"
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base"
import { Effect } from "effect"
import { Telemetry } from "../src/index.ts"
import * as Receiver from "./fixtures/receiver.ts"

/** Port 9 (discard) on loopback: nothing listens, connections are refused. */
const unreachable = "http://127.0.0.1:9/v1/traces"

/** An exporter that keeps what it is given (the in-memory one forgets on shutdown). */
const recorder = () => {
  const seen: Array<ReadableSpan> = []
  const exporter: SpanExporter = {
    export: (spans, done) => {
      seen.push(...spans)
      done({ code: ExportResultCode.SUCCESS })
    },
    shutdown: () => Promise.resolve()
  }
  return { exporter, seen }
}

const nanos = (): bigint => BigInt(Date.now()) * BigInt(1_000_000)

/** A run's shape: a root span, a child with an event, a grandchild that fails. */
const program = Effect.gen(function* () {
  const span = yield* Effect.currentSpan
  span.event("agent_harness.permission.decided", nanos(), { decision: "allow", rule: "read_*", weight: 2 })
  yield* Effect.annotateCurrentSpan("gen_ai.tool.call.id", "toolu_1")
  yield* Effect.fail("boom").pipe(Effect.withSpan("inner"), Effect.ignore)
}).pipe(
  Effect.withSpan("execute_tool read_file", {
    attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_file" }
  }),
  Effect.withSpan("invoke_agent", {
    attributes: { "gen_ai.operation.name": "invoke_agent", "agent_harness.turns": 3, "agent_harness.ok": true }
  })
)

const protocols: ReadonlyArray<Telemetry.Protocol> = ["http/protobuf", "http/json"]

describe("Telemetry.layer: spans over OTLP to a loopback receiver", () => {
  for (const protocol of protocols) {
    it.live(
      `${protocol}: parents, attributes, events, status and the resource arrive, flushed when the layer closes`,
      () =>
        Effect.gen(function* () {
          const receiver = yield* Effect.promise(() => Receiver.start())
          yield* Effect.addFinalizer(() => Effect.promise(() => receiver.close()))
          yield* program.pipe(
            Effect.provide(
              Telemetry.layer({
                endpoint: receiver.url,
                protocol,
                headers: { "x-api-key": "k1" },
                serviceName: "harness-test",
                resourceAttributes: { "deployment.environment.name": "ci" }
              })
            )
          )
          // No waiting: closing the layer flushed the batch before the program went on.
          const spans = receiver.spans()
          assert.deepStrictEqual(receiver.problems, [])
          assert.deepStrictEqual(
            spans.map((s) => s.name).sort(),
            ["execute_tool read_file", "inner", "invoke_agent"],
            JSON.stringify(spans)
          )
          const byName = new Map(spans.map((s) => [s.name, s]))
          const root = byName.get("invoke_agent")
          const tool = byName.get("execute_tool read_file")
          const inner = byName.get("inner")
          if (root === undefined || tool === undefined || inner === undefined) return assert.fail("a span is missing")
          assert.match(root.traceId, /^[0-9a-f]{32}$/)
          assert.match(root.spanId, /^[0-9a-f]{16}$/)
          assert.isUndefined(root.parentSpanId)
          assert.strictEqual(tool.parentSpanId, root.spanId)
          assert.strictEqual(inner.parentSpanId, tool.spanId)
          assert.strictEqual(tool.traceId, root.traceId)
          assert.strictEqual(inner.traceId, root.traceId)
          assert.strictEqual(root.attributes["gen_ai.operation.name"], "invoke_agent")
          assert.strictEqual(root.attributes["agent_harness.turns"], 3)
          assert.strictEqual(root.attributes["agent_harness.ok"], true)
          assert.strictEqual(tool.attributes["gen_ai.tool.name"], "read_file")
          assert.strictEqual(tool.attributes["gen_ai.tool.call.id"], "toolu_1")
          assert.deepStrictEqual(tool.events, [
            {
              name: "agent_harness.permission.decided",
              attributes: { decision: "allow", rule: "read_*", weight: 2 }
            }
          ])
          assert.strictEqual(root.status.code, 1)
          assert.strictEqual(inner.status.code, 2)
          assert.strictEqual(inner.status.message, "boom")
          for (const span of spans) {
            assert.strictEqual(span.resource["service.name"], "harness-test")
            assert.strictEqual(span.resource["deployment.environment.name"], "ci")
          }
          const contentType = protocol === "http/json" ? "application/json" : "application/x-protobuf"
          assert.isAbove(receiver.requests.length, 0)
          for (const request of receiver.requests) {
            assert.strictEqual(request.contentType, contentType)
            assert.strictEqual(request.headers["x-api-key"], "k1")
          }
        }).pipe(Effect.scoped),
      60_000
    )
  }

  it.live(
    "service.name defaults to agent-harness, or comes from the resource attributes; the options' wins",
    () =>
      Effect.gen(function* () {
        const { exporter, seen } = recorder()
        const run = (options: Partial<Telemetry.Options>) =>
          Effect.void.pipe(
            Effect.withSpan("work"),
            Effect.provide(Telemetry.layer({ endpoint: unreachable, protocol: "http/json", exporter, ...options }))
          )
        yield* run({})
        yield* run({ resourceAttributes: { "service.name": "from-attributes" } })
        yield* run({ serviceName: "named", resourceAttributes: { "service.name": "from-attributes" } })
        assert.deepStrictEqual(
          seen.map((span) => span.resource.attributes["service.name"]),
          ["agent-harness", "from-attributes", "named"]
        )
      }),
    60_000
  )

  it.live(
    "content: true provides Spans.Content for the program; without it the default (false) stays",
    () =>
      Effect.gen(function* () {
        const { exporter } = recorder()
        const base = { endpoint: unreachable, protocol: "http/protobuf", exporter } as const
        const content = Effect.service(Spans.Content)
        const on = yield* Effect.provide(content, Telemetry.layer({ ...base, content: true }))
        const off = yield* Effect.provide(content, Telemetry.layer(base))
        const no = yield* Effect.provide(content, Telemetry.layer({ ...base, content: false }))
        assert.deepStrictEqual([on, off, no], [true, false, false])
      }),
    60_000
  )

  it.live(
    "an endpoint that refuses connections loses the spans but never fails the program",
    () =>
      Effect.gen(function* () {
        const result = yield* Effect.succeed("done").pipe(
          Effect.withSpan("work"),
          Effect.provide(Telemetry.layer({ endpoint: unreachable, protocol: "http/protobuf" }))
        )
        assert.strictEqual(result, "done")
      }),
    60_000
  )
})
