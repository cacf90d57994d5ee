/**
 * A server's input JSON Schema as a tool's parameters, so that an invalid call is refused
 * locally (`not executed`, with a field-level reason) and never sent.
 *
 * Two validators, one verdict. effect's `SchemaRepresentation.fromJsonSchemaDocument` turns the
 * common schemas into an Effect Schema struct, which names violations exactly as for our own
 * tools; it refuses `if`/`then`, external `$ref`, `dependentRequired`, `contains`,
 * `patternProperties` and more, and ignores `format`. `@cfworker/json-schema`, a maintained
 * validator of drafts 4, 7, 2019-09 and 2020-12, checks every call after it (it sees `format`,
 * `if`/`then` and the rest), and checks alone when effect refuses the schema. What neither can
 * check (an external or broken `$ref`, an unknown `format` or keyword, a pattern that does not
 * compile or needs backtracking, `patternProperties`) is not guessed: it is left to the server and listed in `unenforced`, so no schema
 * makes a tool unusable, or weaker, silently. A server's `pattern` is matched with RE2, in time
 * linear in the input, never as a JavaScript `RegExp` (which backtracks).
 *
 * @since 0.1.0
 */
import type { JsonSchema, Tool } from "@agent-harness/tool-schema"
import { Validator } from "@cfworker/json-schema"
import { JsonSchema as EffectJsonSchema, Schema, SchemaAST, SchemaRepresentation } from "effect"
import * as LinearPattern from "./internal/LinearPattern.ts"
import * as SchemaIssues from "./SchemaIssues.ts"
import * as SchemaWalk from "./SchemaWalk.ts"

/**
 * Something in a server's input schema that is not checked before the call is sent: where (a
 * JSON Pointer into the schema) and what.
 *
 * @since 0.1.0
 */
export type Unenforced = SchemaWalk.Unenforced

/**
 * Who checks a call's input before it is sent: `schema` (an Effect Schema struct, then the JSON
 * Schema validator), `validator` (the JSON Schema validator alone, for schemas effect refuses),
 * `server` (nothing local: the schema is unusable; the server checks).
 *
 * @since 0.1.0
 */
export type CheckedBy = "schema" | "validator" | "server"

/**
 * A server's input schema, imported.
 *
 * @since 0.1.0
 */
export interface Imported {
  /** The tool's parameters: what the local check accepts. */
  readonly parameters: Tool.Parameters
  /** Who checks a call's input before it is sent. */
  readonly checkedBy: CheckedBy
  /** What is not checked locally (empty when everything is). */
  readonly unenforced: ReadonlyArray<Unenforced>
}

const anyObject = Schema.Record(Schema.String, Schema.Unknown)

const serverOnly = (schema: unknown, what: string): Imported => ({
  parameters: anyObject.check(
    Schema.makeFilter(() => undefined, {
      toJsonSchema: () => (SchemaWalk.isObject(schema) ? SchemaWalk.inline(schema) : {})
    })
  ),
  checkedBy: "server",
  unenforced: [{ path: "", what }]
})

/** Whether a root `type` allows objects (call arguments are always an object). */
const allowsObject = (type: unknown): boolean =>
  type === undefined || type === "object" || (Array.isArray(type) && type.includes("object"))

/** The names the call's top-level object may carry, declared order first: properties, then required names. */
const fieldsOf = (root: JsonSchema.JsonSchema): ReadonlyArray<string> => {
  const names = new Set<string>()
  const visit = (node: unknown, depth: number) => {
    if (!SchemaWalk.isObject(node) || depth > 2) return
    if (SchemaWalk.isObject(node.properties)) for (const key of Object.keys(node.properties)) names.add(key)
    if (Array.isArray(node.required)) for (const key of node.required) if (typeof key === "string") names.add(key)
    for (const key of ["allOf", "anyOf", "oneOf"]) {
      const list = node[key]
      if (Array.isArray(list)) for (const sub of list) visit(sub, depth + 1)
    }
    for (const key of ["if", "then", "else"]) visit(node[key], depth + 1)
    for (const key of ["dependentRequired", "dependencies"]) {
      const map = node[key]
      if (SchemaWalk.isObject(map)) {
        for (const list of Object.values(map)) {
          if (Array.isArray(list)) for (const name of list) if (typeof name === "string") names.add(name)
        }
      }
    }
  }
  visit(root, 0)
  return [...names]
}

type Unit = ReturnType<Validator["validate"]>["errors"][number]

/**
 * The validator's units as the server's schema reads: a failed format that stands for a pattern
 * is a failed `pattern`, at the node that states it.
 */
const asWritten = (units: ReadonlyArray<Unit>): ReadonlyArray<Unit> =>
  units.map((unit) => {
    if (unit.keyword !== "format") return unit
    const lead = 'String does not match format "'
    const stated = unit.error.startsWith(lead) && unit.error.endsWith('".') ? unit.error.slice(lead.length, -2) : ""
    const stands = LinearPattern.patternOf(stated)
    if (stands === undefined) return unit
    const node = stands.placed === "sibling" ? /\/allOf\/\d+\/format$/ : /\/format$/
    return { ...unit, keyword: "pattern", keywordLocation: unit.keywordLocation.replace(node, "/pattern") }
  })

/** effect's import of the prepared schema, when it gives an object schema. */
const effectImport = (prepared: SchemaWalk.Prepared): Schema.Top | undefined => {
  const attempt = (document: () => EffectJsonSchema.Document<"draft-2020-12">): Schema.Top | undefined => {
    try {
      const schema = SchemaRepresentation.fromJsonSchemaDocument(document(), { patterns: "apply" })
      if (!SchemaAST.isObjects(schema.ast)) return undefined
      // A closed empty object imports as a record of `never`: as an empty struct, an extra key
      // is named as unexpected.
      const { propertySignatures, indexSignatures } = schema.ast
      const closedEmpty =
        propertySignatures.length === 0 &&
        indexSignatures.length === 1 &&
        SchemaAST.isNever((indexSignatures[0] as SchemaAST.IndexSignature).type)
      return closedEmpty ? Schema.Struct({}) : schema
    } catch {
      return undefined
    }
  }
  const schema = SchemaWalk.withoutFormatPatterns(prepared.schema)
  const draft07 = () => EffectJsonSchema.fromSchemaDraft07(schema)
  const draft2020 = () => EffectJsonSchema.fromSchemaDraft2020_12(schema)
  switch (prepared.draft) {
    case "4":
    case "7":
      return attempt(draft07)
    case "2019-09":
      return attempt(draft2020)
    case "2020-12":
      return prepared.stated ? attempt(draft2020) : (attempt(draft2020) ?? attempt(draft07))
  }
}

/**
 * Imports a server's input schema (any value, as listed): the parameters that check it, who
 * checks, and what is left unchecked.
 *
 * @example
 * ```ts
 * import { InputSchema } from "@agent-harness/mcp"
 *
 * const imported = InputSchema.fromJsonSchema({
 *   type: "object",
 *   properties: { to: { type: "string", format: "email" } },
 *   required: ["to"]
 * })
 * imported.checkedBy // "schema"
 * imported.unenforced // []
 * ```
 *
 * @since 0.1.0
 */
export const fromJsonSchema = (schema: unknown): Imported => {
  if (!SchemaWalk.isObject(schema)) {
    return serverOnly(schema, "the input schema is not a JSON Schema object: calls are sent unchecked")
  }
  if (!allowsObject(schema.type)) {
    return serverOnly(
      schema,
      `the input schema describes ${JSON.stringify(schema.type)}, not an object: calls are sent unchecked`
    )
  }
  // MCP's arguments are always an object: a root without `type` is one.
  const written = schema.type === undefined ? { ...schema, type: "object" } : schema
  const prepared = SchemaWalk.prepare(written)
  let validator: Validator
  try {
    validator = new Validator(prepared.schema as object, prepared.draft, false)
    validator.validate({})
  } catch (error) {
    return serverOnly(
      schema,
      `the input schema cannot be compiled (${error instanceof Error ? error.message : String(error)}): calls are sent unchecked`
    )
  }
  const imported = effectImport(prepared)
  const fields =
    imported !== undefined && SchemaAST.isObjects(imported.ast)
      ? imported.ast.propertySignatures.map((p) => String(p.name))
      : fieldsOf(prepared.schema)
  const check = Schema.makeFilter(
    (input: object) => {
      let result: ReturnType<Validator["validate"]>
      try {
        result = validator.validate(input)
      } catch {
        // A validator that cannot decide does not refuse: the server checks.
        return undefined
      }
      if (result.valid) return undefined
      // The server's schema as written (same paths; patterns in place) names what failed.
      const found = SchemaIssues.first(written, fields, input, asWritten(result.errors))
      return found === undefined
        ? "a value valid for the server's input schema"
        : { path: found.path, issue: found.issue }
    },
    // effect's struct already describes the schema to a model; alone, the validator gives the
    // server's schema, self-contained.
    { toJsonSchema: () => (imported === undefined ? SchemaWalk.inline(schema) : {}) }
  )
  if (imported !== undefined) {
    // Checked above: an object schema, decoding without services (JSON values only).
    const parameters = imported.check(check as SchemaAST.Check<unknown>) as unknown as Tool.Parameters
    return { parameters, checkedBy: "schema", unenforced: prepared.unenforced }
  }
  const declared = Schema.StructWithRest(
    Schema.Struct(Object.fromEntries(fields.map((name) => [name, Schema.optionalKey(Schema.Unknown)]))),
    [anyObject]
  )
  return { parameters: declared.check(check), checkedBy: "validator", unenforced: prepared.unenforced }
}
