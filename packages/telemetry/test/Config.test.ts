import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { Telemetry } from "../src/index.ts"

const on = (env: Telemetry.Env): Telemetry.Options => {
  const result = Telemetry.fromEnv(env)
  if (Result.isFailure(result)) return assert.fail(result.failure.message)
  if (result.success === undefined) return assert.fail("telemetry is off")
  return result.success
}

const error = (env: Telemetry.Env): Telemetry.ConfigError => {
  const result = Telemetry.fromEnv(env)
  if (Result.isSuccess(result)) return assert.fail(`no error: ${JSON.stringify(result.success)}`)
  assert.instanceOf(result.failure, Telemetry.ConfigError)
  assert.strictEqual(result.failure._tag, "ConfigError")
  return result.failure
}

const off = (env: Telemetry.Env) => assert.deepStrictEqual(Telemetry.fromEnv(env), Result.succeed(undefined))

const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }

describe("Telemetry.fromEnv: off unless an endpoint is set", () => {
  it("no variables, or only other OTEL_* variables: off (nothing sent to a default localhost:4318)", () => {
    off({})
    off({ OTEL_SERVICE_NAME: "x", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_HEADERS: "bad" })
    off({ OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "  " })
  })

  it("OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it off; false and otlp keep it on", () => {
    off({ ...base, OTEL_SDK_DISABLED: "true" })
    off({ ...base, OTEL_SDK_DISABLED: "TRUE" })
    off({ ...base, OTEL_TRACES_EXPORTER: "none" })
    off({ ...base, OTEL_TRACES_EXPORTER: "otlp,none" })
    assert.strictEqual(on({ ...base, OTEL_SDK_DISABLED: "false" }).endpoint, "http://collector:4318/v1/traces")
    assert.strictEqual(on({ ...base, OTEL_TRACES_EXPORTER: "otlp" }).protocol, "http/protobuf")
  })

  it("OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER: other values are errors naming the variable", () => {
    assert.strictEqual(
      error({ ...base, OTEL_SDK_DISABLED: "yes" }).message,
      'OTEL_SDK_DISABLED="yes": must be true or false'
    )
    const exporter = error({ ...base, OTEL_TRACES_EXPORTER: "zipkin" })
    assert.strictEqual(exporter.variable, "OTEL_TRACES_EXPORTER")
    assert.strictEqual(
      exporter.message,
      'OTEL_TRACES_EXPORTER="zipkin": "zipkin" is not supported, only otlp (or none)'
    )
    assert.strictEqual(error({ ...base, OTEL_TRACES_EXPORTER: "otlp,console" }).variable, "OTEL_TRACES_EXPORTER")
    // Without an endpoint a bad exporter is still an error: it was asked for explicitly.
    assert.strictEqual(error({ OTEL_TRACES_EXPORTER: "jaeger" }).variable, "OTEL_TRACES_EXPORTER")
  })
})

describe("Telemetry.fromEnv: the endpoint", () => {
  it("OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/traces, one slash however it ends; its path and query stay", () => {
    assert.strictEqual(on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }).endpoint, "http://c:4318/v1/traces")
    assert.strictEqual(on({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" }).endpoint, "http://c:4318/v1/traces")
    assert.strictEqual(
      on({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://c.example/otlp//" }).endpoint,
      "https://c.example/otlp/v1/traces"
    )
    assert.strictEqual(
      on({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://c.example/otlp?tenant=a" }).endpoint,
      "https://c.example/otlp/v1/traces?tenant=a"
    )
  })

  it("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is and wins over the base", () => {
    assert.strictEqual(
      on({ ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:1234/custom" }).endpoint,
      "http://t:1234/custom"
    )
  })

  it("a value that is not an http(s) URL: an error naming the variable and the value", () => {
    const bad = error({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318 " })
    assert.strictEqual(bad.variable, "OTEL_EXPORTER_OTLP_ENDPOINT")
    assert.include(bad.message, "collector:4318")
    assert.strictEqual(
      error({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" }).message,
      'OTEL_EXPORTER_OTLP_ENDPOINT="not a url": is not a URL'
    )
    assert.strictEqual(
      error({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "ftp://x/v1/traces" }).message,
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="ftp://x/v1/traces": must be an http: or https: URL, not ftp:'
    )
  })
})

describe("Telemetry.fromEnv: protocol, headers, resource, content", () => {
  it("the protocol: http/protobuf by default, http/json, the traces variable winning", () => {
    assert.strictEqual(on(base).protocol, "http/protobuf")
    assert.strictEqual(on({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }).protocol, "http/json")
    assert.strictEqual(
      on({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" }).protocol,
      "http/json"
    )
  })

  it("grpc and unknown protocols: errors naming the variable", () => {
    assert.strictEqual(
      error({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }).message,
      'OTEL_EXPORTER_OTLP_PROTOCOL="grpc": grpc is not supported, use http/protobuf (or http/json)'
    )
    assert.strictEqual(
      error({ ...base, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" }).variable,
      "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    )
    assert.strictEqual(
      error({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: "http/xml" }).message,
      'OTEL_EXPORTER_OTLP_PROTOCOL="http/xml": must be http/protobuf or http/json'
    )
  })

  it("headers: key=value lists, trimmed, percent-decoded, the traces variable winning per key", () => {
    assert.deepStrictEqual(
      on({
        ...base,
        OTEL_EXPORTER_OTLP_HEADERS: " Authorization = Bearer%20abc%3D%3D , x-tenant=a,,",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-tenant=b"
      }).headers,
      { Authorization: "Bearer abc==", "x-tenant": "b" }
    )
    assert.deepStrictEqual(on(base).headers, {})
  })

  it("malformed headers: errors naming the variable and the entry, never the value (a credential)", () => {
    const noEquals = error({ ...base, OTEL_EXPORTER_OTLP_HEADERS: "a=1,Authorization Bearer secret" })
    assert.strictEqual(noEquals.message, "OTEL_EXPORTER_OTLP_HEADERS=(not shown): entry 2 is not key=value")
    assert.notInclude(noEquals.message, "secret")
    assert.strictEqual(
      error({ ...base, OTEL_EXPORTER_OTLP_TRACES_HEADERS: "=v" }).message,
      "OTEL_EXPORTER_OTLP_TRACES_HEADERS=(not shown): entry 1 is not key=value"
    )
    assert.strictEqual(
      error({ ...base, OTEL_EXPORTER_OTLP_HEADERS: "k=%E0%A4%A" }).message,
      "OTEL_EXPORTER_OTLP_HEADERS=(not shown): entry 1 is not valid percent-encoding"
    )
    assert.strictEqual(
      error({ ...base, OTEL_EXPORTER_OTLP_HEADERS: "bad%20name=v" }).message,
      'OTEL_EXPORTER_OTLP_HEADERS=(not shown): "bad name" is not a header name'
    )
    assert.strictEqual(
      error({ ...base, OTEL_EXPORTER_OTLP_HEADERS: "k=a%0D%0AX-Injected: 1" }).message,
      "OTEL_EXPORTER_OTLP_HEADERS=(not shown): the value of k holds a line break or a NUL"
    )
  })

  it("OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (percent-decoded; a bad one names the variable)", () => {
    const options = on({
      ...base,
      OTEL_SERVICE_NAME: "my-agent",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=prod,team=a%2Cb,__proto__=x"
    })
    assert.strictEqual(options.serviceName, "my-agent")
    assert.deepStrictEqual(Object.entries(options.resourceAttributes ?? {}), [
      ["deployment.environment.name", "prod"],
      ["team", "a,b"],
      ["__proto__", "x"]
    ])
    assert.strictEqual(on(base).serviceName, undefined)
    assert.strictEqual(
      error({ ...base, OTEL_RESOURCE_ATTRIBUTES: "a=1,b" }).message,
      'OTEL_RESOURCE_ATTRIBUTES="a=1,b": entry 2 is not key=value'
    )
  })

  it("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: true turns content on; other words are errors", () => {
    const variable = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
    assert.strictEqual(on({ ...base, [variable]: "true" }).content, true)
    assert.strictEqual(on({ ...base, [variable]: "false" }).content, false)
    assert.strictEqual(on(base).content, false)
    assert.strictEqual(error({ ...base, [variable]: "1" }).message, `${variable}="1": must be true or false`)
  })
})

describe("Telemetry.fromEnv: hostile input never escapes", () => {
  it("a throwing getter, a value that is not a string, a null env: a ConfigError naming the variable", () => {
    const throwing = new Proxy(
      {},
      {
        get: (_target, key) => {
          if (key === "OTEL_EXPORTER_OTLP_HEADERS") throw new Error("no access")
          return key === "OTEL_EXPORTER_OTLP_ENDPOINT" ? "http://c:4318" : undefined
        }
      }
    )
    assert.strictEqual(error(throwing).message, "OTEL_EXPORTER_OTLP_HEADERS=(unreadable): could not be read: no access")
    const numbers = { OTEL_EXPORTER_OTLP_ENDPOINT: 4318 } as unknown as Telemetry.Env
    assert.strictEqual(error(numbers).message, "OTEL_EXPORTER_OTLP_ENDPOINT=(a number): must be a string")
    const objects = { ...base, OTEL_SERVICE_NAME: { toString: () => "x" } } as unknown as Telemetry.Env
    assert.strictEqual(error(objects).message, "OTEL_SERVICE_NAME=(an object): must be a string")
    assert.strictEqual(error(null as unknown as Telemetry.Env).variable, "OTEL_SDK_DISABLED")
  })

  it("a huge value is shown cut short", () => {
    const bad = error({ OTEL_EXPORTER_OTLP_ENDPOINT: `x${"y".repeat(100_000)}` })
    assert.isBelow(bad.message.length, 400)
  })
})
