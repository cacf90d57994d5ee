/**
 * `harness run`, `test`, `agent` and `mcp serve` export their spans over OTLP when the standard
 * `OTEL_*` variables ask for it: a spawned `harness run` against the telemetry package's loopback
 * receiver, in both encodings; a bad variable is exit 2 naming it; with no endpoint nothing of
 * OpenTelemetry loads.
 */
import process from "node:process"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Receiver from "../../../packages/telemetry/test/fixtures/receiver.ts"
import { harnessAsync } from "./fixtures/harness.ts"

const scenario = "scenarios/en/tool-error.json"
const watch = fileURLToPath(new URL("./fixtures/otel-watch.mjs", import.meta.url))

/** The test process's environment without any OTEL_* variable, plus `extra`. */
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const clean: NodeJS.ProcessEnv = { NO_COLOR: "1" }
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("OTEL_")) clean[key] = value
  return { ...clean, ...extra }
}

const otelModules = (stderr: string): number => {
  const match = /otel-modules: (\d+)/.exec(stderr)
  if (match?.[1] === undefined) return assert.fail(`the watcher did not report:\n${stderr}`)
  return Number(match[1])
}

let receiver: Receiver.Receiver
beforeAll(async () => {
  receiver = await Receiver.start()
})
afterAll(() => receiver.close())

const runs = new Map<string, ReadonlyArray<Receiver.ReceivedSpan>>()

/** `harness run` with the receiver as OTEL_EXPORTER_OTLP_ENDPOINT; the spans of that run (by its service name). */
const exported = async (protocol: string): Promise<ReadonlyArray<Receiver.ReceivedSpan>> => {
  const cached = runs.get(protocol)
  if (cached !== undefined) return cached
  const service = `harness-e2e-${protocol.replace("/", "-")}`
  const r = await harnessAsync(
    ["run", scenario],
    env({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: service,
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=e2e"
    })
  )
  assert.strictEqual(r.code, 0, r.stdout + r.stderr)
  // The command flushed before exiting: the spans are here when it has ended.
  const spans = receiver.spans().filter((span) => span.resource["service.name"] === service)
  runs.set(protocol, spans)
  return spans
}

describe("harness run with OTEL_EXPORTER_OTLP_ENDPOINT: its spans reach the collector", () => {
  for (const protocol of ["http/protobuf", "http/json"]) {
    it(`${protocol}: spans arrive, flushed before exit, with OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES`, async () => {
      const spans = await exported(protocol)
      assert.isAbove(
        spans.length,
        0,
        `no span from this run; all: ${JSON.stringify(receiver.spans().map((s) => s.name))}`
      )
      for (const span of spans) {
        assert.strictEqual(span.resource["deployment.environment.name"], "e2e")
        assert.match(span.traceId, /^[0-9a-f]{32}$/)
      }
      const contentType = protocol === "http/json" ? "application/json" : "application/x-protobuf"
      assert.isTrue(receiver.requests.some((request) => request.contentType === contentType))
      assert.deepStrictEqual(receiver.problems, [])
    }, 60_000)
  }

  // Needs the loop's spans (packages/executor's Spans: invoke_agent, execute_tool {name}); fails
  // until the executor opens them.
  it("the loop's spans: invoke_agent, and execute_tool {name} under it, with gen_ai.operation.name", async () => {
    const spans = await exported("http/protobuf")
    const agent = spans.find((span) => span.name.startsWith("invoke_agent"))
    if (agent === undefined) return assert.fail(`no invoke_agent span; got ${JSON.stringify(spans.map((s) => s.name))}`)
    assert.strictEqual(agent.attributes["gen_ai.operation.name"], "invoke_agent")
    const tools = spans.filter((span) => span.name === "execute_tool read")
    assert.isAbove(tools.length, 0, `no execute_tool read span; got ${JSON.stringify(spans.map((s) => s.name))}`)
    for (const tool of tools) {
      assert.strictEqual(tool.attributes["gen_ai.operation.name"], "execute_tool")
      assert.strictEqual(tool.attributes["gen_ai.tool.name"], "read")
      assert.strictEqual(tool.traceId, agent.traceId)
    }
  }, 60_000)
})

describe("harness run: telemetry off or misconfigured", () => {
  it("no OTEL_* endpoint: no OpenTelemetry module is loaded (and with one, it is: the watcher sees them)", async () => {
    const off = await harnessAsync(
      ["run", scenario],
      env({ NODE_OPTIONS: `--import=${watch}`, OTEL_SERVICE_NAME: "x" })
    )
    assert.strictEqual(off.code, 0, off.stderr)
    assert.strictEqual(otelModules(off.stderr), 0)
    const on = await harnessAsync(
      ["run", scenario],
      env({ NODE_OPTIONS: `--import=${watch}`, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint })
    )
    assert.strictEqual(on.code, 0, on.stderr)
    assert.isAbove(otelModules(on.stderr), 0)
  }, 60_000)

  it("a variable that cannot be used: exit 2, its name and value on stderr, nothing run", async () => {
    const r = await harnessAsync(
      ["run", scenario],
      env({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })
    )
    assert.strictEqual(r.code, 2)
    assert.strictEqual(r.stdout, "")
    assert.include(
      r.stderr,
      'harness run: OTEL_EXPORTER_OTLP_PROTOCOL="grpc": grpc is not supported, use http/protobuf (or http/json)'
    )
    const disabled = await harnessAsync(
      ["run", scenario],
      env({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_SDK_DISABLED: "true",
        OTEL_SERVICE_NAME: "disabled-run"
      })
    )
    assert.strictEqual(disabled.code, 0, disabled.stderr)
    assert.isFalse(receiver.spans().some((span) => span.resource["service.name"] === "disabled-run"))
  }, 60_000)

  it("test, agent and mcp serve are wrapped too: the same exit 2 and message, before anything runs", async () => {
    const bad = env({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" })
    for (const args of [
      ["test", scenario],
      ["agent", "--model", "anthropic:claude-test", "--root", ".", "hi"],
      ["mcp", "serve", "--tools", "files", "--root", "."]
    ]) {
      const r = await harnessAsync(args, bad)
      assert.strictEqual(r.code, 2, `${args.join(" ")}: ${r.stderr}`)
      assert.include(
        r.stderr,
        `harness ${args[0] === "mcp" ? "mcp serve" : args[0]}: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="grpc": grpc is not supported`
      )
    }
  }, 60_000)

  it("harness test exports its scenarios' spans", async () => {
    const r = await harnessAsync(
      ["test", scenario],
      env({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: "harness-e2e-test-command" })
    )
    assert.strictEqual(r.code, 0, r.stdout + r.stderr)
    const spans = receiver.spans().filter((span) => span.resource["service.name"] === "harness-e2e-test-command")
    assert.isAbove(spans.length, 0, JSON.stringify(receiver.spans().map((s) => s.name)))
  }, 60_000)
})
