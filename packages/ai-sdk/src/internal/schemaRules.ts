/**
 * The fake provider's checks of tool schemas, as the real APIs make them, in their words:
 * Anthropic refuses an `input_schema` that is missing, not `type: "object"`, or has `oneOf`,
 * `allOf` or `anyOf` at its top level (`tools.N.custom.input_schema: input_schema does not
 * support oneOf, allOf, or anyOf at the top level`); OpenAI refuses `parameters` that are not an
 * object schema (another `type`, or a root union without `type: "object"`) and, for a tool sent with `strict: true`, any object without
 * `additionalProperties: false`, any property left out of `required`, the keywords strict
 * mode does not support, a schema without a `type` (or `$ref`, `anyOf`, `enum`, `const`) and an
 * array without `items`. Hostile bodies never throw: depth and cycles are bounded.
 *
 * @internal
 */

type Json = Record<string, unknown>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const typeName = (u: unknown): string =>
  u === null || u === undefined ? "None" : typeof u === "string" ? u : JSON.stringify(u)

/** What Anthropic's API says of tool `i`'s `input_schema`. */
export const anthropicInputSchema = (i: number, schema: unknown): Array<string> => {
  const at = `tools.${i}.custom.input_schema`
  if (schema === undefined) return [`${at}: Field required`]
  if (!isObject(schema)) return [`${at}: Input should be a valid dictionary`]
  const out: Array<string> = []
  if (schema.type === undefined) out.push(`${at}.type: Field required`)
  else if (schema.type !== "object") out.push(`${at}.type: Input should be 'object'`)
  if (schema.oneOf !== undefined || schema.allOf !== undefined || schema.anyOf !== undefined) {
    out.push(`${at}: input_schema does not support oneOf, allOf, or anyOf at the top level`)
  }
  return out
}

/** The keywords OpenAI's strict mode accepts (Structured Outputs' documented list): what the fake refuses past, and what `ProviderSchema` keeps. */
export const strictKeys: ReadonlySet<string> = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
  "description",
  "title",
  "pattern",
  "format",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "minItems",
  "maxItems"
])

const contextOf = (path: ReadonlyArray<string>): string =>
  `(${path.map((p) => `'${p}'`).join(", ")}${path.length === 1 ? "," : ""})`

/** The first strict-mode rule a schema breaks, as OpenAI words it, or `undefined`. */
const strictProblem = (schema: unknown, path: Array<string>, depth: number): string | undefined => {
  if (depth > 64) return `In context=${contextOf(path)}, the schema nests too deep.`
  if (!isObject(schema)) return undefined
  for (const key of Object.keys(schema)) {
    if (!strictKeys.has(key)) return `In context=${contextOf(path)}, '${key}' is not permitted.`
  }
  const type = schema.type
  const typed =
    type !== undefined ||
    schema.$ref !== undefined ||
    Array.isArray(schema.anyOf) ||
    schema.enum !== undefined ||
    Object.hasOwn(schema, "const")
  if (!typed) return `In context=${contextOf(path)}, schema must have a 'type' key.`
  if ((type === "array" || (Array.isArray(type) && type.includes("array"))) && schema.items === undefined) {
    return `In context=${contextOf(path)}, array schema missing items.`
  }
  const isObj = type === "object" || (Array.isArray(type) && type.includes("object"))
  if (isObj) {
    if (schema.additionalProperties !== false) {
      return `In context=${contextOf(path)}, 'additionalProperties' is required to be supplied and to be false.`
    }
    const props = isObject(schema.properties) ? schema.properties : {}
    const required = Array.isArray(schema.required) ? schema.required : []
    const missing = Object.keys(props).filter((k) => !required.includes(k))
    if (missing.length > 0) {
      return `In context=${contextOf(path)}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing[0]}'.`
    }
    for (const [name, sub] of Object.entries(props)) {
      const found = strictProblem(sub, [...path, "properties", name], depth + 1)
      if (found !== undefined) return found
    }
  }
  if (schema.items !== undefined) {
    const found = strictProblem(schema.items, [...path, "items"], depth + 1)
    if (found !== undefined) return found
  }
  if (Array.isArray(schema.anyOf)) {
    for (const [j, sub] of schema.anyOf.entries()) {
      const found = strictProblem(sub, [...path, "anyOf", String(j)], depth + 1)
      if (found !== undefined) return found
    }
  }
  for (const defs of ["$defs", "definitions"]) {
    const d = schema[defs]
    if (isObject(d)) {
      for (const [name, sub] of Object.entries(d)) {
        const found = strictProblem(sub, [...path, defs, name], depth + 1)
        if (found !== undefined) return found
      }
    }
  }
  return undefined
}

/** What OpenAI's API says of a function's `parameters` (`strict` as the tool was sent). */
export const openAiParameters = (name: unknown, parameters: unknown, strict: unknown): Array<string> => {
  const fn = `Invalid schema for function '${typeof name === "string" ? name : String(name)}'`
  if (parameters === undefined || parameters === null) return []
  if (!isObject(parameters)) return [`${fn}: schema must be a JSON Schema of 'type: "object"', got 'type: "None"'.`]
  const union = parameters.anyOf !== undefined || parameters.oneOf !== undefined || parameters.allOf !== undefined
  // An empty schema is taken as an object; a root union without a type, or another type, is not.
  if (parameters.type === undefined ? union : parameters.type !== "object") {
    return [`${fn}: schema must be a JSON Schema of 'type: "object"', got 'type: "${typeName(parameters.type)}"'.`]
  }
  if (strict !== true) return []
  if (parameters.anyOf !== undefined) return [`${fn}: In context=(), 'anyOf' is not permitted at the top level.`]
  const found = strictProblem(parameters, [], 0)
  return found === undefined ? [] : [`${fn}: ${found}`]
}
