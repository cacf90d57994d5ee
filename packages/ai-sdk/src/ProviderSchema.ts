/**
 * A tool's JSON Schema as the provider it goes to accepts it. Providers refuse schemas that
 * JSON Schema allows: the Anthropic API rejects the whole request when an `input_schema` has
 * `oneOf`, `allOf` or `anyOf` at its top level or is not `type: "object"` (what zod's open
 * objects and unions, and effect's checks, become); OpenAI wants `parameters` to be an object
 * schema, and in strict mode every property required, `additionalProperties: false` on every
 * object and only the keywords it supports.
 *
 * `normalize` rewrites a schema for a target: a top-level `$ref` resolved, a top-level `allOf`
 * of object schemas merged into one object (exact when the members do not conflict), a
 * top-level `anyOf`/`oneOf` of objects sent as one object with the union's properties and only
 * the fields every member requires (relaxed), `type: "object"` added at the top; for OpenAI
 * strict, also every property required (an optional one may be `null`), `additionalProperties:
 * false` everywhere and unsupported keywords dropped. Every change is listed (`Change`), and
 * those that let a provider's model send more than the tool accepts are marked relaxed. The
 * provider's schema only guides the model: the harness still checks every call against the
 * tool's own schema, so nothing the tool refuses gets through. Never throws: a schema that
 * cannot be read (throwing getters, cycles, absurd depth) is sent as any object, and said so.
 *
 * @since 0.1.0
 */
import type { JsonSchema } from "@agent-harness/tool-schema"
import { strictKeys } from "./internal/schemaRules.ts"

/**
 * Who a schema is written for: the Anthropic Messages API, OpenAI Chat Completions (and any
 * OpenAI-compatible server), OpenAI Responses, or OpenAI's strict mode (either API).
 *
 * @since 0.1.0
 */
export type Target = "anthropic" | "openai-chat" | "openai-responses" | "openai-strict"

/**
 * One change made to a tool's schema for a provider: what was done, and whether it relaxed the
 * schema (the provider's model may now send what the tool's own schema refuses; the local
 * check still refuses it).
 *
 * @since 0.1.0
 */
export interface Change {
  /** What was done, in a few words (`top-level allOf of 2 object schemas merged`). */
  readonly what: string
  /** Whether the provider's schema now accepts more than the tool's. */
  readonly relaxed: boolean
}

/**
 * A schema rewritten for a target, and every change made (empty when it went out as it was).
 *
 * @since 0.1.0
 */
export interface Normalized {
  /** The schema to send. */
  readonly schema: JsonSchema.JsonSchema
  /** What was changed, in order. */
  readonly changes: ReadonlyArray<Change>
}

/**
 * A change to one tool's schema for one provider, as the adapter reports it.
 *
 * @since 0.1.0
 */
export interface Relaxed {
  /** The tool's name (its own, not the provider alias). */
  readonly tool: string
  /** The provider id (`anthropic.messages`, `openai.chat`, …). */
  readonly provider: string
  /** What was changed. */
  readonly what: string
}

/**
 * The target for an AI SDK provider id: `anthropic.*` → `anthropic`, `openai.responses` (and
 * Azure's) → `openai-responses`, anything else → `openai-chat` (the OpenAI-compatible servers
 * follow the Chat Completions API).
 *
 * @since 0.1.0
 */
export const targetOf = (provider: string): Target =>
  /^anthropic\./.test(provider)
    ? "anthropic"
    : /^(openai|azure)\.responses$/.test(provider) || provider === "azure-openai.responses"
      ? "openai-responses"
      : "openai-chat"

type Node = Record<string, unknown>

/** Deeper than this, a schema is refused as unreadable (no real tool nests this far). */
const maxDepth = 64

const isNode = (u: unknown): u is Node => typeof u === "object" && u !== null && !Array.isArray(u)

class Unreadable extends Error {}

/**
 * A plain copy of a JSON value: own enumerable keys only, no getters run twice, cycles and
 * absurd depth refused (`Unreadable`), functions and symbols dropped.
 */
const copy = (value: unknown, depth: number, seen: Set<object>): unknown => {
  if (depth > maxDepth) throw new Unreadable(`nested deeper than ${maxDepth} levels`)
  if (value === null || typeof value === "string" || typeof value === "boolean") return value
  if (typeof value === "number") return Number.isFinite(value) ? value : null
  if (typeof value !== "object") return undefined
  if (seen.has(value)) throw new Unreadable("it refers to itself (a cycle)")
  seen.add(value)
  try {
    if (Array.isArray(value)) {
      const out: Array<unknown> = []
      for (let i = 0; i < value.length; i++) out.push(copy(value[i], depth + 1, seen) ?? null)
      return out
    }
    const out: Node = {}
    for (const key of Object.keys(value)) {
      const v = copy((value as Node)[key], depth + 1, seen)
      if (v !== undefined) out[key] = v
    }
    return out
  } finally {
    seen.delete(value)
  }
}

/** Resolves a local `#/$defs/…` or `#/definitions/…` reference against the root. */
const resolveRef = (root: Node, ref: unknown): Node | undefined => {
  if (typeof ref !== "string" || !ref.startsWith("#/")) return undefined
  let at: unknown = root
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~")
    if (!isNode(at) || !Object.hasOwn(at, key)) return undefined
    at = at[key]
  }
  return isNode(at) ? at : undefined
}

/** Keywords that say nothing about what a value may be. */
const annotationKeys = new Set(["$schema", "$id", "$comment", "title", "description", "examples", "default"])

/** Whether a schema describes objects only (or says nothing of its type but object keywords). */
const isObjectSchema = (s: Node): boolean =>
  s.type === "object" ||
  (s.type === undefined && (isNode(s.properties) || Array.isArray(s.required) || s.additionalProperties !== undefined))

const stringsOf = (u: unknown): Array<string> => (Array.isArray(u) ? u.filter((x) => typeof x === "string") : [])

/** The object keywords a merge understands; any other keyword of a member is dropped and said so. */
const objectKeys = new Set(["type", "properties", "required", "additionalProperties", ...annotationKeys])

/** Two property schemas as one: both must hold. */
const both = (a: unknown, b: unknown): unknown => (JSON.stringify(a) === JSON.stringify(b) ? a : { allOf: [a, b] })

/** Top-level `allOf` of object schemas merged into the root. */
const mergeAllOf = (root: Node, changes: Array<Change>, defsRoot: Node): Node => {
  const members = Array.isArray(root.allOf) ? root.allOf : []
  const { allOf: _, ...rest } = root
  const out: Node = { ...rest }
  const properties: Node = isNode(rest.properties) ? { ...rest.properties } : {}
  const required = new Set(stringsOf(rest.required))
  let closed = rest.additionalProperties === false
  let openSomewhere = rest.additionalProperties === undefined || rest.additionalProperties === true
  const dropped = new Set<string>()
  let merged = 0
  for (const raw of members) {
    let member = isNode(raw) && typeof raw.$ref === "string" ? (resolveRef(defsRoot, raw.$ref) ?? raw) : raw
    if (isNode(member) && member.type === undefined) {
      // A union inside the allOf (a check on an open object whose schema is a union) is flattened first.
      if (Array.isArray(member.anyOf)) member = flattenUnion(member, "anyOf", changes, defsRoot)
      else if (Array.isArray(member.oneOf)) member = flattenUnion(member, "oneOf", changes, defsRoot)
    }
    if (!isNode(member) || !isObjectSchema(member)) {
      dropped.add(isNode(member) ? "a member that is not an object schema" : "a member that is not a schema")
      continue
    }
    merged++
    if (isNode(member.properties)) {
      for (const [key, value] of Object.entries(member.properties)) {
        properties[key] = Object.hasOwn(properties, key) ? both(properties[key], value) : value
      }
    }
    for (const key of stringsOf(member.required)) required.add(key)
    if (member.additionalProperties === false) closed = true
    else if (member.additionalProperties === undefined || member.additionalProperties === true) openSomewhere = true
    else if (isNode(member.additionalProperties) && Object.keys(member.additionalProperties).length === 0) {
      openSomewhere = true
    } else if (member.additionalProperties !== undefined) {
      dropped.add("additionalProperties")
    }
    for (const key of Object.keys(member)) {
      if (!objectKeys.has(key)) dropped.add(key)
      else if (annotationKeys.has(key) && out[key] === undefined && key !== "$schema") out[key] = member[key]
    }
  }
  if (Object.keys(properties).length > 0) out.properties = properties
  if (required.size > 0) out.required = [...required]
  if (closed) {
    // `additionalProperties: false` in one member refuses the others' properties; merged, it
    // closes the object to the union of them all, which accepts more.
    out.additionalProperties = false
  } else if (!openSomewhere && rest.additionalProperties !== undefined) {
    out.additionalProperties = rest.additionalProperties
  } else {
    delete out.additionalProperties
  }
  const contributors = merged + (isNode(rest.properties) ? 1 : 0)
  const relaxed = dropped.size > 0 || (closed && contributors > 1)
  changes.push({
    what: `top-level allOf of ${members.length} schema${members.length === 1 ? "" : "s"} merged into one object${
      dropped.size > 0 ? ` (dropped: ${[...dropped].join(", ")})` : ""
    }`,
    relaxed
  })
  return out
}

/** Top-level `anyOf`/`oneOf` sent as one object with every member's properties, required only where all require. */
const flattenUnion = (root: Node, key: "anyOf" | "oneOf", changes: Array<Change>, defsRoot: Node): Node => {
  const members = Array.isArray(root[key]) ? (root[key] as Array<unknown>) : []
  const { [key]: _, ...rest } = root
  const out: Node = { ...rest }
  const properties: Node = isNode(rest.properties) ? { ...rest.properties } : {}
  const shared = new Set(stringsOf(rest.required))
  let common: Set<string> | undefined
  const variants = new Map<string, Array<unknown>>()
  let skipped = 0
  for (const raw of members) {
    const member = isNode(raw) && typeof raw.$ref === "string" ? (resolveRef(defsRoot, raw.$ref) ?? raw) : raw
    if (!isNode(member) || !isObjectSchema(member)) {
      skipped++
      continue
    }
    if (isNode(member.properties)) {
      for (const [name, value] of Object.entries(member.properties)) {
        const list = variants.get(name) ?? []
        if (!list.some((v) => JSON.stringify(v) === JSON.stringify(value))) list.push(value)
        variants.set(name, list)
      }
    }
    const req = new Set(stringsOf(member.required))
    common = common === undefined ? req : new Set([...common].filter((k) => req.has(k)))
  }
  for (const [name, list] of variants) {
    const one = list.length === 1 ? list[0] : { anyOf: list }
    properties[name] = Object.hasOwn(properties, name) ? both(properties[name], one) : one
  }
  for (const k of common ?? []) shared.add(k)
  if (Object.keys(properties).length > 0) out.properties = properties
  if (shared.size > 0) out.required = [...shared]
  else delete out.required
  delete out.additionalProperties
  changes.push({
    what: `top-level ${key} of ${members.length} schemas sent as one object with all their properties${
      skipped > 0 ? ` (${skipped} that are not object schemas left out)` : ""
    }; which combination is allowed is checked locally`,
    relaxed: true
  })
  return out
}

/** The root of a schema made an object schema without top-level combinators. */
const toObjectRoot = (input: Node, changes: Array<Change>): Node => {
  let root = input
  for (let i = 0; i < 8 && typeof root.$ref === "string"; i++) {
    const target = resolveRef(input, root.$ref)
    if (target === undefined) {
      const { $ref, ...rest } = root
      root = rest
      changes.push({ what: `top-level $ref ${JSON.stringify($ref)} that cannot be resolved dropped`, relaxed: true })
      break
    }
    const { $ref, ...rest } = root
    root = { ...target, ...rest }
    changes.push({ what: `top-level $ref ${JSON.stringify($ref)} inlined`, relaxed: false })
  }
  for (let i = 0; i < 8; i++) {
    if (Array.isArray(root.allOf)) root = mergeAllOf(root, changes, input)
    else if (Array.isArray(root.anyOf)) root = flattenUnion(root, "anyOf", changes, input)
    else if (Array.isArray(root.oneOf)) root = flattenUnion(root, "oneOf", changes, input)
    else break
  }
  for (const key of ["not", "if", "then", "else"] as const) {
    if (root[key] !== undefined) {
      const { [key]: _, ...rest } = root
      root = rest
      changes.push({ what: `top-level ${key} dropped`, relaxed: true })
    }
  }
  if (root.type !== "object") {
    changes.push({
      what:
        root.type === undefined
          ? 'type: "object" added at the top level'
          : `top-level type ${JSON.stringify(root.type)} sent as "object" (call arguments are always an object)`,
      relaxed: root.type !== undefined && !(Array.isArray(root.type) && root.type.includes("object"))
    })
    root = { ...root, type: "object" }
  }
  if (input.$defs !== undefined && root.$defs === undefined) root = { ...root, $defs: input.$defs }
  if (input.definitions !== undefined && root.definitions === undefined) {
    root = { ...root, definitions: input.definitions }
  }
  return root
}

/** The string formats OpenAI's strict mode supports. */
const strictFormats = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"])

/** A type list or type with `null` added. */
const nullable = (input: unknown): unknown => {
  if (!isNode(input)) return input
  const schema =
    Array.isArray(input.enum) && !input.enum.includes(null) ? { ...input, enum: [...input.enum, null] } : input
  if (typeof schema.type === "string")
    return schema.type === "null" ? schema : { ...schema, type: [schema.type, "null"] }
  if (Array.isArray(schema.type))
    return schema.type.includes("null") ? schema : { ...schema, type: [...schema.type, "null"] }
  return { anyOf: [schema, { type: "null" }] }
}

/** A schema under strict mode's rules, every change named with the JSON Pointer of where it was. */
const strictify = (schema: unknown, at: string, dropped: Map<string, Set<string>>, notes: Array<Change>): unknown => {
  if (!isNode(schema)) return schema
  const out: Node = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$schema") continue
    if (!strictKeys.has(key) || (key === "format" && !(typeof value === "string" && strictFormats.has(value)))) {
      const set = dropped.get(key) ?? new Set<string>()
      set.add(at === "" ? "/" : at)
      dropped.set(key, set)
      continue
    }
    out[key] = value
  }
  if (Array.isArray(out.allOf)) delete out.allOf
  if (isNode(out.items)) out.items = strictify(out.items, `${at}/items`, dropped, notes)
  if (Array.isArray(out.anyOf)) out.anyOf = out.anyOf.map((s, i) => strictify(s, `${at}/anyOf/${i}`, dropped, notes))
  for (const defs of ["$defs", "definitions"] as const) {
    if (isNode(out[defs])) {
      const next: Node = {}
      for (const [name, s] of Object.entries(out[defs] as Node))
        next[name] = strictify(s, `${at}/${defs}/${name}`, dropped, notes)
      out[defs] = next
    }
  }
  const isObject =
    out.type === "object" || (Array.isArray(out.type) && out.type.includes("object")) || isNode(out.properties)
  if (isObject) {
    const props: Node = isNode(out.properties) ? out.properties : {}
    const required = new Set(stringsOf(out.required))
    const next: Node = {}
    const optional: Array<string> = []
    for (const [name, s] of Object.entries(props)) {
      const strict = strictify(s, `${at}/properties/${name}`, dropped, notes)
      if (required.has(name)) next[name] = strict
      else {
        next[name] = nullable(strict)
        optional.push(name)
      }
    }
    out.properties = next
    out.required = Object.keys(next)
    if (optional.length > 0) {
      notes.push({
        what: `${at === "" ? "" : `${at}: `}optional ${optional.map((n) => `'${n}'`).join(", ")} made required and nullable (strict mode)`,
        relaxed: true
      })
    }
    if (out.additionalProperties !== false) {
      notes.push({
        what: `${at === "" ? "top level" : at}: additionalProperties set to false (strict mode)`,
        relaxed: false
      })
      out.additionalProperties = false
    }
  }
  return out
}

/** The schema of any object, as a target accepts it. */
const anyObject = (target: Target): JsonSchema.JsonSchema =>
  target === "openai-strict"
    ? { type: "object", properties: {}, required: [], additionalProperties: false }
    : { type: "object" }

/**
 * What is sent for a schema that could not be read (reading it threw `error`, or it nests too
 * deep, or refers to itself): any object, and a relaxed change saying why.
 *
 * @since 0.1.0
 */
export const unreadable = (error: unknown, target: Target): Normalized => {
  let why: string
  try {
    why =
      error instanceof Unreadable
        ? error.message
        : `reading it threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`
  } catch {
    why = "reading it threw"
  }
  return {
    schema: anyObject(target),
    changes: [{ what: `the schema could not be read (${why.slice(0, 200)}): sent as any object`, relaxed: true }]
  }
}

/**
 * A schema rewritten for a target (see the module's description). Never throws.
 *
 * @since 0.1.0
 */
export const normalize = (schema: unknown, target: Target): Normalized => {
  const changes: Array<Change> = []
  let plain: unknown
  try {
    plain = copy(schema, 0, new Set())
  } catch (error) {
    return unreadable(error, target)
  }
  if (!isNode(plain)) {
    return {
      schema: anyObject(target),
      changes: [
        {
          what: `the schema is ${plain === null ? "null" : Array.isArray(plain) ? "an array" : `a ${typeof plain}`}, not a JSON Schema object: sent as any object`,
          relaxed: true
        }
      ]
    }
  }
  let root = toObjectRoot(plain, changes)
  if (target === "openai-strict") {
    const dropped = new Map<string, Set<string>>()
    const notes: Array<Change> = []
    root = strictify(root, "", dropped, notes) as Node
    for (const [key, where] of dropped) {
      changes.push({
        what: `${key} dropped (strict mode does not support it) at ${[...where].join(", ")}`,
        relaxed: true
      })
    }
    changes.push(...notes)
  }
  return { schema: root, changes }
}
