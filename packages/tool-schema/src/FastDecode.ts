/**
 * The fast path of the decoder for plain structs: a `Schema.Struct` of string-named fields that
 * `Compile` covers (strings, numbers, booleans, literals, nested structs, arrays, unions, with
 * their checks), or, where code generation is forbidden, whose types hold no objects and no
 * transformations. That is most tools.
 *
 * Where code generation is allowed, the struct's compiled decoder (see `Compile`) accepts in one
 * pass what the strict decode accepts, with the same value. What it does not accept takes the
 * path it took before the compiler, unchanged: for a nested struct, Schema's full diagnosis; for
 * a flat struct (no object below the root), the following. Decoding with
 * `onExcessProperty: "error"` is decoding with the default options plus a check that the input
 * has no key the struct does not declare: `onExcessProperty` only ever acts on objects, and there
 * is none below the root. So the fast path checks the keys itself, then decodes with the default
 * options through Schema's JIT compiler (the interpreter when the platform forbids code
 * generation), reading the parser's `Exit` without entering the Effect runtime. When that does
 * not succeed, the common violations (a missing field, an unexpected field) are named from the
 * input in contract order; anything else goes through the full diagnosis, which decodes with the
 * strict options.
 *
 * @internal
 */
import { type Cause, type Effect, Exit, Schema, type SchemaAST, SchemaIssue, SchemaParser } from "effect"
import { SchemaJITCompiler } from "effect/schema"
import * as Compile from "./Compile.ts"
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
  /** The compiled decoder (see `Compile`), or `undefined` where code generation is forbidden. */
  readonly compiled: Compile.Decoder | undefined
  /** The path of a flat struct after (or without) its compiled decoder; `undefined` for nested structs. */
  readonly flat: Flat | undefined
}

/** @internal */
export interface Flat {
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
 * The fast path of a parameters schema, or `undefined` when it is not a plain struct. `compile`
 * is replaced only by tests (without it, the path as it was before the compiler).
 *
 * @internal
 */
export const plain = (
  parameters: Tool.Parameters,
  compile: (ast: SchemaAST.Objects, reads: Compile.Reads) => Compile.Decoder | undefined = Compile.compile
): Plain | undefined => {
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
    if (typeof ps.name !== "string" || ps.name === "__proto__") return undefined
    names.push(ps.name)
  }
  if (!ast.propertySignatures.every((ps) => isFlat(ps.type))) {
    // A nested struct: its compiled decoder, then Schema's path (the strict decode, interpreted).
    const compiled = compile(ast, "interpreter")
    return compiled === undefined ? undefined : { compiled, flat: undefined }
  }
  // A flat struct was decoded by Schema's JIT compiler where code can be generated, which is
  // where the compiled decoder exists.
  const compiled = compile(ast, "jit")
  // Lazily compiled on first use; semantics-preserving by Schema's contract, and interpreted
  // where code generation is forbidden.
  SchemaJITCompiler.enable(ast)
  return {
    compiled,
    flat: {
      names,
      declared: new Set(names),
      required: ast.propertySignatures.map((ps) => !(ps.type.context?.isOptional ?? false)),
      decode: SchemaParser.decodeUnknownEffect(parameters),
      field: ast.propertySignatures.map((ps) => SchemaParser.decodeUnknownEffect(Schema.make(ps.type)))
    }
  }
}

const isEnumerable = Object.prototype.propertyIsEnumerable

const hasOwn = Object.hasOwn

const hasUndeclaredKey = (flat: Flat, input: object): boolean => {
  // `for...in` walks enumerable string keys, inherited ones too: those are not excess.
  for (const key in input) {
    if (!flat.declared.has(key) && hasOwn(input, key)) return true
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
 * For an input the compiled decoder did not accept (or without one): the decoded input, exactly
 * as decoding with `{ errors: "first", onExcessProperty: "error" }` gives it, or `slow` when that
 * decoding would fail (or cannot be told without it). The path as it was before the compiled
 * decoder, unchanged, so every refusal is named (and every hostile input answered) as before;
 * the compiled decoder is not tried again.
 *
 * @internal
 */
export const decodeAfter = (plain: Plain, input: object): unknown => {
  const flat = plain.flat
  if (flat === undefined || hasUndeclaredKey(flat, input)) return slow
  const names = flat.names
  const required = flat.required
  const record = input as Readonly<Record<string, unknown>>
  for (let i = 0; i < names.length; i++) {
    // A missing required field fails: do not decode.
    if (required[i] && absent(record, names[i] as string)) return slow
  }
  const out = flat.decode(input)
  return Exit.isExit(out) && Exit.isSuccess(out) ? out.value : slow
}

/**
 * The first violation in contract order when it is a missing or an unexpected field, named
 * without decoding the whole input; `undefined` when the full diagnosis must name it.
 *
 * @internal
 */
export const violation = (plain: Plain, input: object): Violation.Violation | undefined => {
  const flat = plain.flat
  if (flat === undefined) return undefined
  const names = flat.names
  const record = input as Readonly<Record<string, unknown>>
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string
    if (absent(record, name)) {
      if (flat.required[i]) return Violation.missingField(name)
      continue
    }
    // A field with a problem of its own comes first: the full diagnosis describes it.
    const field = flat.field[i]
    if (field === undefined || succeeded(field(record[name])) !== true) return undefined
  }
  const keys = Object.keys(input)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string
    if (!flat.declared.has(key)) return Violation.unexpectedField(key)
  }
  return undefined
}
