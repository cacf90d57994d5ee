/**
 * The spans of a loop through the real `@ai-sdk/anthropic` provider against the loopback fake:
 * the provider and model named as the GenAI conventions spell them, the answering model the wire
 * reports, its usage, and each retry an event of the call's span.
 */
import { Message, Spans } from "@agent-harness/executor"
import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Tracer } from "effect"
import { AiSdkModel } from "../src/index.ts"
import { FakeProvider } from "../src/testing.ts"
import { runLoop } from "./fixtures.ts"

const A = Spans.Attribute

const capture = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}

const opening = [Message.user("Busca salmorejo.")]

describe("AiSdkModel: the spans of a real provider's calls", () => {
  it.live(
    "anthropic: chat claude-test with gen_ai.provider.name anthropic, the wire's response model and usage, a retry as an event",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          apiKey: "test-key",
          anthropic: [
            FakeProvider.error(529, { message: "Overloaded", retryAfterMs: 1 }),
            FakeProvider.reply([Message.toolUse("toolu_1", "catalogo_buscar", { consulta: "salmorejo" })], {
              usage: { input: 120, output: 40 }
            }),
            FakeProvider.reply([Message.text("Hecho.")], { usage: { input: 300, output: 3 } })
          ]
        })
        const traced = capture()
        const model = AiSdkModel.layer(
          createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: "test-key" })("claude-test"),
          { maxOutputTokens: 1024, retry: { base: "1 millis" } }
        )
        const { exit } = yield* runLoop(model, opening).pipe(Effect.withTracer(traced.tracer))
        expect(Exit.isSuccess(exit)).toBe(true)
        const chats = traced.spans.filter((span) => span.name === "chat claude-test")
        expect(chats).toHaveLength(2)
        const [first, second] = chats
        expect(first?.attributes.get(A.providerName)).toBe("anthropic")
        expect(first?.attributes.get(A.requestModel)).toBe("claude-test")
        expect(first?.attributes.get(A.responseModel)).toBe("claude-test")
        expect(first?.attributes.get(A.requestMaxTokens)).toBe(1024)
        expect(first?.attributes.get(A.inputTokens)).toBe(120)
        expect(first?.attributes.get(A.outputTokens)).toBe(40)
        expect(first?.attributes.get(A.finishReasons)).toEqual(["tool-calls"])
        expect(first?.events.map(([name]) => name)).toEqual([Spans.Event.retried])
        expect(second?.events).toEqual([])
        const agent = traced.spans.find((span) => span.name === "invoke_agent")
        expect(agent?.attributes.get(A.providerName)).toBe("anthropic")
        expect(agent?.attributes.get(A.inputTokens)).toBe(420)
      }),
    60_000
  )

  it.live(
    "openai (chat completions): gen_ai.provider.name openai",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          apiKey: "test-key",
          openai: [FakeProvider.reply([Message.text("Hecho.")], { usage: { input: 10, output: 2 } })]
        })
        const traced = capture()
        const model = AiSdkModel.layer(
          createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "test-key" }).chat("gpt-test"),
          { maxOutputTokens: 256 }
        )
        const { exit } = yield* runLoop(model, opening).pipe(Effect.withTracer(traced.tracer))
        expect(Exit.isSuccess(exit)).toBe(true)
        const chat = traced.spans.find((span) => span.name === "chat gpt-test")
        expect(chat?.attributes.get(A.providerName)).toBe("openai")
        expect(chat?.attributes.get(A.inputTokens)).toBe(10)
      }),
    60_000
  )
})
