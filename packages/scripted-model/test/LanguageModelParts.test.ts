import { Message } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import { Prompt } from "effect/ai"
import { LanguageModelParts } from "../src/index.ts"
import { showing } from "./fixtures/languageModel.ts"

const { text, toolUse, toolResult } = Message

describe("LanguageModelParts", () => {
  it("lastToolResults: the last tool message's results, as the model is shown them", () => {
    const results = [
      toolResult("c1", "not executed: field 'path' must be a string", true),
      toolResult("c2", "A", false)
    ]
    expect(LanguageModelParts.lastToolResults(showing(results))).toStrictEqual(results)
  })

  it("lastToolResults: a result's images come back as parts, a non-text result as its JSON", () => {
    const prompt = Prompt.make([
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            id: "c1",
            name: "shot",
            isFailure: false,
            result: "a screenshot",
            modelOutput: [
              { type: "text", text: "a screenshot" },
              { type: "file", mediaType: "image/png", data: "iVBORw0KGgo=" }
            ]
          },
          { type: "tool-result", id: "c2", name: "count", isFailure: false, result: { n: 2 } }
        ]
      }
    ])
    expect(LanguageModelParts.lastToolResults(prompt)).toStrictEqual([
      toolResult("c1", "a screenshot", false, {
        parts: [{ type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }]
      }),
      toolResult("c2", '{"n":2}', false, { parts: [] })
    ])
  })

  it("lastToolResults is empty when the last turn is the assistant's or there is none", () => {
    expect(LanguageModelParts.lastToolResults(Prompt.make("hi"))).toEqual([])
    expect(LanguageModelParts.lastToolResults(showing([]))).toEqual([])
    expect(
      LanguageModelParts.lastToolResults(
        Prompt.make([
          { role: "tool", content: [{ type: "tool-result", id: "c0", name: "read", isFailure: false, result: "old" }] },
          { role: "assistant", content: [{ type: "text", text: "next" }] }
        ])
      )
    ).toEqual([])
  })

  it("toResponseParts: reply blocks as encoded response parts", () => {
    const reply = [text("a"), toolUse("c1", "read", { path: "x" }), Message.reasoning("hm"), text("b")]
    expect(LanguageModelParts.toResponseParts(reply)).toEqual([
      { type: "text", text: "a" },
      { type: "tool-call", id: "c1", name: "read", params: { path: "x" } },
      { type: "reasoning", text: "hm" },
      { type: "text", text: "b" }
    ])
  })
})
