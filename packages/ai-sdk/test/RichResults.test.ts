/**
 * A tool's image through the loop and the real AI SDK providers to the loopback fake, which
 * checks what the real APIs accept: Anthropic receives it as an image block inside the
 * tool_result (beside the text); OpenAI Responses as an `input_image` in the
 * function_call_output; OpenAI Chat, whose tool messages are text only, the text, which says
 * what the image is (and no base64 dumped into it).
 */
import { Loop, Message, type Model } from "@agent-harness/executor"
import { Tool, ToolContent, Toolset } from "@agent-harness/tool-schema"
import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { AiSdkModel, EffectAiModel, LanguageModelAdapter, ProviderPrompt } from "../src/index.ts"
import { FakeProvider } from "../src/testing.ts"
import { jsonOf, successOf } from "./fixtures.ts"

const timeout = 60_000
const png = "iVBORw0KGgoAAAANSUhEUg=="
const text = "the chart of march\n[image image/png, 16 bytes]"

const Chart = Tool.make("chart", {
  description: "Draws a chart",
  parameters: Schema.Struct({ month: Schema.String }),
  run: ({ month }) =>
    ToolContent.make({
      text: `the chart of ${month}`,
      parts: [{ type: "image", mediaType: "image/png", data: png }]
    })
})

const script = [
  FakeProvider.reply([Message.toolUse("call_1", "chart", { month: "march" })]),
  FakeProvider.reply([Message.text("Here it is.")])
]

const run = (model: Layer.Layer<Model.Model>) =>
  Effect.gen(function* () {
    const exit = yield* Loop.run({
      toolset: Toolset.make(Chart),
      messages: [Message.user("Draw march.")],
      maxTurns: 3
    }).pipe(Effect.provide(model), Effect.exit)
    return successOf(exit)
  })

interface Json {
  readonly [key: string]: unknown
}

describe("rich tool results to real providers", () => {
  it.live(
    "Anthropic receives the image inside the tool_result, after the text",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ apiKey: "k", anthropic: script })
        const model = AiSdkModel.layer(createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: "k" })("claude-test"), {
          maxOutputTokens: 256
        })
        const result = yield* run(model)
        expect(result.stop).toBe("end")
        const second = fake.requestsTo("anthropic")[1]
        expect(second?.problems).toEqual([])
        const messages = jsonOf<{ readonly messages: ReadonlyArray<{ readonly content: ReadonlyArray<Json> }> }>(
          second
        ).messages
        const toolResult = messages[2]?.content[0]
        expect(toolResult).toMatchObject({
          type: "tool_result",
          tool_use_id: "call_1",
          content: [
            { type: "text", text },
            { type: "image", source: { type: "base64", media_type: "image/png", data: png } }
          ]
        })
      }),
    timeout
  )

  it.live(
    "OpenAI Responses receives an input_image in the function_call_output",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ responses: script })
        const model = AiSdkModel.layer(createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "sk" }).responses("gpt-test"))
        const result = yield* run(model)
        expect(result.stop).toBe("end")
        const second = fake.requestsTo("responses")[1]
        expect(second?.problems).toEqual([])
        const input = jsonOf<{ readonly input: ReadonlyArray<Json> }>(second).input
        const output = input.find((item) => item.type === "function_call_output")
        expect(output?.output).toEqual([
          { type: "input_text", text },
          { type: "input_image", image_url: `data:image/png;base64,${png}` }
        ])
      }),
    timeout
  )

  it.live(
    "OpenAI Chat receives the text alone, which says what the image is",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ openai: script })
        const model = AiSdkModel.layer(createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "sk" }).chat("gpt-test"))
        const result = yield* run(model)
        expect(result.stop).toBe("end")
        const second = fake.requestsTo("openai")[1]
        expect(second?.problems).toEqual([])
        const messages = jsonOf<{ readonly messages: ReadonlyArray<Json> }>(second).messages
        const tool = messages.find((m) => m.role === "tool")
        expect(tool?.content).toBe(text)
      }),
    timeout
  )

  it.live(
    "the fake refuses what the APIs refuse: an image in an OpenAI Chat tool message, a bad Anthropic media type",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ apiKey: "k" })
        const post = (path: string, body: unknown) =>
          Effect.promise(() =>
            fetch(`${fake.url}${path}`, {
              method: "POST",
              headers: { "content-type": "application/json", "x-api-key": "k", authorization: "Bearer k" },
              body: JSON.stringify(body)
            })
          )
        const chat = yield* post("/v1/chat/completions", {
          model: "gpt-test",
          messages: [
            { role: "user", content: "go" },
            {
              role: "assistant",
              tool_calls: [{ id: "c1", type: "function", function: { name: "t", arguments: "{}" } }]
            },
            { role: "tool", tool_call_id: "c1", content: [{ type: "image_url", image_url: { url: "data:," } }] }
          ]
        })
        expect(chat.status).toBe(400)
        expect(fake.requests.at(-1)?.problems.join("\n")).toContain(
          "Image URLs are only allowed for messages with role 'user'"
        )
        const anthropic = yield* post("/v1/messages", {
          model: "claude-test",
          max_tokens: 10,
          messages: [
            { role: "user", content: "go" },
            { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "t", input: {} }] },
            {
              role: "user",
              content: [
                {
                  type: "tool_result",
                  tool_use_id: "c1",
                  content: [{ type: "image", source: { type: "base64", media_type: "image/bmp", data: png } }]
                }
              ]
            }
          ]
        })
        expect(anthropic.status).toBe(400)
        expect(fake.requests.at(-1)?.problems.join("\n")).toContain(
          "image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
        )
      }),
    timeout
  )

  it.live(
    "through effect/ai (LanguageModelAdapter + EffectAiModel): Anthropic gets the image, OpenAI Chat the text",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ apiKey: "k", anthropic: script, openai: script })
        const anthropic = EffectAiModel.layer(
          createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: "k" })("claude-test"),
          { maxOutputTokens: 256 }
        )
        expect((yield* run(Layer.provide(LanguageModelAdapter.layer, anthropic))).stop).toBe("end")
        const second = fake.requestsTo("anthropic")[1]
        expect(second?.problems).toEqual([])
        const messages = jsonOf<{ readonly messages: ReadonlyArray<{ readonly content: ReadonlyArray<Json> }> }>(
          second
        ).messages
        expect(messages[2]?.content[0]).toMatchObject({
          type: "tool_result",
          content: [
            { type: "text", text },
            { type: "image", source: { type: "base64", media_type: "image/png", data: png } }
          ]
        })
        const chat = EffectAiModel.layer(createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "k" }).chat("gpt-test"))
        expect((yield* run(Layer.provide(LanguageModelAdapter.layer, chat))).stop).toBe("end")
        const sent = fake.requestsTo("openai")[1]
        expect(sent?.problems).toEqual([])
        const tool = jsonOf<{ readonly messages: ReadonlyArray<Json> }>(sent).messages.find((m) => m.role === "tool")
        expect(tool?.content).toBe(text)
      }),
    timeout
  )

  it("which providers get parts: Anthropic and OpenAI Responses; Chat and compatible servers the text", () => {
    expect(ProviderPrompt.mediaResultsFor("anthropic.messages")).toBe("parts")
    expect(ProviderPrompt.mediaResultsFor("openai.responses")).toBe("parts")
    expect(ProviderPrompt.mediaResultsFor("openai.chat")).toBe("text")
    expect(ProviderPrompt.mediaResultsFor("local.chat")).toBe("text")
  })
})
