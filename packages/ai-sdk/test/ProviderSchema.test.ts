/**
 * Tool schemas that providers refuse, with the real `tools/list` of the official MCP servers
 * (fixtures/): the fake refuses them as the real APIs do, and once normalized every request of a
 * multi-turn run passes on each route.
 */
import { Loop, Message, type Model } from "@agent-harness/executor"
import { Toolset } from "@agent-harness/tool-schema"
import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { AiSdkModel, ProviderSchema, ToolAliases } from "../src/index.ts"
import * as SchemaRules from "../src/internal/schemaRules.ts"
import { FakeProvider } from "../src/testing.ts"
import { listed, toolOf } from "./fixtures/servers.ts"

const timeout = 60_000

const toolsetOf = (ran: Array<string>) => Toolset.make(...listed.map((entry) => toolOf(entry, ran)))

/** A logger layer that keeps every line as `<level> <message>`. */
const collect = (logs: Array<string>) =>
  Logger.layer([Logger.make((o) => logs.push(`${o.logLevel} ${String(o.message)}`))])

const post = (fake: FakeProvider.Fake, path: string, body: unknown, headers: Record<string, string>) =>
  Effect.promise(async () => {
    const res = await fetch(`${fake.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body)
    })
    return { status: res.status, json: (await res.json()) as { error: { message: string; type: string } } }
  })

describe("ProviderSchema", () => {
  it("the fixtures are the servers' real lists: 27 tools, and as sent by a validator-checked tool 27 top-level allOf", () => {
    expect(listed.length).toBe(27)
    const raw = ToolAliases.of(toolsetOf([])).tools
    expect(raw.filter((t) => (t.inputSchema as { allOf?: unknown }).allOf !== undefined).length).toBe(27)
  })

  it.live(
    "the fake refuses the raw schemas as the real APIs do: Anthropic's top-level allOf, OpenAI's root union and strict rules",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({})
        const raw = ToolAliases.of(toolsetOf([])).tools
        const anthropic = yield* post(
          fake,
          "/v1/messages",
          {
            model: "claude-test",
            max_tokens: 10,
            messages: [{ role: "user", content: "hi" }],
            tools: raw.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }))
          },
          { "x-api-key": "k" }
        )
        expect(anthropic.status).toBe(400)
        expect(anthropic.json.error.type).toBe("invalid_request_error")
        expect(anthropic.json.error.message).toContain(
          "tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"
        )
        const union = { anyOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "object" }] }
        const chat = yield* post(
          fake,
          "/v1/chat/completions",
          {
            model: "gpt-test",
            messages: [{ role: "user", content: "hi" }],
            tools: [{ type: "function", function: { name: "pick", parameters: union } }]
          },
          { authorization: "Bearer k" }
        )
        expect(chat.status).toBe(400)
        expect(chat.json.error.message).toBe(
          `Invalid schema for function 'pick': schema must be a JSON Schema of 'type: "object"', got 'type: "None"'.`
        )
        const echo = raw.find((t) => t.name === "echo")
        const responses = yield* post(
          fake,
          "/v1/responses",
          {
            model: "gpt-test",
            input: "hi",
            tools: [{ type: "function", name: "echo", parameters: echo?.inputSchema, strict: true }]
          },
          { authorization: "Bearer k" }
        )
        expect(responses.status).toBe(400)
        expect(responses.json.error.message).toBe(
          "Invalid schema for function 'echo': In context=(), 'allOf' is not permitted."
        )
      }),
    timeout
  )

  const routes: ReadonlyArray<readonly [FakeProvider.Route, (fake: FakeProvider.Fake) => Layer.Layer<Model.Model>]> = [
    [
      "anthropic",
      (fake) =>
        AiSdkModel.layer(createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: "k" })("claude-test"), {
          maxOutputTokens: 256,
          retry: { base: "1 millis" }
        })
    ],
    [
      "openai",
      (fake) =>
        AiSdkModel.layer(createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "k" }).chat("gpt-test"), {
          retry: { base: "1 millis" }
        })
    ],
    [
      "responses",
      (fake) =>
        AiSdkModel.layer(createOpenAI({ baseURL: `${fake.url}/v1`, apiKey: "k" }).responses("gpt-test"), {
          retry: { base: "1 millis" }
        })
    ]
  ]
  for (const [route, modelOf] of routes) {
    it.live(`normalized, every request of a multi-turn run with all 27 tools passes the ${route} route's checks`, () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          [route]: [
            FakeProvider.reply([Message.toolUse("c1", "echo", { message: "hola" })]),
            FakeProvider.reply([Message.toolUse("c2", "list_directory", { path: "/tmp" })]),
            FakeProvider.reply([Message.text("done")])
          ]
        })
        const ran: Array<string> = []
        const logs: Array<string> = []
        const result = yield* Loop.run({ toolset: toolsetOf(ran), messages: [Message.user("go")], maxTurns: 5 }).pipe(
          Effect.provide(Layer.mergeAll(modelOf(fake), collect(logs)))
        )
        expect(result.stop).toBe("end")
        expect(ran).toEqual(['echo {"message":"hola"}', 'list_directory {"path":"/tmp"}'])
        expect(fake.requests.map((r) => r.problems)).toEqual([[], [], []])
        const sent = fake.requests[0]?.json as {
          tools: ReadonlyArray<{
            input_schema?: Record<string, unknown>
            parameters?: Record<string, unknown>
            function?: { parameters?: Record<string, unknown> }
          }>
        }
        expect(sent.tools.length).toBe(27)
        for (const tool of sent.tools) {
          const schema =
            route === "anthropic" ? tool.input_schema : route === "openai" ? tool.function?.parameters : tool.parameters
          expect(schema?.type).toBe("object")
          expect(schema?.allOf).toBeUndefined()
        }
        // The merge of an allOf of objects is exact: nothing relaxed. On OpenAI, strict mode
        // ("auto") is on for every tool but the one whose `format: "uri"` it would drop, said once.
        const strict = sent.tools.map((t) => t as { strict?: boolean; function?: { strict?: boolean } })
        const strictOf = (t: (typeof strict)[number]) => (route === "openai" ? t.function?.strict : t.strict)
        expect(strict.filter((t) => strictOf(t) === true).length).toBe(route === "anthropic" ? 0 : 26)
        expect(logs.filter((l) => l.startsWith("Warn"))).toEqual(
          route === "anthropic"
            ? []
            : [
                `Warn openai.${route === "openai" ? "chat" : "responses"}: tool 'gzip_file_as_resource': sent without strict mode, whose rules would cost: format dropped (strict mode does not support it) at /properties/data`
              ]
        )
      })
    )
  }

  it.live(
    "what is relaxed is logged as a warning once per tool, not once per request",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeProvider.scoped({
          anthropic: [
            FakeProvider.reply([Message.toolUse("c1", "pick", { a: "x" })]),
            FakeProvider.reply([Message.text("done")])
          ]
        })
        // A server's union schema, as a validator-checked tool sends it: { type: "object", allOf: [{ anyOf }] }.
        const pick = toolOf(
          {
            name: "pick",
            inputSchema: {
              anyOf: [
                { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
                { type: "object", properties: { b: { type: "number" } }, required: ["b"] }
              ]
            }
          },
          []
        )
        const logs: Array<string> = []
        const result = yield* Loop.run({ toolset: Toolset.make(pick), messages: [Message.user("go")] }).pipe(
          Effect.provide(
            Layer.mergeAll(
              AiSdkModel.layer(createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: "k" })("claude-test"), {
                maxOutputTokens: 256,
                retry: { base: "1 millis" }
              }),
              collect(logs)
            )
          )
        )
        expect(result.stop).toBe("end")
        expect(fake.requests.map((r) => r.problems)).toEqual([[], []])
        const warnings = logs.filter((l) => l.startsWith("Warn"))
        expect(warnings).toEqual([
          "Warn anthropic.messages: tool 'pick': schema top-level anyOf of 2 schemas sent as one object with all their properties; which combination is allowed is checked locally"
        ])
      }),
    timeout
  )

  it("strict mode: every fixture schema normalized passes OpenAI's strict rules, and the raw ones do not", () => {
    for (const entry of listed) {
      const raw = { type: "object", allOf: [entry.inputSchema] }
      expect(SchemaRules.openAiParameters(entry.name, raw, true)).not.toEqual([])
      const { schema } = ProviderSchema.normalize(raw, "openai-strict")
      expect(SchemaRules.openAiParameters(entry.name, schema, true)).toEqual([])
    }
    const { schema, changes } = ProviderSchema.normalize(
      { type: "object", properties: { path: { type: "string" }, head: { type: "number" } }, required: ["path"] },
      "openai-strict"
    )
    expect(schema).toEqual({
      type: "object",
      properties: { path: { type: "string" }, head: { type: ["number", "null"] } },
      required: ["path", "head"],
      additionalProperties: false
    })
    expect(changes.map((c) => [c.what, c.relaxed])).toEqual([
      ["optional 'head' made required and nullable (strict mode; a null the tool refuses is taken as left out)", false],
      ["top level: additionalProperties set to false (strict mode)", false]
    ])
  })

  it("merges, flattens and resolves: allOf exact, anyOf relaxed, a root $ref inlined, a root type added", () => {
    expect(
      ProviderSchema.normalize(
        {
          allOf: [
            { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
            { type: "object", properties: { b: { type: "number" } }, required: ["b"] }
          ]
        },
        "anthropic"
      )
    ).toEqual({
      schema: {
        type: "object",
        properties: { a: { type: "string" }, b: { type: "number" } },
        required: ["a", "b"]
      },
      changes: [
        { what: "top-level allOf of 2 schemas merged into one object", relaxed: false },
        { what: 'type: "object" added at the top level', relaxed: false }
      ]
    })
    const union = ProviderSchema.normalize(
      {
        oneOf: [
          { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          { type: "object", properties: { path: { type: "string" }, id: { type: "number" } }, required: ["path"] }
        ]
      },
      "openai-chat"
    )
    expect(union.schema).toEqual({
      type: "object",
      properties: { id: { anyOf: [{ type: "string" }, { type: "number" }] }, path: { type: "string" } }
    })
    expect(union.changes[0]?.relaxed).toBe(true)
    const ref = ProviderSchema.normalize(
      { $ref: "#/$defs/Args", $defs: { Args: { type: "object", properties: { x: { type: "string" } } } } },
      "anthropic"
    )
    expect(ref.schema).toEqual({
      type: "object",
      properties: { x: { type: "string" } },
      $defs: { Args: { type: "object", properties: { x: { type: "string" } } } }
    })
    expect(SchemaRules.anthropicInputSchema(0, ref.schema)).toEqual([])
  })

  it("hostile schemas never throw: a cycle, a throwing getter, 10,000 levels, a proxy; each sent as any object and said so", () => {
    const cycle: Record<string, unknown> = { type: "object" }
    cycle.properties = { self: cycle }
    const getter = {
      type: "object",
      get properties(): never {
        throw new Error("boom")
      }
    }
    let deep: Record<string, unknown> = { type: "string" }
    for (let i = 0; i < 10_000; i++) deep = { type: "object", properties: { a: deep } }
    const proxy = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("no keys")
        }
      }
    )
    for (const [schema, why] of [
      [cycle, "it refers to itself (a cycle)"],
      [getter, "reading it threw Error: boom"],
      [deep, "nested deeper than 64 levels"],
      [proxy, "reading it threw Error: no keys"]
    ] as const) {
      for (const target of ["anthropic", "openai-chat", "openai-responses", "openai-strict"] as const) {
        const out = ProviderSchema.normalize(schema, target)
        expect(out.changes.filter((c) => c.strict !== true)).toEqual([
          { what: `the schema could not be read (${why}): sent as any object`, relaxed: true }
        ])
        // Strict mode can only send an empty closed object: the model could send nothing but {}.
        expect(out.changes.filter((c) => c.strict === true).map((c) => c.restricts)).toEqual(
          target === "openai-strict" ? [true] : []
        )
        expect(SchemaRules.anthropicInputSchema(0, out.schema)).toEqual([])
        expect(SchemaRules.openAiParameters("t", out.schema, target === "openai-strict")).toEqual([])
      }
    }
    expect(ProviderSchema.normalize("nope", "anthropic").changes[0]?.what).toBe(
      "the schema is a string, not a JSON Schema object: sent as any object"
    )
  })
})
