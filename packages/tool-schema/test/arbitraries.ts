/**
 * Random tool parameters and random inputs for them, for the differential tests of the compiled
 * decoder: a schema is built from a description (so the same description gives independent
 * schemas, one per decoder under test), and inputs are mostly valid values of the description,
 * with wrong values, extra or missing keys and unusual objects (inherited, null-prototype,
 * class instances, frozen, Proxies, getters, symbol keys) mixed in at every level.
 */
import { Schema } from "effect"
import fc from "fast-check"
import type { Tool } from "../src/index.ts"

type Leaf =
  | "string"
  | "nonEmpty"
  | "number"
  | "finite"
  | "int"
  | "positive"
  | "boolean"
  | "null"
  | "undefined"
  | "unknown"

/** The description of a schema. */
export type Desc =
  | { readonly kind: "leaf"; readonly leaf: Leaf }
  | { readonly kind: "literal"; readonly value: string | number | boolean }
  | { readonly kind: "array"; readonly item: Desc }
  | { readonly kind: "struct"; readonly fields: ReadonlyArray<Field> }
  | { readonly kind: "union"; readonly members: ReadonlyArray<Desc> }

export interface Field {
  readonly name: string
  readonly mode: "required" | "optionalKey" | "optional"
  readonly type: Desc
}

/** Field names, the awkward ones included: inherited names, quotes, line breaks, digits. */
export const names = [
  "path",
  "limit",
  "a",
  "b",
  "0",
  "",
  "constructor",
  "toString",
  "with space",
  'q"uote',
  "back\\slash",
  "line\nbreak",
  "sep\u2028arator",
  `\${x}`,
  '"]) || (globalThis.injected = 1) || (["'
] as const

const leaves: ReadonlyArray<Leaf> = [
  "string",
  "nonEmpty",
  "number",
  "finite",
  "int",
  "positive",
  "boolean",
  "null",
  "undefined",
  "unknown"
]

const leafSchema = (leaf: Leaf): Schema.Codec<unknown> => {
  switch (leaf) {
    case "string":
      return Schema.String
    case "nonEmpty":
      return Schema.NonEmptyString
    case "number":
      // @effect-diagnostics-next-line schemaNumber:off -- non-finite numbers are part of the test
      return Schema.Number
    case "finite":
      return Schema.Finite
    case "int":
      return Schema.Int
    case "positive":
      // @effect-diagnostics-next-line schemaNumber:off -- `Infinity` is positive, as Schema says
      return Schema.Number.check(Schema.isGreaterThan(0))
    case "boolean":
      return Schema.Boolean
    case "null":
      return Schema.Null
    case "undefined":
      return Schema.Undefined
    case "unknown":
      return Schema.Unknown
  }
}

/** A new schema for a description (each call builds new AST nodes). */
export const schemaOf = (desc: Desc): Schema.Codec<unknown> => {
  switch (desc.kind) {
    case "leaf":
      return leafSchema(desc.leaf)
    case "literal":
      return Schema.Literal(desc.value)
    case "array":
      return Schema.Array(schemaOf(desc.item))
    case "union":
      return Schema.Union(desc.members.map(schemaOf))
    case "struct":
      return Schema.Struct(structFields(desc.fields))
  }
}

type FieldSchema =
  | Schema.Codec<unknown>
  | Schema.optionalKey<Schema.Codec<unknown>>
  | Schema.optional<Schema.Codec<unknown>>

const structFields = (fields: ReadonlyArray<Field>): Record<string, FieldSchema> => {
  const out: Record<string, FieldSchema> = {}
  for (const field of fields) {
    const type = schemaOf(field.type)
    out[field.name] =
      field.mode === "required" ? type : field.mode === "optionalKey" ? Schema.optionalKey(type) : Schema.optional(type)
  }
  return out
}

/** The parameters schema of a top-level struct description. */
export const parametersOf = (fields: ReadonlyArray<Field>): Tool.Parameters => Schema.Struct(structFields(fields))

const leafDesc = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...leaves).map((leaf): Desc => ({ kind: "leaf", leaf })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("a", "b", 0, 1, true).map((value): Desc => ({ kind: "literal", value }))
  }
)

const fieldsOf = (type: fc.Arbitrary<Desc>, maxLength: number): fc.Arbitrary<ReadonlyArray<Field>> =>
  fc.uniqueArray(
    fc.record({
      name: fc.constantFrom(...names),
      mode: fc.constantFrom("required", "required", "optionalKey", "optional"),
      type
    }),
    { minLength: 1, maxLength, selector: (field) => field.name }
  )

const tree = fc.letrec<{ desc: Desc }>((tie) => ({
  desc: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 6, arbitrary: leafDesc },
    { weight: 1, arbitrary: tie("desc").map((item): Desc => ({ kind: "array", item })) },
    { weight: 1, arbitrary: fieldsOf(tie("desc"), 3).map((fields): Desc => ({ kind: "struct", fields })) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.oneof({ weight: 4, arbitrary: leafDesc }, { weight: 1, arbitrary: tie("desc") }), {
          minLength: 1,
          maxLength: 3
        })
        .map((members): Desc => ({ kind: "union", members }))
    }
  )
}))

/**
 * Descriptions of the fields of tool parameters: leaves, arrays, nested structs and unions. Up
 * to six at the root: the compiled decoder finds the symbol keys of a struct of up to four keys
 * one way and of a larger one another, and both are tested.
 */
export const fields: fc.Arbitrary<ReadonlyArray<Field>> = fieldsOf(tree.desc, 6)

/** Values that are wrong almost everywhere, and some that are right by chance. */
const junk: fc.Arbitrary<unknown> = fc.constantFrom<unknown>(
  undefined,
  null,
  0,
  -0,
  1,
  -1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 60,
  "",
  "a",
  "b",
  true,
  false,
  10n,
  Symbol.for("junk"),
  [],
  [1, "a"],
  {},
  { a: 1 },
  () => 1
)

const leafValue = (leaf: Leaf): fc.Arbitrary<unknown> => {
  switch (leaf) {
    case "string":
      return fc.oneof(fc.constantFrom("", "a", "notes/todo.txt", "sep\u2028arator"), fc.string({ maxLength: 4 }))
    case "nonEmpty":
      return fc.constantFrom("a", "notes/todo.txt", "")
    case "number":
      return fc.oneof(fc.double(), fc.constantFrom(Number.NaN, Number.NEGATIVE_INFINITY, -0))
    case "finite":
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(-0))
    case "int":
      return fc.oneof(fc.integer(), fc.constantFrom(2 ** 53, 1.5, -0))
    case "positive":
      return fc.oneof(fc.double({ min: 0, noNaN: true }), fc.constant(Number.MIN_VALUE))
    case "boolean":
      return fc.boolean()
    case "null":
      return fc.constant(null)
    case "undefined":
      return fc.constant(undefined)
    case "unknown":
      return fc.oneof(junk, fc.constant({ nested: [1] }))
  }
}

/** An extra key: none, an own enumerable one, or keys Schema does not count as unexpected. */
type Extra =
  | "none"
  | "extra"
  | "own __proto__"
  | "enumerable symbol"
  | "hidden symbol"
  | "hidden extra"
  | "inherited extra"

/** How a struct value is built from its entries. */
type Container =
  | "plain"
  | "reversed"
  | "null prototype"
  | "inherited"
  | "class instance"
  | "frozen"
  | "proxy"
  | "getters"
  | "hidden declared"
  | "array"

class Instance {}

const symbol = Symbol("k")

const build = (entries: ReadonlyArray<readonly [string, unknown]>, container: Container, extra: Extra): unknown => {
  if (container === "array") return entries.map(([, value]) => value)
  const ordered = container === "reversed" ? [...entries].reverse() : entries
  let out: Record<PropertyKey, unknown>
  switch (container) {
    case "null prototype":
      out = Object.create(null)
      break
    case "inherited": {
      // Every other entry lives on the prototype.
      const proto: Record<string, unknown> = {}
      ordered.forEach(([key, value], i) => {
        if (i % 2 === 1) proto[key] = value
      })
      out = Object.create(proto)
      ordered.forEach(([key, value], i) => {
        if (i % 2 === 0) out[key] = value
      })
      break
    }
    case "class instance":
      out = new Instance() as Record<PropertyKey, unknown>
      break
    default:
      out = {}
  }
  if (container !== "inherited") {
    for (const [key, value] of ordered) {
      if (container === "getters") Object.defineProperty(out, key, { get: () => value, enumerable: true })
      else if (container === "hidden declared") Object.defineProperty(out, key, { value, enumerable: false })
      else Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
    }
  }
  switch (extra) {
    case "extra":
      out.extra = 1
      break
    case "own __proto__":
      Object.defineProperty(out, "__proto__", { value: { polluted: true }, enumerable: true })
      break
    case "enumerable symbol":
      out[symbol] = 1
      break
    case "hidden symbol":
      Object.defineProperty(out, symbol, { value: 1, enumerable: false })
      break
    case "hidden extra":
      Object.defineProperty(out, "extra", { value: 1, enumerable: false })
      break
    case "inherited extra":
      if (Object.getPrototypeOf(out) === Object.prototype) Object.setPrototypeOf(out, { extra: 1 })
      break
    case "none":
      break
  }
  if (container === "frozen") Object.freeze(out)
  if (container === "proxy") return new Proxy(out, {})
  return out
}

const containers: ReadonlyArray<Container> = [
  "null prototype",
  "inherited",
  "class instance",
  "frozen",
  "proxy",
  "getters",
  "hidden declared",
  "array"
]
const extras: ReadonlyArray<Extra> = [
  "extra",
  "own __proto__",
  "enumerable symbol",
  "hidden symbol",
  "hidden extra",
  "inherited extra"
]

const structValue = (fields: ReadonlyArray<Field>, wrong: number): fc.Arbitrary<unknown> =>
  fc
    .tuple(
      fc.tuple(
        ...fields.map((field) =>
          fc.oneof(
            { weight: 6, arbitrary: valuesOf(field.type, wrong).map((value) => ({ value })) },
            // Absent, or (for `optional`) present and undefined.
            { weight: field.mode === "required" ? 1 : 3, arbitrary: fc.constantFrom(undefined, { value: undefined }) }
          )
        )
      ),
      fc.oneof({ weight: 6, arbitrary: fc.constant<Container>("plain") }, fc.constantFrom(...containers, "reversed")),
      fc.oneof({ weight: 6, arbitrary: fc.constant<Extra>("none") }, fc.constantFrom(...extras))
    )
    .map(([values, container, extra]) => {
      const entries: Array<readonly [string, unknown]> = []
      fields.forEach((field, i) => {
        const slot = values[i]
        if (slot !== undefined) entries.push([field.name, slot.value])
      })
      return build(entries, container, extra)
    })

const arrayValue = (item: Desc, wrong: number): fc.Arbitrary<unknown> =>
  fc
    .tuple(
      fc.array(valuesOf(item, wrong), { maxLength: 3 }),
      fc.constantFrom("plain", "plain", "plain", "sparse", "extra property", "proxy", "frozen")
    )
    .map(([items, how]) => {
      const out: Array<unknown> = [...items]
      if (how === "sparse") out[out.length + 1] = items[0]
      if (how === "extra property") Object.assign(out, { extra: 1 })
      if (how === "frozen") Object.freeze(out)
      return how === "proxy" ? new Proxy(out, {}) : out
    })

/**
 * Values of a description; `wrong` is the weight of a wrong value at each node (against 20 for
 * a value of the right kind).
 */
export const valuesOf = (desc: Desc, wrong: number): fc.Arbitrary<unknown> => {
  const right = (): fc.Arbitrary<unknown> => {
    switch (desc.kind) {
      case "leaf":
        return leafValue(desc.leaf)
      case "literal":
        return fc.oneof(fc.constant(desc.value), fc.constantFrom("a", "b", 0, 1, true))
      case "array":
        return arrayValue(desc.item, wrong)
      case "struct":
        return structValue(desc.fields, wrong)
      case "union":
        return fc.oneof(...desc.members.map((member) => valuesOf(member, wrong)))
    }
  }
  return wrong === 0 ? right() : fc.oneof({ weight: 20, arbitrary: right() }, { weight: wrong, arbitrary: junk })
}

/** Inputs of tool parameters: mostly valid, and every kind of wrong. */
export const inputOf = (fields: ReadonlyArray<Field>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: structValue(fields, 0) },
    { weight: 6, arbitrary: structValue(fields, 1) },
    { weight: 1, arbitrary: junk }
  )
