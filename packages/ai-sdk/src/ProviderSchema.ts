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
 * false` everywhere and unsupported keywords dropped; `restore` maps the model's `null` for a
 * property it left out back to an absent one. Every change is listed (`Change`): those that let
 * a provider's model send more than the tool accepts are marked relaxed, those that keep it from
 * sending what the tool accepts (strict mode closing a record) restricting. The
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
  /**
   * Whether the provider's schema now refuses something the tool accepts (strict mode closing an
   * object that takes any keys: the model could only send `{}` there). Absent when it does not.
   */
  readonly restricts?: true
  /** Made for OpenAI strict mode's rules only (absent for what every target gets). */
  readonly strict?: true
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
  /**
   * Strict mode only: where a `null` from the model stands for a property it left out (an
   * optional property made required and nullable whose own schema refuses `null`); `restore`
   * reads it. Absent when no `null` needs mapping back.
   */
  readonly nulls?: Nulls | undefined
}

/**
 * Where, in a value, a `null` stands for a property left out: per property, whether a `null`
 * there means absent and the plan for its value; the plan for array items; one plan per
 * `anyOf` variant; a `$ref` to another plan (by its JSON Pointer, `#/$defs/Node`, looked up in
 * the root's `defs`).
 *
 * @since 0.1.0
 */
export interface Nulls {
  /** Per property: `absent` when a `null` there means the property was left out; the plan of its value. */
  readonly properties?: Readonly<Record<string, { readonly absent: boolean; readonly value?: Nulls | undefined }>>
  /** The plan for every item of an array. */
  readonly items?: Nulls | undefined
  /** The plans of an `anyOf`'s variants, in order (a value takes the variant whose keys it has). */
  readonly anyOf?: ReadonlyArray<Nulls | undefined>
  /** An object variant's property names (strict mode: exactly the keys a value of it has), to tell `anyOf` variants apart. */
  readonly keys?: ReadonlyArray<string> | undefined
  /** A reference to the plan of a definition (`#/$defs/Name`, or `#` for the root). */
  readonly ref?: string | undefined
  /** At the root only: the plans of the definitions, by JSON Pointer. */
  readonly defs?: Readonly<Record<string, Nulls>>
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

/** Sets an own property, even one named `__proto__` (a plain assignment would set the prototype). */
const put = (node: Node, key: string, value: unknown): void => {
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true })
}

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
      if (v !== undefined) put(out, key, v)
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
        put(properties, key, Object.hasOwn(properties, key) ? both(properties[key], value) : value)
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
    put(properties, name, Object.hasOwn(properties, name) ? both(properties[name], one) : one)
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

/** Keywords that only annotate a value: dropping them for strict mode lets nothing more through. */
const annotationOnly = (key: string): boolean =>
  key.startsWith("x-") ||
  [
    "$id",
    "$anchor",
    "$comment",
    "examples",
    "default",
    "readOnly",
    "writeOnly",
    "deprecated",
    "contentMediaType",
    "contentEncoding"
  ].includes(key)

/** Whether a schema lets `null` through (conservatively: a `$ref` or `not` does not). */
const allowsNull = (schema: unknown, depth = 0): boolean => {
  if (schema === true) return true
  if (!isNode(schema) || depth > maxDepth) return false
  if (schema.type !== undefined) {
    return schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))
  }
  if (Array.isArray(schema.enum)) return schema.enum.includes(null)
  if (Object.hasOwn(schema, "const")) return schema.const === null
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((s) => allowsNull(s, depth + 1))
  if (Array.isArray(schema.oneOf)) return schema.oneOf.some((s) => allowsNull(s, depth + 1))
  if (Array.isArray(schema.allOf)) return schema.allOf.every((s) => allowsNull(s, depth + 1))
  return schema.$ref === undefined && schema.not === undefined
}

/** A schema that also lets `null` through (as it is when it already does). */
const nullable = (input: unknown): unknown => {
  if (!isNode(input) || allowsNull(input)) return input
  const schema =
    Array.isArray(input.enum) && !input.enum.includes(null) ? { ...input, enum: [...input.enum, null] } : input
  if (schema !== input && schema.type === undefined) return schema
  if (typeof schema.type === "string") return { ...schema, type: [schema.type, "null"] }
  if (Array.isArray(schema.type)) return { ...schema, type: [...schema.type, "null"] }
  if (Array.isArray(schema.anyOf) && Object.keys(schema).every((k) => k === "anyOf" || k === "description")) {
    return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] }
  }
  return { anyOf: [schema, { type: "null" }] }
}

/** What strict mode sends for a schema of any value: it wants a type, and an object or array of anything cannot be said. */
const anyScalar: ReadonlyArray<Node> = [{ type: "string" }, { type: "number" }, { type: "boolean" }, { type: "null" }]

/** What strict mode's rewrite gathers on its way: keywords dropped (by keyword: where), notes, plans of definitions. */
interface StrictContext {
  readonly dropped: Map<string, Set<string>>
  readonly annotations: Map<string, Set<string>>
  readonly notes: Array<Change>
  readonly defs: Record<string, Nulls>
}

type MutableNulls = { -readonly [K in keyof Nulls]: Nulls[K] }

/** A JSON Pointer token. */
const token = (name: string): string => name.replaceAll("~", "~0").replaceAll("/", "~1")

/**
 * A schema under strict mode's rules, every change named with the JSON Pointer of where it was
 * (`at`); `pointer` is where it is in the sent schema (to key the plans of definitions). Gives
 * the plan for the `null`s to map back, and an object schema's property names.
 */
const strictify = (
  schema: unknown,
  at: string,
  pointer: string,
  cx: StrictContext
): { readonly schema: unknown; readonly plan: Nulls | undefined; readonly keys?: ReadonlyArray<string> } => {
  if (!isNode(schema)) return { schema, plan: undefined }
  const out: Node = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$schema") continue
    if (!strictKeys.has(key) || (key === "format" && !(typeof value === "string" && strictFormats.has(value)))) {
      const into = annotationOnly(key) ? cx.annotations : cx.dropped
      const set = into.get(key) ?? new Set<string>()
      set.add(at === "" ? "/" : at)
      into.set(key, set)
      continue
    }
    out[key] = value
  }
  const plan: MutableNulls = {}
  if (typeof out.$ref === "string") plan.ref = out.$ref
  if (isNode(out.items)) {
    const r = strictify(out.items, `${at}/items`, `${pointer}/items`, cx)
    out.items = r.schema
    if (r.plan !== undefined) plan.items = r.plan
  }
  if (Array.isArray(out.anyOf)) {
    const variants = out.anyOf.map((s, i) => strictify(s, `${at}/anyOf/${i}`, `${pointer}/anyOf/${i}`, cx))
    out.anyOf = variants.map((r) => r.schema)
    if (variants.some((r) => r.plan !== undefined)) {
      // Which variant a value is of is told by its keys (strict mode: every property required, no others).
      plan.anyOf = variants.map((r) => (r.keys === undefined ? r.plan : { ...r.plan, keys: r.keys }))
    }
  }
  for (const defs of ["$defs", "definitions"] as const) {
    if (isNode(out[defs])) {
      const next: Node = {}
      for (const [name, s] of Object.entries(out[defs] as Node)) {
        const key = `${pointer}/${defs}/${token(name)}`
        const r = strictify(s, `${at}/${defs}/${name}`, key, cx)
        put(next, name, r.schema)
        if (r.plan !== undefined) cx.defs[`#${key}`] = r.plan
      }
      out[defs] = next
    }
  }
  const where = at === "" ? "top level" : at
  const typed =
    out.type !== undefined ||
    typeof out.$ref === "string" ||
    Array.isArray(out.anyOf) ||
    Array.isArray(out.enum) ||
    Object.hasOwn(out, "const")
  if (!typed && isNode(out.properties)) out.type = "object"
  else if (!typed) {
    out.anyOf = [...anyScalar]
    cx.notes.push({
      what: `${where}: a schema of any value sent as any string, number, boolean or null (strict mode wants a type)`,
      relaxed: false,
      restricts: true,
      strict: true
    })
  }
  const isArray = out.type === "array" || (Array.isArray(out.type) && out.type.includes("array"))
  if (isArray && out.items === undefined) {
    out.items = { anyOf: [...anyScalar] }
    cx.notes.push({
      what: `${where}: an array of any items sent as an array of strings, numbers, booleans or nulls (strict mode wants items)`,
      relaxed: false,
      restricts: true,
      strict: true
    })
  }
  const isObject = out.type === "object" || (Array.isArray(out.type) && out.type.includes("object"))
  if (!isObject) return { schema: out, plan: Object.keys(plan).length === 0 ? undefined : plan }
  const props: Node = isNode(out.properties) ? out.properties : {}
  const required = new Set(stringsOf(out.required))
  const next: Node = {}
  const optional: Array<string> = []
  const entries: Record<string, { readonly absent: boolean; readonly value?: Nulls | undefined }> = {}
  for (const [name, s] of Object.entries(props)) {
    const r = strictify(s, `${at}/properties/${name}`, `${pointer}/properties/${token(name)}`, cx)
    if (required.has(name)) {
      put(next, name, r.schema)
      if (r.plan !== undefined) put(entries, name, { absent: false, value: r.plan })
    } else {
      put(next, name, nullable(r.schema))
      optional.push(name)
      // A null the tool's own schema refuses can only mean the model left the property out.
      const absent = !allowsNull(s)
      if (absent || r.plan !== undefined)
        put(entries, name, r.plan === undefined ? { absent } : { absent, value: r.plan })
    }
  }
  if (Object.keys(entries).length > 0) plan.properties = entries
  out.properties = next
  out.required = Object.keys(next)
  if (optional.length > 0) {
    cx.notes.push({
      what: `${at === "" ? "" : `${at}: `}optional ${optional.map((n) => `'${n}'`).join(", ")} made required and nullable (strict mode; a null the tool refuses is taken as left out)`,
      relaxed: false,
      strict: true
    })
  }
  if (out.additionalProperties !== false) {
    const open = out.additionalProperties
    // Closing an object of declared properties costs nothing; closing one that takes any keys
    // (a record, a free-form object) leaves the model nothing to send.
    const extra = isNode(open) && Object.keys(open).length > 0
    const bare = Object.keys(next).length === 0 && (at !== "" || open !== undefined)
    if (extra || bare) {
      cx.notes.push({
        what: `${where}: additionalProperties set to false (strict mode), so the model can send none of the ${
          bare ? "keys this object takes (only {})" : "keys beyond its declared properties"
        }`,
        relaxed: false,
        restricts: true,
        strict: true
      })
    } else {
      cx.notes.push({ what: `${where}: additionalProperties set to false (strict mode)`, relaxed: false, strict: true })
    }
    out.additionalProperties = false
  }
  return { schema: out, plan: Object.keys(plan).length === 0 ? undefined : plan, keys: Object.keys(next) }
}

/** The schema of any object, as a target accepts it. */
const anyObject = (target: Target): JsonSchema.JsonSchema =>
  target === "openai-strict"
    ? { type: "object", properties: {}, required: [], additionalProperties: false }
    : { type: "object" }

/** What sending any object costs in strict mode: the model can only send `{}`. */
const anyObjectChanges = (target: Target): ReadonlyArray<Change> =>
  target === "openai-strict"
    ? [
        {
          what: "strict mode: sent as an empty closed object, so the model can only send {}",
          relaxed: false,
          restricts: true,
          strict: true
        }
      ]
    : []

/**
 * What is sent for a schema that could not be read (reading it threw `error`, or it nests too
 * deep, or refers to itself): any object, and a relaxed change saying why (in strict mode, also
 * that the model can then only send `{}`).
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
    changes: [
      { what: `the schema could not be read (${why.slice(0, 200)}): sent as any object`, relaxed: true },
      ...anyObjectChanges(target)
    ]
  }
}

/** Every keyword dropped, with where, as changes. */
const droppedChanges = (dropped: Map<string, Set<string>>, annotations: boolean): Array<Change> =>
  [...dropped].map(([key, where]) => ({
    what: `${key} dropped (strict mode does not support it${annotations ? "; it only annotates" : ""}) at ${[...where].join(", ")}`,
    relaxed: !annotations,
    strict: true
  }))

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
        },
        ...anyObjectChanges(target)
      ]
    }
  }
  const root = toObjectRoot(plain, changes)
  if (target !== "openai-strict") return { schema: root, changes }
  const cx: StrictContext = { dropped: new Map(), annotations: new Map(), notes: [], defs: {} }
  const strict = strictify(root, "", "", cx)
  changes.push(...droppedChanges(cx.dropped, false), ...droppedChanges(cx.annotations, true), ...cx.notes)
  const defs = Object.keys(cx.defs).length > 0 ? { defs: cx.defs } : {}
  const nulls = strict.plan === undefined && defs.defs === undefined ? undefined : { ...strict.plan, ...defs }
  return nulls === undefined
    ? { schema: strict.schema as Node, changes }
    : { schema: strict.schema as Node, changes, nulls }
}

/** Deeper than this, `restore` leaves a value as it was (the model's arguments are read 64 levels deep). */
const maxRestoreDepth = 256

/** A plan with its `$ref`s followed (a chain of more than 16, or one that leads nowhere: `undefined`). */
const follow = (plan: Nulls | undefined, root: Nulls): Nulls | undefined => {
  let at = plan
  for (let i = 0; at?.ref !== undefined; i++) {
    if (i > 16) return undefined
    at =
      at.ref === "#"
        ? root
        : root.defs !== undefined && Object.hasOwn(root.defs, at.ref)
          ? root.defs[at.ref]
          : undefined
  }
  return at
}

const sameKeys = (keys: ReadonlyArray<string>, value: Node): boolean => {
  const own = Object.keys(value)
  return own.length === keys.length && own.every((k) => keys.includes(k))
}

const restoreWith = (value: unknown, raw: Nulls, root: Nulls, depth: number): unknown => {
  if (depth > maxRestoreDepth) throw new Unreadable(`nested deeper than ${maxRestoreDepth} levels`)
  const plan = follow(raw, root)
  if (plan === undefined || value === null || typeof value !== "object") return value
  if (Array.isArray(value)) {
    const items = plan.items ?? plan.anyOf?.map((p) => follow(p, root)).find((p) => p?.items !== undefined)?.items
    return items === undefined ? value : value.map((item) => restoreWith(item, items, root, depth + 1))
  }
  const node = value as Node
  let props = plan.properties
  if (plan.anyOf !== undefined) {
    const variant = plan.anyOf.find((p) => p?.keys !== undefined && sameKeys(p.keys, node))
    props = follow(variant, root)?.properties ?? props
  }
  if (props === undefined) return value
  const out: Node = {}
  for (const key of Object.keys(node)) {
    const v = node[key]
    const entry = Object.hasOwn(props, key) ? props[key] : undefined
    if (entry !== undefined && v === null && entry.absent) continue
    const next = entry?.value === undefined ? v : restoreWith(v, entry.value, root, depth + 1)
    put(out, key, next)
  }
  return out
}

/**
 * A tool call's arguments from a model that was sent `normalized` (strict mode) mapped back to
 * what the tool's own schema expects: a `null` for a property that strict mode made required
 * and nullable, where the tool's schema does not allow `null`, becomes the property left out,
 * through nested objects, arrays, `anyOf` variants and `$ref`s as normalization went. A `null`
 * the tool allows stays. The input is not changed (the result is a copy where anything was
 * mapped). Never throws: arguments that cannot be walked (a cycle, a throwing getter, absurd
 * depth) come back as they were, for the tool's schema to judge.
 *
 * @since 0.1.0
 */
export const restore = (input: unknown, normalized: Normalized): unknown => {
  const plan = normalized.nulls
  if (plan === undefined) return input
  try {
    return restoreWith(input, plan, plan, 0)
  } catch {
    return input
  }
}
