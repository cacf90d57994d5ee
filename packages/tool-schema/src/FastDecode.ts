/**
 * The fast path of the decoder for plain structs: a `Schema.Struct` of string-named fields whose
 * types hold no objects and no transformations (strings, numbers, booleans, literals, unions and
 * arrays of them). That is most tools.
 *
 * For these, decoding with `onExcessProperty: "error"` is decoding with the default options plus
 * a check that the input has no key the struct does not declare: `onExcessProperty` only ever
 * acts on objects, and there is none below the root. So the fast path checks the keys itself,
 * then decodes with the default options through Schema's JIT compiler (the interpreter when the
 * platform forbids code generation), reading the parser's `Exit` without entering the Effect
 * runtime. When that does not succeed, the common violations (a missing field, an unexpected
 * field) are named from the input in contract order; anything else goes through the full
 * diagnosis, which decodes with the strict options.
 *
 * @internal
 */
import { type Cause, type Effect, Exit, Schema, type SchemaAST, SchemaIssue, SchemaParser } from "effect"
import { SchemaJITCompiler } from "effect/schema"
import type * as Tool from "./Tool.ts"
import * as Violation from "./Violation.ts"

/**
 * "Not on the fast path": the caller takes the full path.
 *
 * @internal
 */
export const slow: unique symbol = Symbol.for("@agent-harness/tool-schema/FastDecode/slow")

/** @internal */
export interface Plain {
  /** The declared fields, in order. */
  readonly names: ReadonlyArray<string>
  readonly declared: ReadonlySet<string>
  readonly required: ReadonlyArray<boolean>
  /** Decodes the whole input with the default options. */
  readonly decode: (input: unknown) => Effect.Effect<unknown, SchemaIssue.Issue, unknown>
  /** Decodes one field's value, by index, with the default options. */
  readonly field: ReadonlyArray<(value: unknown) => Effect.Effect<unknown, SchemaIssue.Issue, unknown>>
}

/**
 * The schema issue of a cause made only of schema issues (the first), as `SchemaParser`'s
 * `Result` adapters read it; `undefined` for any other cause.
 *
 * @internal
 */
export const issueOf = (cause: Cause.Cause<SchemaIssue.Issue>): SchemaIssue.Issue | undefined => {
  let issue: SchemaIssue.Issue | undefined
  for (const reason of cause.reasons) {
    if (reason._tag !== "Fail" || !SchemaIssue.isIssue(reason.error)) return undefined
    issue ??= reason.error
  }
  return issue
}

/** Holds no object below it and transforms nothing, so parse options other than `errors` cannot change its decoding. */
const isFlat = (ast: SchemaAST.AST): boolean => {
  if (ast.encoding !== undefined) return false
  switch (ast._tag) {
    case "String":
    case "Number":
    case "Boolean":
    case "BigInt":
    case "Symbol":
    case "Literal":
    case "UniqueSymbol":
    case "Enum":
    case "TemplateLiteral":
    case "Null":
    case "Undefined":
    case "Void":
    case "Unknown":
    case "Any":
    case "Never":
      return true
    case "Union":
      return ast.encodingChecks === undefined && ast.types.every(isFlat)
    case "Arrays":
      return ast.encodingChecks === undefined && ast.elements.every(isFlat) && ast.rest.every(isFlat)
    default:
      return false
  }
}

/**
 * The fast path of a parameters schema, or `undefined` when it is not a plain struct.
 *
 * @internal
 */
export const plain = (parameters: Tool.Parameters): Plain | undefined => {
  const ast = parameters.ast
  if (
    ast.encoding !== undefined ||
    ast.encodingChecks !== undefined ||
    ast.indexSignatures.length > 0 ||
    ast.propertySignatures.length === 0
  ) {
    return undefined
  }
  const names: Array<string> = []
  for (const ps of ast.propertySignatures) {
    // `__proto__` is looked up differently by Schema; symbols are rare: both take the full path.
    if (typeof ps.name !== "string" || ps.name === "__proto__" || !isFlat(ps.type)) return undefined
    names.push(ps.name)
  }
  // Lazily compiled on first use; semantics-preserving by Schema's contract, and interpreted
  // where code generation is forbidden.
  SchemaJITCompiler.enable(ast)
  return {
    names,
    declared: new Set(names),
    required: ast.propertySignatures.map((ps) => !(ps.type.context?.isOptional ?? false)),
    decode: SchemaParser.decodeUnknownEffect(parameters),
    field: ast.propertySignatures.map((ps) => SchemaParser.decodeUnknownEffect(Schema.make(ps.type)))
  }
}

const isEnumerable = Object.prototype.propertyIsEnumerable

const hasOwn = Object.hasOwn

const hasUndeclaredKey = (plain: Plain, input: object): boolean => {
  // `for...in` walks enumerable string keys, inherited ones too: those are not excess.
  for (const key in input) {
    if (!plain.declared.has(key) && hasOwn(input, key)) return true
  }
  // Schema counts enumerable own symbols as excess too.
  const symbols = Object.getOwnPropertySymbols(input)
  for (let i = 0; i < symbols.length; i++) {
    if (isEnumerable.call(input, symbols[i] as symbol)) return true
  }
  return false
}

/** Whether a field is absent, as Schema looks it up (`in`, inherited keys included). */
const absent = (input: Readonly<Record<string, unknown>>, name: string): boolean =>
  input[name] === undefined && !(name in input)

const succeeded = (out: Effect.Effect<unknown, SchemaIssue.Issue, unknown>): boolean | undefined =>
  Exit.isExit(out) ? Exit.isSuccess(out) : undefined

/**
 * The decoded input, exactly as decoding with `{ errors: "first", onExcessProperty: "error" }`
 * gives it, or `slow` when that decoding would fail (or cannot be told without it).
 *
 * @internal
 */
export const decode = (plain: Plain, input: object): unknown => {
  if (hasUndeclaredKey(plain, input)) return slow
  const names = plain.names
  const required = plain.required
  const record = input as Readonly<Record<string, unknown>>
  for (let i = 0; i < names.length; i++) {
    // A missing required field fails: do not decode.
    if (required[i] && absent(record, names[i] as string)) return slow
  }
  const out = plain.decode(input)
  return Exit.isExit(out) && Exit.isSuccess(out) ? out.value : slow
}

/**
 * The first violation in contract order when it is a missing or an unexpected field, named
 * without decoding the whole input; `undefined` when the full diagnosis must name it.
 *
 * @internal
 */
export const violation = (plain: Plain, input: object): Violation.Violation | undefined => {
  const names = plain.names
  const record = input as Readonly<Record<string, unknown>>
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string
    if (absent(record, name)) {
      if (plain.required[i]) return Violation.missingField(name)
      continue
    }
    // A field with a problem of its own comes first: the full diagnosis describes it.
    const field = plain.field[i]
    if (field === undefined || succeeded(field(record[name])) !== true) return undefined
  }
  const keys = Object.keys(input)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string
    if (!plain.declared.has(key)) return Violation.unexpectedField(key)
  }
  return undefined
}
