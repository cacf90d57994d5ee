/**
 * The spans of agent-harness runs (`invoke_agent`, `chat {model}`, `execute_tool {name}`, a plan
 * session's `invoke_workflow`: the executor's `Spans`, named after the OpenTelemetry GenAI
 * semantic conventions) exported over OTLP. {@link layer} installs an OpenTelemetry tracer
 * behind Effect's (`@effect/opentelemetry`), a `BasicTracerProvider` with a batch processor over
 * the official OTLP exporter, and flushes and shuts it down when its scope closes, so a
 * command's last spans are sent before it exits. {@link fromEnv} reads the standard `OTEL_*`
 * variables. The core never imports this package.
 *
 * @since 0.1.0
 */
import { Spans } from "@agent-harness/executor"
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import * as Resource from "@effect/opentelemetry/Resource"
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer, Tracer } from "effect"
import type { Options } from "./Config.ts"

export {
  /**
   * A variable that cannot be used: its name, its value as shown and what is wrong with it.
   *
   * @since 0.1.0
   */
  ConfigError,
  /**
   * The variables read, as a record of possibly-missing strings.
   *
   * @since 0.1.0
   */
  type Env,
  /**
   * The options the standard `OTEL_*` variables ask for, `undefined` when telemetry is off.
   *
   * @since 0.1.0
   */
  fromEnv,
  /**
   * How spans are exported.
   *
   * @since 0.1.0
   */
  type Options,
  /**
   * `http/protobuf` or `http/json`.
   *
   * @since 0.1.0
   */
  type Protocol
} from "./Config.ts"

/** The `service.name` when neither the options nor the resource attributes give one. @since 0.1.0 */
export const defaultServiceName: string = "agent-harness"

/** How long closing the layer waits for the last spans to be sent: 5 seconds. @since 0.1.0 */
export const shutdownTimeout: number = 5_000

const exporterFor = (options: Options): SpanExporter => {
  if (options.exporter !== undefined) return options.exporter
  const config = { url: options.endpoint, headers: { ...options.headers } }
  return options.protocol === "http/json" ? new JsonExporter(config) : new ProtobufExporter(config)
}

const provider = (options: Options): Layer.Layer<OtelTracer.OtelTracerProvider, never, Resource.Resource> =>
  Layer.effect(
    OtelTracer.OtelTracerProvider,
    Effect.gen(function* () {
      const resource = yield* Resource.Resource
      return yield* Effect.acquireRelease(
        Effect.sync(
          () => new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporterFor(options))] })
        ),
        (tracerProvider) =>
          Effect.promise(() => tracerProvider.forceFlush().finally(() => tracerProvider.shutdown())).pipe(
            Effect.ignore,
            Effect.interruptible,
            Effect.timeoutOption(shutdownTimeout)
          )
      )
    })
  )

/**
 * Effect's tracer making OpenTelemetry spans, without making the current span OpenTelemetry's
 * active context at each step of every Effect under it (what `OtelTracer.layer` does, for
 * OpenTelemetry-instrumented libraries, at the price of a context per step: it made a traced
 * tool call ×10 dearer in the bench).
 */
const spansOnly: Layer.Layer<OtelTracer.OtelTracer, never, OtelTracer.OtelTracerProvider> = Layer.effect(
  Tracer.Tracer,
  Effect.map(OtelTracer.make, (made) => Tracer.make({ span: (options) => made.span(options) }))
).pipe(Layer.provideMerge(OtelTracer.layerTracer))

/**
 * Effect's tracer backed by OpenTelemetry for as long as the layer lives: every
 * `Effect.withSpan` span (the loop's, a plan session's, yours) is batched and posted to
 * `options.endpoint` in `options.protocol` (or given to `options.exporter`), with a resource of
 * `service.name` (`options.serviceName`, else a `service.name` in `resourceAttributes`, else
 * `agent-harness`) and `resourceAttributes`. Closing the layer's scope flushes what is left and
 * shuts the provider down (waiting at most {@link shutdownTimeout}; an endpoint that cannot be
 * reached loses its spans, never fails the program). `content: true` also provides
 * `Spans.Content`: spans carry messages, arguments and results. Nothing is registered globally.
 *
 * @example
 * ```ts
 * import { Telemetry } from "@agent-harness/telemetry"
 * import { Effect } from "effect"
 *
 * const program = Effect.succeed(1).pipe(Effect.withSpan("work"))
 * const traced = program.pipe(
 *   Effect.provide(Telemetry.layer({ endpoint: "http://localhost:4318/v1/traces", protocol: "http/protobuf" }))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<never> => {
  const attributes = { ...options.resourceAttributes }
  const serviceName = options.serviceName ?? attributes["service.name"] ?? defaultServiceName
  const tracer = options.activeContext === true ? OtelTracer.layer : spansOnly
  const tracing = tracer.pipe(
    Layer.provide(provider(options)),
    Layer.provide(Resource.layer({ serviceName, attributes }))
  )
  return options.content === true ? Layer.merge(tracing, Layer.succeed(Spans.Content, true)) : tracing
}
