/**
 * A toolset: the tools a model may call, by name, each with its decoders built once. Decoding
 * a raw call against it gives a `Result`: the typed call, or the first violation.
 *
 * @since 0.1.0
 */
import { Cause, type Effect, Exit, Result, type SchemaAST, SchemaIssue, SchemaParser } from "effect"
import { dual } from "effect/Function"
import { firstViolation } from "./Diagnose.ts"
import * as Fast from "./FastDecode.ts"
import * as Render from "./Render.ts"
import type * as Tool from "./Tool.ts"
import * as ToolName from "./ToolName.ts"
import * as Violation from "./Violation.ts"

/**
 * A call as the model sent it: its input is whatever arrived, valid or not.
 *
 * @since 0.1.0
 */
export interface RawCall {
  /** The tool_use id the model gave the call. */
  readonly id: string
  /** The tool name the model sent. */
  readonly name: string
  /** The input as it arrived, unchecked. */
  readonly input: unknown
}

/** The decoded input type of a tool. @since 0.1.0 */
export type Input<T> = T extends { readonly parameters: infer P extends Tool.Parameters } ? P["Type"] : never

/**
 * A call that passed its schema, discriminated by tool name.
 *
 * @since 0.1.0
 */
export type DecodedCall<T extends Tool.Any> = T extends Tool.Any
  ? { readonly id: string; readonly name: T["name"]; readonly tool: T; readonly input: Input<T> }
  : never

/**
 * A tool of a toolset with its decoders, built once per parameters schema.
 *
 * @since 0.1.0
 */
export interface Entry {
  /** The tool. */
  readonly tool: Tool.Any
  /** The fields its parameters declare, in order. */
  readonly fields: ReadonlyArray<PropertyKey>
  /** No fields and no index signature: the tool takes an empty object. */
  readonly empty: boolean
  /** The parameters' decoder, built once: the decoded input, or the Schema issue. */
  readonly decode: (input: unknown, options: SchemaAST.ParseOptions) => Result.Result<unknown, SchemaIssue.Issue>
  /** The fast path of plain structs (see `FastDecode`), or `undefined` for other parameters. */
  readonly fast: Fast.Plain | undefined
}

const TypeId = "~@agent-harness/tool-schema/Toolset"

/**
 * A set of tools with distinct names. `R` is the union of the services they need.
 *
 * @since 0.1.0
 */
export interface Toolset<out T extends Tool.Any> {
  /** Marks a toolset (see `isToolset`). */
  readonly [TypeId]: typeof TypeId
  /** Its tools, in the order they were given. */
  readonly tools: ReadonlyArray<T>
  /** @internal */
  readonly entries: ReadonlyMap<string, Entry>
  /** @internal */
  readonly last?: LastFound | undefined
}

/**
 * The entry `entry` found last, and the name and the map it was found by: a loop calls one tool
 * again and again, and this answers it without hashing the name.
 *
 * @internal
 */
export interface LastFound {
  entries: ReadonlyMap<string, Entry> | undefined
  name: string | undefined
  entry: Entry | undefined
}

/**
 * Whether a value is a toolset.
 *
 * @since 0.1.0
 */
export const isToolset = (u: unknown): u is Toolset<Tool.Any> => typeof u === "object" && u !== null && TypeId in u

/** The services the tools of a toolset need. @since 0.1.0 */
export type Services<S> = S extends Toolset<infer T> ? Tool.Services<T> : never

const strict: SchemaAST.ParseOptions = { errors: "first", onExcessProperty: "error" }
const all: SchemaAST.ParseOptions = { errors: "all", onExcessProperty: "error" }

/**
 * `SchemaParser.decodeUnknownResult`, without entering the Effect runtime when decoding is
 * synchronous: the parser already answers with an `Exit`, which is read as it is. A defect (a
 * check of the schema that threw) is thrown as it is, so `decodeInput` can say what it was;
 * anything else (an asynchronous decode) goes through `decodeUnknownResult` itself.
 */
const resultDecoder = (
  parameters: Tool.Parameters
): ((input: unknown, options: SchemaAST.ParseOptions) => Result.Result<unknown, SchemaIssue.Issue>) => {
  const effect = SchemaParser.decodeUnknownEffect(parameters)
  const viaRuntime = SchemaParser.decodeUnknownResult(parameters)
  return (input, options) => {
    const out: Effect.Effect<unknown, SchemaIssue.Issue, unknown> = effect(input, options)
    if (!Exit.isExit(out)) return viaRuntime(input, options)
    if (Exit.isSuccess(out)) return Result.succeed(out.value)
    const issue = Fast.issueOf(out.cause as Cause.Cause<SchemaIssue.Issue>)
    if (issue !== undefined) return Result.fail(issue)
    const defect = Cause.findDefect(out.cause)
    if (Result.isSuccess(defect)) throw defect.success
    return viaRuntime(input, options)
  }
}

interface Decoders {
  readonly fields: ReadonlyArray<PropertyKey>
  readonly empty: boolean
  readonly decode: Entry["decode"]
  readonly fast: Fast.Plain | undefined
}

/** What is built from a parameters schema, built once per schema (tools share schemas, and toolsets are rebuilt). */
const decodersCache = new WeakMap<Tool.Parameters, Decoders>()

const decodersOf = (parameters: Tool.Parameters): Decoders => {
  const cached = decodersCache.get(parameters)
  if (cached !== undefined) return cached
  const ast = parameters.ast
  const decoders: Decoders = {
    fields: ast.propertySignatures.map((ps) => ps.name),
    empty: ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0,
    decode: resultDecoder(parameters),
    fast: Fast.plain(parameters)
  }
  decodersCache.set(parameters, decoders)
  return decoders
}

const entryOf = (tool: Tool.Any): Entry => ({ tool, ...decodersOf(tool.parameters) })

/**
 * Builds a toolset. Two tools with one name are a programming error and throw at once, and so
 * does a name that cannot be sent to a model provider (`ToolName`: empty, no ASCII letter or
 * digit, longer than 64 characters once made safe) or two names with one provider-safe alias
 * (`a.b` and `a_b`).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { JsonSchema, Tool, Toolset } from "@agent-harness/tool-schema"
 *
 * const Weather = Tool.make("weather", {
 *   description: "Today's weather in a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   run: ({ city }) => Effect.succeed(`sunny in ${city}`)
 * })
 * const tools = Toolset.make(Weather)
 * Toolset.get(tools, "weather") // Weather
 * JsonSchema.anthropicTools(tools) // [{ name: "weather", description, input_schema }]
 * ```
 *
 * @since 0.1.0
 */
export const make = <const Tools extends ReadonlyArray<Tool.Any>>(...tools: Tools): Toolset<Tools[number]> => {
  const entries = new Map<string, Entry>()
  for (const tool of tools) {
    if (entries.has(tool.name)) throw new Error(`Toolset.make: two tools are named '${tool.name}'`)
    entries.set(tool.name, entryOf(tool))
  }
  const unsafe = ToolName.problem(entries.keys())
  if (unsafe !== undefined) throw new Error(`Toolset.make: ${unsafe}`)
  return { [TypeId]: TypeId, tools, entries, last: { entries: undefined, name: undefined, entry: undefined } }
}

/**
 * A toolset with the tools of both; tools of `that` replace tools of `self` with the same name.
 *
 * @since 0.1.0
 */
export const merge: {
  <U extends Tool.Any>(that: Toolset<U>): <T extends Tool.Any>(self: Toolset<T>) => Toolset<T | U>
  <T extends Tool.Any, U extends Tool.Any>(self: Toolset<T>, that: Toolset<U>): Toolset<T | U>
} = dual(2, <T extends Tool.Any, U extends Tool.Any>(self: Toolset<T>, that: Toolset<U>): Toolset<T | U> => {
  const names = new Set(that.tools.map((t) => t.name))
  return make(...self.tools.filter((t) => !names.has(t.name)), ...that.tools)
})

/**
 * Looks a tool up by name.
 *
 * @since 0.1.0
 */
export const get = <T extends Tool.Any>(self: Toolset<T>, name: string): T | undefined =>
  self.entries.get(name)?.tool as T | undefined

const formatIssue = SchemaIssue.makeFormatterDefault()

const isObject = (input: unknown): input is object =>
  typeof input === "object" && input !== null && !Array.isArray(input)

/**
 * Decodes a raw call: the typed call, or the first violation in contract order (unknown tool,
 * input not an object, each declared field in order: missing then wrong type, then unexpected
 * fields). Unexpected fields are never dropped, and nothing is coerced. Never throws: an input
 * that throws while it is read, or a schema check that throws, gives `UncheckableInput`.
 *
 * @since 0.1.0
 */
export const decode: {
  (call: RawCall): <T extends Tool.Any>(self: Toolset<T>) => Result.Result<DecodedCall<T>, Violation.Violation>
  <T extends Tool.Any>(self: Toolset<T>, call: RawCall): Result.Result<DecodedCall<T>, Violation.Violation>
} = dual(
  2,
  <T extends Tool.Any>(self: Toolset<T>, call: RawCall): Result.Result<DecodedCall<T>, Violation.Violation> => {
    const entry = self.entries.get(call.name)
    if (entry === undefined) return Result.fail(Violation.unknownTool(call.name))
    let input: unknown
    try {
      input = call.input
    } catch (thrown) {
      return uncheckable(thrown)
    }
    const decoded = decodeInput(entry, input)
    if (Result.isFailure(decoded)) return Result.fail(decoded.failure)
    return Result.succeed({ id: call.id, name: call.name, tool: entry.tool, input: decoded.success } as DecodedCall<T>)
  }
)

/**
 * Decodes the input of a call to a tool of the toolset: the decoded input, or the first
 * violation (in the order of `decode`), without building the typed call. It is `decodeAtOnce`,
 * then `decodeRest` when that did not accept the input. Never throws: an input or a schema check
 * that throws while the input is checked gives `UncheckableInput`.
 *
 * @since 0.1.0
 */
export const decodeInput = (entry: Entry, input: unknown): Result.Result<unknown, Violation.Violation> => {
  const now = decodeAtOnce(entry, input)
  return now === undefined ? decodeRest(entry, input) : Result.succeed(now)
}

/**
 * The decoded input of a call to a tool of the toolset when it is accepted at once, with nothing
 * built but the decoded value (a plain struct's compiled decoder), or `undefined`: then
 * `decodeRest` answers, the decoded input or the violation. `decodeInput` is the two in turn.
 * Never throws. The executor's synchronous core calls them itself, so that a call whose input
 * is accepted at once allocates no `Result`.
 *
 * @since 0.1.0
 */
export const decodeAtOnce = (entry: Entry, input: unknown): object | undefined => {
  // The compiled decoder never throws, and answers `undefined` for a non-object or an array.
  const compiled = entry.fast?.compiled
  return compiled === undefined ? undefined : compiled(input)
}

/**
 * What `decodeInput` answers for an input `decodeAtOnce` did not accept (`undefined`), without
 * trying it again: the decoded input, or the first violation. Never throws.
 *
 * @since 0.1.0
 */
export const decodeRest = (entry: Entry, input: unknown): Result.Result<unknown, Violation.Violation> => {
  // One guard around the whole decode, not one per field: reading the input may throw (a
  // getter, a Proxy trap, a revoked Proxy) and so may a check of the schema.
  try {
    if (!isObject(input)) return Result.fail(Violation.inputNotObject)
    // An empty struct accepts any object in Effect Schema: refuse its keys here.
    if (entry.empty) {
      const extra = Object.keys(input)[0]
      if (extra !== undefined) return Result.fail(Violation.unexpectedField(extra))
    }
    const fast = entry.fast
    if (fast !== undefined) {
      // Plain structs: the same answers as below, without the strict decoder's generator, and
      // with the common violations named without decoding twice. The compiled decoder (if any)
      // did not accept the input: the path as it was before it.
      const value = Fast.decodeAfter(fast, input)
      if (value !== Fast.slow) return Result.succeed(value)
      const violation = Fast.violation(fast, input)
      if (violation !== undefined) return Result.fail(violation)
    }
    const decoded = entry.decode(input, strict)
    if (Result.isSuccess(decoded)) return Result.succeed(decoded.success)
    const every = entry.decode(input, all)
    const issue = Result.isFailure(every) ? every.failure : decoded.failure
    return Result.fail(firstViolation(issue, entry.fields, input, formatIssue))
  } catch (thrown) {
    return uncheckable(thrown)
  }
}

/** The violation of an input whose checking threw. */
const uncheckable = (thrown: unknown): Result.Result<never, Violation.Violation> =>
  Result.fail(Violation.uncheckableInput(Render.thrown(thrown)))

/**
 * The toolset's entry for a tool name, or `undefined`.
 *
 * @since 0.1.0
 */
export const entry = <T extends Tool.Any>(self: Toolset<T>, name: string): Entry | undefined => {
  const entries = self.entries
  const last = self.last
  // The same name as last time, by the same map (a copy of a toolset shares both, or neither).
  if (last !== undefined && last.name === name && last.entries === entries) return last.entry
  const found = entries.get(name)
  if (last !== undefined && found !== undefined) {
    last.entries = entries
    last.name = name
    last.entry = found
  }
  return found
}
