/**
 * The first problem a JSON Schema validator (`@cfworker/json-schema`) found in a call's input,
 * as a Schema issue at its path, so that tool-schema's decoding names it the way it names every
 * violation: `missing field 'to'`, `field 'age' must be an integer`, `unexpected field 'x'`,
 * `field 'when' must be a valid date-time`. Problems are ranked in the contract's order: the
 * declared fields first, in order, then the other keys of the input, then the input as a whole.
 *
 * @internal
 */
import type { JsonSchema } from "@agent-harness/tool-schema"
import type { OutputUnit } from "@cfworker/json-schema"
import { Schema, type SchemaAST, SchemaIssue } from "effect"
import { isObject, pointerSegments, resolveRef } from "./SchemaWalk.ts"

/** What a filter returns for one problem (Schema's `FilterIssue` with a path). */
export interface Found {
  readonly path: ReadonlyArray<PropertyKey>
  readonly issue: SchemaIssue.Issue
  /** It is a failed `format`. */
  readonly format?: boolean
}

const asts: Readonly<Record<string, SchemaAST.AST>> = {
  string: Schema.String.ast,
  number: Schema.Finite.ast,
  integer: Schema.Finite.check(Schema.isInt()).ast,
  boolean: Schema.Boolean.ast,
  array: Schema.Array(Schema.Unknown).ast,
  object: Schema.Record(Schema.String, Schema.Unknown).ast,
  null: Schema.Null.ast
}

type Primitive = string | number | boolean | null

const isPrimitive = (u: unknown): u is Primitive =>
  u === null || typeof u === "string" || typeof u === "number" || typeof u === "boolean"

const literalsAst = (values: ReadonlyArray<Primitive>): SchemaAST.AST =>
  Schema.Union(values.map((v) => (v === null ? Schema.Null : Schema.Literal(v)))).ast

const typesAst = (types: ReadonlyArray<string>): SchemaAST.AST | undefined => {
  const members = types.map((t) => asts[t]).filter((a): a is SchemaAST.AST => a !== undefined)
  if (members.length === 0) return undefined
  if (members.length === 1) return members[0]
  return Schema.Union(members.map((ast) => Schema.make(ast))).ast
}

/** The schema node a keyword location points into, following `$ref`s on the way. */
const keywordOwner = (root: JsonSchema.JsonSchema, location: string): JsonSchema.JsonSchema | undefined => {
  const segments = pointerSegments(location)
  if (segments === undefined || segments.length === 0) return undefined
  let current: unknown = root
  for (const segment of segments.slice(0, -1)) {
    if (segment === "$ref" && isObject(current) && typeof current.$ref === "string") {
      current = resolveRef(root, current.$ref)
    } else if (Array.isArray(current)) {
      current = current[Number(segment)]
    } else if (isObject(current)) {
      current = current[segment]
    } else {
      return undefined
    }
  }
  return isObject(current) ? current : undefined
}

const quoted = (error: string, before: string): string | undefined => {
  const at = error.lastIndexOf(before)
  if (at === -1 || !error.endsWith('".')) return undefined
  return error.slice(at + before.length, -2)
}

/** The path of an instance location in the input: `#/items/0/name` → `["items", 0, "name"]`. */
const instancePath = (input: unknown, location: string): ReadonlyArray<PropertyKey> => {
  const segments = pointerSegments(location) ?? []
  const path: Array<PropertyKey> = []
  let current: unknown = input
  for (const segment of segments) {
    if (Array.isArray(current)) {
      path.push(Number(segment))
      current = current[Number(segment)]
    } else {
      path.push(segment)
      current = isObject(current) ? current[segment] : undefined
    }
  }
  return path
}

const invalid = (expected: string): SchemaIssue.Issue => new SchemaIssue.InvalidValue({ message: expected })

/** `a value greater than (or equal to) n`, or `less`; any value is valid without a number. */
const bound = (side: "greater" | "less", n: number | undefined, exclusive: boolean): string =>
  n === undefined ? "a valid value" : `a value ${side} than ${exclusive ? "" : "or equal to "}${n}`

const expectedText = (keyword: string, owner: JsonSchema.JsonSchema | undefined): string => {
  const value = owner?.[keyword]
  const n = typeof value === "number" ? value : undefined
  switch (keyword) {
    case "minimum":
      return bound("greater", n, owner?.exclusiveMinimum === true)
    case "maximum":
      return bound("less", n, owner?.exclusiveMaximum === true)
    case "exclusiveMinimum":
      return n === undefined ? "a valid value" : `a value greater than ${n}`
    case "exclusiveMaximum":
      return n === undefined ? "a valid value" : `a value less than ${n}`
    case "minLength":
    case "minItems":
      return n === undefined ? "a valid value" : `a value with a length of at least ${n}`
    case "maxLength":
    case "maxItems":
      return n === undefined ? "a valid value" : `a value with a length of at most ${n}`
    case "minProperties":
      return n === undefined ? "a valid value" : `a value with at least ${n} ${n === 1 ? "entry" : "entries"}`
    case "maxProperties":
      return n === undefined ? "a valid value" : `a value with at most ${n} ${n === 1 ? "entry" : "entries"}`
    case "multipleOf":
      return n === undefined ? "a valid value" : `a value that is a multiple of ${n}`
    case "pattern":
      return typeof value === "string" ? `a string matching the RegExp ${value}` : "a valid value"
    case "format":
      return typeof value === "string" ? `a valid ${value}` : "a valid value"
    case "uniqueItems":
      return "an array with unique items"
    case "oneOf":
      return "a value matching exactly one of the allowed forms"
    default:
      return "a valid value"
  }
}

/** Keywords whose unit only says that something below failed; the units after it say what. */
const containers = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "$ref",
  "$recursiveRef",
  "allOf",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "propertyNames"
])

/** A union member an `anyOf` / `oneOf` branch failed on, when it is a plain type or literal check. */
const branchAst = (root: JsonSchema.JsonSchema, unit: OutputUnit): SchemaAST.AST | undefined => {
  const owner = keywordOwner(root, unit.keywordLocation)
  if (unit.keyword === "type") {
    const t = owner?.type
    return typesAst(typeof t === "string" ? [t] : Array.isArray(t) ? t.filter((x) => typeof x === "string") : [])
  }
  if (unit.keyword === "const" && isPrimitive(owner?.const)) return literalsAst([owner.const])
  if (unit.keyword === "enum" && Array.isArray(owner?.enum) && owner.enum.every(isPrimitive)) {
    return literalsAst(owner.enum)
  }
  return undefined
}

const leaf = (
  root: JsonSchema.JsonSchema,
  input: unknown,
  units: ReadonlyArray<OutputUnit>,
  index: number
): { readonly found: Found | undefined; readonly next: number } => {
  const unit = units[index] as OutputUnit
  const path = instancePath(input, unit.instanceLocation)
  const owner = keywordOwner(root, unit.keywordLocation)
  switch (unit.keyword) {
    case "required": {
      const name = quoted(unit.error, 'required property "')
      return {
        found: name === undefined ? undefined : { path: [...path, name], issue: new SchemaIssue.MissingKey(undefined) },
        next: index + 1
      }
    }
    case "dependentRequired":
    case "dependencies": {
      const name = quoted(unit.error, 'does not have "')
      return {
        found:
          name === undefined
            ? { path, issue: invalid("a valid value") }
            : { path: [...path, name], issue: new SchemaIssue.MissingKey(undefined) },
        next: index + 1
      }
    }
    case "false":
      return { found: { path, issue: new SchemaIssue.UnexpectedKey(Schema.Never.ast, undefined) }, next: index + 1 }
    case "type":
    case "const":
    case "enum": {
      const ast = branchAst(root, unit)
      return {
        found: {
          path,
          issue: ast === undefined ? invalid("a valid value") : new SchemaIssue.InvalidType(ast, undefined)
        },
        next: index + 1
      }
    }
    case "anyOf":
    case "oneOf": {
      // The units of the branches follow, below this keyword's location.
      const below = `${unit.keywordLocation}/`
      let next = index + 1
      const members: Array<SchemaAST.AST> = []
      let plain = true
      while (next < units.length && (units[next] as OutputUnit).keywordLocation.startsWith(below)) {
        const branch = units[next] as OutputUnit
        const ast = branch.instanceLocation === unit.instanceLocation ? branchAst(root, branch) : undefined
        if (ast === undefined) plain = false
        else members.push(ast)
        next++
      }
      if (plain && members.length > 0) {
        const union = Schema.Union(members.map((ast) => Schema.make(ast))).ast
        return { found: { path, issue: new SchemaIssue.InvalidType(union, undefined) }, next }
      }
      return { found: { path, issue: invalid(expectedText(unit.keyword, owner)) }, next }
    }
    default:
      return {
        found: { path, issue: invalid(expectedText(unit.keyword, owner)), format: unit.keyword === "format" },
        next: index + 1
      }
  }
}

/**
 * The first problem of a failed validation, in the contract's order; `undefined` when no unit
 * says anything usable (the caller then reports the input as a whole).
 *
 * @internal
 */
export const first = (
  root: JsonSchema.JsonSchema,
  fields: ReadonlyArray<string>,
  input: object,
  units: ReadonlyArray<OutputUnit>
): Found | undefined => {
  const found: Array<Found> = []
  for (let i = 0; i < units.length; ) {
    const unit = units[i] as OutputUnit
    if (containers.has(unit.keyword)) {
      i++
      continue
    }
    const one = leaf(root, input, units, i)
    if (one.found !== undefined) found.push(one.found)
    i = one.next
  }
  const rank = (f: Found): number => {
    if (f.path.length === 0) return Number.MAX_SAFE_INTEGER
    const key = String(f.path[0])
    const declared = fields.indexOf(key)
    if (declared !== -1) return declared
    const given = Object.keys(input).indexOf(key)
    return fields.length + (given === -1 ? Object.keys(input).length : given)
  }
  let best: Found | undefined
  for (const f of found) if (best === undefined || rank(f) < rank(best)) best = f
  if (best === undefined) return undefined
  // A failed format says more than the pattern written for it (zod writes both).
  const at = best.path.join("\u0000")
  return found.find((f) => f.format && f.path.join("\u0000") === at) ?? best
}
