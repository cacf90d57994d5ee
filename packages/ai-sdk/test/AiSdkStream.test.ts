/**
 * `AiSdkModel` streaming through the provider's `doStream`, end to end: the loop over the real
 * `@ai-sdk/anthropic` and `@ai-sdk/openai` (chat and responses) providers against the loopback
 * fake's three streaming wire formats. A streamed run is the same run as an unstreamed one; a
 * stream that breaks, errs, is cut off or times out is a model failure and none of its calls
 * run; only a request whose stream never opened is sent again; an interrupt stops the turn and
 * aborts the request.
 */
import { type Loop, Message, Model, type Trace } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import type { LanguageModelV4, LanguageModelV4GenerateResult, LanguageModelV4StreamResult } from "@ai-sdk/provider"
import { Effect, type Exit, Logger } from "effect"
import { AiSdkModel, ProviderError } from "../src/index.ts"
import * as FakeAnthropic from "../src/internal/fakeAnthropic.ts"
import * as FakeOpenAi from "../src/internal/fakeOpenAi.ts"
import * as FakeStream from "../src/internal/fakeStream.ts"
import * as ResponsesWire from "../src/internal/responsesWire.ts"
import { FakeProvider } from "../src/testing.ts"
import { failureOf, modelOf, routes, runLoop, successOf } from "./fixtures.ts"

/** Each test streams a few replies through a real provider, some paced, on a loaded 2-core machine. */
const timeout = 60_000

const opening = [Message.user("Busca recetas de café y apúntalo.")]

/** Raw arguments with escapes (`\u00e9`, `\"`) that fragments of 3 cut inside. */
const searchArgs = '{"consulta":"caf\\u00e9 \\"solo\\""}'
const appendArgs = { ruta: "notas/lista.txt", texto: 'línea\n"dos"' }
/** Arguments nested past `ProviderPrompt.inputLimits.depth`: not read, the call not run. */
const deepArgs = `{"consulta":${"[".repeat(70)}${"]".repeat(70)}}`

/**
 * Three turns: reasoning, text and two parallel calls (under names outside the providers'
 * pattern); a lone call nested too deep to be read (no text at all: Chat Completions still opens
 * with an empty `content`), answered `not executed`; the answer.
 */
const script = (): ReadonlyArray<FakeProvider.Scripted> => [
  FakeProvider.reply([
    Message.reasoning("Busco primero, luego apunto.", { anthropic: { signature: "sig-1" } }),
    Message.text("Busco y apunto: "),
    Message.toolUse("call_a", "catalogo.buscar", searchArgs),
    Message.toolUse("call_b", "añadir", appendArgs)
  ]),
  FakeProvider.reply([Message.toolUse("call_c", "catalogo.buscar", deepArgs)]),
  FakeProvider.reply([Message.text("Hecho: tres recetas, y la línea apuntada.")])
]

/** Cut small, parallel calls interleaved (Chat Completions), a keep-alive ping every other event. */
const chunking: FakeProvider.Chunking = { textChars: 3, argumentChars: 3, interleave: true, pingEvery: 2 }

const layerOf = (fake: FakeProvider.Fake, route: FakeProvider.Route, options?: AiSdkModel.Options) =>
  AiSdkModel.layer(modelOf(fake, route), { maxOutputTokens: 1024, retry: { base: "1 millis" }, ...options })

/** The trace's events, `streamed` taken off `model.replied` (the only difference a streamed run may make). */
const unstreamed = (events: ReadonlyArray<Trace.Event>) =>
  events.map((event) => (event.type === "model.replied" ? { ...event, streamed: undefined } : event))

/** The `ModelError` a run failed with (the test fails on any other outcome). */
const modelFailureOf = <A, E extends { readonly _tag: string }>(exit: Exit.Exit<A, E>) => {
  const failure = failureOf(exit)
  if (!(failure instanceof Model.ModelError)) throw new Error(`expected a ModelError, got ${failure._tag}`)
  return failure
}

/** A reply's stream events as the fake renders them for a route (to script a body that ends early). */
const framesOf = (route: FakeProvider.Route, reply: FakeProvider.Reply) => {
  const chunking = FakeStream.chunking(undefined, undefined)
  if (route === "anthropic") {
    const { json, raws } = FakeAnthropic.reply(reply, "claude-test", 1)
    return FakeStream.anthropic(json, raws, chunking)
  }
  if (route === "openai") return FakeStream.openAi(FakeOpenAi.reply(reply, "gpt-test", 1), true, chunking)
  const { response, items } = ResponsesWire.reply(reply.blocks, {
    stop: reply.stop,
    usage: reply.usage,
    model: "gpt-test",
    n: 1
  })
  return FakeStream.responses(response, items, chunking)
}

/**
 * A turn that failed at once and was not sent again: nothing ran, no call started, one
 * `model.failed` (turn 1), no retry, one request (the reply scripted after it never asked for).
 */
const failedAtOnce = (
  fake: FakeProvider.Fake,
  route: FakeProvider.Route,
  out: {
    readonly ran: ReadonlyArray<string>
    readonly shown: ReadonlyArray<Loop.Event>
    readonly events: ReadonlyArray<Trace.Event>
    readonly retries: ReadonlyArray<unknown>
  }
) => {
  expect(out.ran).toEqual([])
  expect(shownOf(out.shown, "call.started")).toEqual([])
  expect(out.events.filter((e) => e.type === "model.failed").map((e) => e.turn)).toEqual([1])
  expect(out.retries).toEqual([])
  expect(fake.requests).toHaveLength(1)
  expect(fake.left(route)).toBe(1)
}

const shownOf = <T extends Loop.Event["type"]>(shown: ReadonlyArray<Loop.Event>, type: T) =>
  shown.filter((event): event is Extract<Loop.Event, { type: T }> => event.type === type)

describe("AiSdkModel streams through doStream", () => {
  for (const route of routes) {
    describe(route, () => {
      it.live(
        "Loop.stream shows the text as it comes, in order, and folds into what Loop.run gives over the same replies",
        () =>
          Effect.gen(function* () {
            const whole = yield* FakeProvider.scoped({ [route]: script(), chunking })
            const streaming = yield* FakeProvider.scoped({ [route]: script(), chunking })
            const run = yield* runLoop(layerOf(whole, route), opening)
            const streamed = yield* runLoop(layerOf(streaming, route), opening, 4, {})
            const result = successOf(streamed.exit)
            expect(result).toEqual(successOf(run.exit))
            expect(result.stop).toBe("end")
            expect(unstreamed(streamed.events)).toEqual(unstreamed(run.events))
            expect(streamed.events.filter((e) => e.type === "model.replied").map((e) => e.streamed)).toEqual([
              true,
              true,
              true
            ])
            expect(streamed.ran).toEqual(run.ran)
            expect(streamed.ran).toEqual(['catalogo.buscar café "solo"', 'añadir notas/lista.txt línea\n"dos"'])
            // The deep call's input was never parsed: the executor got the string saying so, and ran nothing.
            const deep = shownOf(streamed.shown, "call.started").find((e) => e.call.id === "call_c")
            expect(deep?.call.input).toBe("[arguments not read: nested more than 64 levels deep]")
            const answered = shownOf(streamed.shown, "call.answered").find((e) => e.outcome.id === "call_c")
            expect(answered?.outcome._tag).toBe("NotExecuted")
            // The text, as it was written: several deltas per turn, in order.
            const texts = (turn: number) =>
              shownOf(streamed.shown, "text.delta")
                .filter((e) => e.turn === turn)
                .map((e) => e.text)
            expect(texts(1).length).toBeGreaterThan(1)
            expect(texts(1).join("")).toBe("Busco y apunto: ")
            expect(texts(2)).toEqual([])
            expect(texts(3).join("")).toBe("Hecho: tres recetas, y la línea apuntada.")
            // The calls' arguments as they were written: fragments of the exact JSON.
            const argued = (id: string) =>
              shownOf(streamed.shown, "call.delta")
                .filter((e) => e.tool_use_id === id)
                .map((e) => e.delta)
            expect(argued("call_a").join("")).toBe(searchArgs)
            expect(argued("call_a").length).toBeGreaterThan(4)
            expect(argued("call_b").join("")).toBe(JSON.stringify(appendArgs))
            expect(shownOf(streamed.shown, "call.drafted").map((e) => e.name)).toEqual([
              "catalogo.buscar",
              "añadir",
              "catalogo.buscar"
            ])
            if (route === "openai") {
              // Chat Completions streamed the two calls interleaved.
              expect(
                shownOf(streamed.shown, "call.delta")
                  .slice(0, 4)
                  .map((e) => e.tool_use_id)
              ).toEqual(["call_a", "call_b", "call_a", "call_b"])
            }
            // No call of a turn started before the last piece of that turn's reply was shown.
            for (const turn of [1, 2]) {
              const ofTurn = streamed.shown.map((e) => ("turn" in e && e.turn === turn ? e.type : ""))
              expect(ofTurn.indexOf("call.started")).toBeGreaterThan(ofTurn.lastIndexOf("call.delta"))
            }
            expect(streaming.requests.map((r) => (r.json as { readonly stream?: unknown }).stream)).toEqual([
              true,
              true,
              true
            ])
            expect(streaming.requests.every((r) => r.problems.length === 0)).toBe(true)
            // The same requests, but for asking to stream (and, from @ai-sdk/anthropic, each tool's
            // `eager_input_streaming`): the prompt, the tools under their aliases, their schemas
            // (strict where it costs nothing), the settings.
            const asked = (requests: ReadonlyArray<FakeProvider.Recorded>) =>
              requests.map((r) => {
                const { stream: _stream, stream_options: _options, ...rest } = r.json as Record<string, unknown>
                const tools = (rest.tools as ReadonlyArray<Record<string, unknown>> | undefined)?.map(
                  ({ eager_input_streaming: _eager, ...tool }) => tool
                )
                return { ...rest, tools }
              })
            expect(asked(streaming.requests)).toEqual(asked(whole.requests))
            expect(JSON.stringify(asked(streaming.requests))).toContain(
              route === "anthropic" ? "catalogo_buscar" : '"strict":true'
            )
          }),
        timeout
      )

      it.live(
        "an error event mid-call fails the turn at the error, typed and not sent again: nothing runs",
        () =>
          Effect.gen(function* () {
            const fake = yield* FakeProvider.scoped({
              [route]: [
                FakeProvider.streamError(
                  FakeProvider.reply([
                    Message.text("Busco: "),
                    Message.toolUse("call_a", "catalogo.buscar", { consulta: "café" })
                  ]),
                  { message: "Overloaded right now" }
                ),
                FakeProvider.reply([Message.text("nunca pedida")])
              ]
            })
            const out = yield* runLoop(layerOf(fake, route), opening, 4, {})
            failedAtOnce(fake, route, out)
            const failure = modelFailureOf(out.exit)
            // At the error itself: not the half-written call Chat Completions flushes after it.
            expect(failure.reason).toBeInstanceOf(ProviderError.ProviderUnavailable)
            expect(failure.reason).toMatchObject({ cutOff: true, attempts: 1 })
            expect(failure.message).toContain("Overloaded right now")
            expect(failure.message).toContain("not sent again")
            expect(shownOf(out.shown, "call.drafted")).toHaveLength(1)
            expect(out.events.some((e) => e.type === "model.replied")).toBe(false)
          }),
        timeout
      )

      it.live(
        "a connection cut mid-call is the reply cut off, not sent again: nothing runs",
        () =>
          Effect.gen(function* () {
            const fake = yield* FakeProvider.scoped({
              [route]: [
                FakeProvider.streamCut(
                  FakeProvider.reply([Message.toolUse("call_a", "añadir", { ruta: "a.txt", texto: "medio" })])
                ),
                FakeProvider.reply([Message.text("nunca pedida")])
              ]
            })
            const out = yield* runLoop(layerOf(fake, route), opening, 4, {})
            failedAtOnce(fake, route, out)
            const failure = modelFailureOf(out.exit)
            expect(failure.reason).toBeInstanceOf(ProviderError.ProviderUnavailable)
            expect(failure.reason).toMatchObject({ cutOff: true, attempts: 1, status: undefined })
            expect(failure.message).toContain(`${modelOf(fake, route).provider} cut its reply off before the end`)
            expect(shownOf(out.shown, "call.delta").length).toBeGreaterThan(0)
          }),
        timeout
      )

      it.live(
        "a body that ends cleanly before the reply's end (no finish, no error) is an incomplete reply, not an answer",
        () =>
          Effect.gen(function* () {
            const frames = framesOf(route, FakeProvider.reply([Message.text("La respuesta entera es larga.")]))
            // The body ends after the opening event(s) (Anthropic's SDK then sends no finish at
            // all), or after the first text delta.
            const cuts = { anthropic: [1, 3], openai: [1, 2], responses: [2, 5] }[route]
            for (const [index, events] of cuts.entries()) {
              const body = frames
                .slice(0, events)
                .map((f) => f.text)
                .join("")
              const fake = yield* FakeProvider.scoped({
                [route]: [FakeProvider.raw(200, body, { "content-type": "text/event-stream" })]
              })
              const { exit, ran, shown } = yield* runLoop(layerOf(fake, route), opening, 4, {})
              expect(shownOf(shown, "text.delta").length > 0).toBe(index === 1)
              const failure = modelFailureOf(exit)
              expect(failure.reason).toBeInstanceOf(Model.IncompleteReply)
              expect(failure.reason).toMatchObject({ finishReason: "interrupted" })
              expect(ran).toEqual([])
            }
          }),
        timeout
      )

      it.live(
        "a length finish with a whole call: the call does not run",
        () =>
          Effect.gen(function* () {
            const stop = route === "anthropic" ? "max_tokens" : route === "openai" ? "length" : "max_output_tokens"
            const fake = yield* FakeProvider.scoped({
              [route]: [
                FakeProvider.reply(
                  [Message.text("Apunto: "), Message.toolUse("call_a", "añadir", { ruta: "a.txt", texto: "x" })],
                  { stop }
                )
              ],
              chunking
            })
            const { exit, ran, shown } = yield* runLoop(layerOf(fake, route), opening, 4, {})
            const failure = modelFailureOf(exit)
            expect(failure.reason).toBeInstanceOf(Model.IncompleteReply)
            expect(failure.reason).toMatchObject({ finishReason: "length" })
            expect(ran).toEqual([])
            expect(shownOf(shown, "call.started")).toEqual([])
          }),
        timeout
      )

      it.live(
        "a 429 and an overload on opening the stream are retried under the policy; the retry streams",
        () =>
          Effect.gen(function* () {
            const overloaded = route === "anthropic" ? 529 : 503
            const fake = yield* FakeProvider.scoped({
              [route]: [
                FakeProvider.error(429, { retryAfterMs: 5 }),
                FakeProvider.error(overloaded),
                FakeProvider.reply([Message.text("Hola, por fin.")])
              ],
              chunking
            })
            const { exit, retries, shown } = yield* runLoop(layerOf(fake, route), opening, 4, {})
            expect(successOf(exit)).toMatchObject({ stop: "end", text: "Hola, por fin." })
            expect(retries.map((r) => [r.attempt, r.status])).toEqual([
              [1, 429],
              [2, overloaded]
            ])
            expect(fake.requests).toHaveLength(3)
            expect(shownOf(shown, "text.delta").length).toBeGreaterThan(1)
          }),
        timeout
      )

      it.live(
        "a failure after the first part is never retried, whatever the policy",
        () =>
          Effect.gen(function* () {
            const fake = yield* FakeProvider.scoped({
              [route]: [
                FakeProvider.streamError(FakeProvider.reply([Message.text("Empiezo a contestar y me caigo.")]), {
                  type: route === "anthropic" ? "overloaded_error" : "server_error"
                }),
                FakeProvider.reply([Message.text("otra vez")])
              ],
              chunking
            })
            const out = yield* runLoop(
              layerOf(fake, route, { retry: { attempts: 5, base: "1 millis" } }),
              opening,
              4,
              {}
            )
            failedAtOnce(fake, route, out)
            expect(shownOf(out.shown, "text.delta").length).toBeGreaterThan(0)
            expect(modelFailureOf(out.exit).reason).toMatchObject({ _tag: "ProviderUnavailable", attempts: 1 })
          }),
        timeout
      )

      it.live(
        "the request timeout bounds the whole stream: past it mid-stream, the turn fails at once, not retried",
        () =>
          Effect.gen(function* () {
            // 50 text events 80 ms apart: 4 s of stream, against a timeout of 2 s (long enough that the
            // stream opens well before it on a loaded machine).
            const fake = yield* FakeProvider.scoped({
              [route]: [
                FakeProvider.reply([Message.text("uno dos tres cuatro cinco seis siete ocho nueve di".repeat(2))], {
                  chunking: { textChars: 2, delayMs: 80 }
                }),
                FakeProvider.reply([Message.text("otra vez")])
              ]
            })
            const started = Date.now()
            const out = yield* runLoop(layerOf(fake, route, { requestTimeout: "2 seconds" }), opening, 4, {})
            failedAtOnce(fake, route, out)
            const failure = modelFailureOf(out.exit)
            expect(failure.reason).toBeInstanceOf(ProviderError.ProviderTimeout)
            expect(failure.reason).toMatchObject({ timeoutMs: 2000, attempts: 1 })
            expect(failure.message).toContain("not sent again")
            const deltas = shownOf(out.shown, "text.delta").length
            expect(deltas).toBeGreaterThan(0)
            expect(deltas).toBeLessThan(50)
            expect(Date.now() - started).toBeLessThan(3500)
          }),
        timeout
      )

      it.live(
        "the request timeout before the stream opened (no answer at all) is retried, and the retry streams",
        () =>
          Effect.gen(function* () {
            const fake = yield* FakeProvider.scoped({
              [route]: [FakeProvider.hang(), FakeProvider.reply([Message.text("Ya estoy.")], { chunking })]
            })
            const { exit, retries } = yield* runLoop(
              // Long enough that a request reaches the fake before its timeout on a loaded machine.
              layerOf(fake, route, { requestTimeout: "1500 millis", retry: { attempts: 2, base: "1 millis" } }),
              opening,
              4,
              {}
            )
            expect(successOf(exit)).toMatchObject({ stop: "end", text: "Ya estoy." })
            expect(retries.map((r) => r.message)).toEqual([
              `no complete reply within ${ProviderError.showMillis(1500)} (the request was aborted)`
            ])
            expect(fake.requests).toHaveLength(2)
          }),
        timeout
      )

      it.live(
        "an interrupt after the first text delta stops the run interrupted, keeps the text so far and aborts the request",
        () =>
          Effect.gen(function* () {
            const text = "Esta respuesta llega despacio, trozo a trozo, y no se termina."
            const fake = yield* FakeProvider.scoped({
              [route]: [
                FakeProvider.reply(
                  [Message.text(text), Message.toolUse("call_a", "añadir", { ruta: "a.txt", texto: "x" })],
                  {
                    chunking: { textChars: 1, delayMs: 40 }
                  }
                )
              ]
            })
            const signals: Array<AbortSignal> = []
            const fetch: typeof globalThis.fetch = (input, init) => {
              if (init?.signal) signals.push(init.signal)
              return globalThis.fetch(input, init)
            }
            const started = Date.now()
            const { exit, ran, events } = yield* runLoop(
              AiSdkModel.layer(modelOf(fake, route, fetch), { maxOutputTokens: 1024 }),
              opening,
              4,
              { interruptAt: (event) => event.type === "text.delta" }
            )
            const result = successOf(exit)
            expect(result.stop).toBe("interrupted")
            expect(result.text?.length).toBeGreaterThan(0)
            expect(text.startsWith(result.text ?? "-")).toBe(true)
            expect(result.text?.length).toBeLessThan(text.length)
            expect(ran).toEqual([])
            // The whole reply takes some 65 events × 40 ms; the run ended long before, its request aborted.
            expect(Date.now() - started).toBeLessThan(2000)
            expect(signals).toHaveLength(1)
            expect(signals[0]?.aborted).toBe(true)
            expect(events.at(-1)).toMatchObject({ type: "run.ended", stop: "interrupted", text: result.text })
          }),
        timeout
      )
    })
  }

  it.live(
    "Responses: a response.failed mid-stream fails the turn there, typed, not sent again: nothing runs",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          responses: [
            FakeProvider.streamError(
              FakeProvider.reply([
                Message.text("Apunto: "),
                Message.toolUse("call_a", "añadir", { ruta: "a", texto: "b" })
              ]),
              { event: "response.failed", message: "The model failed" }
            ),
            FakeProvider.reply([Message.text("nunca pedida")])
          ]
        })
        const out = yield* runLoop(layerOf(fake, "responses"), opening, 4, {})
        failedAtOnce(fake, "responses", out)
        const failure = modelFailureOf(out.exit)
        expect(failure.reason).toMatchObject({ _tag: "ProviderUnavailable", cutOff: true })
        expect(failure.message).toContain("The model failed")
      }),
    timeout
  )

  describe("any LanguageModelV4's stream", () => {
    /** A model that streams `parts` (or what `opened` gives), for what no real provider sends on cue. */
    const custom = (parts: ReadonlyArray<unknown>, opened?: () => unknown): LanguageModelV4 => ({
      specificationVersion: "v4",
      provider: "custom.test",
      modelId: "m",
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("only streamed here")),
      doStream: () =>
        Promise.resolve(
          (opened?.() ?? {
            stream: new ReadableStream<unknown>({
              start: (controller) => {
                for (const part of parts) controller.enqueue(part)
                controller.close()
              }
            })
          }) as LanguageModelV4StreamResult
        )
    })
    const answer = [
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Encontrado." },
      { type: "text-end", id: "t" },
      { type: "finish", usage: { inputTokens: {}, outputTokens: {} }, finishReason: { unified: "stop" } }
    ]

    it.live(
      "a model without doStream has no stream: Loop.stream shows each whole reply through doGenerate",
      () =>
        Effect.gen(function* () {
          const { doStream: _, ...generating } = custom([])
          // No doStream: not a whole LanguageModelV4, as some hand-written models are not.
          const model = {
            ...generating,
            doGenerate: () =>
              Promise.resolve({
                content: [{ type: "text", text: "Entera." }],
                finishReason: { unified: "stop", raw: "stop" },
                usage: { inputTokens: {}, outputTokens: {} },
                warnings: []
              } as unknown as LanguageModelV4GenerateResult)
          } as unknown as LanguageModelV4
          expect(AiSdkModel.make(model).stream).toBeUndefined()
          const { exit, shown } = yield* runLoop(AiSdkModel.layer(model), opening, 4, {})
          expect(successOf(exit)).toMatchObject({ stop: "end", text: "Entera." })
          expect(shownOf(shown, "text.delta").map((e) => e.text)).toEqual(["Entera."])
        }),
      timeout
    )

    it.live(
      "calls the provider ran itself (and their results) are left out; the reply is the rest",
      () =>
        Effect.gen(function* () {
          const model = custom([
            { type: "stream-start", warnings: [{ type: "unsupported", feature: "topK", details: "ignored" }] },
            { type: "tool-input-start", id: "srv_1", toolName: "web_search", providerExecuted: true },
            { type: "tool-input-delta", id: "srv_1", delta: '{"q":"caf' },
            { type: "tool-input-end", id: "srv_1" },
            {
              type: "tool-call",
              toolCallId: "srv_1",
              toolName: "web_search",
              input: '{"q":"café"}',
              providerExecuted: true
            },
            { type: "tool-result", toolCallId: "srv_1", toolName: "web_search", result: { hits: 3 } },
            ...answer
          ])
          const logs: Array<string> = []
          const { exit, ran, shown } = yield* runLoop(AiSdkModel.layer(model), opening, 4, {}).pipe(
            Effect.provide(Logger.layer([Logger.make((o) => logs.push(`${o.logLevel} ${String(o.message)}`))]))
          )
          // The stream's warnings are logged as respond logs its reply's.
          expect(logs).toEqual(["Warn custom.test: unsupported topK: ignored"])
          const result = successOf(exit)
          expect(result).toMatchObject({ stop: "end", text: "Encontrado." })
          expect(result.messages.at(-1)).toEqual(Message.assistant([Message.text("Encontrado.")]))
          expect(shownOf(shown, "call.drafted")).toEqual([])
          expect(ran).toEqual([])
        }),
      timeout
    )

    it.live(
      "a hostile stream (an unreadable part, no stream, a reader that rejects) fails the turn typed, never a crash",
      () =>
        Effect.gen(function* () {
          const throwing = {
            get type(): string {
              throw new Error("no type for you")
            }
          }
          const rejecting = () => ({
            stream: { getReader: () => ({ read: () => Promise.reject("not an error"), cancel: () => undefined }) }
          })
          const cases: ReadonlyArray<readonly [LanguageModelV4, string]> = [
            [custom([answer[0], throwing]), "its stream sent a part that cannot be read (no type for you)"],
            [custom([null]), "its stream sent a part that cannot be read"],
            [custom([], () => ({ stream: 42 })), "its doStream gave no stream that can be read"],
            [custom([], rejecting), "not an error"]
          ]
          for (const [model, said] of cases) {
            const { exit, ran } = yield* runLoop(AiSdkModel.layer(model), opening, 4, {})
            const failure = modelFailureOf(exit)
            expect(failure.reason).toBeInstanceOf(ProviderError.ProviderFailure)
            expect(failure.message).toContain(said)
            expect(ran).toEqual([])
          }
        }),
      timeout
    )

    it.live(
      "an error part the SDK does not call retryable is a ProviderFailure; nothing after it is used",
      () =>
        Effect.gen(function* () {
          const model = custom([
            { type: "tool-input-start", id: "c1", toolName: "a_adir", providerExecuted: false },
            { type: "tool-input-delta", id: "c1", delta: '{"ruta":"a' },
            { type: "error", error: { type: "invalid_request_error", message: "Your request was refused" } },
            { type: "tool-call", toolCallId: "c1", toolName: "a_adir", input: '{"ruta":"a' },
            ...answer
          ])
          const { exit, ran } = yield* runLoop(AiSdkModel.layer(model), opening, 4, {})
          const failure = modelFailureOf(exit)
          expect(failure.reason).toBeInstanceOf(ProviderError.ProviderFailure)
          expect(failure.message).toBe(
            "model call 1: custom.test failed: an error event mid-stream (invalid_request_error: Your request was refused); the reply had begun streaming, so it was not sent again"
          )
          expect(ran).toEqual([])
        }),
      timeout
    )
  })
})
