/**
 * Real providers misbehave: a request accepted and never answered, a body that stalls halfway,
 * a body cut off by a closed connection, tool-call arguments nested 10,000 deep. Each ends in a
 * bounded, named outcome, through the real `@ai-sdk/openai` and `@ai-sdk/anthropic` providers
 * against the loopback fake.
 */
import { Message, Trace } from "@agent-harness/executor"
import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import { APICallError } from "@ai-sdk/provider"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as LanguageModel from "effect/ai/LanguageModel"
import { AiSdkModel, EffectAiModel, ProviderError, ProviderPrompt, Retry } from "../src/index.ts"
import * as OldTraces from "../../executor/test/fixtures/oldTraces.ts"
import { FakeProvider } from "../src/testing.ts"
import { failureOf, runLoop, successOf } from "./fixtures.ts"

/** Each test makes a few requests that wait out a short timeout, on a loaded 2-core machine. */
const timeout = 60_000

const chatOf = (fake: FakeProvider.Fake, options?: AiSdkModel.Options) =>
  AiSdkModel.layer(createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "sk-test" }).chat("gpt-test"), {
    retry: { base: "1 millis" },
    ...options
  })

const anthropicOf = (fake: FakeProvider.Fake, options?: AiSdkModel.Options) =>
  AiSdkModel.layer(createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: "test-key" })("claude-test"), {
    maxOutputTokens: 1024,
    retry: { base: "1 millis" },
    ...options
  })

const opening = [Message.user("Busca salmorejo.")]

describe("a provider that never answers, or stalls", () => {
  it.live(
    "no headers at all: each attempt is aborted at the request timeout and retried; the last one is ProviderTimeout",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ openai: [FakeProvider.hang(), FakeProvider.hang()] })
        const started = Date.now()
        const { exit, retries } = yield* runLoop(
          // Long enough that a request reaches the fake before its timeout on a loaded machine.
          chatOf(fake, { requestTimeout: "1500 millis", retry: { attempts: 2, base: "1 millis" } }),
          opening
        )
        const failure = failureOf(exit)
        if (failure._tag !== "ModelError") throw new Error(failure.message)
        expect(failure.reason).toBeInstanceOf(ProviderError.ProviderTimeout)
        expect(failure.reason).toMatchObject({ timeoutMs: 1500, attempts: 2 })
        expect(failure.message).toBe(
          `model call 1: openai.chat gave no complete reply within the request timeout of ${ProviderError.showMillis(1500)}, after 2 attempts`
        )
        expect(fake.requests).toHaveLength(2)
        expect(retries).toEqual([
          {
            type: "model.retried",
            turn: 1,
            attempt: 1,
            delay_ms: expect.any(Number),
            message: `no complete reply within ${ProviderError.showMillis(1500)} (the request was aborted)`
          }
        ])
        expect(Date.now() - started).toBeLessThan(20_000)
      }),
    timeout
  )

  it.live(
    "headers and half a body, then nothing: timed out and retried; the retry's reply is used",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          anthropic: [
            FakeProvider.stall(FakeProvider.reply([Message.text("nunca llega entera")])),
            FakeProvider.reply([Message.text("Hola.")])
          ]
        })
        const { exit, retries } = yield* runLoop(anthropicOf(fake, { requestTimeout: "1500 millis" }), opening)
        expect(successOf(exit).text).toBe("Hola.")
        expect(fake.requests).toHaveLength(2)
        expect(new Set(fake.requests.map((r) => r.body)).size).toBe(1)
        expect(retries).toHaveLength(1)
      }),
    timeout
  )

  it.live(
    "the retry budget starts at the first failure: a first attempt that ran to its timeout is still retried",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          openai: [FakeProvider.hang(), FakeProvider.reply([Message.text("por fin")])]
        })
        const { exit } = yield* runLoop(
          // The first attempt runs to its timeout, longer than the whole budget; the budget (still
          // wide enough for a loaded machine between the failure and the retry) starts after it.
          chatOf(fake, { requestTimeout: "2500 millis", retry: { budget: "1 second", base: "1 millis" } }),
          opening
        )
        expect(successOf(exit).text).toBe("por fin")
      }),
    timeout
  )

  it.live(
    "EffectAiModel (the planner's LanguageModel) is bounded the same way: an InternalProviderError naming the timeout",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ openai: [FakeProvider.hang()] })
        const error = yield* LanguageModel.generateText({ prompt: "hola" }).pipe(
          Effect.provide(
            EffectAiModel.layer(createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "sk-test" }).chat("gpt-test"), {
              requestTimeout: "300 millis",
              retry: { attempts: 1 }
            })
          ),
          Effect.flip
        )
        expect(error.reason._tag).toBe("InternalProviderError")
        expect(error.message).toContain(
          "openai.chat gave no complete reply within the request timeout of 300 ms, after 1 attempt"
        )
      }),
    timeout
  )

  it("the request timeout: 10 minutes by default, none for infinity, a RangeError naming the option when invalid", () => {
    expect(Retry.timeoutOf(undefined)).toBe(600_000)
    expect(Retry.timeoutOf("90 seconds")).toBe(90_000)
    expect(Retry.timeoutOf("Infinity")).toBeUndefined()
    expect(() => Retry.timeoutOf("0 seconds")).toThrow(
      new RangeError("'requestTimeout' must be a duration greater than zero, got 0 seconds")
    )
    expect(() => AiSdkModel.make(createOpenAI({ apiKey: "k" }).chat("m"), { requestTimeout: "soon" as never })).toThrow(
      "'requestTimeout' must be a duration greater than zero, got soon"
    )
  })
})

describe("a reply cut off before its end", () => {
  it.live(
    "a 200 whose body stops halfway (content-length, then the connection closes) is retried as a network failure",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          openai: [
            FakeProvider.cut(FakeProvider.reply([Message.toolUse("call_1", "catalogo_buscar", { consulta: "x" })])),
            FakeProvider.reply([Message.text("Entera.")])
          ]
        })
        const { exit, retries, ran } = yield* runLoop(chatOf(fake), opening)
        expect(successOf(exit).text).toBe("Entera.")
        expect(ran).toEqual([])
        expect(fake.requests).toHaveLength(2)
        const [retry] = retries
        expect(retry).toMatchObject({ type: "model.retried", turn: 1, attempt: 1 })
        expect(retry).not.toHaveProperty("status")
      }),
    timeout
  )

  it.live(
    "a chunked body that ends without its last chunk, every time: ProviderUnavailable, cut off, after the attempts",
    () =>
      Effect.gen(function* () {
        const cutOne = () => FakeProvider.cut(FakeProvider.reply([Message.text("a medias")]), { framing: "chunked" })
        const fake = yield* FakeProvider.scoped({ anthropic: [cutOne(), cutOne()] })
        const { exit } = yield* runLoop(anthropicOf(fake, { retry: { attempts: 2, base: "1 millis" } }), opening)
        const failure = failureOf(exit)
        if (failure._tag !== "ModelError") throw new Error(failure.message)
        expect(failure.reason).toBeInstanceOf(ProviderError.ProviderUnavailable)
        expect(failure.reason).toMatchObject({ cutOff: true, attempts: 2, status: undefined })
        expect(failure.message).toMatch(
          /^model call 1: anthropic\.messages cut its reply off before the end, after 2 attempts: the reply \(HTTP 200\) ended before it was whole \(.*terminated/
        )
      }),
    timeout
  )

  it("classify: a 2xx whose JSON ends early is transient and cut off; a whole but unexpected body is not", () => {
    const invalid = (responseBody: string) =>
      new APICallError({
        message: "Invalid JSON response",
        url: "http://127.0.0.1/v1/chat/completions",
        requestBodyValues: {},
        statusCode: 200,
        responseBody
      })
    for (const body of ['{"id":"x","choices":[{"mess', '{"id":"x","n":1', "", '{"a":"unterminated']) {
      expect(ProviderError.classify("openai.chat", invalid(body), 0)).toMatchObject({ _tag: "Transient", cutOff: true })
    }
    expect(ProviderError.classify("openai.chat", invalid('{"unexpected":true}'), 0)).toBeInstanceOf(
      ProviderError.ProviderFailure
    )
    expect(ProviderError.classify("openai.chat", invalid("<html>proxy error</html>"), 0)).toBeInstanceOf(
      ProviderError.ProviderFailure
    )
  })
})

describe("tool-call arguments nested 10,000 deep", () => {
  const deepText = (levels: number) => `{"consulta":${"[".repeat(levels)}${"]".repeat(levels)}}`

  it.live(
    "OpenAI (arguments are a JSON string): not read, answered not executed; the run goes on and the model ends",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          openai: [
            FakeProvider.reply([Message.toolUse("call_1", "catalogo_buscar", deepText(10_000))]),
            FakeProvider.reply([Message.text("Perdón, otra vez.")])
          ]
        })
        const { exit, events, ran } = yield* runLoop(chatOf(fake), opening)
        const result = successOf(exit)
        expect(result.text).toBe("Perdón, otra vez.")
        expect(ran).toEqual([])
        expect(result.messages[1]).toEqual(
          Message.assistant([
            Message.toolUse("call_1", "catalogo.buscar", "[arguments not read: nested more than 64 levels deep]")
          ])
        )
        expect(result.turns[0]?.outcomes.map((o) => o._tag)).toEqual(["NotExecuted"])
        expect(events.flatMap((e) => (e.type === "call.answered" ? [e.result] : []))).toEqual([
          Message.toolResult("call_1", "not executed: input must be an object", true)
        ])
        expect(fake.requests.map((r) => r.problems)).toEqual([[], []])
      }),
    timeout
  )

  it.live(
    "Anthropic: 10,000 levels break its SDK's own reading (a typed ProviderFailure saying so, no crash); 100 levels are not read, not executed",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          anthropic: [
            FakeProvider.reply([Message.toolUse("toolu_1", "catalogo_buscar", deepText(10_000))]),
            FakeProvider.reply([Message.toolUse("toolu_2", "catalogo_buscar", deepText(100))]),
            FakeProvider.reply([Message.text("Vale.")])
          ]
        })
        const crashed = yield* runLoop(anthropicOf(fake), opening)
        const failure = failureOf(crashed.exit)
        if (failure._tag !== "ModelError") throw new Error(failure.message)
        expect(failure.reason).toBeInstanceOf(ProviderError.ProviderFailure)
        expect(failure.message).toBe(
          "model call 1: anthropic.messages failed: its SDK could not read the reply, nested too deep (Maximum call stack size exceeded)"
        )
        const bounded = yield* runLoop(anthropicOf(fake), opening)
        const result = successOf(bounded.exit)
        expect(result.text).toBe("Vale.")
        expect(result.turns[0]?.outcomes.map((o) => o._tag)).toEqual(["NotExecuted"])
        expect(fake.requests.map((r) => r.problems)).toEqual([[], [], []])
      }),
    timeout
  )

  it.live(
    "the fake itself never crashes: a reply it cannot render (an input too deep for JSON.stringify) is a 500 saying why",
    () =>
      Effect.gen(function* () {
        let deep: unknown = 1
        for (let i = 0; i < 100_000; i++) deep = [deep]
        const fake = yield* FakeProvider.scoped({
          anthropic: [FakeProvider.reply([Message.toolUse("toolu_1", "catalogo_buscar", { consulta: deep })])]
        })
        const { exit } = yield* runLoop(anthropicOf(fake, { retry: { attempts: 1 } }), opening)
        expect(failureOf(exit).message).toMatch(/anthropic\.messages is unavailable \(HTTP 500\) after 1 attempt/)
        expect(fake.requests[0]?.problems).toEqual([
          "the fake provider could not answer: RangeError: Maximum call stack size exceeded"
        ])
      }),
    timeout
  )

  it("parseInput: bounded in depth and size, brackets inside strings do not count, never throws", () => {
    expect(ProviderPrompt.parseInput(deepText(63))).toEqual({ consulta: expect.any(Array) })
    expect(ProviderPrompt.parseInput(deepText(64))).toBe("[arguments not read: nested more than 64 levels deep]")
    expect(ProviderPrompt.parseInput(`{"q":"${"[".repeat(500)}"}`)).toEqual({ q: "[".repeat(500) })
    expect(ProviderPrompt.parseInput(`{"q":"\\"${"{".repeat(500)}"}`)).toEqual({ q: `"${"{".repeat(500)}` })
    expect(ProviderPrompt.parseInput("[".repeat(1_000_000))).toBe(
      "[arguments not read: nested more than 64 levels deep]"
    )
    expect(ProviderPrompt.parseInput(`"${"x".repeat(1_000_000)}"`)).toBe(
      "[arguments not read: 1000002 characters, more than the 1000000 allowed]"
    )
    expect(ProviderPrompt.parseInput("", { depth: 1, size: 10 })).toEqual({})
    expect(ProviderPrompt.depthOf('[{"a":[1]}]')).toBe(3)
  })
})

describe("model.retried, the adapter's own event", () => {
  it("an old trace's model.retry reads as Retried once upgraded", () => {
    const old = OldTraces.lines("edges.jsonl").find((line) => (line as { type: string }).type === "model.retry")
    expect(Schema.decodeUnknownSync(Retry.Retried)(Trace.upgrade(old))).toStrictEqual({
      type: "model.retried",
      turn: 1,
      attempt: 1,
      delay_ms: 500,
      status: 529,
      message: "overloaded"
    })
  })
})
