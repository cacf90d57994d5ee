/**
 * The fake provider's streaming wire formats, read by the real providers' `doStream`
 * (`@ai-sdk/anthropic`, `@ai-sdk/openai` chat and responses): text and arguments in several
 * deltas that add up to the scripted reply, fragments cut inside strings and escapes,
 * interleaved parallel calls, an error event and a cut connection mid-stream, pings, usage and
 * the finish reason.
 */
import { Message } from "@agent-harness/executor"
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider"
import { afterEach, describe, expect, it } from "vitest"
import { FakeProvider } from "../src/testing.ts"
import { jsonOf, modelOf, routes } from "./fixtures.ts"

const timeout = 60_000

type Route = FakeProvider.Route

const tools = [
  {
    type: "function" as const,
    name: "read",
    description: "Reads a file",
    inputSchema: { type: "object" as const, properties: { path: { type: "string" as const } }, required: ["path"] }
  }
]

let fakes: Array<FakeProvider.Fake> = []
afterEach(async () => {
  await Promise.all(fakes.map((f) => f.close()))
  fakes = []
})

/**
 * Starts a fake with one scripted response on `route` and streams it through the real provider
 * (bounded: 10 s): the parts read, and what reading threw (the test fails on it unless `failing`).
 */
const streamOf = async (
  route: Route,
  scripted: FakeProvider.Scripted,
  options?: Omit<FakeProvider.Options, Route>,
  failing = false
): Promise<{
  readonly parts: ReadonlyArray<LanguageModelV4StreamPart>
  readonly fake: FakeProvider.Fake
  readonly thrown: unknown
}> => {
  const fake = await FakeProvider.start({ ...options, [route]: [scripted] })
  fakes.push(fake)
  const { stream } = await modelOf(fake, route).doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
    tools,
    includeRawChunks: false,
    abortSignal: AbortSignal.timeout(10_000)
  })
  const parts: Array<LanguageModelV4StreamPart> = []
  const reader = stream.getReader()
  try {
    for (;;) {
      const next = await reader.read()
      if (next.done) break
      parts.push(next.value)
    }
  } catch (thrown) {
    if (!failing) throw thrown
    return { parts, fake, thrown }
  }
  return { parts, fake, thrown: undefined }
}

const ofType = <T extends LanguageModelV4StreamPart["type"]>(
  parts: ReadonlyArray<LanguageModelV4StreamPart>,
  type: T
): Array<Extract<LanguageModelV4StreamPart, { type: T }>> =>
  parts.filter((p): p is Extract<LanguageModelV4StreamPart, { type: T }> => p.type === type)

describe("FakeProvider streams", () => {
  for (const route of routes) {
    describe(route, () => {
      it(
        "text arrives in several deltas that add up to the reply, with the scripted usage and finish",
        async () => {
          const text = "Hola, ¿qué tal? Aquí está la receta."
          const { parts, fake } = await streamOf(
            route,
            FakeProvider.reply([Message.text(text)], { usage: { input: 21, output: 8 } }),
            { chunking: { textChars: 5 } }
          )
          // Chat Completions opens with an empty `content: ""` delta, as the real API does.
          const deltas = ofType(parts, "text-delta").filter((d) => d.delta !== "")
          expect(deltas.length).toBe(Math.ceil(Array.from(text).length / 5))
          expect(deltas.map((d) => d.delta).join("")).toBe(text)
          const finish = ofType(parts, "finish")
          expect(finish).toHaveLength(1)
          expect(finish[0]?.finishReason.unified).toBe("stop")
          expect(finish[0]?.usage.inputTokens.total).toBe(21)
          expect(finish[0]?.usage.outputTokens.total).toBe(8)
          expect(ofType(parts, "error")).toEqual([])
          const [request] = fake.requests
          expect(request?.problems).toEqual([])
          expect(jsonOf<{ readonly stream?: unknown }>(request).stream).toBe(true)
        },
        timeout
      )

      it(
        "tool-call arguments arrive in fragments cut inside strings and escapes; the final call has the exact input",
        async () => {
          // Raw JSON with escapes: fragments of 4 end inside `\u00e9` and inside `\"`.
          const args = '{"path":"caf\\u00e9 \\"dir\\"/a.txt"}'
          const { parts } = await streamOf(
            route,
            FakeProvider.reply([Message.text("Leo."), Message.toolUse("call_1", "read", args)], {
              chunking: { argumentChars: 4 }
            })
          )
          const deltas = ofType(parts, "tool-input-delta").map((d) => d.delta)
          expect(deltas.length).toBe(Math.ceil(args.length / 4))
          expect(deltas.join("")).toBe(args)
          // Where one fragment ends and the next begins: some cut falls inside each escape.
          const cuts = deltas.slice(0, -1).map((_, i) => deltas.slice(0, i + 1).join("").length)
          const inside = (sequence: string) => {
            const at = args.indexOf(sequence)
            return cuts.some((c) => c > at && c < at + sequence.length)
          }
          expect(inside("\\u00e9")).toBe(true)
          expect(inside('\\"')).toBe(true)
          const calls = ofType(parts, "tool-call")
          expect(calls).toHaveLength(1)
          expect(calls[0]?.toolName).toBe("read")
          expect(calls[0]?.toolCallId).toBe("call_1")
          expect(JSON.parse(calls[0]?.input ?? "")).toEqual({ path: 'café "dir"/a.txt' })
          expect(ofType(parts, "finish")[0]?.finishReason.unified).toBe("tool-calls")
        },
        timeout
      )

      it(
        "an error event mid-stream surfaces as the provider's error part",
        async () => {
          const { parts } = await streamOf(
            route,
            FakeProvider.streamError(FakeProvider.reply([Message.toolUse("call_1", "read", { path: "a.txt" })]), {
              message: "Overloaded right now"
            })
          )
          expect(ofType(parts, "tool-input-delta").length).toBeGreaterThan(0)
          const errors = ofType(parts, "error")
          expect(errors.length).toBeGreaterThan(0)
          expect(JSON.stringify(errors[0]?.error)).toContain("Overloaded right now")
          const calls = ofType(parts, "tool-call")
          if (route === "openai") {
            // @ai-sdk/openai's chat model flushes the half-streamed call after the error, its
            // input the partial fragment: the bug class a streaming loop must guard against.
            expect(calls.map((c) => c.input)).toEqual(['{"pat'])
          } else expect(calls).toEqual([])
        },
        timeout
      )

      it(
        "a connection cut after a partial tool call surfaces as an error, not a hang",
        async () => {
          const started = Date.now()
          const outcome = await streamOf(
            route,
            FakeProvider.streamCut(
              FakeProvider.reply([Message.toolUse("call_1", "read", { path: "a/long/path.txt" })])
            ),
            {},
            true
          )
          expect(Date.now() - started).toBeLessThan(9_000)
          // The call had begun: its first fragment arrived before the connection went.
          expect(ofType(outcome.parts, "tool-input-delta").map((d) => d.delta)).toEqual(['{"pat'])
          expect(String(outcome.thrown)).toMatch(/AI_APICallError/)
          expect(ofType(outcome.parts, "finish")).toEqual([])
          expect(ofType(outcome.parts, "tool-call")).toEqual([])
        },
        timeout
      )

      it(
        "keep-alive pings between events are ignored",
        async () => {
          const { parts, fake } = await streamOf(route, FakeProvider.reply([Message.text("uno dos tres cuatro")]), {
            chunking: { textChars: 3, pingEvery: 2 }
          })
          expect(ofType(parts, "error")).toEqual([])
          const deltas = ofType(parts, "text-delta").filter((d) => d.delta !== "")
          expect(deltas.length).toBeGreaterThan(1)
          expect(deltas.map((d) => d.delta).join("")).toBe("uno dos tres cuatro")
          expect(fake.requests).toHaveLength(1)
        },
        timeout
      )

      it(
        "a length finish is the scripted one",
        async () => {
          const stop = route === "anthropic" ? "max_tokens" : route === "openai" ? "length" : "max_output_tokens"
          const { parts } = await streamOf(route, FakeProvider.reply([Message.text("cortado a me")], { stop }))
          expect(ofType(parts, "finish")[0]?.finishReason.unified).toBe("length")
        },
        timeout
      )

      it(
        "a streamed request is checked like the others: a bad tool name is refused and recorded",
        async () => {
          const fake = await FakeProvider.start({ [route]: [FakeProvider.reply([Message.text("no")])] })
          fakes.push(fake)
          const failed = await modelOf(fake, route)
            .doStream({
              prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
              tools: [{ ...tools[0], name: "catalogo.buscar" } as (typeof tools)[number]],
              abortSignal: AbortSignal.timeout(10_000)
            })
            .then(
              () => undefined,
              (e: unknown) => e
            )
          expect(String(failed)).toMatch(/tools/)
          expect(fake.requests[0]?.problems.length).toBeGreaterThan(0)
          expect(fake.left(route)).toBe(1)
        },
        timeout
      )
    })
  }

  it(
    "Chat Completions: interleaved parallel calls (fragments of index 0 and 1 alternating) come out right",
    async () => {
      const { parts, fake } = await streamOf(
        "openai",
        FakeProvider.reply([
          Message.toolUse("call_a", "read", { path: "uno.txt" }),
          Message.toolUse("call_b", "read", { path: "dos/tres.txt" })
        ]),
        { chunking: { argumentChars: 4, interleave: true } }
      )
      const deltas = ofType(parts, "tool-input-delta")
      expect(deltas.length).toBeGreaterThan(4)
      // The fragments alternate between the two calls.
      expect(deltas.slice(0, 4).map((d) => d.id)).toEqual(["call_a", "call_b", "call_a", "call_b"])
      const calls = ofType(parts, "tool-call")
      expect(calls.map((c) => [c.toolCallId, JSON.parse(c.input)])).toEqual([
        ["call_a", { path: "uno.txt" }],
        ["call_b", { path: "dos/tres.txt" }]
      ])
      expect(fake.requests[0]?.body).toContain('"include_usage":true')
    },
    timeout
  )

  it(
    "Anthropic: thinking streams as thinking_delta and its signature as signature_delta",
    async () => {
      const { parts } = await streamOf(
        "anthropic",
        FakeProvider.reply([
          Message.reasoning("Primero miro el fichero.", { anthropic: { signature: "sig-1" } }),
          Message.toolUse("call_1", "read", { path: "a.txt" })
        ]),
        { chunking: { textChars: 6 } }
      )
      const deltas = ofType(parts, "reasoning-delta").filter((d) => d.delta !== "")
      expect(deltas.length).toBeGreaterThan(1)
      expect(deltas.map((d) => d.delta).join("")).toBe("Primero miro el fichero.")
      // The signature comes as its own (empty) reasoning delta carrying the provider's metadata.
      const signed = ofType(parts, "reasoning-delta").filter((d) => d.delta === "")
      expect(signed.map((d) => d.providerMetadata)).toEqual([{ anthropic: { signature: "sig-1" } }])
      expect(JSON.parse(ofType(parts, "tool-call")[0]?.input ?? "")).toEqual({ path: "a.txt" })
    },
    timeout
  )

  it(
    "with delayMs the first text arrives well before the fake sends the last event",
    async () => {
      const fake = await FakeProvider.start({
        anthropic: [
          FakeProvider.reply([Message.text("uno dos tres cuatro cinco")], { chunking: { textChars: 3, delayMs: 40 } })
        ]
      })
      fakes.push(fake)
      const started = Date.now()
      const { stream } = await modelOf(fake, "anthropic").doStream({
        prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
        abortSignal: AbortSignal.timeout(10_000)
      })
      const arrivals: Array<number> = []
      const reader = stream.getReader()
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        if (next.value.type === "text-delta") arrivals.push(Date.now() - started)
      }
      const ended = Date.now() - started
      // 9 text deltas among 14 events, 40 ms apart: the stream lasts at least 13 × 40 ms.
      expect(arrivals).toHaveLength(9)
      expect(ended).toBeGreaterThanOrEqual(13 * 40)
      expect(ended - (arrivals[0] ?? ended)).toBeGreaterThanOrEqual(8 * 40)
    },
    timeout
  )

  it(
    "a stream fault answers a request that does not stream whole: the error as a 500, the cut as half a body",
    async () => {
      const fake = await FakeProvider.start({
        openai: [
          FakeProvider.streamError(FakeProvider.reply([Message.text("hola")]), { message: "boom mid-stream" }),
          FakeProvider.streamCut(FakeProvider.reply([Message.text("hola")]))
        ]
      })
      fakes.push(fake)
      const generate = () =>
        modelOf(fake, "openai")
          .doGenerate({
            prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
            abortSignal: AbortSignal.timeout(10_000)
          })
          .then(
            () => undefined,
            (e: unknown) => e
          )
      const first = await generate()
      expect(first).toMatchObject({ statusCode: 500 })
      expect(String(first)).toContain("boom mid-stream")
      const second = await generate()
      expect(second).toBeDefined()
      expect(fake.requests.map((r) => r.problems)).toEqual([[], []])
    },
    timeout
  )

  it(
    "a chunking that is not whole numbers in range is refused, naming the field",
    async () => {
      await expect(FakeProvider.start({ chunking: { textChars: 0 } })).rejects.toThrow(
        "FakeProvider chunking.textChars must be a whole number of at least 1, got 0"
      )
      await expect(FakeProvider.start({ chunking: { argumentChars: Number.NaN } })).rejects.toThrow(
        "chunking.argumentChars must be a whole number of at least 1, got NaN"
      )
      // On one reply: the streamed request is answered 500 and the problem recorded.
      const { thrown, fake } = await streamOf(
        "anthropic",
        FakeProvider.reply([Message.text("hola")], { chunking: { delayMs: -1 } }),
        {},
        true
      ).catch((thrown: unknown) => ({ thrown, fake: fakes[fakes.length - 1] }))
      expect(String(thrown)).toContain("chunking.delayMs must be a whole number of at least 0, got -1")
      expect(fake?.requests[0]?.problems.join()).toContain("chunking.delayMs")
    },
    timeout
  )

  it(
    "Responses: a response.failed event mid-stream surfaces as an error",
    async () => {
      const { parts, fake } = await streamOf(
        "responses",
        FakeProvider.streamError(FakeProvider.reply([Message.text("a medias")]), {
          // created, in_progress, the message added, its part added, then the first delta
          after: 5,
          event: "response.failed",
          message: "The model failed"
        })
      )
      expect(ofType(parts, "text-delta").map((d) => d.delta)).toEqual(["a me"])
      const failed = parts.filter((p) => p.type === "error" || p.type === "finish")
      expect(JSON.stringify(failed)).toMatch(/The model failed|"unified":"error"/)
      expect(fake.requests).toHaveLength(1)
    },
    timeout
  )

  it(
    "Chat Completions: stream_options without stream is refused, as the API refuses it",
    async () => {
      const fake = await FakeProvider.start({ openai: [FakeProvider.reply([Message.text("no")])] })
      fakes.push(fake)
      const response = await fetch(`${fake.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: "Bearer sk-test", "content-type": "application/json" },
        body: JSON.stringify({
          model: "gpt-test",
          messages: [{ role: "user", content: "go" }],
          stream_options: { include_usage: true }
        }),
        signal: AbortSignal.timeout(10_000)
      })
      expect(response.status).toBe(400)
      expect(await response.text()).toContain(
        "The 'stream_options' parameter is only allowed when 'stream' is enabled."
      )
      expect(fake.left("openai")).toBe(1)
    },
    timeout
  )
})
