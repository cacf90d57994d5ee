import { JsonSchema, MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { InputSchema } from "../src/index.ts"

/** The observation a call gets from a tool with the imported schema: "ok" or `not executed: …`. */
const checker = (schema: unknown, catalog: MessageCatalog.MessageCatalog = MessageCatalog.english) => {
  const imported = InputSchema.fromJsonSchema(schema)
  const tool = Tool.make("t", { description: "", parameters: imported.parameters, run: () => "ran" })
  const tools = Toolset.make(tool)
  return {
    imported,
    json: JsonSchema.parameters(tool),
    check: (input: unknown): string => {
      const decoded = Toolset.decode(tools, { id: "c", name: "t", input })
      return Result.isSuccess(decoded) ? "ok" : MessageCatalog.notExecuted(catalog, decoded.failure)
    }
  }
}

// What the official SDK's McpServer lists for a zod object (draft-07, closed).
const zodLike = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: {
    to: { type: "string", format: "email" },
    count: { type: "integer", minimum: 0 },
    tags: { type: "array", items: { type: "string" } },
    mode: { type: "string", enum: ["fast", "slow"] }
  },
  required: ["to"],
  additionalProperties: false
}

describe("InputSchema.fromJsonSchema: common schemas (effect's import, then the validator)", () => {
  const { imported, check } = checker(zodLike)

  it("is checked by an Effect Schema struct, with nothing left unchecked", () => {
    expect(imported.checkedBy).toBe("schema")
    expect(imported.unenforced).toStrictEqual([])
  })

  it("accepts valid input", () => {
    expect(check({ to: "ana@example.com" })).toBe("ok")
    expect(check({ to: "ana@example.com", count: 2, tags: ["a"], mode: "fast" })).toBe("ok")
  })

  it("names each violation by field, as for our own tools", () => {
    expect(check({})).toBe("not executed: missing field 'to'")
    expect(check({ to: 1 })).toBe("not executed: field 'to' must be a string")
    expect(check({ to: "a@b.es", count: -1 })).toBe(
      "not executed: field 'count' must be a value greater than or equal to 0"
    )
    expect(check({ to: "a@b.es", count: 1.5 })).toBe("not executed: field 'count' must be an integer")
    expect(check({ to: "a@b.es", tags: [1] })).toBe("not executed: field 'tags[0]' must be a string")
    expect(check({ to: "a@b.es", mode: "warp" })).toBe("not executed: field 'mode' must be one of 'fast', 'slow'")
    expect(check({ to: "a@b.es", cc: "x" })).toBe("not executed: unexpected field 'cc'")
    expect(check([1])).toBe("not executed: input must be an object")
  })

  it("checks format, which effect's import ignores", () => {
    expect(check({ to: "not an address" })).toBe("not executed: field 'to' must be a valid email")
  })

  it("speaks the catalogue's language", () => {
    const spanish = checker(zodLike, MessageCatalog.spanish).check
    expect(spanish({})).toBe("no se ha ejecutado: falta el campo 'to'")
    expect(spanish({ to: "a@b.es", count: -1 })).toBe(
      "no se ha ejecutado: el campo 'count' no es válido: se esperaba un valor mayor o igual que 0"
    )
  })

  it("describes the schema to a model from effect's struct", () => {
    const json = checker(zodLike).json
    expect(json.properties).toMatchObject({ to: { type: "string", format: "email" }, mode: { enum: ["fast", "slow"] } })
    expect(json.required).toStrictEqual(["to"])
    expect(json.additionalProperties).toBe(false)
  })

  it("resolves 2020-12 $defs", () => {
    const { check } = checker({
      type: "object",
      properties: { point: { $ref: "#/$defs/Point" } },
      $defs: { Point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } }
    })
    expect(check({ point: { x: 1 } })).toBe("ok")
    expect(check({ point: {} })).toBe("not executed: missing field 'point.x'")
    expect(check({ point: { x: "1" } })).toBe("not executed: field 'point.x' must be a number")
  })

  it("an open object takes any field; a closed empty one refuses each by name", () => {
    expect(checker({ type: "object" }).check({ anything: [1] })).toBe("ok")
    const closed = checker({ type: "object", properties: {}, additionalProperties: false })
    expect(closed.check({})).toBe("ok")
    expect(closed.check({ x: 1 })).toBe("not executed: unexpected field 'x'")
  })

  it("a schema without type is an object schema (MCP's arguments always are)", () => {
    const { imported, check } = checker({ properties: { a: { type: "string" } }, required: ["a"] })
    expect(imported.checkedBy).toBe("schema")
    expect(check({})).toBe("not executed: missing field 'a'")
  })
})

describe("InputSchema.fromJsonSchema: what effect refuses is checked by the validator alone", () => {
  const conditional = {
    type: "object",
    properties: { kind: { type: "string" }, url: { type: "string", format: "uri" } },
    required: ["kind"],
    if: { properties: { kind: { const: "link" } }, required: ["kind"] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then is what this test is about
    then: { required: ["url"] },
    additionalProperties: false
  }

  it("if/then: required by a condition, format, type, extra fields", () => {
    const { imported, check } = checker(conditional)
    expect(imported.checkedBy).toBe("validator")
    expect(imported.unenforced).toStrictEqual([])
    expect(check({ kind: "text" })).toBe("ok")
    expect(check({ kind: "link", url: "https://example.com" })).toBe("ok")
    expect(check({ kind: "link" })).toBe("not executed: missing field 'url'")
    expect(check({ kind: "link", url: "no uri" })).toBe("not executed: field 'url' must be a valid uri")
    expect(check({ kind: 3 })).toBe("not executed: field 'kind' must be a string")
    expect(check({ kind: "text", extra: 1 })).toBe("not executed: unexpected field 'extra'")
    expect(check({})).toBe("not executed: missing field 'kind'")
  })

  it("describes the server's schema to a model, whole", () => {
    const { json } = checker(conditional)
    expect(json.allOf).toContainEqual({ ...conditional })
  })

  it("anyOf gives the union of what was expected; dependentRequired names the missing field", () => {
    const { check } = checker({
      type: "object",
      properties: { v: { anyOf: [{ type: "string" }, { type: "number" }] } },
      dependentRequired: { v: ["w"] }
    })
    expect(check({ v: true })).toBe("not executed: field 'v' must be a string or a number")
    expect(check({ v: "s" })).toBe("not executed: missing field 'w'")
    expect(check({ v: "s", w: 0 })).toBe("ok")
  })

  it("draft-07 definitions with contains: refs inlined for the model", () => {
    const { imported, check, json } = checker({
      type: "object",
      properties: { p: { $ref: "#/definitions/P" }, list: { type: "array", contains: { const: 1 } } },
      definitions: { P: { type: "string" } }
    })
    expect(imported.checkedBy).toBe("validator")
    expect(check({ p: 1 })).toBe("not executed: field 'p' must be a string")
    expect(check({ list: [2] })).toBe("not executed: field 'list' must be a valid value")
    expect(check({ p: "a", list: [1] })).toBe("ok")
    expect(JSON.stringify(json)).not.toContain("$ref")
    expect(JSON.stringify(json)).not.toContain("definitions")
  })
})

describe("InputSchema.fromJsonSchema: what nothing local can check is reported, never guessed", () => {
  it("external $ref, unknown format, unknown keyword, pattern that does not compile", () => {
    const { imported, check } = checker({
      type: "object",
      properties: {
        a: { $ref: "https://example.com/a.json" },
        b: { type: "string", format: "color" },
        c: { type: "string", nullable: true },
        d: { type: "string", pattern: "(" },
        e: { type: "string", "x-ui": "wide" }
      }
    })
    expect(imported.unenforced).toStrictEqual([
      {
        path: "/properties/a/$ref",
        what: "$ref 'https://example.com/a.json' is not in this schema: anything is accepted there"
      },
      { path: "/properties/b/format", what: "the format 'color' is not known: not checked" },
      { path: "/properties/c/nullable", what: "'nullable' is not a JSON Schema keyword: not checked" },
      { path: "/properties/d/pattern", what: "the pattern '(' does not compile: not checked" }
    ])
    expect(check({ a: { anything: true }, b: "zz", d: "((" })).toBe("ok")
    expect(check({ c: null })).toBe("not executed: field 'c' must be a string")
  })

  it("a schema that does not describe an object leaves the checking to the server", () => {
    const { imported, check } = checker({ type: "string" })
    expect(imported.checkedBy).toBe("server")
    expect(imported.unenforced).toStrictEqual([
      { path: "", what: 'the input schema describes "string", not an object: calls are sent unchecked' }
    ])
    expect(check({ a: 1 })).toBe("ok")
  })

  it("so does a value that is no schema at all", () => {
    for (const schema of [42, null, "object", [1]]) {
      const { imported, check } = checker(schema)
      expect(imported.checkedBy).toBe("server")
      expect(imported.unenforced[0]?.what).toBe(
        "the input schema is not a JSON Schema object: calls are sent unchecked"
      )
      expect(check({ a: 1 })).toBe("ok")
    }
  })

  it("a schema nested deeper than the limit is cut there, not followed", () => {
    let deep: Record<string, unknown> = { type: "string" }
    for (let i = 0; i < 5000; i++) deep = { type: "object", properties: { n: deep } }
    const { imported, check } = checker(deep)
    expect(imported.unenforced.some((u) => u.what.startsWith("nested deeper than"))).toBe(true)
    expect(check({ n: 1 })).toBe("not executed: field 'n' must be an object")
  })
})
