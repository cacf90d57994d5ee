import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { JsonSchema, Tool, Toolset } from "../src/index.ts"

const Search = Tool.make("search", {
  description: "Searches the files for a pattern",
  parameters: Schema.Struct({
    pattern: Schema.String.annotate({ description: "Text to look for" }),
    minScore: Schema.Finite.annotate({ description: "Lowest score kept" }),
    limit: Schema.optionalKey(Schema.Int.annotate({ description: "Most results returned" })),
    order: Schema.Literals(["path", "score"]).annotate({ description: "Sort key" })
  }),
  run: () => ""
})

const searchParameters = {
  type: "object",
  properties: {
    pattern: { type: "string", description: "Text to look for" },
    minScore: { type: "number", description: "Lowest score kept" },
    limit: {
      type: "integer",
      minimum: -9007199254740991,
      maximum: 9007199254740991,
      description: "Most results returned"
    },
    order: { type: "string", enum: ["path", "score"], description: "Sort key" }
  },
  required: ["pattern", "minScore", "order"],
  additionalProperties: false
}

describe("JsonSchema.parameters", () => {
  it("is the exact JSON Schema of the tool's parameters", () => {
    expect(JsonSchema.parameters(Search)).toStrictEqual(searchParameters)
  })

  it("Finite is a plain number: no anyOf with the NaN/Infinity strings", () => {
    const schema = JsonSchema.parameters(Search)
    expect(JSON.stringify(schema)).not.toContain("anyOf")
    expect(JSON.stringify(schema)).not.toContain("NaN")
  })

  it("an optionalKey field is not required and does not admit null", () => {
    const schema = JsonSchema.parameters(Search)
    expect(schema.required).not.toContain("limit")
    expect(JSON.stringify(schema)).not.toContain("null")
  })

  it("nested structs and arrays are described too, each closed to extra fields", () => {
    const Tagged = Tool.make("tagged", {
      description: "",
      parameters: Schema.Struct({
        tags: Schema.Array(Schema.String),
        opts: Schema.optionalKey(Schema.Struct({ depth: Schema.Finite, flag: Schema.Boolean }))
      }),
      run: () => ""
    })
    expect(JsonSchema.parameters(Tagged)).toStrictEqual({
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string" } },
        opts: {
          type: "object",
          properties: { depth: { type: "number" }, flag: { type: "boolean" } },
          required: ["depth", "flag"],
          additionalProperties: false
        }
      },
      required: ["tags"],
      additionalProperties: false
    })
  })

  it("a struct whose fields are all optional has no required list", () => {
    const Opt = Tool.make("opt", {
      description: "",
      parameters: Schema.Struct({ a: Schema.optionalKey(Schema.String) }),
      run: () => ""
    })
    expect(JsonSchema.parameters(Opt)).toStrictEqual({
      type: "object",
      properties: { a: { type: "string" } },
      additionalProperties: false
    })
  })

  // BUG (reported): Schema.Struct({}) is "any non-nullish value" in Effect 4 and its JSON Schema
  // is { not: { type: "null" } }. Anthropic requires input_schema.type "object" and OpenAI an
  // object schema, so a tool without parameters cannot be declared to either provider.
  it("a tool with no parameters is an empty closed object", () => {
    const Now = Tool.make("now", { description: "The time", parameters: Schema.Struct({}), run: () => "" })
    expect(JsonSchema.parameters(Now)).toStrictEqual({ type: "object", properties: {}, additionalProperties: false })
    expect(JsonSchema.anthropic(Now).input_schema.type).toBe("object")
  })

  it("definitions are inlined under $defs", () => {
    const Path = Schema.String.annotate({ identifier: "Path", description: "A file path" })
    const Copy = Tool.make("copy", {
      description: "Copies a file",
      parameters: Schema.Struct({ from: Path, to: Path }),
      run: () => ""
    })
    expect(JsonSchema.parameters(Copy)).toStrictEqual({
      type: "object",
      properties: { from: { $ref: "#/$defs/Path" }, to: { $ref: "#/$defs/Path" } },
      required: ["from", "to"],
      additionalProperties: false,
      $defs: { Path: { type: "string", description: "A file path" } }
    })
  })
})

describe("provider shapes", () => {
  it("anthropic: { name, description, input_schema }", () => {
    expect(JsonSchema.anthropic(Search)).toStrictEqual({
      name: "search",
      description: "Searches the files for a pattern",
      input_schema: searchParameters
    })
  })

  it("openAi: { type: 'function', function: { name, description, parameters } }", () => {
    expect(JsonSchema.openAi(Search)).toStrictEqual({
      type: "function",
      function: { name: "search", description: "Searches the files for a pattern", parameters: searchParameters }
    })
  })

  it("every tool of a toolset, in order", () => {
    const Read = Tool.make("read", {
      description: "Reads a file",
      parameters: Schema.Struct({ path: Schema.String }),
      run: () => ""
    })
    const toolset = Toolset.make(Read, Search)
    const readSchema = {
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
      additionalProperties: false
    }
    expect(JsonSchema.anthropicTools(toolset)).toStrictEqual([
      { name: "read", description: "Reads a file", input_schema: readSchema },
      { name: "search", description: "Searches the files for a pattern", input_schema: searchParameters }
    ])
    expect(JsonSchema.openAiTools(toolset).map((t) => [t.type, t.function.name, t.function.parameters])).toStrictEqual([
      ["function", "read", readSchema],
      ["function", "search", searchParameters]
    ])
  })
})
