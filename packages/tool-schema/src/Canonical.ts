/**
 * The canonical JSON text of a value: what a journal records for a call's input and compares,
 * and what the loop's repeated-call breaker compares. Two inputs are the same call exactly when
 * their texts are equal, so a comparison is of one string, and it always ends.
 *
 * - Object keys are sorted (by UTF-16 code unit), so key order does not matter.
 * - A key holding `undefined` is left out, as `JSON.stringify` does (`{ a: undefined }` is `{}`).
 * - `-0` is `0`. An object with a `toJSON` method (a `Date`) is encoded as what it returns.
 *
 * Whatever JSON cannot carry faithfully is refused, never changed silently: a cycle, `NaN` and
 * the infinities, a `bigint`, a function or a symbol, `undefined` in an array or as the whole
 * value, an object that is not a plain object or an array (a `Map`, a class instance), and
 * nesting deeper than {@link maxDepth} levels. The refusal names the JSON path of the value.
 *
 * @module
 * @since 0.1.0
 */
import { type Cause, Result, Schema } from "effect"

const UnencodableBase: Schema.Class<
  Unencodable,
  Schema.TaggedStruct<"Unencodable", { readonly path: Schema.String; readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<Unencodable>()("Unencodable", {
  path: Schema.String,
  problem: Schema.String
})

/**
 * A value the canonical encoding refuses: where (a JSON path, `$` for the whole value) and why.
 *
 * @since 0.1.0
 */
export class Unencodable extends UnencodableBase {
  /** The problem, and its JSON path unless it is the whole value. */
  override get message(): string {
    return this.path === "$" ? this.problem : `${this.problem} at ${this.path}`
  }
}

/**
 * How deep a value may nest (objects and arrays inside each other).
 *
 * @since 0.1.0
 */
export const maxDepth = 1000

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/

const keyPath = (path: string, key: string): string =>
  identifier.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`

/** Thrown inside the encoder only, caught by `encode`: the first problem found. */
class Refusal {
  readonly path: string
  readonly problem: string
  constructor(path: string, problem: string) {
    this.path = path
    this.problem = problem
  }
}

const kindOf = (value: unknown): string => {
  if (typeof value === "bigint") return `a bigint (${value}n)`
  if (typeof value === "function") return "a function"
  if (typeof value === "symbol") return "a symbol"
  return "undefined"
}

const isPlain = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

const nameOf = (value: object): string => {
  const ctor: unknown = (value as { readonly constructor?: unknown }).constructor
  return typeof ctor === "function" && ctor.name !== "" ? ctor.name : "an object with a prototype"
}

const encodeAt = (value: unknown, path: string, key: string, open: Set<object>): string => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value)
    case "number":
      if (!Number.isFinite(value)) throw new Refusal(path, `${value} is not a JSON number`)
      return Object.is(value, -0) ? "0" : JSON.stringify(value)
    case "object":
      break
    default:
      throw new Refusal(path, `${kindOf(value)} is not JSON`)
  }
  if (value === null) return "null"
  if (open.has(value)) throw new Refusal(path, "a cycle (the value contains itself)")
  if (open.size >= maxDepth) throw new Refusal(path, `nested deeper than ${maxDepth} levels`)
  const toJSON: unknown = (value as { readonly toJSON?: unknown }).toJSON
  if (typeof toJSON === "function") {
    open.add(value)
    const text = encodeAt(toJSON.call(value, key), path, key, open)
    open.delete(value)
    return text
  }
  open.add(value)
  let text: string
  if (Array.isArray(value)) {
    const parts: Array<string> = []
    for (let i = 0; i < value.length; i++) parts.push(encodeAt(value[i], `${path}[${i}]`, String(i), open))
    text = `[${parts.join(",")}]`
  } else {
    if (!isPlain(value)) throw new Refusal(path, `${nameOf(value)} is not a plain JSON object`)
    const record = value as Readonly<Record<string, unknown>>
    const parts: Array<string> = []
    for (const name of Object.keys(record).sort()) {
      const field = record[name]
      if (field === undefined) continue
      parts.push(`${JSON.stringify(name)}:${encodeAt(field, keyPath(path, name), name, open)}`)
    }
    text = `{${parts.join(",")}}`
  }
  open.delete(value)
  return text
}

/**
 * The canonical JSON text of a value, or why it has none.
 *
 * @example
 * ```ts
 * import { Canonical } from "@agent-harness/tool-schema"
 *
 * Canonical.encode({ b: [1, 2], a: "x" }) // Success: '{"a":"x","b":[1,2]}'
 * const loop: Record<string, unknown> = {}
 * loop.self = loop
 * Canonical.encode(loop) // Failure: Unencodable, "a cycle (the value contains itself) at $.self"
 * ```
 *
 * @since 0.1.0
 */
export const encode = (value: unknown): Result.Result<string, Unencodable> => {
  try {
    return Result.succeed(encodeAt(value, "$", "", new Set()))
  } catch (error) {
    if (error instanceof Refusal) return Result.fail(new Unencodable({ path: error.path, problem: error.problem }))
    // A getter or a `toJSON` that throws: the value cannot be read as JSON.
    const message = error instanceof Error ? error.message : String(error)
    return Result.fail(new Unencodable({ path: "$", problem: `reading it as JSON threw (${message})` }))
  }
}

/**
 * Whether two values have the same canonical text (`false` when either has none).
 *
 * @since 0.1.0
 */
export const equal = (a: unknown, b: unknown): boolean => {
  const x = encode(a)
  const y = encode(b)
  return Result.isSuccess(x) && Result.isSuccess(y) && x.success === y.success
}
