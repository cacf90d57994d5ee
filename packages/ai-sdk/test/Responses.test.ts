/**
 * The loop through the real `@ai-sdk/openai` Responses model (`createOpenAI(...).responses(id)`)
 * against the loopback fake's `/v1/responses`, which speaks the Responses wire format
 * (`function_call` / `function_call_output` items, `item_reference` to stored items, `usage`
 * with `input_tokens` / `output_tokens`, `status`) and refuses what the real API refuses.
 */
import { Message, Model } from "@agent-harness/executor"
import { createOpenAI } from "@ai-sdk/openai"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { AiSdkModel, ProviderError } from "../src/index.ts"
import { FakeProvider } from "../src/testing.ts"
import { failureOf, jsonOf, runLoop, successOf } from "./fixtures.ts"

const timeout = 60_000

const responsesOf = (fake: FakeProvider.Fake, options?: AiSdkModel.Options) =>
  AiSdkModel.layer(createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "sk-test" }).responses("gpt-test"), {
    retry: { base: "1 millis" },
    ...options
  })

const opening = [Message.system("Eres un asistente de cocina."), Message.user("Busca salmorejo y apúntalo.")]

type Item = Readonly<Record<string, unknown>>
const inputOf = (request: FakeProvider.Recorded | undefined) =>
  jsonOf<{ readonly input: ReadonlyArray<Item> }>(request).input

/** Sends a body to the fake's /v1/responses as a client would, and gives the status and the error body. */
const post = (fake: FakeProvider.Fake, body: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`${fake.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test", "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    return { status: response.status, json: (await response.json()) as { readonly error?: Item } }
  })

describe("AiSdkModel over @ai-sdk/openai Responses", () => {
  it.live(
    "a multi-turn run with tool calls: function_call items out and back, each function_call_output by call_id, text by item_reference, usage per turn",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          apiKey: "sk-test",
          responses: [
            FakeProvider.reply(
              [
                Message.text("Voy a buscar."),
                Message.toolUse("call_1", "catalogo_buscar", { consulta: "salmorejo" }),
                Message.toolUse("call_2", "anadir", { ruta: "notas.txt" })
              ],
              { usage: { input: 120, output: 40 } }
            ),
            FakeProvider.reply([Message.toolUse("call_3", "anadir", { ruta: "notas.txt", texto: "salmorejo" })]),
            FakeProvider.reply([Message.text("Apuntado.")], { usage: { input: 300, output: 3 } })
          ]
        })
        const { exit, ran } = yield* runLoop(responsesOf(fake), opening)
        const result = successOf(exit)
        expect(result.text).toBe("Apuntado.")
        expect(ran).toEqual(["catalogo.buscar salmorejo", "añadir notas.txt salmorejo"])
        expect(result.turns.map((t) => t.usage)).toMatchObject([
          { inputTokens: 120, outputTokens: 40 },
          { inputTokens: 10, outputTokens: 5 },
          { inputTokens: 300, outputTokens: 3 }
        ])
        expect(result.turns.map((t) => t.finishReason)).toEqual(["tool-calls", "tool-calls", "stop"])
        // The history keeps the real names; the wire has the aliases.
        expect(result.messages[2]).toMatchObject({
          role: "assistant",
          content: [
            { type: "text", text: "Voy a buscar." },
            { type: "tool_use", id: "call_1", name: "catalogo.buscar", input: { consulta: "salmorejo" } },
            { type: "tool_use", id: "call_2", name: "añadir", input: { ruta: "notas.txt" } }
          ]
        })
        expect(fake.requestsTo("responses").map((r) => r.problems)).toEqual([[], [], []])
        const first = jsonOf<{ readonly tools: ReadonlyArray<Item> }>(fake.requests[0])
        expect(first.tools.map((t) => [t.type, t.name])).toEqual([
          ["function", "anadir"],
          ["function", "catalogo_buscar"]
        ])
        const third = inputOf(fake.requests[2])
        expect(third.map((item) => item.type ?? item.role)).toEqual([
          "system",
          "user",
          "item_reference",
          "function_call",
          "function_call",
          "function_call_output",
          "function_call_output",
          "function_call",
          "function_call_output"
        ])
        expect(third[2]).toEqual({ type: "item_reference", id: "msg_fake_1_0" })
        expect(third.slice(3, 7)).toEqual([
          { type: "function_call", call_id: "call_1", name: "catalogo_buscar", arguments: '{"consulta":"salmorejo"}' },
          { type: "function_call", call_id: "call_2", name: "anadir", arguments: '{"ruta":"notas.txt"}' },
          { type: "function_call_output", call_id: "call_1", output: "3 recetas de salmorejo" },
          {
            type: "function_call_output",
            call_id: "call_2",
            output: '{"error":"not executed: missing field \'texto\'"}'
          }
        ])
      }),
    timeout
  )

  it.live(
    "an incomplete response (max_output_tokens) is an IncompleteReply; a rejected request is RequestRejected with the API's message",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          responses: [
            FakeProvider.reply([Message.text("Una respuesta cortad")], { stop: "max_output_tokens" }),
            FakeProvider.error(400, { message: "Invalid 'input[2].name': string does not match pattern." })
          ]
        })
        const cut = yield* runLoop(responsesOf(fake), opening)
        const incomplete = failureOf(cut.exit)
        if (incomplete._tag !== "ModelError") throw new Error(incomplete.message)
        expect(incomplete.reason).toBeInstanceOf(Model.IncompleteReply)
        expect(incomplete.message).toBe(
          "model call 1: the reply was cut off by the token limit (finish reason 'length')"
        )
        const refused = yield* runLoop(responsesOf(fake), opening)
        const failure = failureOf(refused.exit)
        if (failure._tag !== "ModelError") throw new Error(failure.message)
        expect(failure.reason).toBeInstanceOf(ProviderError.RequestRejected)
        expect(failure.message).toBe(
          "model call 1: openai.responses refused the request (HTTP 400): Invalid 'input[2].name': string does not match pattern."
        )
      }),
    timeout
  )

  it.live(
    "arguments nested 10,000 deep are not read (not executed) and go back as a string the API accepts; a reply cut off is retried",
    () =>
      Effect.gen(function* () {
        const deep = `{"consulta":${"[".repeat(10_000)}${"]".repeat(10_000)}}`
        const fake = yield* FakeProvider.scoped({
          responses: [
            FakeProvider.cut(FakeProvider.reply([Message.text("a medias")])),
            FakeProvider.reply([Message.toolUse("call_1", "catalogo_buscar", deep)]),
            FakeProvider.reply([Message.text("Perdón.")])
          ]
        })
        const { exit, ran, retries } = yield* runLoop(responsesOf(fake), opening)
        expect(successOf(exit).text).toBe("Perdón.")
        expect(ran).toEqual([])
        expect(retries).toHaveLength(1)
        expect(fake.requests.map((r) => r.problems)).toEqual([[], [], []])
        expect(inputOf(fake.requests[2]).slice(2)).toEqual([
          {
            type: "function_call",
            call_id: "call_1",
            name: "catalogo_buscar",
            arguments: '"[arguments not read: nested more than 64 levels deep]"'
          },
          {
            type: "function_call_output",
            call_id: "call_1",
            output: '{"error":"not executed: input must be an object"}'
          }
        ])
      }),
    timeout
  )

  it.live(
    "the fake refuses what the real API refuses, with its error body: an output without its call, a call without its output, an unknown reference, a bad tool name, no model",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ apiKey: "sk-test" })
        const user = { role: "user", content: "hola" }
        const call = { type: "function_call", call_id: "call_1", name: "leer", arguments: "{}" }
        const cases: ReadonlyArray<readonly [unknown, string]> = [
          [
            { model: "m", input: [user, { type: "function_call_output", call_id: "call_9", output: "x" }] },
            "No tool call found for function call output with call_id call_9."
          ],
          [{ model: "m", input: [user, call] }, "No tool output found for function call call_1."],
          [
            { model: "m", input: [user, { type: "item_reference", id: "msg_nope" }] },
            "Item with id 'msg_nope' not found."
          ],
          [
            { model: "m", input: [user], tools: [{ type: "function", name: "catalogo.buscar", parameters: {} }] },
            "Invalid 'tools[0].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
          ],
          [
            {
              model: "m",
              input: [
                user,
                { ...call, arguments: { path: "a" } },
                { type: "function_call_output", call_id: "call_1", output: "x" }
              ]
            },
            "Invalid type for 'input[1].arguments': expected a string, but got object instead."
          ],
          [{ input: [user] }, "Missing required parameter: 'model'."],
          [{ model: "m" }, "Missing required parameter: 'input'."]
        ]
        for (const [body, message] of cases) {
          const answer = yield* post(fake, body)
          expect(answer.status).toBe(400)
          expect(answer.json.error).toEqual({ message, type: "invalid_request_error", param: null, code: null })
        }
        expect(fake.requests.map((r) => r.problems)).toEqual(cases.map(([, message]) => [message]))
        // Answered calls are fine.
        fake.push("responses", FakeProvider.reply([Message.text("ok")]))
        const fine = yield* post(fake, {
          model: "m",
          input: [user, call, { type: "function_call_output", call_id: "call_1", output: "x" }]
        })
        expect(fine.status).toBe(200)
      }),
    timeout
  )
})
