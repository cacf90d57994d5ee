/**
 * OpenAI strict mode: on by default ("auto") for a tool whose schema follows strict mode's rules
 * at no cost, off with one warning for one that would be relaxed or restricted; a `null` the
 * model sends for an optional property it left out reaches the tool as the property left out
 * (`ProviderSchema.restore`), through nested objects, arrays, unions and `$ref`s; hostile
 * arguments come back untouched.
 */
import { Loop, Message, type Model } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { createOpenAI } from "@ai-sdk/openai"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Schema } from "effect"
import { AiSdkModel, ProviderSchema, ToolAliases } from "../src/index.ts"
import * as SchemaRules from "../src/internal/schemaRules.ts"
import { FakeProvider } from "../src/testing.ts"

const timeout = 60_000

/** Tools that record the input they ran with. */
const toolsOf = () => {
  const ran: Array<unknown> = []
  const Read = Tool.make("read", {
    description: "Reads a file",
    parameters: Schema.Struct({
      path: Schema.String,
      head: Schema.optionalKey(Schema.Finite),
      note: Schema.optionalKey(Schema.NullOr(Schema.String)),
      items: Schema.optionalKey(
        Schema.Array(Schema.Struct({ name: Schema.String, tag: Schema.optionalKey(Schema.String) }))
      )
    }),
    run: (input) =>
      Effect.sync(() => {
        ran.push(input)
        return "ok"
      })
  })
  // A record strict mode cannot express, and a minLength it does not support.
  const Tag = Tool.make("tag", {
    description: "Tags a file",
    parameters: Schema.Struct({
      path: Schema.String.check(Schema.isMinLength(1)),
      tags: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
    }),
    run: (input) =>
      Effect.sync(() => {
        ran.push(input)
        return "tagged"
      })
  })
  return { toolset: Toolset.make(Read, Tag), ran }
}

const collect = (logs: Array<string>) =>
  Logger.layer([Logger.make((o) => logs.push(`${o.logLevel} ${String(o.message)}`))])

type Api = "chat" | "responses"
const routeOf = (api: Api): FakeProvider.Route => (api === "chat" ? "openai" : "responses")

const modelOf = (fake: FakeProvider.Fake, api: Api, options?: AiSdkModel.Options): Layer.Layer<Model.Model> => {
  const provider = createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "k" })
  return AiSdkModel.layer(api === "chat" ? provider.chat("gpt-test") : provider.responses("gpt-test"), {
    retry: { base: "1 millis" },
    ...options
  })
}

interface SentTool {
  readonly name: string
  readonly strict?: boolean | undefined
  readonly parameters?: Record<string, unknown> | undefined
}
/** The tools of a recorded request, whichever API it went to. */
const sentTools = (request: FakeProvider.Recorded | undefined, api: Api): ReadonlyArray<SentTool> => {
  const json = request?.json as {
    tools?: ReadonlyArray<{
      name?: string
      strict?: boolean
      parameters?: Record<string, unknown>
      function?: { name: string; strict?: boolean; parameters?: Record<string, unknown> }
    }>
  }
  return (json.tools ?? []).map((t) =>
    api === "chat"
      ? { name: t.function?.name ?? "", strict: t.function?.strict, parameters: t.function?.parameters }
      : { name: t.name ?? "", strict: t.strict, parameters: t.parameters }
  )
}

const post = (fake: FakeProvider.Fake, body: unknown) =>
  Effect.promise(async () => {
    const res = await fetch(`${fake.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: JSON.stringify(body)
    })
    return { status: res.status, json: (await res.json()) as { error: { message: string } } }
  })

describe("OpenAI strict mode", () => {
  it.live(
    "the fake refuses a strict: true tool that breaks strict mode's rules (an optional property), and takes its strict form",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({ openai: [FakeProvider.reply([Message.text("hi")])] })
        const schema = {
          type: "object",
          properties: { path: { type: "string" }, head: { type: "number" } },
          required: ["path"],
          additionalProperties: false
        }
        const tool = (parameters: unknown) => ({
          type: "function",
          function: { name: "read", parameters, strict: true }
        })
        const refused = yield* post(fake, {
          model: "gpt-test",
          messages: [{ role: "user", content: "hi" }],
          tools: [tool(schema)]
        })
        expect(refused.status).toBe(400)
        expect(refused.json.error.message).toBe(
          "Invalid schema for function 'read': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'head'."
        )
        const taken = yield* post(fake, {
          model: "gpt-test",
          messages: [{ role: "user", content: "hi" }],
          tools: [tool(ProviderSchema.normalize(schema, "openai-strict").schema)]
        })
        expect(taken.status).toBe(200)
      }),
    timeout
  )

  for (const api of ["chat", "responses"] as const) {
    it.live(
      `${api}: by default a tool strict mode costs nothing is sent strict, the model's nulls for what it left out reach the tool as absent; a tool strict mode would relax or restrict goes without, said once`,
      () =>
        Effect.gen(function* () {
          const fake = yield* FakeProvider.scoped({
            [routeOf(api)]: [
              FakeProvider.reply([
                Message.toolUse("c1", "read", {
                  path: "a.txt",
                  head: null,
                  note: null,
                  items: [
                    { name: "x", tag: null },
                    { name: "y", tag: "t" }
                  ]
                })
              ]),
              FakeProvider.reply([Message.toolUse("c2", "tag", { path: "a.txt", tags: { k: "v" } })]),
              FakeProvider.reply([Message.text("done")])
            ]
          })
          const { toolset, ran } = toolsOf()
          const logs: Array<string> = []
          const result = yield* Loop.run({ toolset, messages: [Message.user("go")], maxTurns: 5 }).pipe(
            Effect.provide(Layer.mergeAll(modelOf(fake, api), collect(logs)))
          )
          expect(result.stop).toBe("end")
          expect(fake.requests.map((r) => r.problems)).toEqual([[], [], []])
          const [read, tag] = sentTools(fake.requests[0], api)
          expect(read?.strict).toBe(true)
          expect(read?.parameters?.required).toEqual(["path", "head", "note", "items"])
          expect(tag?.strict).not.toBe(true)
          // head and tag left out; note's null is one the tool allows, so it stays.
          expect(ran).toEqual([
            { path: "a.txt", note: null, items: [{ name: "x" }, { name: "y", tag: "t" }] },
            { path: "a.txt", tags: { k: "v" } }
          ])
          const provider = api === "chat" ? "openai.chat" : "openai.responses"
          expect(logs.filter((l) => l.startsWith("Warn"))).toEqual([
            `Warn ${provider}: tool 'tag': sent without strict mode, whose rules would cost: minLength dropped (strict mode does not support it) at /properties/path; /properties/tags: additionalProperties set to false (strict mode), so the model can send none of the keys this object takes (only {})`
          ])
        }),
      timeout
    )
  }

  it.live(
    "strict: true sends every tool strict (the fake's rules hold) and warns once of what it relaxes or restricts; strict: false sends none",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          openai: [
            FakeProvider.reply([Message.toolUse("c1", "read", { path: "a", head: null, note: null, items: null })]),
            FakeProvider.reply([Message.text("done")]),
            FakeProvider.reply([Message.text("done")])
          ]
        })
        const { toolset, ran } = toolsOf()
        const logs: Array<string> = []
        yield* Loop.run({ toolset, messages: [Message.user("go")] }).pipe(
          Effect.provide(Layer.mergeAll(modelOf(fake, "chat", { strict: true }), collect(logs)))
        )
        expect(fake.requests.map((r) => r.problems)).toEqual([[], []])
        expect(sentTools(fake.requests[0], "chat").map((t) => t.strict)).toEqual([true, true])
        expect(ran).toEqual([{ path: "a", note: null }])
        const warnings = logs.filter((l) => l.startsWith("Warn"))
        expect(warnings).toEqual([
          "Warn openai.chat: tool 'tag': schema minLength dropped (strict mode does not support it) at /properties/path",
          "Warn openai.chat: tool 'tag': schema /properties/tags: additionalProperties set to false (strict mode), so the model can send none of the keys this object takes (only {})"
        ])
        yield* Loop.run({ toolset, messages: [Message.user("go")] }).pipe(
          Effect.provide(Layer.mergeAll(modelOf(fake, "chat", { strict: false }), collect([])))
        )
        expect(sentTools(fake.requests[2], "chat").map((t) => t.strict)).toEqual([undefined, undefined])
      }),
    timeout
  )

  it("strict mode wants a type and array items: the fake refuses a value of any type and an array without items, normalization sends what it takes at a cost auto does not pay", () => {
    const schema = {
      type: "object",
      properties: {
        v: { description: "anything" },
        list: { type: "array" },
        n: { properties: { a: { type: "string" } }, required: ["a"] }
      },
      required: ["v", "list", "n"],
      additionalProperties: false
    }
    expect(SchemaRules.openAiParameters("t", schema, true)).toEqual([
      "Invalid schema for function 't': In context=('properties', 'v'), schema must have a 'type' key."
    ])
    expect(
      SchemaRules.openAiParameters(
        "t",
        { type: "object", properties: { list: { type: "array" } }, required: ["list"], additionalProperties: false },
        true
      )
    ).toEqual(["Invalid schema for function 't': In context=('properties', 'list'), array schema missing items."])
    const normalized = ProviderSchema.normalize(schema, "openai-strict")
    expect(SchemaRules.openAiParameters("t", normalized.schema, true)).toEqual([])
    expect(normalized.changes.filter((c) => c.restricts === true).map((c) => c.what)).toEqual([
      "/properties/v: a schema of any value sent as any string, number, boolean or null (strict mode wants a type)",
      "/properties/list: an array of any items sent as an array of strings, numbers, booleans or nulls (strict mode wants items)"
    ])
    const Any = Tool.make("any", {
      description: "Takes anything",
      parameters: Schema.Struct({ value: Schema.Unknown }),
      run: () => Effect.succeed("ok")
    })
    const declared = ToolAliases.forProvider(Toolset.make(Any), "openai.chat", { strict: "auto" })
    expect(declared.tools.map((t) => t.strict)).toEqual([undefined])
    expect(declared.notices.map((n) => n.what)).toEqual([
      "sent without strict mode, whose rules would cost: /properties/value: a schema of any value sent as any string, number, boolean or null (strict mode wants a type)"
    ])
  })

  it("auto is for OpenAI's own API: an OpenAI-compatible server and Anthropic get no strict tools", () => {
    const { toolset } = toolsOf()
    for (const provider of ["ollama.chat", "anthropic.messages", "openai-compatible.chat"]) {
      const declared = ToolAliases.forProvider(toolset, provider, { strict: "auto" })
      expect(declared.tools.map((t) => t.strict)).toEqual([undefined, undefined])
      expect(declared.notices).toEqual([])
    }
    expect(ToolAliases.forProvider(toolset, "azure.responses", { strict: "auto" }).tools.map((t) => t.strict)).toEqual([
      true,
      undefined
    ])
  })
})

describe("ProviderSchema.restore", () => {
  const strictOf = (schema: unknown) => ProviderSchema.normalize(schema, "openai-strict")

  it("maps a null back to absent only where strict mode made the property nullable and the tool refuses null", () => {
    const n = strictOf({
      type: "object",
      properties: {
        a: { type: "string" },
        b: { type: "number" },
        c: { type: ["string", "null"] },
        d: { type: "object", properties: { e: { type: "boolean" } } },
        f: { anyOf: [{ type: "string" }, { type: "null" }] }
      },
      required: ["a"]
    })
    expect(ProviderSchema.restore({ a: null, b: null, c: null, d: { e: null }, f: null }, n)).toEqual({
      a: null,
      c: null,
      d: {},
      f: null
    })
    // Values that are not null, and keys the schema does not know, are kept.
    expect(ProviderSchema.restore({ a: "x", b: 1, z: null }, n)).toEqual({ a: "x", b: 1, z: null })
    // The input is not changed.
    const input = { a: "x", b: null }
    ProviderSchema.restore(input, n)
    expect(input).toEqual({ a: "x", b: null })
    // A schema for another target has nothing to restore.
    expect(ProviderSchema.restore({ b: null }, ProviderSchema.normalize({ type: "object" }, "openai-chat"))).toEqual({
      b: null
    })
  })

  it("goes through arrays, anyOf variants (told apart by their keys), $defs and a recursive $ref", () => {
    const n = strictOf({
      type: "object",
      properties: {
        list: { type: "array", items: { type: "object", properties: { x: { type: "string" } } } },
        pick: {
          anyOf: [
            { type: "object", properties: { kind: { const: "a" }, a: { type: "string" } }, required: ["kind"] },
            { type: "object", properties: { kind: { const: "b" }, b: { type: "string" } }, required: ["kind"] }
          ]
        },
        tree: { $ref: "#/$defs/Node" }
      },
      required: ["list", "pick", "tree"],
      $defs: {
        Node: {
          type: "object",
          properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
          required: ["children"]
        }
      }
    })
    expect(
      ProviderSchema.restore(
        {
          list: [{ x: null }, { x: "1" }],
          pick: { kind: "b", b: null },
          tree: {
            label: null,
            children: [
              { label: "leaf", children: [] },
              { label: null, children: [] }
            ]
          }
        },
        n
      )
    ).toEqual({
      list: [{}, { x: "1" }],
      pick: { kind: "b" },
      tree: { children: [{ label: "leaf", children: [] }, { children: [] }] }
    })
  })

  it("hostile input comes back untouched: a cycle, a throwing getter, a proxy; a huge one is walked", () => {
    const n = strictOf({
      type: "object",
      properties: { node: { $ref: "#/$defs/N" } },
      required: ["node"],
      $defs: { N: { type: "object", properties: { next: { $ref: "#/$defs/N" }, v: { type: "number" } } } }
    })
    const cycle: Record<string, unknown> = { v: null }
    cycle.next = cycle
    const withCycle = { node: cycle }
    expect(ProviderSchema.restore(withCycle, n)).toBe(withCycle)
    const getter = {
      get node(): never {
        throw new Error("boom")
      }
    }
    expect(ProviderSchema.restore(getter, n)).toBe(getter)
    const proxy = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("no keys")
        }
      }
    )
    expect(ProviderSchema.restore(proxy, n)).toBe(proxy)
    expect(ProviderSchema.restore("not an object", n)).toBe("not an object")
    const list = strictOf({
      type: "object",
      properties: { rows: { type: "array", items: { type: "object", properties: { v: { type: "number" } } } } },
      required: ["rows"]
    })
    const rows = Array.from({ length: 200_000 }, (_, i) => ({ v: i % 2 === 0 ? null : i }))
    const restored = ProviderSchema.restore({ rows }, list) as { rows: ReadonlyArray<{ v?: number }> }
    expect(restored.rows.length).toBe(200_000)
    expect(restored.rows[0]).toEqual({})
    expect(restored.rows[1]).toEqual({ v: 1 })
    // A key named __proto__ stays an own key, never a prototype.
    const proto = ProviderSchema.restore(JSON.parse('{"rows":[{"__proto__":{"polluted":true},"v":null}]}'), list) as {
      rows: ReadonlyArray<Record<string, unknown>>
    }
    expect(Object.keys(proto.rows[0] ?? {})).toEqual(["__proto__"])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect((proto.rows[0] as { polluted?: unknown }).polluted).toBeUndefined()
    // A property named __proto__ in a schema stays a property through normalization and restore.
    const named = strictOf(
      JSON.parse(
        '{"type":"object","properties":{"__proto__":{"type":"string"},"a":{"type":"string"}},"required":["a"]}'
      )
    )
    const props = (named.schema as { properties: Record<string, unknown>; required: ReadonlyArray<string> }).properties
    expect(Object.keys(props)).toEqual(["__proto__", "a"])
    expect((named.schema as { required: ReadonlyArray<string> }).required).toEqual(["__proto__", "a"])
    expect(ProviderSchema.restore(JSON.parse('{"__proto__":null,"a":"x"}'), named)).toEqual({ a: "x" })
  })
})
