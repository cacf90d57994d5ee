/**
 * Row 16: telemetry. The loop per tool call with its spans exported through
 * `@agent-harness/telemetry` (an OpenTelemetry `BasicTracerProvider`, a batch processor, every
 * span handed to an exporter), beside the AI SDK doing the same calls with its OpenTelemetry
 * integration (`@ai-sdk/otel`) on a tracer of the same kind of provider; content is off on both
 * (our default; `recordInputs` / `recordOutputs: false` for the AI SDK). And what telemetry
 * off costs: all a run does then is ask, once for the run and once for its calls' context,
 * whether spans are read (`Spans.isTracedBy`: two references); those two checks, timed in
 * batches of 1,000, ÷ the cheapest run there is (the loop with one call, telemetry off).
 */
import { Spans } from "@agent-harness/executor"
import { Telemetry } from "@agent-harness/telemetry"
import { OpenTelemetry } from "@ai-sdk/otel"
import { ExportResultCode } from "@opentelemetry/core"
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import { Effect, Exit, Layer, Scope } from "effect"
import { check } from "./Fixtures.ts"
import { aiSdkFor, many, oursFor } from "./LoopRows.ts"
import * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

/** An exporter that counts the spans it is handed and drops them (the same for both contenders). */
const counting = () => {
  const seen = { spans: 0, names: new Set<string>() }
  const exporter: SpanExporter = {
    export: (spans, done) => {
      seen.spans += spans.length
      for (const span of spans) seen.names.add(span.name)
      done({ code: ExportResultCode.SUCCESS })
    },
    shutdown: () => Promise.resolve(),
    forceFlush: () => Promise.resolve()
  }
  return { exporter, seen }
}

export const measure = async (settings: Measure.Settings, a: number): Promise<ReadonlyArray<Table.Row>> => {
  // Ours: the telemetry layer, built once for the whole row, as a CLI command holds it.
  const ours = counting()
  const scope = Effect.runSync(Scope.make())
  const services = await Effect.runPromise(
    Layer.buildWithScope(
      Telemetry.layer({ endpoint: "http://127.0.0.1:9/v1/traces", protocol: "http/protobuf", exporter: ours.exporter }),
      scope
    )
  )
  const traced = (n: number) => oursFor(n).pipe(Effect.provideContext(services))
  const ours1 = traced(1)
  const oursMany = traced(many)
  const plain1 = oursFor(1)
  const batch = 1000
  const checks = Effect.withFiber((fiber) => {
    let traced = false
    for (let i = 0; i < batch; i++) traced = Spans.isTracedBy(fiber) !== traced
    return Effect.succeed(traced)
  })

  // The AI SDK: its OpenTelemetry integration on a provider of the same kind.
  const theirs = counting()
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(theirs.exporter)] })
  const telemetry = {
    recordInputs: false,
    recordOutputs: false,
    integrations: new OpenTelemetry({ tracer: provider.getTracer("ai") })
  }
  const aiSdk1 = aiSdkFor(1, telemetry)
  const aiSdkMany = aiSdkFor(many, telemetry)

  // Both make the calls and export their spans.
  const run = Effect.runSync(oursMany)
  check(run.stop === "end" && run.turns[0]?.outcomes.length === many, "the traced loop runs 100 calls")
  const sdk = await aiSdkMany()
  check(sdk.steps[0]?.toolResults.length === many, "the traced AI SDK runs 100 calls")
  await Effect.runPromise(Effect.sleep("50 millis"))
  await provider.forceFlush()

  const results = await Measure.run(
    [
      // As the AI SDK's, each run is a promise: the batch processor's exports get their turn.
      { name: "ours.1", fn: () => Effect.runPromise(ours1) },
      { name: "ours.n", fn: () => Effect.runPromise(oursMany) },
      { name: "aisdk.1", fn: aiSdk1 },
      { name: "aisdk.n", fn: aiSdkMany },
      { name: "off.1", fn: () => Effect.runSync(plain1) },
      { name: "checks", fn: () => Effect.runSync(checks) }
    ],
    settings
  )
  await provider.forceFlush()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  check(ours.seen.names.has("invoke_agent") && ours.seen.names.has("execute_tool read"), "our spans were exported")
  check(ours.seen.spans >= many, `our spans were exported (${ours.seen.spans})`)
  check(theirs.seen.spans >= many, `the AI SDK's spans were exported (${theirs.seen.spans})`)

  const perCall = (prefix: string) =>
    (Measure.get(results, `${prefix}.n`) - Measure.get(results, `${prefix}.1`)) / (many - 1)
  const oursPerCall = perCall("ours")
  const theirsPerCall = perCall("aisdk")
  const offCost = (2 * Measure.get(results, "checks")) / batch / Measure.get(results, "off.1")
  return [
    Table.perCall(
      "16",
      "the loop per tool call with telemetry on (its spans through `Telemetry.layer`: OpenTelemetry SDK, batch processor, an exporter), same method as row 3",
      oursPerCall,
      a
    ),
    Table.perCall(
      "16",
      "AI SDK `generateText` per tool call with its OpenTelemetry integration (`@ai-sdk/otel`, same SDK, processor and exporter)",
      theirsPerCall,
      a
    ),
    {
      id: "16",
      label: "AI SDK per call ÷ the loop per call, both with telemetry on",
      value: `×${Table.times(theirsPerCall / oursPerCall)}`,
      target: "≥ 10",
      met: theirsPerCall / oursPerCall >= 10
    },
    {
      id: "16",
      label:
        "telemetry off: what a run adds (two `Spans.isTracedBy` checks, timed in batches of 1,000) ÷ a whole run of the loop with one call",
      value: `${(offCost * 100).toFixed(2)}%`,
      target: "≤ 2%",
      met: offCost <= 0.02
    }
  ]
}
