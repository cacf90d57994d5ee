/**
 * The loop through the real `@ai-sdk/openai` (Chat Completions) and `@ai-sdk/openai-compatible`
 * providers against the loopback fake.
 */
import { Message } from "@agent-harness/executor"
import { createOpenAI } from "@ai-sdk/openai"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { AiSdkModel, ProviderError } from "../src/index.ts"
import { FakeProvider } from "../src/testing.ts"
import { failureOf, jsonOf, runLoop, successOf, withEnv } from "./fixtures.ts"

const timeout = 60_000

const openAiOf = (fake: FakeProvider.Fake | string, options?: AiSdkModel.Options, apiKey: string | null = "sk-test") =>
  AiSdkModel.layer(
    createOpenAI({
      baseURL: `${typeof fake === "string" ? fake : fake.url}/v1`,
      ...(apiKey === null ? {} : { apiKey })
    }).chat("gpt-test"),
    { retry: { base: "1 millis" }, ...options }
  )

const compatibleOf = (fake: FakeProvider.Fake) =>
  AiSdkModel.layer(
    createOpenAICompatible({ name: "local", baseURL: `${fake.url}/v1`, apiKey: "sk-test" }).chatModel("qwen-test"),
    { retry: { base: "1 millis" } }
  )

const opening = [Message.user("Busca salmorejo y apúntalo.")]

interface ChatMessage {
  readonly role: string
  readonly content: string | null
  readonly tool_call_id?: string
  readonly reasoning_content?: string
  readonly tool_calls?: ReadonlyArray<{ readonly id: string; readonly function: { name: string; arguments: string } }>
}
const messagesOf = (request: FakeProvider.Recorded | undefined) =>
  jsonOf<{ readonly messages: ReadonlyArray<ChatMessage> }>(request).messages

describe("AiSdkModel over @ai-sdk/openai (Chat Completions)", () => {
  it.live(
    'results go back as tool messages by id, in call order; an error says so in its text ({"error": …})',
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          apiKey: "sk-test",
          openai: [
            FakeProvider.reply([
              Message.toolUse("call_1", "catalogo_buscar", { consulta: "salmorejo" }),
              Message.toolUse("call_2", "anadir", { ruta: "notas.txt" })
            ]),
            FakeProvider.reply([Message.text("Hecho.")], { usage: { input: 90, output: 2 } })
          ]
        })
        const { exit, ran } = yield* runLoop(openAiOf(fake), opening)
        const result = successOf(exit)
        expect(result.text).toBe("Hecho.")
        expect(ran).toEqual(["catalogo.buscar salmorejo"])
        expect(result.turns[1]?.usage).toMatchObject({ inputTokens: 90, outputTokens: 2 })
        expect(fake.requests.map((r) => r.problems)).toEqual([[], []])
        const tools = jsonOf<{ tools: ReadonlyArray<{ function: { name: string } }> }>(fake.requests[0]).tools
        expect(tools.map((t) => t.function.name)).toEqual(["anadir", "catalogo_buscar"])
        const history = messagesOf(fake.requests[1])
        expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"])
        expect(history[1]?.tool_calls?.map((c) => [c.id, c.function.name, c.function.arguments])).toEqual([
          ["call_1", "catalogo_buscar", '{"consulta":"salmorejo"}'],
          ["call_2", "anadir", '{"ruta":"notas.txt"}']
        ])
        expect(history.slice(2).map((m) => [m.tool_call_id, m.content])).toEqual([
          ["call_1", "3 recetas de salmorejo"],
          ["call_2", '{"error":"not executed: missing field \'texto\'"}']
        ])
      }),
    timeout
  )

  it.live(
    "arguments that are not JSON reach the executor as the string they are and are answered not executed",
    () =>
      Effect.gen(function* () {
        const broken = '{"consulta": "salm'
        const fake = yield* FakeProvider.scoped({
          openai: [
            FakeProvider.reply([Message.toolUse("call_1", "catalogo_buscar", broken)]),
            FakeProvider.reply([Message.text("Perdón.")])
          ]
        })
        const { exit, events, ran } = yield* runLoop(openAiOf(fake), opening)
        const result = successOf(exit)
        expect(ran).toEqual([])
        expect(result.messages[1]).toEqual(Message.assistant([Message.toolUse("call_1", "catalogo.buscar", broken)]))
        expect(result.turns[0]?.outcomes.map((o) => o._tag)).toEqual(["NotExecuted"])
        expect(events.flatMap((e) => (e.type === "call.answered" ? [e.result] : []))).toEqual([
          Message.toolResult("call_1", "not executed: input must be an object", true)
        ])
        const history = messagesOf(fake.requests[1])
        expect(history[2]).toMatchObject({
          role: "tool",
          tool_call_id: "call_1",
          content: '{"error":"not executed: input must be an object"}'
        })
        // The OpenAI SDK resends arguments that are not a JSON object as "{}".
        expect(history[1]?.tool_calls?.[0]?.function.arguments).toBe("{}")
      }),
    timeout
  )

  it.live(
    "a 'length' finish is an IncompleteReply",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          openai: [FakeProvider.reply([Message.text("Una respuesta cortad")], { stop: "length" })]
        })
        const { exit } = yield* runLoop(openAiOf(fake), opening)
        expect(failureOf(exit).message).toBe(
          "model call 1: the reply was cut off by the token limit (finish reason 'length')"
        )
      }),
    timeout
  )

  it.live(
    "a missing key fails typed, naming OPENAI_API_KEY, before any request",
    () =>
      withEnv(
        "OPENAI_API_KEY",
        undefined,
        Effect.gen(function* () {
          const fake = yield* FakeProvider.scoped({ openai: [FakeProvider.reply([Message.text("never")])] })
          const { exit } = yield* runLoop(openAiOf(fake, {}, null), opening)
          const failure = failureOf(exit)
          if (failure._tag !== "ModelError") throw new Error(failure.message)
          expect(failure.reason).toBeInstanceOf(ProviderError.MissingApiKey)
          expect(failure.reason).toMatchObject({ variable: "OPENAI_API_KEY" })
          expect(fake.requests).toHaveLength(0)
        })
      ),
    timeout
  )

  it.live(
    "a rejected key fails at once; a 503 is retried; a closed port is a network error, retried then unavailable",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          apiKey: "sk-right",
          openai: [
            FakeProvider.error(503, { message: "The engine is currently overloaded" }),
            FakeProvider.reply([Message.text("ok")])
          ]
        })
        const rejected = yield* runLoop(openAiOf(fake, {}, "sk-wrong"), opening)
        expect(failureOf(rejected.exit).message).toBe(
          "model call 1: openai.chat rejected the API key (HTTP 401): Incorrect API key provided."
        )
        const retried = yield* runLoop(openAiOf(fake, {}, "sk-right"), opening)
        expect(successOf(retried.exit).text).toBe("ok")
        expect(retried.retries.map((e) => e.status)).toEqual([503])

        const closed = yield* Effect.promise(() => FakeProvider.start())
        yield* Effect.promise(() => closed.close())
        const unreachable = yield* runLoop(openAiOf(closed.url, { retry: { attempts: 2, base: "1 millis" } }), opening)
        const failure = failureOf(unreachable.exit)
        if (failure._tag !== "ModelError") throw new Error(failure.message)
        expect(failure.reason).toBeInstanceOf(ProviderError.ProviderUnavailable)
        expect(failure.message).toMatch(
          /^model call 1: openai\.chat is unreachable after 2 attempts: Cannot connect to API/
        )
      }),
    timeout
  )
})

describe("AiSdkModel over @ai-sdk/openai-compatible", () => {
  it.live(
    "reasoning_content is kept and echoed back; an error result's text says it (the SDK has no flag)",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          openai: [
            FakeProvider.reply([
              Message.reasoning("Necesito la ruta y el texto."),
              Message.toolUse("call_1", "anadir", { ruta: "notas.txt" })
            ]),
            FakeProvider.reply([Message.text("Falta el texto.")])
          ]
        })
        const { exit } = yield* runLoop(compatibleOf(fake), opening)
        const result = successOf(exit)
        expect(result.messages[1]).toEqual(
          Message.assistant([
            Message.reasoning("Necesito la ruta y el texto."),
            Message.toolUse("call_1", "añadir", { ruta: "notas.txt" })
          ])
        )
        const history = messagesOf(fake.requests[1])
        expect(history[1]?.reasoning_content).toBe("Necesito la ruta y el texto.")
        expect(history[2]).toMatchObject({
          role: "tool",
          tool_call_id: "call_1",
          content: '{"error":"not executed: missing field \'texto\'"}'
        })
      }),
    timeout
  )
})
