import { MessageCatalog, ResponseContract, Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Execute, Outcome } from "../src/index.ts"

const Catalog = Tool.make("catalog_search", {
  description: "Looks a title up in the library catalogue",
  parameters: Schema.Struct({ query: Schema.String }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  envelope: true,
  run: ({ query }) =>
    query === "slow"
      ? { status: "error", error_code: "TIMEOUT", content: "the catalogue did not answer in 5 s" }
      : query === "none"
        ? { status: "ok", content: [] }
        : { status: "ok", content: `«${query}»: 2 copies` }
})
const toolset = Toolset.make(Catalog)
const call = (query: string) => ({ id: "c1", name: "catalog_search", input: { query } })

describe("execute with the tool-response contract", () => {
  it.effect("status ok: the content is the answer", () =>
    Effect.gen(function* () {
      const outcome = yield* Execute.execute(toolset, call("The error of Ada"))
      expect(Outcome.toToolResult(outcome)).toStrictEqual({
        type: "tool_result",
        tool_use_id: "c1",
        content: "«The error of Ada»: 2 copies",
        is_error: false
      })
    })
  )

  it.effect("an empty result with status ok is a valid, empty answer", () =>
    Effect.gen(function* () {
      const outcome = yield* Execute.execute(toolset, call("none"))
      expect([outcome._tag, outcome.content]).toStrictEqual(["Succeeded", "[]"])
    })
  )

  it.effect("status ok without content: the answer is null and the model reads an empty text", () =>
    Effect.gen(function* () {
      const Bare = Tool.make("bare", {
        description: "answers ok and nothing else",
        parameters: Schema.Struct({}),
        envelope: true,
        run: () => ({ status: "ok" })
      })
      const outcome = yield* Execute.execute(Toolset.make(Bare), { id: "b", name: "bare", input: {} })
      expect(outcome).toStrictEqual({ _tag: "Succeeded", id: "b", name: "bare", value: null, content: "" })
    })
  )

  it.effect("a failure status is an is_error observation with the code and message", () =>
    Effect.gen(function* () {
      const outcome = yield* Execute.execute(toolset, call("slow"))
      expect(outcome).toStrictEqual({
        _tag: "Failed",
        id: "c1",
        name: "catalog_search",
        failure: { _tag: "StatusError", errorCode: "TIMEOUT", message: "the catalogue did not answer in 5 s" },
        content: "TIMEOUT: the catalogue did not answer in 5 s"
      })
    })
  )

  it.effect("the parser is the harness's: the `before` variant shows the failure as an answer", () =>
    Effect.gen(function* () {
      const outcome = yield* Execute.execute(toolset, call("slow")).pipe(
        Effect.provideService(ResponseContract.ResponseParser, ResponseContract.contentPresent())
      )
      expect([outcome._tag, outcome.content]).toStrictEqual(["Succeeded", "the catalogue did not answer in 5 s"])
    })
  )

  it.effect("the Spanish catalogue keeps the code and message", () =>
    Effect.gen(function* () {
      const outcome = yield* Execute.execute(toolset, call("slow")).pipe(
        Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
      )
      expect(outcome.content).toBe("TIMEOUT: the catalogue did not answer in 5 s")
    })
  )

  it.effect("a tool without envelope returns its value as it is", () =>
    Effect.gen(function* () {
      const Plain = Tool.make("plain", {
        description: "returns an object",
        parameters: Schema.Struct({}),
        run: () => ({ status: "error", content: "x" })
      })
      const outcome = yield* Execute.execute(Toolset.make(Plain), { id: "p", name: "plain", input: {} })
      expect([outcome._tag, outcome.content]).toStrictEqual(["Succeeded", '{"status":"error","content":"x"}'])
    })
  )
})
