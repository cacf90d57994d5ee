import { JsonSchema, MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { InputSchema } from "../src/index.ts"
import { conditionalLink } from "./fixtures/schemas.ts"

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
  const conditional = conditionalLink

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
      {
        path: "/properties/d/pattern",
        what: "the pattern '(' is not checked: it does not compile (Invalid regular expression: /(/u: Unterminated group)"
      }
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

describe("InputSchema.fromJsonSchema: a server's patterns run in linear time (RE2), never as a JavaScript RegExp", () => {
  it("a catastrophic pattern on the model's input answers at once", () => {
    const { imported, check } = checker({
      type: "object",
      properties: { s: { type: "string", pattern: "^(a+)+$" } },
      required: ["s"]
    })
    expect(imported.unenforced).toStrictEqual([])
    const started = performance.now()
    // With a JavaScript RegExp, 28 characters took 8 s; 40 would take hours.
    expect(check({ s: `${"a".repeat(40)}!` })).toBe(
      "not executed: field 's' must be a string matching the RegExp ^(a+)+$"
    )
    expect(check({ s: "a".repeat(100_000) })).toBe("ok")
    expect(performance.now() - started).toBeLessThan(2000)
  }, 30_000)

  it("so does one in an anyOf branch, under a $ref and in propertyNames", () => {
    const { check } = checker({
      type: "object",
      $defs: { slug: { type: "string", pattern: "^(a|aa)+$" } },
      properties: {
        x: { anyOf: [{ type: "number" }, { type: "string", pattern: "^(a|a)*$" }] },
        y: { $ref: "#/$defs/slug" },
        z: { type: "object", propertyNames: { pattern: "^(b+)+$" } }
      }
    })
    const started = performance.now()
    const evil = `${"a".repeat(40)}!`
    expect(check({ x: evil })).not.toBe("ok")
    expect(check({ y: evil })).toBe("not executed: field 'y' must be a string matching the RegExp ^(a|aa)+$")
    expect(check({ z: { [`${"b".repeat(40)}!`]: 1 } })).not.toBe("ok")
    expect(check({ x: "aaa", y: "aa", z: { bbb: 1 } })).toBe("ok")
    expect(performance.now() - started).toBeLessThan(2000)
  }, 30_000)

  it("a pattern beside a format is checked too, and the format is named first", () => {
    const { imported, check } = checker({
      type: "object",
      properties: { to: { type: "string", format: "email", pattern: "^[a-z@.]+$" } }
    })
    expect(imported.checkedBy).toBe("schema")
    expect(check({ to: "nope" })).toBe("not executed: field 'to' must be a valid email")
    expect(check({ to: "A@b.co" })).toBe("not executed: field 'to' must be a string matching the RegExp ^[a-z@.]+$")
    expect(check({ to: "a@b.co" })).toBe("ok")
  })

  it("JSON Schema's syntax (the u flag): \\p{…}, \\u{…}, and '.' and '\\s' as JavaScript reads them", () => {
    const { check } = checker({
      type: "object",
      properties: {
        letters: { type: "string", pattern: "^\\p{L}+$" },
        smile: { type: "string", pattern: "^\\u{1F600}$" },
        line: { type: "string", pattern: "^.+$" },
        gap: { type: "string", pattern: "^a\\sb$" }
      }
    })
    expect(check({ letters: "héllo", smile: "\u{1F600}", line: "one line", gap: "a\u00a0b" })).toBe("ok")
    expect(check({ letters: "h3" })).not.toBe("ok")
    expect(check({ line: "two\nlines" })).not.toBe("ok")
  })

  it("a pattern RE2 cannot run (lookaround, a backreference) is reported unenforced, never run", () => {
    const { imported, check } = checker({
      type: "object",
      properties: {
        ahead: { type: "string", pattern: "^(?=(a+)+$)" },
        back: { type: "string", pattern: "^(a+)\\1$" }
      }
    })
    expect(imported.unenforced).toStrictEqual([
      {
        path: "/properties/ahead/pattern",
        what: "the pattern '^(?=(a+)+$)' is not checked: it cannot be matched in linear time: lookaround ((?=…) needs backtracking"
      },
      {
        path: "/properties/back/pattern",
        what: "the pattern '^(a+)\\1$' is not checked: it cannot be matched in linear time: a backreference (\\1) needs backtracking"
      }
    ])
    const started = performance.now()
    expect(check({ ahead: `${"a".repeat(40)}!`, back: `${"a".repeat(40)}!` })).toBe("ok")
    expect(performance.now() - started).toBeLessThan(2000)
  }, 30_000)

  it("patternProperties are left to the server (the validator would run them on the call's keys)", () => {
    const { imported, check } = checker({
      type: "object",
      properties: { n: { type: "number" } },
      patternProperties: { "^(a+)+$": { type: "number" } },
      additionalProperties: false
    })
    expect(imported.unenforced).toStrictEqual([
      {
        path: "/patternProperties/^(a+)+$",
        what: "the properties matching the pattern '^(a+)+$' are not checked locally (patternProperties)"
      }
    ])
    const started = performance.now()
    expect(check({ n: 1, [`${"a".repeat(40)}!`]: "x" })).toBe("ok")
    expect(check({ n: "one" })).toBe("not executed: field 'n' must be a number")
    expect(performance.now() - started).toBeLessThan(2000)
  }, 30_000)
})

describe("InputSchema.fromJsonSchema: the validator's words for numeric bounds", () => {
  const { imported, check } = checker({
    type: "object",
    properties: {
      low: { type: "number", minimum: 3 },
      high: { type: "number", maximum: 10 },
      above: { type: "number", exclusiveMinimum: 0 },
      below: { type: "number", exclusiveMaximum: 5 }
    },
    required: ["high"],
    if: { properties: { high: { const: 1 } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then sends the check to the validator
    then: { required: ["low"] }
  })

  it("says the bound and whether it is included", () => {
    expect(imported.checkedBy).toBe("validator")
    expect(check({ high: 11 })).toBe("not executed: field 'high' must be a value less than or equal to 10")
    expect(check({ high: 2, low: 2 })).toBe("not executed: field 'low' must be a value greater than or equal to 3")
    expect(check({ high: 2, above: 0 })).toBe("not executed: field 'above' must be a value greater than 0")
    expect(check({ high: 2, below: 5 })).toBe("not executed: field 'below' must be a value less than 5")
    expect(check({ high: 2, low: 3, above: 1, below: 4 })).toBe("ok")
  })
})
