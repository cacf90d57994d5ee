/**
 * The fast path of plain structs gives exactly what the strict decoder and the full diagnosis
 * give. The reference decoders are built and used before any toolset exists, so they stay on
 * Schema's interpreter while the toolset's decoders use its JIT compiler.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema, SchemaIssue, SchemaParser } from "effect"
import fc from "fast-check"
import { firstViolation } from "../src/Diagnose.ts"
import { Tool, Toolset, Violation } from "../src/index.ts"

const schemas = {
  pair: Schema.Struct({ path: Schema.String, limit: Schema.Finite }),
  mixed: Schema.Struct({
    s: Schema.String,
    n: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0))),
    tags: Schema.Array(Schema.String),
    mode: Schema.Literals(["a", "b"]),
    maybe: Schema.optional(Schema.Boolean),
    u: Schema.Union([Schema.String, Schema.Finite])
  }),
  nested: Schema.Struct({ a: Schema.String, opts: Schema.optionalKey(Schema.Struct({ depth: Schema.Finite })) })
} as const

type Name = keyof typeof schemas

const strict = { errors: "first", onExcessProperty: "error" } as const
const all = { errors: "all", onExcessProperty: "error" } as const
const formatIssue = SchemaIssue.makeFormatterDefault()

/** The decoder as it was: strict decode, then the diagnosis of every issue. */
const reference = (name: Name) => {
  const schema = schemas[name]
  const decode = SchemaParser.decodeUnknownResult(schema)
  const fields = schema.ast.propertySignatures.map((ps) => ps.name)
  return (input: unknown): Result.Result<unknown, Violation.Violation> => {
    if (typeof input !== "object" || input === null || Array.isArray(input))
      return Result.fail(Violation.inputNotObject)
    const decoded = decode(input, strict)
    if (Result.isSuccess(decoded)) return Result.succeed(decoded.success)
    const every = decode(input, all)
    const issue = Result.isFailure(every) ? every.failure : decoded.failure
    return Result.fail(firstViolation(issue, fields, input, formatIssue))
  }
}

const references = {
  pair: reference("pair"),
  mixed: reference("mixed"),
  nested: reference("nested")
}
// Used once each before any toolset exists: they keep the interpreter.
for (const decode of Object.values(references)) {
  decode({})
  decode({ a: 1 })
}

const keys = ["path", "limit", "s", "n", "tags", "mode", "maybe", "u", "a", "opts", "extra", "__proto__x"] as const
const value = fc.oneof(
  fc.constantFrom<unknown>(undefined, null, "a", "b", "", 0, 1, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY, true),
  fc.array(fc.constantFrom<unknown>("x", 1, null), { maxLength: 2 }),
  fc.record({ depth: fc.constantFrom<unknown>(1, "1") }, { requiredKeys: [] })
)
const symbolKey = Symbol("k")

const input = fc
  .tuple(
    fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 7 }),
    fc.constantFrom("none", "enumerable symbol", "hidden symbol", "inherited", "hidden extra")
  )
  .map(([fields, extra]) => {
    const out: Record<PropertyKey, unknown> =
      extra === "inherited" ? Object.create({ path: "p", extra: 1 }) : ({} as Record<PropertyKey, unknown>)
    Object.assign(out, fields)
    if (extra === "enumerable symbol") out[symbolKey] = 1
    if (extra === "hidden symbol") Object.defineProperty(out, symbolKey, { value: 1, enumerable: false })
    if (extra === "hidden extra") Object.defineProperty(out, "extra", { value: 1, enumerable: false })
    return out
  })

/** Mostly valid inputs of one schema, sometimes with a field dropped or one added. */
const candidates: Record<Name, Record<string, ReadonlyArray<unknown>>> = {
  pair: { path: ["a.txt", "", 1], limit: [0, 4096, -1.5, Number.NaN, "1"] },
  // Valid values are listed more than once, so that whole inputs are often valid.
  mixed: {
    s: ["x", "x", "x", null],
    n: [1, 2, 1, 2, 0, 1.5, undefined],
    tags: [[], ["a"], [], ["a"], ["a", 1]],
    mode: ["a", "b", "a", "b", "c"],
    maybe: [true, undefined, true, undefined, "no"],
    u: ["x", 1, "x", 1, false]
  },
  nested: { a: ["x", 1], opts: [{ depth: 1 }, { depth: "1" }, { depth: 1, more: 2 }, {}] }
}
const nearValid = (name: Name) => {
  const fields = Object.entries(candidates[name])
  return fc
    .tuple(
      fc.tuple(...fields.map(([, values]) => fc.constantFrom(...values))),
      fc.option(fc.constantFrom(...fields.map(([key]) => key))),
      fc.boolean()
    )
    .map(([values, drop, extra]) => {
      const out: Record<string, unknown> = {}
      fields.forEach(([key], i) => {
        out[key] = values[i]
      })
      if (drop !== null) delete out[drop]
      if (extra) out.extra = true
      return out
    })
}

const toolOf = (name: Name) =>
  Tool.make(name, { description: name, parameters: schemas[name] as Tool.Parameters, run: () => Effect.void })

describe("the fast path of plain structs", () => {
  it("answers every input as the strict decoder and the full diagnosis do", () => {
    const toolset = Toolset.make(toolOf("pair"), toolOf("mixed"), toolOf("nested"))
    for (const name of ["pair", "mixed", "nested"] as const) {
      const entry = Toolset.entry(toolset, name)
      if (entry === undefined) throw new Error(name)
      // Nested structs are on the fast path through their compiled decoder.
      expect(entry.fast?.compiled).toBeTypeOf("function")
      let succeeded = 0
      fc.assert(
        fc.property(fc.oneof(input, nearValid(name)), (raw) => {
          const decoded = Toolset.decodeInput(entry, raw)
          if (Result.isSuccess(decoded)) succeeded++
          expect(decoded).toStrictEqual(references[name](raw))
        }),
        { numRuns: 4000 }
      )
      // Both paths are exercised: inputs that decode, and inputs that are refused.
      expect(succeeded).toBeGreaterThan(10)
      expect(succeeded).toBeLessThan(3990)
    }
  })

  it("names a missing field and an unexpected field without the full diagnosis, in contract order", () => {
    const toolset = Toolset.make(toolOf("pair"))
    const decode = (raw: unknown) => Toolset.decode(toolset, { id: "c", name: "pair", input: raw })
    expect(decode({ limit: 1 })).toStrictEqual(Result.fail(Violation.missingField("path")))
    expect(decode({ path: "a", limit: 1, z: 0 })).toStrictEqual(Result.fail(Violation.unexpectedField("z")))
    expect(decode({ z: 0, limit: 1 })).toStrictEqual(Result.fail(Violation.missingField("path")))
    expect(decode({ path: 1 })).toStrictEqual(Result.fail(Violation.wrongType("path", { kind: "string" })))
    expect(decode({ path: "a", limit: 1, [symbolKey]: 1 })._tag).toBe("Failure")
  })
})
