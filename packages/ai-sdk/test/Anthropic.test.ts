/**
 * The loop through the real `@ai-sdk/anthropic` provider against the loopback fake: what goes
 * over the wire, what comes back into the history, the trace and the turns.
 */
import { Message, Model } from "@agent-harness/executor"
import { createAnthropic } from "@ai-sdk/anthropic"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { AiSdkModel, ProviderError } from "../src/index.ts"
import { FakeProvider } from "../src/testing.ts"
import { failureOf, jsonOf, runLoop, successOf, withEnv } from "./fixtures.ts"

const timeout = 60_000

/** `apiKey: null` gives the provider no key at all. */
const modelOf = (fake: FakeProvider.Fake, options?: AiSdkModel.Options, apiKey: string | null = "test-key") =>
  AiSdkModel.layer(
    createAnthropic({ baseURL: `${fake.url}/v1`, ...(apiKey === null ? {} : { apiKey }) })("claude-test"),
    {
      maxOutputTokens: 1024,
      retry: { base: "1 millis" },
      ...options
    }
  )

const opening = [Message.system("Eres un asistente de cocina."), Message.user("Busca salmorejo y apúntalo.")]

const signed = Message.reasoning("Busco primero y luego apunto.", { anthropic: { signature: "sig-A" } })

interface Block {
  readonly type: string
  readonly [key: string]: unknown
}
const messagesOf = (request: FakeProvider.Recorded | undefined) =>
  jsonOf<{ readonly messages: ReadonlyArray<{ readonly role: string; readonly content: ReadonlyArray<Block> }> }>(
    request
  ).messages

describe("AiSdkModel over @ai-sdk/anthropic", () => {
  it.live(
    "a tool turn round-trips: aliases out, real names in, results by id in call order with is_error, thinking echoed with its signature",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          apiKey: "test-key",
          anthropic: [
            FakeProvider.reply(
              [
                signed,
                Message.text("Voy a buscar."),
                Message.toolUse("toolu_1", "catalogo_buscar", { consulta: "salmorejo" }),
                Message.toolUse("toolu_2", "anadir", { ruta: "notas.txt" }),
                Message.toolUse("toolu_3", "catalogo_buscar", { consulta: "" })
              ],
              { usage: { input: 120, output: 40 } }
            ),
            FakeProvider.reply([Message.text("Hecho.")], { usage: { input: 300, output: 3 } })
          ]
        })
        const { exit, events, ran } = yield* runLoop(
          modelOf(fake, { providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 512 } } } }),
          opening
        )
        const result = successOf(exit)
        expect(result.stop).toBe("end")
        expect(result.text).toBe("Hecho.")
        // The executor ran the real tools under their real names; the invalid call did not run.
        expect(ran).toEqual(["catalogo.buscar salmorejo", "catalogo.buscar "])
        // The history holds the real names and the reasoning with its signature, in order.
        expect(result.messages[2]).toEqual(
          Message.assistant([
            signed,
            Message.text("Voy a buscar."),
            Message.toolUse("toolu_1", "catalogo.buscar", { consulta: "salmorejo" }),
            Message.toolUse("toolu_2", "añadir", { ruta: "notas.txt" }),
            Message.toolUse("toolu_3", "catalogo.buscar", { consulta: "" })
          ])
        )
        expect(result.turns.map((t) => [t.usage, t.finishReason])).toEqual([
          [{ inputTokens: 120, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 }, "tool-calls"],
          [{ inputTokens: 300, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 }, "stop"]
        ])

        const [first, second] = fake.requests
        expect(fake.requests.map((r) => r.problems)).toEqual([[], []])
        // The tools are declared under provider-safe aliases, in toolset order.
        expect(jsonOf<{ tools: ReadonlyArray<{ name: string }> }>(first).tools.map((t) => t.name)).toEqual([
          "anadir",
          "catalogo_buscar"
        ])
        const history = messagesOf(second)
        expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user"])
        expect(history[1]?.content.map((b) => [b.type, b.name ?? b.signature ?? b.text])).toEqual([
          ["thinking", "sig-A"],
          ["text", "Voy a buscar."],
          ["tool_use", "catalogo_buscar"],
          ["tool_use", "anadir"],
          ["tool_use", "catalogo_buscar"]
        ])
        expect(history[2]?.content.map((b) => [b.tool_use_id, b.is_error ?? false, b.content])).toEqual([
          ["toolu_1", false, "3 recetas de salmorejo"],
          ["toolu_2", true, "not executed: missing field 'texto'"],
          ["toolu_3", true, "la consulta está vacía"]
        ])
        // The trace sees the real names, the usage and the finish reasons.
        expect(events.flatMap((e) => (e.type === "call.started" ? [e.name] : []))).toEqual([
          "catalogo.buscar",
          "añadir",
          "catalogo.buscar"
        ])
        expect(events.filter((e) => e.type === "usage.reported")).toEqual([
          {
            type: "usage.reported",
            turn: 1,
            input_tokens: 120,
            output_tokens: 40,
            cache_read_tokens: 0,
            cache_write_tokens: 0
          },
          {
            type: "usage.reported",
            turn: 2,
            input_tokens: 300,
            output_tokens: 3,
            cache_read_tokens: 0,
            cache_write_tokens: 0
          }
        ])
        expect(events.flatMap((e) => (e.type === "model.replied" ? [e.raw_finish_reason] : []))).toEqual([
          "tool_use",
          "end_turn"
        ])
      }),
    timeout
  )

  it.live(
    "a redacted thinking block goes back as redacted_thinking with its data",
    () =>
      Effect.gen(function* () {
        const redacted = Message.reasoning("", { anthropic: { redactedData: "opaque-data" } })
        const fake = yield* FakeProvider.scoped({
          anthropic: [
            FakeProvider.reply([redacted, Message.toolUse("toolu_1", "catalogo_buscar", { consulta: "gazpacho" })]),
            FakeProvider.reply([Message.text("Listo.")])
          ]
        })
        const { exit } = yield* runLoop(
          modelOf(fake, { providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 512 } } } }),
          opening
        )
        expect(successOf(exit).messages[2]).toEqual(
          Message.assistant([redacted, Message.toolUse("toolu_1", "catalogo.buscar", { consulta: "gazpacho" })])
        )
        expect(fake.requests[1]?.problems).toEqual([])
        expect(messagesOf(fake.requests[1])[1]?.content[0]).toEqual({ type: "redacted_thinking", data: "opaque-data" })
      }),
    timeout
  )

  it.live(
    "the fake refuses a history whose tool calls lost their thinking block, as Anthropic does",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ anthropic: [FakeProvider.reply([Message.text("no")])] })
        const history = [
          Message.user("hola"),
          Message.assistant([Message.toolUse("toolu_1", "catalogo.buscar", { consulta: "x" })]),
          Message.user([Message.toolResult("toolu_1", "nada", false)])
        ]
        const { exit } = yield* runLoop(
          modelOf(fake, { providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 512 } } } }),
          history
        )
        const failure = failureOf(exit)
        expect(failure._tag).toBe("ModelError")
        expect(failure.message).toContain("refused the request (HTTP 400)")
        expect(failure.message).toContain("Expected `thinking` or `redacted_thinking`, but found `tool_use`")
        expect(fake.requests).toHaveLength(1)
      }),
    timeout
  )

  it.live(
    "a 'max_tokens' stop is an IncompleteReply: nothing of the reply runs, its usage is traced",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          anthropic: [
            FakeProvider.reply([Message.toolUse("toolu_1", "anadir", { ruta: "a.txt", texto: "x" })], {
              stop: "max_tokens",
              usage: { input: 50, output: 1024 }
            })
          ]
        })
        const { exit, events, ran } = yield* runLoop(modelOf(fake), opening)
        const failure = failureOf(exit)
        expect(failure._tag).toBe("ModelError")
        if (failure._tag !== "ModelError") return
        expect(failure.reason).toBeInstanceOf(Model.IncompleteReply)
        expect(failure.message).toBe("model call 1: the reply was cut off by the token limit (finish reason 'length')")
        expect(ran).toEqual([])
        expect(events.map((e) => e.type)).toEqual(["run.started", "model.requested", "usage.reported", "model.failed"])
      }),
    timeout
  )

  it.live(
    "a 529 then a 429 are retried after what retry-after asks, the same bytes each time, each retry traced",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          anthropic: [
            FakeProvider.error(529, { message: "Overloaded", retryAfterMs: 7 }),
            FakeProvider.error(429, { message: "Rate limited", retryAfter: 0 }),
            FakeProvider.reply([Message.text("Hola.")])
          ]
        })
        const { exit, retries } = yield* runLoop(modelOf(fake), opening)
        expect(successOf(exit).text).toBe("Hola.")
        expect(fake.requests).toHaveLength(3)
        const bodies = new Set(fake.requests.map((r) => r.body))
        expect(bodies.size).toBe(1)
        expect(retries).toEqual([
          { type: "model.retried", turn: 1, attempt: 1, delay_ms: 7, status: 529, message: "Overloaded" },
          { type: "model.retried", turn: 1, attempt: 2, delay_ms: 0, status: 429, message: "Rate limited" }
        ])
      }),
    timeout
  )

  it.live(
    "retries are bounded: attempts run out, or a retry-after past the budget is not waited for",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          anthropic: [FakeProvider.error(500, { message: "boom" }), FakeProvider.error(500, { message: "boom again" })]
        })
        const out = yield* runLoop(modelOf(fake, { retry: { attempts: 2, base: "1 millis" } }), opening)
        const failure = failureOf(out.exit)
        if (failure._tag !== "ModelError") throw new Error(failure.message)
        expect(failure.reason).toBeInstanceOf(ProviderError.ProviderUnavailable)
        expect(failure.message).toBe(
          "model call 1: anthropic.messages is unavailable (HTTP 500) after 2 attempts: boom again"
        )
        expect(out.retries).toHaveLength(1)

        fake.push("anthropic", FakeProvider.error(429, { message: "slow down", retryAfter: 3600 }))
        const later = yield* runLoop(modelOf(fake, { retry: { budget: "10 seconds" } }), opening)
        expect(failureOf(later.exit).message).toBe(
          "model call 1: anthropic.messages is unavailable (HTTP 429) after 1 attempt: slow down (the next try, in 3600000 ms, would end past the retry budget of 10000 ms)"
        )
        expect(later.retries).toStrictEqual([])
      }),
    timeout
  )

  it.live(
    "a rejected key (401) and an invalid request (400) fail at once, typed, without a retry",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          apiKey: "the-right-key",
          anthropic: [FakeProvider.error(400, { message: "max_tokens: too large" })]
        })
        const rejected = yield* runLoop(modelOf(fake, {}, "a-wrong-key"), opening)
        const failure = failureOf(rejected.exit)
        if (failure._tag !== "ModelError") throw new Error(failure.message)
        expect(failure.reason).toBeInstanceOf(ProviderError.RequestRejected)
        expect(failure.reason).toMatchObject({ status: 401, refusal: "api_key_rejected" })
        expect(failure.message).toBe(
          "model call 1: anthropic.messages rejected the API key (HTTP 401): invalid x-api-key"
        )
        expect(fake.requests).toHaveLength(1)

        const invalid = yield* runLoop(modelOf(fake, {}, "the-right-key"), opening)
        expect(failureOf(invalid.exit).message).toBe(
          "model call 1: anthropic.messages refused the request (HTTP 400): max_tokens: too large"
        )
        expect(fake.requests).toHaveLength(2)
      }),
    timeout
  )

  it.live(
    "a missing key fails typed, naming ANTHROPIC_API_KEY, before any request",
    () =>
      withEnv(
        "ANTHROPIC_API_KEY",
        undefined,
        Effect.gen(function* () {
          const fake = yield* FakeProvider.scoped({ anthropic: [FakeProvider.reply([Message.text("never")])] })
          const { exit } = yield* runLoop(modelOf(fake, {}, null), opening)
          const failure = failureOf(exit)
          if (failure._tag !== "ModelError") throw new Error(failure.message)
          expect(failure.reason).toBeInstanceOf(ProviderError.MissingApiKey)
          expect(failure.reason).toMatchObject({ variable: "ANTHROPIC_API_KEY" })
          expect(fake.requests).toHaveLength(0)
        })
      ),
    timeout
  )
})
