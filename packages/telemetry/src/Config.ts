/**
 * What the standard OpenTelemetry variables ask for: {@link fromEnv} reads `OTEL_*` into the
 * {@link Options} of `Telemetry.layer`, or `undefined` when telemetry is off. This module loads
 * no OpenTelemetry code, so a program can decide whether to load the exporter at all.
 *
 * @since 0.1.0
 */
import type { SpanExporter } from "@opentelemetry/sdk-trace-base"
import { type Cause, Result, Schema } from "effect"
import { parseList } from "./internal/list.ts"

/**
 * The OTLP encodings this package sends: protobuf or JSON over HTTP. gRPC is not supported.
 *
 * @since 0.1.0
 */
export type Protocol = "http/protobuf" | "http/json"

/**
 * How spans are exported.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The OTLP traces URL the spans are posted to (`http://localhost:4318/v1/traces`). */
  readonly endpoint: string
  /** The encoding: `http/protobuf` (the OTLP default) or `http/json`. */
  readonly protocol: Protocol
  /** Headers sent with every export (`Authorization`, an API key). */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** The resource's `service.name` (default `agent-harness`). */
  readonly serviceName?: string | undefined
  /** More resource attributes (`deployment.environment.name`, `service.version`...). */
  readonly resourceAttributes?: Readonly<Record<string, string>> | undefined
  /** Whether spans carry content (messages, arguments, results): provides `Spans.Content`. */
  readonly content?: boolean | undefined
  /** An exporter of your own: used instead of the OTLP one, `endpoint` and `protocol` unused. */
  readonly exporter?: SpanExporter | undefined
  /**
   * Make the current span OpenTelemetry's active context while its Effects run, so libraries
   * instrumented with OpenTelemetry (with a context manager you register) see it as their
   * parent. Off by default: it costs a context at every step of every traced Effect.
   */
  readonly activeContext?: boolean | undefined
}

const ConfigErrorBase: Schema.Class<
  ConfigError,
  Schema.TaggedStruct<
    "ConfigError",
    { readonly variable: Schema.String; readonly value: Schema.String; readonly problem: Schema.String }
  >,
  Cause.YieldableError
> = Schema.TaggedError<ConfigError>()("ConfigError", {
  variable: Schema.String,
  value: Schema.String,
  problem: Schema.String
})

/**
 * A variable that cannot be used: its name, its value as shown (a header's value is never
 * shown: it may be a credential) and what is wrong with it.
 *
 * @since 0.1.0
 */
export class ConfigError extends ConfigErrorBase {
  /** `OTEL_EXPORTER_OTLP_PROTOCOL="grpc": grpc is not supported, use http/protobuf (or http/json)`. */
  override get message(): string {
    return `${this.variable}=${this.value}: ${this.problem}`
  }
}

/**
 * The variables read, as a record of possibly-missing strings (`process.env`, `Deno.env.toObject()`).
 *
 * @since 0.1.0
 */
export type Env = Readonly<Record<string, string | undefined>>

const describe = (value: unknown): string => {
  if (value === null) return "null"
  if (typeof value === "object") return Array.isArray(value) ? "an array" : "an object"
  return `a ${typeof value}`
}

const show = (value: string): string => JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value)

type Read = Result.Result<string | undefined, ConfigError>

/** One variable: `undefined` when missing or empty (the specification's "unset"). */
const read = (env: Env, variable: string): Read => {
  let value: unknown
  try {
    value = (env as Record<string, unknown>)[variable]
  } catch (error) {
    const why = error instanceof Error ? error.message : "it threw"
    return Result.fail(new ConfigError({ variable, value: "(unreadable)", problem: `could not be read: ${why}` }))
  }
  if (value === undefined) return Result.succeed(undefined)
  if (typeof value !== "string")
    return Result.fail(new ConfigError({ variable, value: `(${describe(value)})`, problem: "must be a string" }))
  const trimmed = value.trim()
  return Result.succeed(trimmed === "" ? undefined : trimmed)
}

const boolean = (variable: string, value: string | undefined): Result.Result<boolean, ConfigError> => {
  if (value === undefined) return Result.succeed(false)
  const lower = value.toLowerCase()
  if (lower === "true") return Result.succeed(true)
  if (lower === "false") return Result.succeed(false)
  return Result.fail(new ConfigError({ variable, value: show(value), problem: "must be true or false" }))
}

const url = (variable: string, value: string): Result.Result<string, ConfigError> => {
  let parsed: URL
  try {
    parsed = new URL(value)
  } catch {
    return Result.fail(new ConfigError({ variable, value: show(value), problem: "is not a URL" }))
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    return Result.fail(
      new ConfigError({
        variable,
        value: show(value),
        problem: `must be an http: or https: URL, not ${parsed.protocol}`
      })
    )
  return Result.succeed(value)
}

/** `OTEL_EXPORTER_OTLP_ENDPOINT` + `v1/traces`, one slash between them, query kept. */
const tracesUrl = (base: string): string => {
  const parsed = new URL(base)
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, "")}/v1/traces`
  return parsed.toString()
}

const protocol = (variable: string, value: string): Result.Result<Protocol, ConfigError> => {
  if (value === "http/protobuf" || value === "http/json") return Result.succeed(value)
  if (value === "grpc")
    return Result.fail(
      new ConfigError({
        variable,
        value: show(value),
        problem: "grpc is not supported, use http/protobuf (or http/json)"
      })
    )
  return Result.fail(new ConfigError({ variable, value: show(value), problem: "must be http/protobuf or http/json" }))
}

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

const headers = (variable: string, value: string | undefined): Result.Result<Record<string, string>, ConfigError> => {
  if (value === undefined) return Result.succeed({})
  const parsed = parseList(value)
  if (parsed._tag === "Failure")
    return Result.fail(new ConfigError({ variable, value: "(not shown)", problem: parsed.failure }))
  for (const [name, entry] of Object.entries(parsed.success)) {
    if (!headerName.test(name))
      return Result.fail(
        new ConfigError({ variable, value: "(not shown)", problem: `${JSON.stringify(name)} is not a header name` })
      )
    if (/[\r\n\0]/.test(entry))
      return Result.fail(
        new ConfigError({
          variable,
          value: "(not shown)",
          problem: `the value of ${name} holds a line break or a NUL`
        })
      )
  }
  return Result.succeed(parsed.success)
}

const attributes = (
  variable: string,
  value: string | undefined
): Result.Result<Record<string, string>, ConfigError> => {
  if (value === undefined) return Result.succeed({})
  const parsed = parseList(value)
  return parsed._tag === "Failure"
    ? Result.fail(new ConfigError({ variable, value: show(value), problem: parsed.failure }))
    : Result.succeed(parsed.success)
}

/**
 * The options the standard variables ask for, `undefined` when telemetry is off, or the
 * `ConfigError` of the first variable that cannot be used. Never throws (a throwing getter, a
 * value that is not a string: a `ConfigError`).
 *
 * Off unless an endpoint is set: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the traces URL, used as
 * is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL, `/v1/traces` appended), so nothing is sent
 * to a default `localhost:4318` nobody asked for. Off also with `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none` (`otlp`, or unset, is the only other value). With no endpoint the
 * other variables are not read. Then, the `_TRACES_` variable winning over the general one:
 * `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` (`http/protobuf`, the default, or `http/json`; `grpc`
 * is refused), `OTEL_EXPORTER_OTLP_(TRACES_)HEADERS` (`key=value,key2=value2`, percent-decoded;
 * both are read, the traces one winning per key), `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES` (the same list format) and
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` (`true`: spans carry content).
 *
 * @example
 * ```ts
 * import { Telemetry } from "@agent-harness/telemetry"
 *
 * const options = Telemetry.fromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" })
 * // Success({ endpoint: "http://localhost:4318/v1/traces", protocol: "http/protobuf", ... })
 * ```
 *
 * @since 0.1.0
 */
export const fromEnv = (env: Env): Result.Result<Options | undefined, ConfigError> =>
  Result.gen(function* () {
    const disabled = yield* boolean("OTEL_SDK_DISABLED", yield* read(env, "OTEL_SDK_DISABLED"))
    if (disabled) return undefined
    const exporters = yield* read(env, "OTEL_TRACES_EXPORTER")
    if (exporters !== undefined) {
      const names = exporters.split(",").map((name) => name.trim().toLowerCase())
      if (names.includes("none")) return undefined
      const other = names.find((name) => name !== "otlp")
      if (other !== undefined)
        return yield* Result.fail(
          new ConfigError({
            variable: "OTEL_TRACES_EXPORTER",
            value: show(exporters),
            problem: `${JSON.stringify(other)} is not supported, only otlp (or none)`
          })
        )
    }
    const traces = yield* read(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    const base = traces === undefined ? yield* read(env, "OTEL_EXPORTER_OTLP_ENDPOINT") : undefined
    if (traces === undefined && base === undefined) return undefined
    const endpoint =
      traces !== undefined
        ? yield* url("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", traces)
        : tracesUrl(yield* url("OTEL_EXPORTER_OTLP_ENDPOINT", base ?? ""))
    const tracesProtocol = yield* read(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
    const chosen =
      tracesProtocol !== undefined
        ? yield* protocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", tracesProtocol)
        : yield* protocol(
            "OTEL_EXPORTER_OTLP_PROTOCOL",
            (yield* read(env, "OTEL_EXPORTER_OTLP_PROTOCOL")) ?? "http/protobuf"
          )
    const general = yield* headers("OTEL_EXPORTER_OTLP_HEADERS", yield* read(env, "OTEL_EXPORTER_OTLP_HEADERS"))
    const specific = yield* headers(
      "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
      yield* read(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS")
    )
    const serviceName = yield* read(env, "OTEL_SERVICE_NAME")
    const resourceAttributes = yield* attributes(
      "OTEL_RESOURCE_ATTRIBUTES",
      yield* read(env, "OTEL_RESOURCE_ATTRIBUTES")
    )
    const content = yield* boolean(
      "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
      yield* read(env, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")
    )
    const options: Options = {
      endpoint,
      protocol: chosen,
      headers: { ...general, ...specific },
      serviceName,
      resourceAttributes,
      content
    }
    return options
  })
