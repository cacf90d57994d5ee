/**
 * Row 3: the loop per tool call — a turn of 100 calls minus a turn of 1, divided by 99 — with
 * the scripted model, beside the AI SDK (`generateText` and its mock model) and effect/ai
 * (`LanguageModel.generateText` and a `LanguageModel.make` model, the tools run by a toolkit
 * with handlers) making the same calls: the model asks for n reads, gets the n results, then
 * answers with text.
 */
import { Loop, Message, type Model } from "@agent-harness/executor"
import { Script, ScriptedModel } from "@agent-harness/scripted-model"
import { generateText, isStepCount, type TelemetryOptions, tool } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { type Context, Effect, Layer, Schema, Stream } from "effect"
import { LanguageModel, Prompt, type Response, Tool as AiTool, Toolkit } from "effect/ai"
import { z } from "zod"
import { check, toolset } from "./Fixtures.ts"
import * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

/** The calls of the long turn. */
export const many = 100
const path = (i: number) => `notes/${i}.txt`

// The harness: the real loop, the scripted model playing two turns.

const opening: ReadonlyArray<Message.Message> = [Message.user("Read the notes.")]

/** The loop making `n` calls in one turn, then ending with text (row 3; row 16 with telemetry). */
export const oursFor = (n: number) => {
  const calls = Array.from({ length: n }, (_, i) => Message.toolUse(`c${i}`, "read", { path: path(i), limit: 4096 }))
  const model: Layer.Layer<Model.Model> = ScriptedModel.layer({
    messages: opening,
    turns: [{ reply: calls, expect: Script.unchecked }, { reply: [Message.text("done")] }]
  })
  return Loop.run({ toolset, messages: opening, maxTurns: 3 }).pipe(Effect.provide(model))
}

// The AI SDK: generateText runs the tool calls of step 1, then step 2 answers.

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined }
}

const aiRead = tool({
  description: "Reads up to `limit` bytes of a file",
  inputSchema: z.object({ path: z.string(), limit: z.number() }),
  execute: ({ path }) => `contents of ${path}`
})

/** The AI SDK making the same `n` calls (row 3); with `telemetry`, its telemetry on (row 16). */
export const aiSdkFor = (n: number, telemetry?: TelemetryOptions) => {
  const calls = Array.from({ length: n }, (_, i) => ({
    type: "tool-call" as const,
    toolCallId: `c${i}`,
    toolName: "read",
    input: JSON.stringify({ path: path(i), limit: 4096 })
  }))
  return () =>
    generateText({
      // A fresh mock each time: it records every call it gets.
      model: new MockLanguageModelV4({
        doGenerate: [
          { content: calls, finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] },
          {
            content: [{ type: "text", text: "done" }],
            finishReason: { unified: "stop", raw: undefined },
            usage,
            warnings: []
          }
        ]
      }),
      tools: { read: aiRead },
      prompt: "Read the notes.",
      stopWhen: isStepCount(2),
      ...(telemetry === undefined ? {} : { telemetry })
    })
}

// effect/ai: generateText resolves the tool calls with the toolkit's handlers; a second
// generateText, shown the results, answers.

const EffectRead = AiTool.make("read", {
  description: "Reads up to `limit` bytes of a file",
  parameters: Schema.Struct({ path: Schema.String, limit: Schema.Finite }),
  success: Schema.String
})
const effectToolkit = Toolkit.make(EffectRead)
const handlers = effectToolkit.toLayer({ read: ({ path }) => Effect.succeed(`contents of ${path}`) })

const finish = (reason: "tool-calls" | "stop"): Response.PartEncoded => ({
  type: "finish",
  reason,
  usage: {
    inputTokens: { uncached: 10, total: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined }
  }
})

const effectModel = (n: number) =>
  LanguageModel.make({
    generateText: (options) =>
      Effect.sync((): Array<Response.PartEncoded> => {
        const last = options.prompt.content[options.prompt.content.length - 1]
        if (last?.role === "tool") return [{ type: "text", text: "done" }, finish("stop")]
        return [
          ...Array.from(
            { length: n },
            (_, i): Response.PartEncoded => ({
              type: "tool-call",
              id: `c${i}`,
              name: "read",
              params: { path: path(i), limit: 4096 }
            })
          ),
          finish("tool-calls")
        ]
      }),
    streamText: () => Stream.empty
  })

const effectAiFor = (n: number, services: Context.Context<Layer.Success<typeof handlers>>) =>
  Effect.gen(function* () {
    const toolkit = yield* effectToolkit
    const first = yield* LanguageModel.generateText({ prompt: "Read the notes.", toolkit })
    const prompt = Prompt.concat(Prompt.make("Read the notes."), Prompt.fromResponseParts(first.content))
    const second = yield* LanguageModel.generateText({ prompt, toolkit })
    return { first, second }
  }).pipe(Effect.provideServiceEffect(LanguageModel.LanguageModel, effectModel(n)), Effect.provideContext(services))

export const measure = async (settings: Measure.Settings, a: number): Promise<ReadonlyArray<Table.Row>> => {
  const ours1 = oursFor(1)
  const oursMany = oursFor(many)
  const aiSdk1 = aiSdkFor(1)
  const aiSdkMany = aiSdkFor(many)
  const services = Effect.runSync(Layer.build(handlers).pipe(Effect.scoped))
  const effect1 = effectAiFor(1, services)
  const effectMany = effectAiFor(many, services)

  // Every contender makes the n calls and gets the n results, then ends with text.
  const ours = Effect.runSync(oursMany)
  check(ours.stop === "end" && ours.turns[0]?.outcomes.length === many, "the loop runs 100 calls and ends")
  check(ours.turns[0]?.outcomes.every((o) => o._tag === "Succeeded") ?? false, "every loop call succeeds")
  const sdk = await aiSdkMany()
  check(sdk.steps.length === 2 && sdk.steps[0]?.toolResults.length === many, "the AI SDK runs 100 calls")
  check(sdk.text === "done", "the AI SDK ends with text")
  const eff = await Effect.runPromise(effectMany)
  check(eff.first.toolResults.length === many && eff.second.text === "done", "effect/ai runs 100 calls")
  check(
    eff.first.toolResults.every((r) => !r.isFailure),
    "every effect/ai call succeeds"
  )

  const results = await Measure.run(
    [
      { name: "ours.1", fn: () => Effect.runSync(ours1) },
      { name: "ours.n", fn: () => Effect.runSync(oursMany) },
      { name: "aisdk.1", fn: aiSdk1 },
      { name: "aisdk.n", fn: aiSdkMany },
      { name: "effectai.1", fn: () => Effect.runPromise(effect1) },
      { name: "effectai.n", fn: () => Effect.runPromise(effectMany) }
    ],
    settings
  )
  const perCall = (prefix: string) =>
    (Measure.get(results, `${prefix}.n`) - Measure.get(results, `${prefix}.1`)) / (many - 1)
  const ours_ = perCall("ours")
  const aiSdk = perCall("aisdk")
  const effectAi = perCall("effectai")
  return [
    Table.perCall("3", "the loop per tool call, scripted model (a turn of 100 calls − a turn of 1) ÷ 99", ours_, a, 40),
    Table.perCall("3", "AI SDK `generateText` + `MockLanguageModelV4`, per tool call, same method", aiSdk, a),
    Table.perCall(
      "3",
      "effect/ai `LanguageModel.generateText` + toolkit handlers, per tool call, same method",
      effectAi,
      a
    ),
    {
      id: "3",
      label: "AI SDK per call ÷ the loop per call",
      value: `×${Table.times(aiSdk / ours_)}`,
      target: "≥ 10",
      met: aiSdk / ours_ >= 10
    },
    {
      id: "3",
      label: "effect/ai per call ÷ the loop per call",
      value: `×${Table.times(effectAi / ours_)}`,
      target: "≥ 50",
      met: effectAi / ours_ >= 50
    }
  ]
}
