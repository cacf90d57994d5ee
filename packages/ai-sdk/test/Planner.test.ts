/**
 * The model-backed planner through an AI SDK provider: the same `Model` layer as the loop's
 * (`AiSdkModel`, or effect/ai's `LanguageModel` through `LanguageModelAdapter`), its plan read
 * from the reply's text, provider failures typed.
 */
import { Message } from "@agent-harness/executor"
import { ModelPlanner, Session } from "@agent-harness/planner"
import { createOpenAI } from "@ai-sdk/openai"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AiSdkModel, EffectAiModel, LanguageModelAdapter, ProviderError } from "../src/index.ts"
import { FakeProvider } from "../src/testing.ts"
import { jsonOf, makeTools } from "./fixtures.ts"

const timeout = 60_000

const chatOf = (fake: FakeProvider.Fake, apiKey: string) =>
  createOpenAI({ baseURL: `${fake.url}/v1`, apiKey }).chat("gpt-test")

const aiSdkModelOf = (fake: FakeProvider.Fake, apiKey = "sk-test") =>
  AiSdkModel.layer(chatOf(fake, apiKey), { retry: { base: "1 millis" } })

const effectAiModelOf = (fake: FakeProvider.Fake, apiKey = "sk-test") =>
  Layer.provide(LanguageModelAdapter.layer, EffectAiModel.layer(chatOf(fake, apiKey), { retry: { base: "1 millis" } }))

const plan = {
  steps: [
    { id: 1, tool_name: "catalogo.buscar", args: { consulta: "salmorejo" }, expected_outcome: "recetas" },
    { id: 2, tool_name: "añadir", args: { ruta: "lista.txt", texto: "tomates" }, expected_outcome: "apuntado" }
  ]
}

describe("ModelPlanner over the loop's Model", () => {
  it.live.each([
    ["AiSdkModel", aiSdkModelOf],
    ["LanguageModelAdapter over EffectAiModel", effectAiModelOf]
  ] as const)(
    "through %s: plans with the planner's messages and no tools, retried once, and the session runs the plan",
    ([, modelOf]) =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          openai: [
            FakeProvider.error(429, { message: "slow down", retryAfterMs: 1 }),
            FakeProvider.reply([Message.text(JSON.stringify(plan))])
          ]
        })
        const { toolset, ran } = makeTools()
        const result = yield* Session.run({
          goal: "Apunta lo que hace falta para un salmorejo",
          planner: ModelPlanner.make({ toolset }),
          toolset,
          maxSteps: 5,
          maxReplans: 0
        }).pipe(Effect.provide(modelOf(fake)))
        expect([result.status, result.steps]).toEqual(["completed", 2])
        expect(ran).toEqual(["catalogo.buscar salmorejo", "añadir lista.txt tomates"])
        expect(fake.requests).toHaveLength(2)
        expect(fake.requests[0]?.body).toBe(fake.requests[1]?.body)
        const body = jsonOf<{ messages: ReadonlyArray<{ role: string; content: unknown }>; tools?: unknown }>(
          fake.requests[1]
        )
        expect(body.messages.map((m) => m.role)).toEqual(["system", "user"])
        expect(JSON.stringify(body.messages[0]?.content)).toContain("You are the planner of a plan-and-execute agent.")
        expect(JSON.stringify(body.messages[1]?.content)).toContain("Goal: Apunta lo que hace falta para un salmorejo")
        expect(body.tools === undefined || (Array.isArray(body.tools) && body.tools.length === 0)).toBe(true)
      }),
    timeout
  )

  it.live(
    "a rejected key fails the session with the model's typed failure: RequestRejected from AiSdkModel, an AiError through effect/ai",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ apiKey: "sk-right" })
        const { toolset } = makeTools()
        const planner = ModelPlanner.make({ toolset })
        const planning = Session.run({ goal: "g", planner, toolset, maxSteps: 5, maxReplans: 0 })
        const cause = "openai.chat rejected the API key (HTTP 401): Incorrect API key provided."

        const rejected = yield* Effect.flip(planning.pipe(Effect.provide(aiSdkModelOf(fake, "sk-wrong"))))
        assert.instanceOf(rejected, ProviderError.RequestRejected)
        expect([rejected.status, rejected.refusal]).toEqual([401, "api_key_rejected"])
        expect(rejected.message).toContain(cause)

        const aiError = yield* Effect.flip(planning.pipe(Effect.provide(effectAiModelOf(fake, "sk-wrong"))))
        expect(aiError._tag).toBe("AiError")
        expect(aiError).toMatchObject({ reason: { _tag: "AuthenticationError", kind: "InvalidKey" } })
        expect(aiError.message).toContain(cause)
      }),
    timeout
  )
})
