/**
 * Row 1a's same-work baselines: what `Execute.executeSync` must do for the fixtures' `read` tool
 * (`{ path: string, limit: finite number }`), written by hand for speed, and the same done with
 * zod 4's strict object. Each one finds the tool by its name, reads the call's input once,
 * checks every field's type (each field read once), refuses an unexpected key, symbol keys
 * included (zod's strict object lists string keys only, so the symbol check is added by hand, as
 * the hand-written one does it), calls the tool in a `try`/`catch` with a fresh object of the
 * declared fields and the call's context, as the harness calls it, and builds an
 * `Outcome`-shaped object with the content text (cut check included). A refusal or a throw is
 * an answer, never a throw; message text is built only then.
 */
import { z } from "zod"
import { type Call, Read } from "./Fixtures.ts"

/** What the baselines answer: the fields of an `Outcome` the model's result is built from. */
export interface Answer {
  readonly _tag: "Succeeded" | "NotExecuted" | "Failed"
  readonly id: string
  readonly name: string
  readonly value?: unknown
  readonly content: string
}

interface Parameters {
  readonly path: string
  readonly limit: number
}

/** The tool's own function, called as the harness calls it: the decoded input and the call's context. */
const run = Read.run as (input: Parameters, context: { readonly id: string }) => unknown

/** The harness's default content limit: a longer text would be cut. */
const maxContent = 120_000

const hasOwn = Object.hasOwn
const isEnumerable = Object.prototype.propertyIsEnumerable
const symbolsOf = Object.getOwnPropertySymbols
const isArray = Array.isArray
const finite = Number.isFinite

const refused = (call: Call, why: string): Answer => ({
  _tag: "NotExecuted",
  id: call.id,
  name: call.name,
  content: `not executed: ${why}`
})

const messageOf = (thrown: unknown): string => {
  try {
    return thrown instanceof Error ? thrown.message : String(thrown)
  } catch {
    return "a value that cannot be read"
  }
}

const succeeded = (id: string, name: string, value: unknown): Answer => {
  // The tool answers text; a hand-written executor for it knows that.
  const text = value as string
  return {
    _tag: "Succeeded",
    id,
    name,
    value,
    content: text.length > maxContent ? `${text.slice(0, maxContent)}\n…` : text
  }
}

/** An enumerable own symbol key, or `undefined`: what zod's strict object does not look at. */
const symbolKey = (input: object): symbol | undefined => {
  const symbols = symbolsOf(input)
  for (let i = 0; i < symbols.length; i++) {
    const symbol = symbols[i] as symbol
    if (isEnumerable.call(input, symbol)) return symbol
  }
  return undefined
}

/** An enumerable own key that `read` does not declare, symbols included, or `undefined`. */
const unexpectedKey = (input: object): string | symbol | undefined => {
  // `for...in` lists enumerable string keys, inherited ones too (those are not unexpected).
  for (const key in input) {
    if (key !== "path" && key !== "limit" && hasOwn(input, key)) return key
  }
  return symbolKey(input)
}

/**
 * The same work by hand: `executeSync`'s job for `read`, as a good engineer writes it for speed
 * with the standard API (`for...in` and `Object.getOwnPropertySymbols`).
 */
export const sameWork = (call: Call): Answer => {
  const id = call.id
  const name = call.name
  if (name !== "read") return refused(call, `unknown tool '${name}'`)
  let path: unknown
  let limit: unknown
  let extra: string | symbol | undefined
  try {
    const input = call.input
    if (typeof input !== "object" || input === null || isArray(input)) {
      return refused(call, "the input must be an object")
    }
    const fields = input as { readonly path?: unknown; readonly limit?: unknown }
    path = fields.path
    limit = fields.limit
    extra = unexpectedKey(input)
  } catch (thrown) {
    return refused(call, `the input could not be checked: ${messageOf(thrown)}`)
  }
  if (typeof path !== "string") {
    return refused(call, path === undefined ? "missing field 'path'" : "field 'path' must be a string")
  }
  if (typeof limit !== "number" || !finite(limit)) {
    return refused(call, limit === undefined ? "missing field 'limit'" : "field 'limit' must be a finite number")
  }
  if (extra !== undefined) return refused(call, `unexpected field '${String(extra)}'`)
  let value: unknown
  try {
    value = run({ path, limit }, { id })
  } catch (thrown) {
    return { _tag: "Failed", id, name, content: messageOf(thrown) }
  }
  return succeeded(id, name, value)
}

/**
 * The decoder's way of finding unexpected keys, symbols included, without listing them:
 * assigning the input onto a sealed object whose only keys are the declared ones throws at any
 * other key. Cleared after each use, so that it keeps nothing of the input.
 */
const probe: { path: unknown; limit: unknown } = Object.seal(
  Object.setPrototypeOf({ path: undefined, limit: undefined }, null)
)

/**
 * The same work by hand, with unexpected keys found as the compiled decoder finds its symbols
 * (a reference: how much of the margin is that trick).
 */
export const sameWorkProbed = (call: Call): Answer => {
  const id = call.id
  const name = call.name
  if (name !== "read") return refused(call, `unknown tool '${name}'`)
  let path: unknown
  let limit: unknown
  try {
    const input = call.input
    if (typeof input !== "object" || input === null || isArray(input)) {
      return refused(call, "the input must be an object")
    }
    const fields = input as { readonly path?: unknown; readonly limit?: unknown }
    path = fields.path
    limit = fields.limit
    if (typeof path !== "string") {
      return refused(call, path === undefined ? "missing field 'path'" : "field 'path' must be a string")
    }
    if (typeof limit !== "number" || !finite(limit)) {
      return refused(call, limit === undefined ? "missing field 'limit'" : "field 'limit' must be a finite number")
    }
    for (const key in input) {
      if (key !== "path" && key !== "limit" && hasOwn(input, key)) return refused(call, `unexpected field '${key}'`)
    }
    try {
      Object.assign(probe, input)
    } catch {
      const extra = symbolKey(input)
      return refused(call, `unexpected field '${String(extra)}'`)
    } finally {
      probe.path = undefined
      probe.limit = undefined
    }
  } catch (thrown) {
    return refused(call, `the input could not be checked: ${messageOf(thrown)}`)
  }
  let value: unknown
  try {
    value = run({ path, limit }, { id })
  } catch (thrown) {
    return { _tag: "Failed", id, name, content: messageOf(thrown) }
  }
  return succeeded(id, name, value)
}

const zodParameters = z.strictObject({ path: z.string(), limit: z.number() })

/** Answers a call through zod: its strict parse, then (with `symbols`) the symbol check it lacks. */
const throughZod = (call: Call, symbols: boolean): Answer => {
  const id = call.id
  const name = call.name
  if (name !== "read") return refused(call, `unknown tool '${name}'`)
  let data: Parameters
  try {
    const input: unknown = call.input
    const parsed = zodParameters.safeParse(input)
    if (!parsed.success) return refused(call, parsed.error.issues[0]?.message ?? "invalid input")
    data = parsed.data
    const extra = symbols ? symbolKey(input as object) : undefined
    if (extra !== undefined) return refused(call, `unexpected field '${String(extra)}'`)
  } catch (thrown) {
    return refused(call, `the input could not be checked: ${messageOf(thrown)}`)
  }
  let value: unknown
  try {
    value = run(data, { id })
  } catch (thrown) {
    return { _tag: "Failed", id, name, content: messageOf(thrown) }
  }
  return succeeded(id, name, value)
}

/**
 * zod 4's `z.strictObject(...).safeParse` plus the same call and answer, with the check of
 * enumerable own symbol keys that its strict object does not make (done as `sameWork` does it),
 * so that it refuses what the harness refuses.
 */
export const zodStrict = (call: Call): Answer => throughZod(call, true)

/** zod 4's strict `safeParse` plus the same call and answer, as it is: symbol keys go through. */
export const zodStrictAlone = (call: Call): Answer => throughZod(call, false)
