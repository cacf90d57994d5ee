/**
 * Values as text the model can read, never throwing. Strings stay as they are, `undefined` is
 * `""`, anything else is JSON. What JSON cannot hold is still rendered, with a marker where it
 * could not be: a cycle is `"[Circular]"`, nesting deeper than 64 levels is `"[Truncated]"`, a
 * bigint is its digits, and a part whose reading throws (a throwing getter or `toJSON`, a revoked
 * or hostile `Proxy`) is `"[Unreadable: <message>]"`. Values JSON can hold are rendered exactly
 * as `JSON.stringify` renders them.
 *
 * @since 0.1.0
 */

/** Levels of nesting rendered when `JSON.stringify` gave up; deeper parts are `"[Truncated]"`. */
const maxDepth = 64

/**
 * The message of something thrown, without throwing: an `Error`'s (or any object's) non-empty
 * string `message`, or a non-empty string as it is; `undefined` when there is none or it cannot
 * be read.
 *
 * @since 0.1.0
 */
export const messageOf = (thrown: unknown): string | undefined => {
  if (typeof thrown === "string") return thrown === "" ? undefined : thrown
  if (typeof thrown !== "object" || thrown === null) return undefined
  try {
    const message = (thrown as { readonly message?: unknown }).message
    return typeof message === "string" && message !== "" ? message : undefined
  } catch {
    return undefined
  }
}

/**
 * A non-empty description of something thrown, without throwing: its message, else its
 * rendering (`undefined`, `''` and `null` by name).
 *
 * @since 0.1.0
 */
export const thrown = (thrown: unknown): string => {
  const message = messageOf(thrown)
  if (message !== undefined) return message
  if (thrown === undefined) return "undefined"
  if (thrown === "") return "''"
  const rendered = value(thrown)
  return rendered === "" ? "''" : rendered
}

/** The marker of a part that could not be read. */
const unreadable = (error: unknown): string => `[Unreadable: ${messageOf(error) ?? "it threw"}]`

/**
 * Renders any value as observation text: strings as they are, `undefined` as `""`, other values
 * as JSON (`String` for what JSON leaves out at the top: a function, a symbol). Never throws.
 *
 * @since 0.1.0
 */
export const value = (u: unknown): string => {
  if (typeof u === "string") return u
  if (u === undefined) return ""
  try {
    const json = JSON.stringify(u)
    if (json !== undefined) return json
  } catch {
    // A cycle, a bigint, nesting too deep for the engine, or something that throws when read.
    return fallback(u)
  }
  try {
    return String(u)
  } catch (error) {
    return unreadable(error)
  }
}

/** What `brief` shows of a value at most, in characters. */
const maxBrief = 200

/**
 * A value as a message that names it shows it: strings quoted, numbers as they are (`NaN`,
 * `-1`), `undefined` by name, anything else as {@link value}; cut at 200 characters with `…`
 * (a message names the problem, it does not dump the value). Never throws.
 *
 * @since 0.1.0
 */
export const brief = (u: unknown): string => {
  const shown =
    typeof u === "string"
      ? JSON.stringify(u)
      : typeof u === "number" || typeof u === "bigint" || u === undefined
        ? String(u)
        : value(u)
  return shown.length > maxBrief ? `${shown.slice(0, maxBrief)}…` : shown
}

/** The fallback of `value`: JSON with markers where `JSON.stringify` would throw. */
const fallback = (u: unknown): string => {
  try {
    const out = part(u, "", [])
    if (out !== undefined) return out
    return String(u)
  } catch (error) {
    return unreadable(error)
  }
}

const quote = (text: string): string => JSON.stringify(text)

/**
 * One part as `JSON.stringify` renders it, or `undefined` where it leaves the part out (an
 * undefined, a function, a symbol). `ancestors` are the objects being rendered above it.
 */
const part = (input: unknown, key: string, ancestors: Array<object>): string | undefined => {
  let u = input
  try {
    // `instanceof` asks a Proxy for its prototype, which may throw: inside the guard.
    if (u instanceof Unreadable) return quote(unreadable(u.error))
    if ((typeof u === "object" && u !== null) || typeof u === "function" || typeof u === "bigint") {
      const toJSON = (u as { readonly toJSON?: unknown }).toJSON
      if (typeof toJSON === "function") u = toJSON.call(u, key)
    }
    if (typeof u === "object" && u !== null) {
      if (u instanceof Number || u instanceof String || u instanceof Boolean || u instanceof BigInt) {
        u = u.valueOf()
      }
    }
  } catch (error) {
    return quote(unreadable(error))
  }
  switch (typeof u) {
    case "string":
      return quote(u)
    case "number":
      return Number.isFinite(u) ? String(u) : "null"
    case "boolean":
      return u ? "true" : "false"
    case "bigint":
      return u.toString()
    case "undefined":
    case "function":
    case "symbol":
      return undefined
  }
  if (typeof u !== "object" || u === null) return "null"
  if (ancestors.includes(u)) return quote("[Circular]")
  if (ancestors.length >= maxDepth) return quote("[Truncated]")
  ancestors.push(u)
  try {
    if (Array.isArray(u)) {
      const items: Array<string> = []
      for (let i = 0; i < u.length; i++) items.push(part(read(u, i), String(i), ancestors) ?? "null")
      return `[${items.join(",")}]`
    }
    const entries: Array<string> = []
    for (const name of Object.keys(u)) {
      const rendered = part(read(u, name), name, ancestors)
      if (rendered !== undefined) entries.push(`${quote(name)}:${rendered}`)
    }
    return `{${entries.join(",")}}`
  } catch (error) {
    return quote(unreadable(error))
  } finally {
    ancestors.pop()
  }
}

/** What `read` gives for a property whose reading threw: `part` marks that one property. */
class Unreadable {
  readonly error: unknown
  constructor(error: unknown) {
    this.error = error
  }
}

/** A property, or an `Unreadable` holding what reading it threw. */
const read = (holder: object, key: PropertyKey): unknown => {
  try {
    return (holder as Record<PropertyKey, unknown>)[key]
  } catch (error) {
    return new Unreadable(error)
  }
}
