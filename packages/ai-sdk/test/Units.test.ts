/**
 * The adapter's pure parts: retry-after headers, policy checks, the model check, argument
 * parsing, aliases both ways.
 */
import { Message } from "@agent-harness/executor"
import type { LanguageModelV4 } from "@ai-sdk/provider"
import { describe, expect, it } from "@effect/vitest"
import { AiSdkModel, ProviderError, ProviderPrompt, Retry, ToolAliases } from "../src/index.ts"
import { makeTools } from "./fixtures.ts"

describe("ProviderError.retryAfterMs", () => {
  const now = Date.parse("2026-11-30T12:00:00Z")
  it("reads retry-after-ms first, then retry-after in seconds or as an HTTP date", () => {
    expect(ProviderError.retryAfterMs({ "retry-after-ms": "250", "retry-after": "9" }, now)).toBe(250)
    expect(ProviderError.retryAfterMs({ "Retry-After": "2" }, now)).toBe(2000)
    expect(ProviderError.retryAfterMs({ "retry-after": "1.5" }, now)).toBe(1500)
    expect(ProviderError.retryAfterMs({ "retry-after": "Mon, 30 Nov 2026 12:00:03 GMT" }, now)).toBe(3000)
    expect(ProviderError.retryAfterMs({ "retry-after": "Mon, 30 Nov 2026 11:00:00 GMT" }, now)).toBe(0)
  })
  it("ignores what it cannot read", () => {
    expect(ProviderError.retryAfterMs({ "retry-after": "soon" }, now)).toBeUndefined()
    expect(ProviderError.retryAfterMs({ "retry-after-ms": "" }, now)).toBeUndefined()
    expect(ProviderError.retryAfterMs({}, now)).toBeUndefined()
    expect(ProviderError.retryAfterMs(undefined, now)).toBeUndefined()
  })
})

describe("Retry.resolve", () => {
  it("fills in the defaults", () => {
    expect(Retry.resolve(undefined)).toEqual({ attempts: 4, budget: 60_000, base: 1000, maxDelay: 20_000 })
    expect(Retry.resolve(Retry.none).attempts).toBe(1)
  })
  it("refuses an invalid policy, naming the field", () => {
    expect(() => Retry.resolve({ attempts: 0 })).toThrow(
      "Retry: 'attempts' must be a whole number of at least 1, got 0"
    )
    expect(() => Retry.resolve({ attempts: 1.5 })).toThrow("'attempts' must be a whole number of at least 1, got 1.5")
    expect(() => Retry.resolve({ budget: "banana" as never })).toThrow(
      "Retry: 'budget' must be a duration of at least zero, got banana"
    )
  })
})

describe("AiSdkModel.make", () => {
  it("refuses a model that is not a LanguageModelV4, saying what it got", () => {
    const v3 = { specificationVersion: "v3", provider: "old", modelId: "m", doGenerate: () => Promise.reject() }
    expect(() => AiSdkModel.make(v3 as unknown as LanguageModelV4)).toThrow(
      'AiSdkModel: expected an AI SDK LanguageModelV4 (specificationVersion "v4", as @ai-sdk/* 4.x providers give), got "v3"'
    )
    expect(() => AiSdkModel.make(undefined as unknown as LanguageModelV4)).toThrow("got no specificationVersion")
  })
})

describe("ProviderPrompt", () => {
  it("parses arguments: JSON as JSON, empty as {}, anything else as the string it is", () => {
    expect(ProviderPrompt.parseInput('{"a":1}')).toEqual({ a: 1 })
    expect(ProviderPrompt.parseInput("  ")).toEqual({})
    expect(ProviderPrompt.parseInput("[1]")).toEqual([1])
    expect(ProviderPrompt.parseInput("{a:1")).toBe("{a:1")
  })

  it("maps aliases both ways; a name outside the toolset keeps its own alias, an unknown alias stays", () => {
    const aliases = ToolAliases.of(makeTools().toolset)
    expect(aliases.toProvider("añadir")).toBe("anadir")
    expect(aliases.fromProvider("anadir")).toBe("añadir")
    expect(aliases.fromProvider("catalogo_buscar")).toBe("catalogo.buscar")
    expect(aliases.toProvider("borrar.todo")).toBe("borrar_todo")
    expect(aliases.fromProvider("borrar")).toBe("borrar")
  })

  it("sends error results as error-text for providers with a flag, as text saying it for others", () => {
    expect(ProviderPrompt.errorResultsFor("anthropic.messages")).toBe("flag")
    expect(ProviderPrompt.errorResultsFor("openai.chat")).toBe("flag")
    expect(ProviderPrompt.errorResultsFor("ollama.chat")).toBe("text")
    const aliases = ToolAliases.of(makeTools().toolset)
    const history = [
      Message.user("x"),
      Message.assistant([Message.toolUse("c1", "añadir", {})]),
      Message.user([Message.toolResult("c1", "not executed: missing field 'ruta'", true)])
    ]
    expect(ProviderPrompt.toPrompt(history, aliases, "flag")[2]).toEqual({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "anadir",
          output: { type: "error-text", value: "not executed: missing field 'ruta'" }
        }
      ]
    })
    expect(ProviderPrompt.toPrompt(history, aliases, "text")[2]).toMatchObject({
      content: [{ output: { type: "text", value: '{"error":"not executed: missing field \'ruta\'"}' } }]
    })
  })
})
