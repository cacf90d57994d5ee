/**
 * Reads a server's input JSON Schema before anything validates with it: finds its dialect,
 * copies it without what no local validator can use (an external or unresolvable `$ref`, a
 * `$dynamicRef`, a pattern that does not compile or needs backtracking, `patternProperties`),
 * and lists everything that will therefore not be checked locally, with its JSON Pointer.
 * Removing a constraint only ever lets more values through: what the local check cannot decide
 * is left to the server. No pattern of the server's is ever run as a JavaScript `RegExp` (it
 * backtracks: `^(a+)+$` on 28 characters took 8 s): each `pattern` becomes a format of its own
 * whose check runs RE2 in linear time (`LinearPattern`).
 *
 * @internal
 */
import { format } from "@cfworker/json-schema"
import type { JsonSchema } from "@agent-harness/tool-schema"
import { Result } from "effect"
import * as LinearPattern from "./internal/LinearPattern.ts"

/**
 * Something in a server's input schema that is not checked before the call is sent.
 *
 * @since 0.1.0
 */
export interface Unenforced {
  /** Where, as a JSON Pointer into the server's schema (`""` is the whole schema). */
  readonly path: string
  /** What is not checked, in words. */
  readonly what: string
}

/** The JSON Schema drafts `@cfworker/json-schema` validates. */
export type Draft = "4" | "7" | "2019-09" | "2020-12"

/** @internal */
export interface Prepared {
  /** The schema both validators use. */
  readonly schema: JsonSchema.JsonSchema
  readonly draft: Draft
  /** The dialect was stated (`$schema`), or guessed from the keywords used. */
  readonly stated: boolean
  readonly unenforced: ReadonlyArray<Unenforced>
}

/** The deepest schema walked; deeper ones are not checked locally (and cannot blow the stack). */
export const maxDepth = 64

/** Keywords with a schema as value. */
const single = new Set([
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else"
])
/** Keywords with an array of schemas as value (`items` may be either, by draft). */
const arrays = new Set(["prefixItems", "allOf", "anyOf", "oneOf"])
/** Keywords with a map of schemas as value. */
const maps = new Set(["$defs", "definitions", "properties", "patternProperties", "dependentSchemas"])
/** Assertions the validator checks (besides the applicators above). */
const assertions = new Set([
  "$ref",
  "$recursiveRef",
  "$recursiveAnchor",
  "type",
  "const",
  "enum",
  "required",
  "format",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "dependencies",
  "items",
  "minContains",
  "maxContains",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern"
])
/** Keywords that only describe (no validator checks them, nor should). */
const annotations = new Set([
  "$schema",
  "$id",
  "id",
  "$anchor",
  "$dynamicAnchor",
  "$vocabulary",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentEncoding",
  "contentMediaType",
  "contentSchema"
])

const formats: ReadonlySet<string> = new Set(Object.keys(format))

/** Whether a value is a JSON object (a schema object, a map of schemas). */
export const isObject = (u: unknown): u is JsonSchema.JsonSchema =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const escapeToken = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1")

/** A JSON Pointer's segments, or `undefined` when it is not one (`"#/a/b~1c"` → `["a", "b/c"]`). */
export const pointerSegments = (fragment: string): ReadonlyArray<string> | undefined => {
  if (fragment === "#" || fragment === "") return []
  if (!fragment.startsWith("#/")) return undefined
  try {
    return fragment
      .slice(2)
      .split("/")
      .map((s) => decodeURIComponent(s).replace(/~1/g, "/").replace(/~0/g, "~"))
  } catch {
    return undefined
  }
}

/** What a local `$ref` points at in `root`, or `undefined`. */
export const resolveRef = (root: unknown, ref: string): unknown => {
  const segments = pointerSegments(ref)
  if (segments === undefined) return undefined
  let current: unknown = root
  for (const segment of segments) {
    if (Array.isArray(current)) current = current[Number(segment)]
    else if (isObject(current) && Object.hasOwn(current, segment)) current = current[segment]
    else return undefined
  }
  return current
}

/** The anchors a schema declares (`$anchor: "a"`, draft-07 `$id: "#a"`), for `$ref: "#a"`. */
const anchorsOf = (node: unknown, into: Set<string>, depth: number): Set<string> => {
  if (depth > maxDepth) return into
  if (Array.isArray(node)) {
    for (const item of node) anchorsOf(item, into, depth + 1)
  } else if (isObject(node)) {
    if (typeof node.$anchor === "string") into.add(node.$anchor)
    if (typeof node.$id === "string" && node.$id.startsWith("#")) into.add(node.$id.slice(1))
    for (const value of Object.values(node)) anchorsOf(value, into, depth + 1)
  }
  return into
}

/** Keywords that only draft-07 (and older) has. */
const draft07Keywords = new Set(["definitions", "dependencies", "additionalItems"])

/** The draft a schema is written in: its `$schema`, or a guess from draft-07-only keywords. */
const draftOf = (root: JsonSchema.JsonSchema, old: boolean): { readonly draft: Draft; readonly stated: boolean } => {
  const stated = typeof root.$schema === "string" ? root.$schema : ""
  if (stated.includes("draft-04")) return { draft: "4", stated: true }
  if (stated.includes("draft-06") || stated.includes("draft-07")) return { draft: "7", stated: true }
  if (stated.includes("2019-09")) return { draft: "2019-09", stated: true }
  if (stated.includes("2020-12")) return { draft: "2020-12", stated: true }
  // MCP's own default (2025-11-25) is 2020-12.
  return { draft: old ? "7" : "2020-12", stated: false }
}

class Walk {
  readonly unenforced: Array<Unenforced> = []
  /** A draft-07-only keyword was seen. */
  old = false
  readonly root: JsonSchema.JsonSchema
  readonly anchors: ReadonlySet<string>
  constructor(root: JsonSchema.JsonSchema, anchors: ReadonlySet<string>) {
    this.root = root
    this.anchors = anchors
  }

  note(path: string, what: string): void {
    this.unenforced.push({ path, what })
  }

  schema(node: unknown, path: string, depth: number): unknown {
    if (typeof node === "boolean") return node
    if (!isObject(node)) {
      this.note(path, "not a schema: anything is accepted here")
      return {}
    }
    if (depth > maxDepth) {
      this.note(path, `nested deeper than ${maxDepth} levels: anything is accepted here`)
      return {}
    }
    const out: Record<string, unknown> = {}
    let dropAdditional = false
    /** The node states a format of its own: its pattern's format goes into an `allOf` beside it. */
    const hasFormat = node.format !== undefined
    const siblings: Array<unknown> = []
    for (const [key, value] of Object.entries(node)) {
      const at = `${path}/${escapeToken(key)}`
      if (draft07Keywords.has(key) || (key === "items" && Array.isArray(value))) this.old = true
      if (single.has(key)) {
        out[key] = this.schema(value, at, depth + 1)
      } else if (arrays.has(key) || (key === "items" && Array.isArray(value))) {
        if (Array.isArray(value)) out[key] = value.map((v, i) => this.schema(v, `${at}/${i}`, depth + 1))
        else this.note(at, `'${key}' is not an array of schemas: ignored`)
      } else if (key === "items") {
        out[key] = this.schema(value, at, depth + 1)
      } else if (maps.has(key)) {
        if (!isObject(value)) {
          this.note(at, `'${key}' is not an object: ignored`)
          continue
        }
        if (key === "patternProperties") {
          // The validator would match these against the call's keys as JavaScript regular
          // expressions: left to the server, and with them what counts as an additional property.
          for (const name of Object.keys(value)) {
            this.note(
              `${at}/${escapeToken(name)}`,
              `the properties matching the pattern '${name}' are not checked locally (patternProperties)`
            )
          }
          dropAdditional = Object.keys(value).length > 0
          continue
        }
        const entries: Record<string, unknown> = {}
        for (const [name, sub] of Object.entries(value)) {
          entries[name] = this.schema(sub, `${at}/${escapeToken(name)}`, depth + 1)
        }
        out[key] = entries
      } else if (key === "dependencies" && isObject(value)) {
        const entries: Record<string, unknown> = {}
        for (const [name, sub] of Object.entries(value)) {
          entries[name] = Array.isArray(sub) ? sub : this.schema(sub, `${at}/${escapeToken(name)}`, depth + 1)
        }
        out[key] = entries
      } else if (key === "$ref") {
        if (this.refUsable(value, at)) out[key] = value
      } else if (key === "$dynamicRef") {
        this.note(at, `$dynamicRef '${String(value)}' is not resolved: anything is accepted there`)
      } else if (key === "pattern") {
        const made = typeof value === "string" ? LinearPattern.compile(value) : Result.fail("it is not a string")
        if (Result.isFailure(made)) {
          this.note(at, `the pattern '${String(value)}' is not checked: ${made.failure}`)
        } else if (hasFormat) {
          siblings.push({ format: LinearPattern.formatName(LinearPattern.sibling, value as string, made.success) })
        } else {
          out.format = LinearPattern.formatName(LinearPattern.inPlace, value as string, made.success)
        }
      } else if (key === "format") {
        out[key] = value
        if (typeof value === "string" && !formats.has(value))
          this.note(at, `the format '${value}' is not known: not checked`)
      } else {
        out[key] = value
        if (!assertions.has(key) && !annotations.has(key) && !key.startsWith("x-")) {
          this.note(at, `'${key}' is not a JSON Schema keyword: not checked`)
        }
      }
    }
    if (dropAdditional) {
      delete out.additionalProperties
      delete out.unevaluatedProperties
    }
    // Appended: the indexes of the server's own `allOf` members stay as they were.
    if (siblings.length > 0) out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), ...siblings]
    return out
  }

  refUsable(ref: unknown, at: string): boolean {
    if (typeof ref !== "string") {
      this.note(at, "$ref is not a string: ignored")
      return false
    }
    if (ref.startsWith("#/") || ref === "#") {
      if (resolveRef(this.root, ref) !== undefined) return true
      this.note(at, `$ref '${ref}' points at nothing: anything is accepted there`)
      return false
    }
    if (ref.startsWith("#") && this.anchors.has(ref.slice(1))) return true
    this.note(at, `$ref '${ref}' is not in this schema: anything is accepted there`)
    return false
  }
}

/**
 * The schema the local validators use, its draft, and what they will not check. The root
 * schema must be an object (the caller checks).
 *
 * @internal
 */
export const prepare = (root: JsonSchema.JsonSchema): Prepared => {
  const walk = new Walk(root, anchorsOf(root, new Set(), 0))
  const schema = walk.schema(root, "", 0) as JsonSchema.JsonSchema
  return { schema, ...draftOf(root, walk.old), unenforced: walk.unenforced }
}

/**
 * A copy of a prepared schema for effect's import: without the formats that stand for patterns
 * (effect would compile them as JavaScript regular expressions; the validator checks them in
 * linear time), and without the `pattern` of any node that also has a known `format` (zod
 * writes both for `.email()`, `.url()`...), so that string is left to the validator, which names
 * the format (`a valid email`) instead of the regular expression.
 *
 * @internal
 */
export const withoutFormatPatterns = (node: unknown): JsonSchema.JsonSchema => {
  const go = (u: unknown, depth: number): unknown => {
    if (depth > maxDepth) return u
    if (Array.isArray(u)) return u.map((v) => go(v, depth + 1))
    if (!isObject(u)) return u
    const out: Record<string, unknown> = {}
    const drop = typeof u.format === "string" && formats.has(u.format) && typeof u.pattern === "string"
    for (const [key, value] of Object.entries(u)) {
      if (drop && key === "pattern") continue
      if (key === "format" && LinearPattern.patternOf(value) !== undefined) continue
      if (key === "allOf" && Array.isArray(value)) {
        const kept = value.filter((v) => !(isObject(v) && LinearPattern.patternOf(v.format)?.placed === "sibling"))
        if (kept.length > 0) out[key] = go(kept, depth + 1)
        continue
      }
      // Values that are data, not schemas, are copied as they are.
      out[key] =
        key === "enum" || key === "const" || key === "default" || key === "examples" ? value : go(value, depth + 1)
    }
    return out
  }
  return go(node, 0) as JsonSchema.JsonSchema
}

/**
 * A copy for a model to read: local `$ref`s inlined (a recursive one, or one deeper than
 * `maxDepth`, left as `{}`), definitions and dialect markers dropped, so the schema stands on
 * its own wherever it is placed.
 *
 * @internal
 */
export const inline = (root: JsonSchema.JsonSchema): JsonSchema.JsonSchema => {
  const schema = (node: unknown, seen: ReadonlyArray<string>, depth: number): unknown => {
    if (depth > maxDepth || (!isObject(node) && typeof node !== "boolean")) return {}
    if (typeof node === "boolean") return node
    const out: Record<string, unknown> = {}
    let referred: unknown
    if (typeof node.$ref === "string") {
      const target = resolveRef(root, node.$ref)
      referred = target === undefined || seen.includes(node.$ref) ? {} : schema(target, [...seen, node.$ref], depth + 1)
      if (Object.keys(node).length === 1) return referred
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && referred !== undefined) continue
      if (key === "$defs" || key === "definitions" || key === "$schema" || key === "$id") continue
      if (single.has(key) || (key === "items" && !Array.isArray(value))) {
        out[key] = schema(value, seen, depth + 1)
      } else if (arrays.has(key) || key === "items") {
        out[key] = Array.isArray(value) ? value.map((v) => schema(v, seen, depth + 1)) : value
      } else if ((maps.has(key) || key === "dependencies") && isObject(value)) {
        const entries: Record<string, unknown> = {}
        for (const [name, sub] of Object.entries(value)) {
          entries[name] = Array.isArray(sub) ? sub : schema(sub, seen, depth + 1)
        }
        out[key] = entries
      } else {
        out[key] = value
      }
    }
    if (referred !== undefined) out.allOf = [referred, ...(Array.isArray(out.allOf) ? out.allOf : [])]
    return out
  }
  return schema(root, [], 0) as JsonSchema.JsonSchema
}
