/**
 * The model-backed planner through an AI SDK provider: `EffectAiModel` gives it an effect/ai
 * `LanguageModel`, its plan is asked as structured output, and provider failures are typed
 * `AiError`s.
 */
import { Message } from "@agent-harness/executor"
import { ModelPlanner, Session } from "@agent-harness/planner"
import { createOpenAI } from "@ai-sdk/openai"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { EffectAiModel } from "../src/index.ts"
import { FakeProvider } from "../src/testing.ts"
import { jsonOf, makeTools } from "./fixtures.ts"

const timeout = 60_000

const modelOf = (fake: FakeProvider.Fake, apiKey = "sk-test") =>
  EffectAiModel.layer(createOpenAI({ baseURL: `${fake.url}/v1`, apiKey }).chat("gpt-test"), {
    retry: { base: "1 millis" }
  })

describe("ModelPlanner over EffectAiModel", () => {
  it.live(
    "plans through the provider with a JSON response format, and the session runs the plan",
    () =>
      Effect.gen(function* () {
        const plan = {
          steps: [
            { id: 1, tool_name: "catalogo.buscar", args: { consulta: "salmorejo" }, expected_outcome: "recetas" },
            { id: 2, tool_name: "añadir", args: { ruta: "lista.txt", texto: "tomates" }, expected_outcome: "apuntado" }
          ]
        }
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
        const body = jsonOf<{ response_format?: { type: string; json_schema?: { name: string } } }>(fake.requests[1])
        expect(body.response_format?.type).toBe("json_schema")
        expect(body.response_format?.json_schema?.name).toBe("plan")
      }),
    timeout
  )

  it.live(
    "a rejected key is an AiError AuthenticationError (InvalidKey) naming the cause",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ apiKey: "sk-right" })
        const { toolset } = makeTools()
        const error = yield* Session.run({
          goal: "g",
          planner: ModelPlanner.make({ toolset }),
          toolset,
          maxSteps: 5,
          maxReplans: 0
        }).pipe(Effect.provide(modelOf(fake, "sk-wrong")), Effect.flip)
        expect(error._tag).toBe("AiError")
        expect(error.reason._tag).toBe("AuthenticationError")
        expect(error.reason).toMatchObject({ kind: "InvalidKey" })
        expect(error.message).toContain("openai.chat rejected the API key (HTTP 401): Incorrect API key provided.")
      }),
    timeout
  )
})
