/**
 * Rows 14a and 14b (issue 22): streaming. One mock provider for both systems, a
 * `LanguageModelV4` whose `doStream` gives a `ReadableStream` of the same parts: a text block of
 * n deltas, then a `read` call whose JSON arguments come in n fragments (cut inside strings and
 * escapes), its `tool-call`, the finish. The harness reads it through `AiSdkModel` (its
 * `stream`, the provider's `doStream`) and `Loop.stream`; the AI SDK through `streamText` with
 * the same tool (zod schema, `execute`). Each side runs the call, stops after that one turn
 * (`maxTurns: 1`, `stopWhen: isStepCount(1)`), and the same consumer — a `for await` counting
 * the events by kind — reads every event to the end.
 *
 * - 14a: the cost per chunk, a reply of 100 text deltas and 100 argument fragments minus a reply
 *   of 1 and 1, divided by the 198 chunks more: what each system does from a chunk arriving to
 *   its event reaching the consumer, nothing subtracted by hand.
 * - 14b: the time from the mock enqueueing its first text chunk (the provider's first byte,
 *   arriving while the system waits for it) to the consumer receiving its text event, median of
 *   many samples.
 *
 * A `ref` row gives 14a's harness side again with no request timeout
 * (`requestTimeout: Duration.infinity`): `AiSdkModel`'s stream bounds the whole stream with one
 * timer, so the two should cost the same. Run these rows alone with `pnpm bench --only stream`.
 */
import { AiSdkModel } from "@agent-harness/ai-sdk"
import { Loop, Message, Model } from "@agent-harness/executor"
import { isStepCount, streamText, tool } from "ai"
import { Duration, Layer, Stream } from "effect"
import { z } from "zod"
import { check, toolset } from "./Fixtures.ts"
import * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

type LanguageModelV4 = Parameters<typeof AiSdkModel.make>[0]
type StreamResult = Awaited<ReturnType<LanguageModelV4["doStream"]>>
type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never

const many = 100
const prompt = "Read the notes."
const opening: ReadonlyArray<Message.Message> = [Message.user(prompt)]

/** The call's input: a path with quotes, a backslash and non-ASCII text, so fragments cut escapes. */
const input = { path: `notes/"salmorejo" \\ señor ${"ñ".repeat(60)} ${"x".repeat(60)}.txt`, limit: 4096 }
const inputJson = JSON.stringify(input)

/** `text` cut into `n` consecutive pieces of (nearly) equal length. */
const cut = (text: string, n: number): ReadonlyArray<string> =>
  Array.from({ length: n }, (_, i) =>
    text.slice(Math.floor((i * text.length) / n), Math.floor(((i + 1) * text.length) / n))
  )

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined }
}

/** The text block's parts (start, n deltas, end). */
const textParts = (n: number): ReadonlyArray<StreamPart> => [
  { type: "text-start", id: "t1" },
  ...Array.from({ length: n }, (_, i): StreamPart => ({ type: "text-delta", id: "t1", delta: `word${i} ` })),
  { type: "text-end", id: "t1" }
]

/** The call's parts (start, n argument fragments, end, the whole call) and the finish. */
const callParts = (n: number): ReadonlyArray<StreamPart> => [
  { type: "tool-input-start", id: "c1", toolName: "read" },
  ...cut(inputJson, n).map((delta): StreamPart => ({ type: "tool-input-delta", id: "c1", delta })),
  { type: "tool-input-end", id: "c1" },
  { type: "tool-call", toolCallId: "c1", toolName: "read", input: inputJson },
  { type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_use" } }
]

/** A provider whose `doStream` gives `stream()`, a fresh `ReadableStream` per request. */
const provider = (stream: () => ReadableStream<StreamPart>): LanguageModelV4 => ({
  specificationVersion: "v4",
  provider: "bench.stream",
  modelId: "stream",
  supportedUrls: {},
  doGenerate: () => Promise.reject(new Error("not used: the rows stream")),
  doStream: () => Promise.resolve({ stream: stream() })
})

/** Every part at once (an instant provider): what is timed is the systems alone. */
const instant = (n: number): LanguageModelV4 => {
  const parts: ReadonlyArray<StreamPart> = [{ type: "stream-start", warnings: [] }, ...textParts(n), ...callParts(n)]
  return provider(
    () =>
      new ReadableStream<StreamPart>({
        start: (controller) => {
          for (const part of parts) controller.enqueue(part)
          controller.close()
        }
      })
  )
}

/**
 * A provider that sends `stream-start` at once, its first text chunk a few milliseconds later
 * (calling `firstByte` just before it enqueues it), the rest a few milliseconds after that.
 */
const paced = (firstByte: () => void): LanguageModelV4 =>
  provider(() => {
    const [start, first, ...text] = textParts(1)
    return new ReadableStream<StreamPart>({
      start: (controller) => {
        controller.enqueue({ type: "stream-start", warnings: [] })
        setTimeout(() => {
          firstByte()
          controller.enqueue(start as StreamPart)
          controller.enqueue(first as StreamPart)
          setTimeout(() => {
            for (const part of [...text, ...callParts(1)]) controller.enqueue(part)
            controller.close()
          }, 2)
        }, 2)
      }
    })
  })

/** What the consumer saw: events by kind. */
type Counts = ReadonlyMap<string, number>

/**
 * The consumer both systems are read by: every event, to the end, counted by kind; `onText`
 * called at the first event of kind `text`.
 */
const consume = async (
  events: AsyncIterable<{ readonly type: string }>,
  text: string,
  onText?: () => void
): Promise<Counts> => {
  const counts = new Map<string, number>()
  let first = onText
  for await (const event of events) {
    if (event.type === text && first !== undefined) {
      first()
      first = undefined
    }
    counts.set(event.type, (counts.get(event.type) ?? 0) + 1)
  }
  return counts
}

const count = (counts: Counts, kind: string): number => counts.get(kind) ?? 0

// The harness: AiSdkModel's stream, Loop.stream, the events as an AsyncIterable.

/** `AiSdkModel`'s options for a row: its defaults, or no request timeout at all. */
type Timeout = "default" | "none"

const optionsFor = (timeout: Timeout): AiSdkModel.Options | undefined =>
  timeout === "none" ? { requestTimeout: Duration.infinity } : undefined

/** The loop's model over `model`: `AiSdkModel`, whose `stream` reads the provider's `doStream`. */
const modelOf = (model: LanguageModelV4, timeout: Timeout): Model.Shape => {
  const adapter = AiSdkModel.make(model, optionsFor(timeout))
  check(adapter.stream !== undefined, "AiSdkModel streams a model that has doStream")
  return adapter
}

const oursEvents =
  (timeout: Timeout) =>
  (model: LanguageModelV4): AsyncIterable<Loop.Event> =>
    Stream.toAsyncIterable(
      Loop.stream({ toolset, messages: opening, maxTurns: 1 }).pipe(
        Stream.provide(Layer.succeed(Model.Model, modelOf(model, timeout)))
      )
    )

// The AI SDK: streamText with the same tool, one step.

const aiRead = tool({
  description: "Reads up to `limit` bytes of a file",
  inputSchema: z.object({ path: z.string(), limit: z.number() }),
  execute: ({ path }) => `contents of ${path}`
})

const aiSdkEvents = (model: LanguageModelV4): AsyncIterable<{ readonly type: string }> =>
  streamText({ model, tools: { read: aiRead }, prompt, stopWhen: isStepCount(1) }).fullStream

const oursText = "text.delta"
const aiSdkText = "text-delta"

/** Checks, before anything is timed, that both systems streamed the reply of n chunks and ran the call. */
const checkBoth = async (n: number, timeout: Timeout): Promise<void> => {
  const ours = await consume(oursEvents(timeout)(instant(n)), oursText)
  check(count(ours, oursText) === n, `the loop shows the ${n} text deltas`)
  check(count(ours, "call.delta") === n, `the loop shows the ${n} argument fragments`)
  check(count(ours, "call.answered") === 1 && count(ours, "run.ended") === 1, "the loop answers the call and ends")
  const sdk = await consume(aiSdkEvents(instant(n)), aiSdkText)
  check(count(sdk, aiSdkText) === n, `the AI SDK shows the ${n} text deltas`)
  check(count(sdk, "tool-input-delta") === n, `the AI SDK shows the ${n} argument fragments`)
  check(count(sdk, "tool-result") === 1, "the AI SDK runs the call")
}

/** The loop's answer to the call, as the consumer receives it: the tool ran with the whole input. */
const checkOutcome = async (): Promise<void> => {
  let answered: Loop.Event | undefined
  for await (const event of oursEvents("default")(instant(many))) if (event.type === "call.answered") answered = event
  check(
    answered?.type === "call.answered" &&
      answered.outcome._tag === "Succeeded" &&
      answered.outcome.content === `contents of ${input.path}`,
    "the loop runs the call with its whole arguments"
  )
}

type Events = (model: LanguageModelV4) => AsyncIterable<{ readonly type: string }>

/** One sample of 14b: ns from the first text chunk enqueued to the consumer's first text event. */
const firstText = async (events: Events, text: string): Promise<number> => {
  let sent = Number.NaN
  let seen = Number.NaN
  await consume(
    events(
      paced(() => {
        sent = performance.now()
      })
    ),
    text,
    () => {
      seen = performance.now()
    }
  )
  return (seen - sent) * 1e6
}

/** Samples of 14b for both systems, interleaved, after a warm-up: their medians, ns. */
const firstTexts = async (samples: number): Promise<{ readonly ours: number; readonly aiSdk: number }> => {
  const ours: Array<number> = []
  const aiSdk: Array<number> = []
  for (let i = -20; i < samples; i++) {
    const o = await firstText(oursEvents("default"), oursText)
    const a = await firstText(aiSdkEvents, aiSdkText)
    if (i >= 0) {
      ours.push(o)
      aiSdk.push(a)
    }
  }
  check(ours.every(Number.isFinite) && aiSdk.every(Number.isFinite), "every sample saw its first text event")
  return { ours: Measure.median(ours), aiSdk: Measure.median(aiSdk) }
}

/** A ratio's row with its target, "at least `target`". */
const atLeast = (id: string, label: string, ratio: number, target: number): Table.Row => {
  const value = `×${Table.times(ratio)}`
  return { id, label, value, target: `≥ ${target}`, met: ratio >= target }
}

/** Rows 14a and 14b. */
export const measure = async (settings: Measure.Settings): Promise<ReadonlyArray<Table.Row>> => {
  for (const n of [1, many]) for (const timeout of ["default", "none"] as const) await checkBoth(n, timeout)
  await checkOutcome()
  const run = (events: Events, text: string, n: number) => () => consume(events(instant(n)), text)
  const cases: ReadonlyArray<Measure.Case> = [
    { name: "ours.1", fn: run(oursEvents("default"), oursText, 1) },
    { name: "ours.n", fn: run(oursEvents("default"), oursText, many) },
    { name: "untimed.1", fn: run(oursEvents("none"), oursText, 1) },
    { name: "untimed.n", fn: run(oursEvents("none"), oursText, many) },
    { name: "aisdk.1", fn: run(aiSdkEvents, aiSdkText, 1) },
    { name: "aisdk.n", fn: run(aiSdkEvents, aiSdkText, many) }
  ]
  // Both systems' code compiled before the first round (a quick run's warm-up alone is too short for it).
  for (let i = 0; i < 20; i++) for (const c of cases) await c.fn()
  const results = await Measure.run(cases, settings)
  const chunks = 2 * (many - 1)
  const perChunk = (prefix: string) =>
    (Measure.get(results, `${prefix}.n`) - Measure.get(results, `${prefix}.1`)) / chunks
  const ours = perChunk("ours")
  const untimed = perChunk("untimed")
  const aiSdk = perChunk("aisdk")
  const samples = settings.quick ? 60 : 300
  const first = await firstTexts(samples)
  return [
    {
      id: "14a",
      label: `streaming, per chunk: \`AiSdkModel\` (its \`stream\`, over \`doStream\`) → \`Loop.stream\`, read to the end by \`for await\` (a reply of ${many} text deltas and ${many} argument fragments, the call run − a reply of 1 and 1) ÷ ${chunks}`,
      value: Table.ns(ours)
    },
    {
      id: "ref",
      label: `the same with \`requestTimeout: Duration.infinity\` (AI SDK ÷ it: ×${Table.times(aiSdk / untimed)})`,
      value: Table.ns(untimed)
    },
    {
      id: "14a",
      label:
        "AI SDK `streamText` over the same mock `doStream`, its `fullStream` read the same way, per chunk, same method",
      value: Table.ns(aiSdk)
    },
    atLeast("14a", "AI SDK per chunk ÷ the harness per chunk", aiSdk / ours, 10),
    {
      id: "14b",
      label: `first text event: the mock enqueues its first text chunk → the \`Loop.stream\` consumer has its \`text.delta\` (median of ${samples})`,
      value: Table.duration(first.ours),
      target: "≤ 1 ms",
      met: first.ours <= 1_000_000
    },
    {
      id: "ref",
      label: "the same for the AI SDK: first text chunk → `fullStream`'s `text-delta`",
      value: Table.duration(first.aiSdk)
    }
  ]
}
