/**
 * Tool definitions through the effect/ai adapter (`EffectAiModel`) are normalized for the
 * provider as `AiSdkModel`'s are: the official MCP servers' real `tools/list` (fixtures/), as
 * `LanguageModelAdapter` declares them, gets past the fake's Anthropic rules; on OpenAI, strict
 * mode is on where it costs nothing and a `null` for what the model left out reaches effect/ai's
 * own decoding as absent.
 */
import { Loop, Message } from "@agent-harness/executor"
import { Toolset } from "@agent-harness/tool-schema"
import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Schema } from "effect"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as AiTool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import { EffectAiModel, LanguageModelAdapter } from "../src/index.ts"
import { FakeProvider } from "../src/testing.ts"
import { listed, toolOf } from "./fixtures/servers.ts"
import { jsonOf } from "./fixtures.ts"

const timeout = 60_000

const collect = (logs: Array<string>) =>
  Logger.layer([Logger.make((o) => logs.push(`${o.logLevel} ${String(o.message)}`))])

describe("EffectAiModel tool definitions", () => {
  it.live(
    "the 27 tools of the official servers, declared through LanguageModelAdapter, reach the fake Anthropic API as object schemas without top-level oneOf/allOf/anyOf",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          anthropic: [
            FakeProvider.reply([Message.toolUse("c1", "echo", { message: "hola" })]),
            FakeProvider.reply([Message.text("done")])
          ]
        })
        const ran: Array<string> = []
        const model = EffectAiModel.layer(createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: "k" })("claude-test"), {
          maxOutputTokens: 256,
          retry: { base: "1 millis" }
        })
        const result = yield* Loop.run({
          toolset: Toolset.make(...listed.map((entry) => toolOf(entry, ran))),
          messages: [Message.user("go")]
        }).pipe(Effect.provide(Layer.provide(LanguageModelAdapter.layer, model)))
        expect(result.stop).toBe("end")
        expect(fake.requests.map((r) => r.problems)).toEqual([[], []])
        expect(ran).toEqual(['echo {"message":"hola"}'])
        const sent = jsonOf<{ tools: ReadonlyArray<{ input_schema: Record<string, unknown> }> }>(fake.requests[0]).tools
        expect(sent.length).toBe(27)
        for (const tool of sent) {
          expect(tool.input_schema.type).toBe("object")
          expect([tool.input_schema.oneOf, tool.input_schema.allOf, tool.input_schema.anyOf]).toEqual([
            undefined,
            undefined,
            undefined
          ])
        }
      }),
    timeout
  )

  it.live(
    "a raw JSON Schema with a top-level anyOf (an effect/ai dynamic tool) is flattened for Anthropic, and what was relaxed is said once",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          anthropic: [FakeProvider.reply([Message.text("one")]), FakeProvider.reply([Message.text("two")])]
        })
        const pick = AiTool.dynamic("pick", {
          description: "Picks",
          parameters: {
            anyOf: [
              { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
              { type: "object", properties: { b: { type: "number" } }, required: ["b"] }
            ]
          }
        })
        const toolkit = Toolkit.make(pick)
        const logs: Array<string> = []
        const layer = Layer.mergeAll(
          EffectAiModel.layer(createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: "k" })("claude-test"), {
            maxOutputTokens: 256,
            retry: { base: "1 millis" }
          }),
          toolkit.toLayer({ pick: () => Effect.succeed(undefined) }),
          collect(logs)
        )
        for (let i = 0; i < 2; i++) {
          yield* LanguageModel.generateText({ prompt: "go", toolkit }).pipe(Effect.provide(layer))
        }
        expect(fake.requests.map((r) => r.problems)).toEqual([[], []])
        const schema = jsonOf<{ tools: ReadonlyArray<{ input_schema: Record<string, unknown> }> }>(fake.requests[0])
          .tools[0]?.input_schema
        expect(schema).toEqual({ type: "object", properties: { a: { type: "string" }, b: { type: "number" } } })
        expect(logs.filter((l) => l.startsWith("Warn"))).toEqual([
          "Warn anthropic.messages: tool 'pick': schema top-level anyOf of 2 schemas sent as one object with all their properties; which combination is allowed is checked locally"
        ])
      }),
    timeout
  )

  it.live(
    "a tool whose JSON Schema refers to itself is sent as any object and said so, never a crash",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ anthropic: [FakeProvider.reply([Message.text("ok")])] })
        const cyclic: Record<string, unknown> = { type: "object" }
        cyclic.properties = { self: cyclic }
        const toolkit = Toolkit.make(AiTool.dynamic("loop", { description: "Loops", parameters: cyclic }))
        const logs: Array<string> = []
        const response = yield* LanguageModel.generateText({ prompt: "go", toolkit }).pipe(
          Effect.provide(
            Layer.mergeAll(
              EffectAiModel.layer(createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: "k" })("claude-test"), {
                maxOutputTokens: 256,
                retry: { base: "1 millis" }
              }),
              toolkit.toLayer({ loop: () => Effect.succeed(undefined) }),
              collect(logs)
            )
          )
        )
        expect(response.text).toBe("ok")
        expect(fake.requests.map((r) => r.problems)).toEqual([[]])
        expect(
          jsonOf<{ tools: ReadonlyArray<{ input_schema: unknown }> }>(fake.requests[0]).tools[0]?.input_schema
        ).toEqual({ type: "object" })
        expect(logs.filter((l) => l.startsWith("Warn"))).toEqual([
          "Warn anthropic.messages: tool 'loop': schema the schema could not be read (it refers to itself (a cycle)): sent as any object"
        ])
      }),
    timeout
  )

  it.live(
    "OpenAI: an effect/ai tool is sent strict (unless it says Tool.Strict false), and the model's null for an optional parameter reaches its handler as absent",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          openai: [FakeProvider.reply([Message.toolUse("c1", "read", { path: "a.txt", head: null })])]
        })
        const read = AiTool.make("read", {
          description: "Reads",
          parameters: Schema.Struct({ path: Schema.String, head: Schema.optionalKey(Schema.Finite) }),
          success: Schema.String
        })
        // A tool that says it is not to be strict is not, whatever the option.
        const loose = AiTool.make("loose", {
          description: "Loose",
          parameters: Schema.Struct({ q: Schema.String })
        }).annotate(AiTool.Strict, false)
        const toolkit = Toolkit.make(read, loose)
        const seen: Array<unknown> = []
        const response = yield* LanguageModel.generateText({ prompt: "go", toolkit }).pipe(
          Effect.provide(
            Layer.mergeAll(
              EffectAiModel.layer(createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "k" }).chat("gpt-test"), {
                retry: { base: "1 millis" }
              }),
              toolkit.toLayer({
                read: (params) =>
                  Effect.sync(() => {
                    seen.push(params)
                    return "contents"
                  }),
                loose: () => Effect.void
              })
            )
          )
        )
        expect(fake.requests.map((r) => r.problems)).toEqual([[]])
        const sent = jsonOf<{ tools: ReadonlyArray<{ function: { strict?: boolean } }> }>(fake.requests[0]).tools
        expect(sent.map((t) => t.function.strict)).toEqual([true, undefined])
        expect(seen).toEqual([{ path: "a.txt" }])
        expect(response.toolResults.map((r) => [r.name, r.isFailure, r.result])).toEqual([["read", false, "contents"]])
      }),
    timeout
  )
})
