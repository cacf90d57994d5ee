import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema, Stream } from "effect"
import { AiError, LanguageModel, Prompt, type Response } from "effect/ai"
import { Loop, Message, Model } from "@agent-harness/executor"
import { LanguageModelAdapter } from "../src/index.ts"

const { text, toolUse, toolResult } = Message

/** A LanguageModel that answers with canned encoded parts, one array per call, recording its options. */
const scriptedLanguageModel = (turns: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>) => {
  const queue = [...turns]
  const seen: Array<LanguageModel.ProviderOptions> = []
  const layer = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.suspend(() => {
          seen.push(options)
          const next = queue.shift()
          return next === undefined
            ? Effect.fail(
                AiError.make({
                  module: "Test",
                  method: "generateText",
                  reason: new AiError.InternalProviderError({ description: "no turn left" })
                })
              )
            : Effect.succeed([...next])
        }),
      streamText: () => Stream.empty
    })
  )
  return { layer, seen }
}

/** The [id, isFailure, result] of each tool-result part of a prompt's last message. */
const lastResultParts = (prompt: Prompt.Prompt): ReadonlyArray<readonly [string, boolean, unknown]> => {
  const last = prompt.content.at(-1)
  if (last === undefined || last.role !== "tool") return []
  return last.content.flatMap((part) =>
    part.type === "tool-result" ? [[part.id, part.isFailure, part.result] as const] : []
  )
}

const finish: Response.PartEncoded = {
  type: "finish",
  reason: "stop",
  usage: {
    inputTokens: { uncached: 10, total: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined }
  }
}

const runs: Array<string> = []
const Read = Tool.make("read", {
  description: "Reads a file",
  parameters: Schema.Struct({ path: Schema.String.annotate({ description: "File path" }) }),
  run: ({ path }) => {
    runs.push(path)
    return `contents of ${path}`
  }
})
const toolset = Toolset.make(Read)

const opening: ReadonlyArray<Message.Message> = [Message.system("Use the tools."), Message.user("Read a file.")]

describe("Loop.run over a LanguageModel", () => {
  it.effect("invalid params and an undeclared tool come back to the model as errors; the loop does not die", () =>
    Effect.gen(function* () {
      runs.length = 0
      const model = scriptedLanguageModel([
        [
          { type: "text", text: "Let me look." },
          { type: "tool-call", id: "c1", name: "read", params: { path: 7 } },
          { type: "tool-call", id: "c2", name: "ghost", params: { a: 1 } },
          finish
        ],
        [{ type: "text", text: "I could not read it." }, finish]
      ])
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(
        Effect.provide(Layer.provide(LanguageModelAdapter.layer, model.layer))
      )

      expect(model.seen.length).toBe(2)
      const second = model.seen[1]
      assert(second !== undefined)
      expect(lastResultParts(second.prompt)).toStrictEqual([
        ["c1", true, "not executed: field 'path' must be a string"],
        ["c2", true, "not executed: unknown tool 'ghost'"]
      ])
      expect(runs).toEqual([])

      expect(result.stop).toBe("end")
      expect(result.text).toBe("I could not read it.")
      expect(result.turns[0]?.reply).toEqual([
        text("Let me look."),
        toolUse("c1", "read", { path: 7 }),
        toolUse("c2", "ghost", { a: 1 })
      ])
    })
  )

  it.effect("the model is shown the history as a Prompt and the tools from their JSON Schema", () =>
    Effect.gen(function* () {
      runs.length = 0
      const model = scriptedLanguageModel([
        // no finish part: it is optional
        [{ type: "tool-call", id: "c1", name: "read", params: { path: "a.txt" } }],
        [{ type: "text", text: "It says: contents of a.txt" }]
      ])
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(
        Effect.provide(Layer.provide(LanguageModelAdapter.layer, model.layer))
      )
      expect(runs).toEqual(["a.txt"])
      expect(result.text).toBe("It says: contents of a.txt")

      const first = model.seen[0]
      const second = model.seen[1]
      assert(first !== undefined && second !== undefined)
      expect(first.tools.map((t) => t.name)).toEqual(["read"])
      expect(first.prompt.content.map((m) => m.role)).toEqual(["system", "user"])
      expect(second.prompt.content.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"])
      const tool = second.prompt.content[3]
      assert(tool !== undefined && tool.role === "tool")
      const part = tool.content[0]
      assert(part !== undefined && part.type === "tool-result")
      expect([part.id, part.name, part.isFailure, part.result]).toEqual(["c1", "read", false, "contents of a.txt"])
      expect(lastResultParts(second.prompt)).toStrictEqual([["c1", false, "contents of a.txt"]])
    })
  )

  it.effect("a provider error fails the loop with a ModelError", () =>
    Effect.gen(function* () {
      const model = scriptedLanguageModel([])
      const error = yield* Effect.flip(
        Loop.run({ toolset, messages: opening }).pipe(
          Effect.provide(Layer.provide(LanguageModelAdapter.layer, model.layer))
        )
      )
      assert.instanceOf(error, Model.ModelError)
      expect(error.turn).toBe(1)
      expect(error.reason._tag).toBe("AiError")
      assert.instanceOf(error.reason, AiError.AiError)
    })
  )
})

describe("the finish reason", () => {
  const finishing = (reason: Response.FinishReason): Response.PartEncoded => ({ ...finish, reason })

  it.effect.each(["length", "error", "content-filter"] as const)(
    "a reply that finished with '%s' is a model failure naming it, not an end",
    (reason) =>
      Effect.gen(function* () {
        runs.length = 0
        const model = scriptedLanguageModel([
          [
            { type: "text", text: "The list is: tomatoes, cucu" },
            { type: "tool-call", id: "c1", name: "read", params: { path: "a.txt" } },
            finishing(reason)
          ]
        ])
        const error = yield* Effect.flip(
          Loop.run({ toolset, messages: opening }).pipe(
            Effect.provide(Layer.provide(LanguageModelAdapter.layer, model.layer))
          )
        )
        assert.instanceOf(error, Model.ModelError)
        expect(error.turn).toBe(1)
        assert.instanceOf(error.reason, LanguageModelAdapter.IncompleteReply)
        expect(error.reason.finishReason).toBe(reason)
        expect(error.message).toContain(`finish reason '${reason}'`)
        // Nothing of a cut-off reply runs.
        expect(runs).toEqual([])
      })
  )

  it.effect.each(["stop", "tool-calls", "pause", "other", "unknown"] as const)("'%s' is a normal reply", (reason) =>
    Effect.gen(function* () {
      const model = scriptedLanguageModel([[{ type: "text", text: "done" }, finishing(reason)]])
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(
        Effect.provide(Layer.provide(LanguageModelAdapter.layer, model.layer))
      )
      expect([result.stop, result.text]).toEqual(["end", "done"])
    })
  )
})

describe("conversions", () => {
  it("toPrompt: tool results become a tool message with isFailure and the text as result", () => {
    const prompt = LanguageModelAdapter.toPrompt([
      Message.system("sys"),
      Message.user("hi"),
      Message.assistant([text("calling"), toolUse("c1", "read", { path: 1 }), toolUse("c2", "read", { path: "a" })]),
      Message.user([
        toolResult("c1", "not executed: field 'path' must be a string", true),
        toolResult("c2", "A", false)
      ])
    ])
    expect(prompt).toEqual(
      Prompt.make([
        { role: "system", content: "sys" },
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "calling" },
            { type: "tool-call", id: "c1", name: "read", params: { path: 1 }, providerExecuted: false },
            { type: "tool-call", id: "c2", name: "read", params: { path: "a" }, providerExecuted: false }
          ]
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              id: "c1",
              name: "read",
              isFailure: true,
              result: "not executed: field 'path' must be a string"
            },
            { type: "tool-result", id: "c2", name: "read", isFailure: false, result: "A" }
          ]
        }
      ])
    )
  })
})

describe("LanguageModelAdapter with reasoning", () => {
  it.effect("reasoning goes back as a reasoning part; usage and finish reason come through respond", () =>
    Effect.gen(function* () {
      const seen: Array<Prompt.Prompt> = []
      const languageModel = yield* LanguageModel.make({
        generateText: (options) =>
          Effect.sync(() => {
            seen.push(options.prompt)
            return [
              { type: "reasoning", text: "thinking" },
              { type: "text", text: "ok" },
              {
                type: "finish",
                reason: "stop",
                usage: {
                  inputTokens: { uncached: undefined, total: 9, cacheRead: 2, cacheWrite: undefined },
                  outputTokens: { total: 4, text: undefined, reasoning: 1 }
                }
              }
            ]
          }),
        streamText: () => Effect.die("unused") as never
      })
      const model = LanguageModelAdapter.make(languageModel)
      const respond = model.respond
      assert(respond !== undefined)
      const response = yield* respond({
        messages: [Message.user("hi"), Message.assistant([Message.reasoning("before"), Message.text("hello")])],
        toolset
      })
      expect(response.content).toEqual([Message.reasoning("thinking"), Message.text("ok")])
      expect(response.usage).toEqual({
        inputTokens: 9,
        outputTokens: 4,
        reasoningTokens: 1,
        cacheReadTokens: 2,
        cacheWriteTokens: undefined
      })
      expect(response.finishReason).toBe("stop")
      const assistant = seen[0]?.content[1]
      assert(assistant !== undefined && assistant.role === "assistant")
      expect(assistant.content.map((part) => part.type)).toEqual(["reasoning", "text"])
    })
  )
})
