/**
 * A toolset: the tools a model may call, by name, each with its decoders built once. Decoding
 * a raw call against it gives a `Result`: the typed call, or the first violation.
 *
 * @since 0.1.0
 */
import { Result, type SchemaAST, SchemaIssue, SchemaParser } from "effect"
import { dual } from "effect/Function"
import { firstViolation } from "./Diagnose.ts"
import type * as Tool from "./Tool.ts"
import * as Violation from "./Violation.ts"

/**
 * A call as the model sent it: its input is whatever arrived, valid or not.
 *
 * @since 0.1.0
 */
export interface RawCall {
  readonly id: string
  readonly name: string
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

interface Entry {
  readonly tool: Tool.Any
  readonly fields: ReadonlyArray<PropertyKey>
  /** No fields and no index signature: the tool takes an empty object. */
  readonly empty: boolean
  readonly decode: (input: unknown, options: SchemaAST.ParseOptions) => Result.Result<unknown, SchemaIssue.Issue>
}

const TypeId = "~@agent-harness/tool-schema/Toolset"

/**
 * A set of tools with distinct names. `R` is the union of the services they need.
 *
 * @since 0.1.0
 */
export interface Toolset<out T extends Tool.Any> {
  readonly [TypeId]: typeof TypeId
  readonly tools: ReadonlyArray<T>
  /** @internal */
  readonly entries: ReadonlyMap<string, Entry>
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

const entryOf = (tool: Tool.Any): Entry => ({
  tool,
  fields: tool.parameters.ast.propertySignatures.map((ps) => ps.name),
  empty: tool.parameters.ast.propertySignatures.length === 0 && tool.parameters.ast.indexSignatures.length === 0,
  decode: SchemaParser.decodeUnknownResult(tool.parameters)
})

/**
 * Builds a toolset. Two tools with one name are a programming error and throw at once.
 *
 * @since 0.1.0
 */
export const make = <const Tools extends ReadonlyArray<Tool.Any>>(...tools: Tools): Toolset<Tools[number]> => {
  const entries = new Map<string, Entry>()
  for (const tool of tools) {
    if (entries.has(tool.name)) throw new Error(`Toolset.make: two tools are named '${tool.name}'`)
    entries.set(tool.name, entryOf(tool))
  }
  return { [TypeId]: TypeId, tools, entries }
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
 * fields). Unexpected fields are never dropped, and nothing is coerced.
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
    const input = call.input
    if (!isObject(input)) return Result.fail(Violation.inputNotObject)
    // An empty struct accepts any object in Effect Schema: refuse its keys here.
    if (entry.empty) {
      const extra = Object.keys(input)[0]
      if (extra !== undefined) return Result.fail(Violation.unexpectedField(extra))
    }
    const decoded = entry.decode(input, strict)
    if (Result.isSuccess(decoded)) {
      return Result.succeed({
        id: call.id,
        name: call.name,
        tool: entry.tool,
        input: decoded.success
      } as DecodedCall<T>)
    }
    const every = entry.decode(input, all)
    const issue = Result.isFailure(every) ? every.failure : decoded.failure
    return Result.fail(firstViolation(issue, entry.fields, input, formatIssue))
  }
)
