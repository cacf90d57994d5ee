/**
 * A decoder compiled per parameters schema: one straight-line function that checks the types of
 * a struct and refuses its unexpected keys in a single pass, and answers the decoded input
 * exactly as Schema's strict decode (`{ errors: "first", onExcessProperty: "error" }`) would, or
 * `undefined`, "not accepted here": the caller then takes the path it took before, which names
 * the violation. The compiled function only ever accepts; it never describes a failure, and never
 * throws (an input whose reading throws is not accepted here, and that path decides).
 *
 * Covered: strings, numbers, booleans, literals, `null`, `undefined`, unknown values, nested
 * structs with string keys, arrays (`Schema.Array`), unions of these (when no two members could
 * build different values from one input), required and optional keys, and the checks of every
 * node (`Finite`, `Int`, `isGreaterThan`...), which are called as Schema calls them. Anything else
 * (transformations, index signatures, tuples, `oneOf` unions, symbol or `__proto__` keys,
 * constructor defaults, suspended schemas) is not compiled: `compile` answers `undefined`.
 *
 * The input is read as Schema reads it, and at least everything Schema reads (so it never accepts
 * an input Schema could not read): a declared key is present when `key in input` (inherited keys
 * count), its value is `input[key]`; the unexpected keys are the enumerable own keys, symbols
 * included, that the struct does not declare. The output is a fresh plain object (a fresh
 * array for arrays) with the declared keys in declared order, so nothing of the input's prototype
 * or identity reaches the tool. Field names are embedded in the source only through
 * `JSON.stringify`; literal values, checks and AST nodes are passed to it, never written into it.
 *
 * Where the platform forbids code generation (a Content-Security-Policy without `unsafe-eval`,
 * `node --disallow-code-generation-from-strings`, some edge runtimes), nothing is compiled: this
 * is tested once per `Function` constructor, and the callers keep Schema's path.
 *
 * @internal
 */
import { Schema, type SchemaAST } from "effect"

/**
 * A compiled decoder: the decoded input, or `undefined` when Schema's path must decide (an input
 * that is not an object, or an array, included). It never throws: when reading the input or a
 * check of the schema throws, it answers `undefined`.
 *
 * @internal
 */
export type Decoder = (input: unknown) => object | undefined

/**
 * Makes a function from parameter names and a body, as the `Function` constructor does.
 *
 * @internal
 */
export type CodeGenerator = (...source: Array<string>) => unknown

/**
 * Which of Schema's decoders the compiled one reads the input like. It must read at least what
 * that decoder reads, so that it never accepts an input that decoder could not read (a Proxy
 * whose `has` trap throws): `"interpreter"` asks `key in input` before reading every declared
 * key; `"jit"` (Schema's JIT compiler) asks it only for optional keys and for types that accept
 * `undefined`, and otherwise reads the key and refuses what is missing by its value.
 *
 * @internal
 */
export type Reads = "interpreter" | "jit"

/** Whether Schema's JIT compiler asks `key in input` before reading a required key of this type. */
const acceptsUndefined = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "Undefined":
    case "Void":
    case "Any":
    case "Unknown":
      return true
    case "Union":
      return ast.types.some(acceptsUndefined)
    default:
      return false
  }
}

/** The options the checks are called with, as the strict decode calls them. */
const strict: SchemaAST.ParseOptions = Object.freeze({ errors: "first", onExcessProperty: "error" } as const)

/**
 * Whether a code generator works here: it throws (`EvalError`) where code generation from
 * strings is forbidden.
 *
 * @internal
 */
export const canGenerate = (generator: CodeGenerator): boolean => {
  try {
    const made = generator("return 1")
    return typeof made === "function" && made() === 1
  } catch {
    return false
  }
}

let checked: CodeGenerator | undefined
let supported = false

/**
 * The platform's `Function` constructor when it may be used, tested once (and again only if
 * `globalThis.Function` is replaced); `undefined` where code generation is forbidden.
 *
 * @internal
 */
export const platformGenerator = (): CodeGenerator | undefined => {
  const generator: CodeGenerator = globalThis.Function
  if (checked !== generator) {
    checked = generator
    supported = canGenerate(generator)
  }
  return supported ? generator : undefined
}

/** The state of one compilation: the source lines and the values the source refers to. */
interface Emitter {
  readonly reads: Reads
  readonly lines: Array<string>
  readonly constants: Array<unknown>
  next: number
}

/** A fresh identifier for the generated source. */
const fresh = (e: Emitter, prefix: string): string => `${prefix}${e.next++}`

/** A value the generated code refers to, by a name bound when the function is made. */
const constant = (e: Emitter, value: unknown): string => {
  e.constants.push(value)
  return `k${e.constants.length - 1}`
}

/** What a node builds from an accepted input: the input itself, or a new value. */
type Shape = "same" | "object" | "array" | "anything"

const shapeOf = (ast: SchemaAST.AST): ReadonlyArray<Shape> => {
  switch (ast._tag) {
    case "Objects":
      return ["object"]
    case "Arrays":
      return ["array"]
    case "Unknown":
    case "Any":
      return ["anything"]
    case "Union":
      return ast.types.flatMap(shapeOf)
    default:
      return ["same"]
  }
}

/**
 * Whether at most one member of a union can accept any given input whenever a member builds a
 * new value: then which member Schema tries first cannot change the decoded value.
 */
const unambiguous = (union: SchemaAST.Union): boolean => {
  const shapes = union.types.flatMap(shapeOf)
  const objects = shapes.filter((s) => s === "object").length
  const arrays = shapes.filter((s) => s === "array").length
  if (objects + arrays === 0) return true
  return objects <= 1 && arrays <= 1 && !shapes.includes("anything")
}

const hasEncodingChecks = (ast: SchemaAST.AST): boolean =>
  "encodingChecks" in ast && (ast as { readonly encodingChecks?: unknown }).encodingChecks !== undefined

/**
 * Checks whose test is known, by identity: Schema's own `Finite` and `Int`, one filter each that
 * every schema using them shares, and what each tests (`isFinite`: `Number.isFinite`, `isInt`:
 * `Number.isSafeInteger`, read from `globalThis` at each call as Schema's filters read them). A
 * known check is called as its test, instead of through its `run`, whose normalizing of the
 * answer is most of the code the engine would otherwise inline into every decoder: the same
 * answer, accepted or not, for any value.
 */
const knownTests: ReadonlyMap<SchemaAST.Check<unknown>, { readonly run: unknown; readonly test: string }> = (() => {
  const known = new Map<SchemaAST.Check<unknown>, { readonly run: unknown; readonly test: string }>()
  for (const [schema, test] of [
    [Schema.Finite, "globalThis.Number.isFinite"],
    [Schema.Int, "globalThis.Number.isSafeInteger"]
  ] as const) {
    const check = schema.ast.checks?.[0]
    if (check?._tag === "Filter" && schema.ast.checks?.length === 1) known.set(check, { run: check.run, test })
  }
  return known
})()

/** The test of a known check, or `undefined`; a known check whose `run` was replaced is not known. */
const knownTest = (check: SchemaAST.Filter<unknown>): string | undefined => {
  const known = knownTests.get(check)
  return known !== undefined && known.run === check.run ? known.test : undefined
}

/** Emits the calls of a node's checks on its decoded value (every leaf filter must pass). */
const emitChecks = (e: Emitter, ast: SchemaAST.AST, value: string, fail: string): void => {
  const checks = ast.checks
  if (checks === undefined) return
  let node: string | undefined
  const walk = (list: ReadonlyArray<SchemaAST.Check<unknown>>): void => {
    for (const check of list) {
      if (check._tag === "FilterGroup") {
        walk(check.checks)
        continue
      }
      const test = knownTest(check)
      if (test !== undefined) {
        e.lines.push(`if (!${test}(${value})) ${fail}`)
        continue
      }
      node ??= constant(e, ast)
      e.lines.push(`if (${constant(e, check)}.run(${value}, ${node}, O)) ${fail}`)
    }
  }
  walk(checks)
}

/**
 * Emits the code that accepts `value` against `ast` or runs `fail` (a `return` or a labelled
 * `break`), and answers the expression of the decoded value; `undefined` when `ast` is not covered.
 */
const emit = (e: Emitter, ast: SchemaAST.AST, value: string, fail: string): string | undefined => {
  if (ast.encoding !== undefined || hasEncodingChecks(ast) || ast.context?.constructorDefault !== undefined) {
    return undefined
  }
  let out: string | undefined
  switch (ast._tag) {
    case "String":
    case "Number":
    case "Boolean":
      e.lines.push(`if (typeof ${value} !== "${ast._tag.toLowerCase()}") ${fail}`)
      out = value
      break
    case "Null":
      e.lines.push(`if (${value} !== null) ${fail}`)
      out = value
      break
    case "Undefined":
      e.lines.push(`if (${value} !== undefined) ${fail}`)
      out = value
      break
    case "Literal":
      e.lines.push(`if (${value} !== ${constant(e, ast.literal)}) ${fail}`)
      out = value
      break
    case "Unknown":
    case "Any":
      out = value
      break
    case "Objects":
      out = emitStruct(e, ast, value, fail)
      break
    case "Arrays":
      out = emitArray(e, ast, value, fail)
      break
    case "Union":
      out = emitUnion(e, ast, value, fail)
      break
    default:
      return undefined
  }
  if (out === undefined) return undefined
  emitChecks(e, ast, out, fail)
  return out
}

const emitStruct = (e: Emitter, ast: SchemaAST.Objects, input: string, fail: string): string | undefined => {
  if (ast.indexSignatures.length > 0) return undefined
  const keys: Array<string> = []
  for (const ps of ast.propertySignatures) {
    // `__proto__` is read and written differently by Schema; symbol keys are rare.
    if (typeof ps.name !== "string" || ps.name === "__proto__") return undefined
    keys.push(JSON.stringify(ps.name))
  }
  const { lines } = e
  // An object, not an array (`Array.isArray` throws on a revoked Proxy: inside the guard).
  lines.push(`if (typeof ${input} !== "object" || ${input} === null || A(${input})) ${fail}`)
  // Unexpected keys: enumerable own keys not declared. `for...in` also lists inherited
  // enumerable keys, which are not unexpected.
  const key = fresh(e, "key")
  const cases = keys.map((k) => `case ${k}: `).join("")
  lines.push(
    `for (const ${key} in ${input}) { switch (${key}) { ${cases}break; default: if (H(${input}, ${key})) ${fail} } }`
  )
  // The fields, in declared order: present when `key in input`, then read, as Schema reads them.
  const fields: Array<{ readonly key: string; readonly out: string; readonly present: string | undefined }> = []
  for (let n = 0; n < keys.length; n++) {
    const k = keys[n] as string
    const type = (ast.propertySignatures[n] as SchemaAST.PropertySignature).type
    const field = fresh(e, "field")
    if (type.context?.isOptional === true) {
      const present = fresh(e, "present")
      const out = fresh(e, "out")
      lines.push(`let ${present} = ${k} in ${input}, ${out};`)
      lines.push(`if (${present}) {`)
      lines.push(`const ${field} = ${input}[${k}];`)
      const decoded = emit(e, type, field, fail)
      if (decoded === undefined) return undefined
      lines.push(`${out} = ${decoded}; }`)
      fields.push({ key: k, out, present })
    } else {
      if (e.reads === "interpreter" || acceptsUndefined(type)) lines.push(`if (!(${k} in ${input})) ${fail}`)
      lines.push(`const ${field} = ${input}[${k}];`)
      const decoded = emit(e, type, field, fail)
      if (decoded === undefined) return undefined
      fields.push({ key: k, out: decoded, present: undefined })
    }
  }
  // Enumerable own symbol keys are unexpected too. They are checked last, so that an input its
  // fields refuse never pays for it: finding them costs more than all the rest.
  emitSymbolCheck(e, ast, keys, input, fail)
  // A fresh object, keys in declared order: a literal up to the first optional key, then stores.
  const first = fields.findIndex((f) => f.present !== undefined)
  const literal = first === -1 ? fields : fields.slice(0, first)
  const rest = first === -1 ? [] : fields.slice(first)
  const out = fresh(e, "struct")
  lines.push(`const ${out} = { ${literal.map((f) => `${f.key}: ${f.out}`).join(", ")} };`)
  for (const f of rest) {
    lines.push(`${f.present === undefined ? "" : `if (${f.present}) `}${out}[${f.key}] = ${f.out};`)
  }
  return out
}

/**
 * Up to this many declared keys, a struct's symbol keys are found by its probe (`probeOf`);
 * above it by listing them: the probe sets every key of the input, so its cost grows with them,
 * and `Object.getOwnPropertySymbols` costs about as much as the probe of six keys (measured on V8).
 */
const probeKeys = 4

/**
 * Emits the check that `input` has no enumerable own symbol key (its string keys are checked by
 * `for...in`). Small structs: `Object.assign` onto the struct's probe, a sealed object that holds
 * only the declared keys, walks every enumerable own key of the input, symbols included, on V8's
 * fast path, with no list of keys made, and throws at the first it cannot add: an undeclared one.
 * It reads the values too (what a getter throws is caught as well, see `source`), and is cleared
 * at once, so that it keeps nothing of the input. Larger structs: the symbols listed.
 */
const emitSymbolCheck = (
  e: Emitter,
  ast: SchemaAST.Objects,
  keys: ReadonlyArray<string>,
  input: string,
  fail: string
): void => {
  const { lines } = e
  if (keys.length <= probeKeys) {
    const probe = constant(e, probeOf(ast))
    const clear = keys.map((k) => `${probe}[${k}] = undefined;`).join(" ")
    lines.push(`try { S(${probe}, ${input}); } finally { ${clear} }`)
    return
  }
  const symbols = fresh(e, "symbols")
  const i = fresh(e, "i")
  lines.push(`const ${symbols} = Y(${input});`)
  lines.push(`for (let ${i} = 0; ${i} < ${symbols}.length; ${i}++) if (E.call(${input}, ${symbols}[${i}])) ${fail}`)
}

const emitArray = (e: Emitter, ast: SchemaAST.Arrays, input: string, fail: string): string | undefined => {
  // `Schema.Array(item)` only: no tuple elements, one rest type.
  const item = ast.rest[0]
  if (ast.elements.length > 0 || ast.rest.length !== 1 || item === undefined) return undefined
  const { lines } = e
  const length = fresh(e, "length")
  const out = fresh(e, "array")
  const i = fresh(e, "i")
  const element = fresh(e, "element")
  lines.push(`if (!A(${input})) ${fail}`)
  lines.push(`const ${length} = ${input}.length, ${out} = [];`)
  lines.push(`for (let ${i} = 0; ${i} < ${length}; ${i}++) {`)
  lines.push(`const ${element} = ${input}[${i}];`)
  const decoded = emit(e, item, element, fail)
  if (decoded === undefined) return undefined
  lines.push(`${out}[${i}] = ${decoded}; }`)
  return out
}

const emitUnion = (e: Emitter, ast: SchemaAST.Union, input: string, fail: string): string | undefined => {
  if (ast.options?.mode === "oneOf" || ast.types.length === 0 || !unambiguous(ast)) return undefined
  const { lines } = e
  // Schema reads the runtime type of the input before trying members (`Array.isArray`, which
  // throws on a revoked Proxy); a member that accepts anything reads nothing, so read it here.
  if (ast.types.flatMap(shapeOf).includes("anything")) lines.push(`A(${input});`)
  const out = fresh(e, "union")
  const done = fresh(e, "union_")
  lines.push(`let ${out}; ${done}: {`)
  for (const member of ast.types) {
    const next = fresh(e, "member_")
    lines.push(`${next}: {`)
    const decoded = emit(e, member, input, `break ${next};`)
    if (decoded === undefined) return undefined
    lines.push(`${out} = ${decoded}; break ${done}; }`)
  }
  lines.push(`${fail} }`)
  return out
}

/**
 * The source of a struct's decoder (its factory's body) and the values it refers to, or
 * `undefined` when the struct is not covered.
 *
 * @internal
 */
export const source = (
  ast: SchemaAST.Objects,
  reads: Reads
): { readonly body: string; readonly constants: ReadonlyArray<unknown> } | undefined => {
  const e: Emitter = { reads, lines: [], constants: [], next: 0 }
  const fail = "return undefined;"
  const out = emitStruct(e, ast, "input", fail)
  if (out === undefined) return undefined
  emitChecks(e, ast, out, fail)
  const bound = e.constants.map((_, i) => `k${i} = K[${i}]`)
  // Whatever reading the input throws (a getter, a Proxy trap, the probe of unexpected keys) or a
  // check throws, the answer is "not accepted here": the caller's path reads the input its own
  // way, as before, and what it meets decides.
  const body = [
    '"use strict";',
    ...(bound.length > 0 ? [`const ${bound.join(", ")};`] : []),
    "return function decode(input) {",
    "try {",
    ...e.lines,
    `return ${out};`,
    "} catch { return undefined; }",
    "};"
  ].join("\n")
  return { body, constants: e.constants }
}

const isArray = Array.isArray
const hasOwn = Object.hasOwn
const assign = Object.assign
const symbolsOf = Object.getOwnPropertySymbols
const isEnumerable = Object.prototype.propertyIsEnumerable

/**
 * A struct's probe: a sealed object with no prototype whose only keys are the declared ones,
 * each `undefined`, so that assigning any other key to it throws. Made from a literal whose
 * prototype is then removed, so that V8 keeps its properties fast (`Object.create(null)` makes
 * a dictionary, about a fifth slower here).
 */
const probeOf = (ast: SchemaAST.Objects): object => {
  const fields: Record<string, undefined> = {}
  for (const ps of ast.propertySignatures) {
    Object.defineProperty(fields, ps.name as string, {
      value: undefined,
      writable: true,
      enumerable: true,
      configurable: true
    })
  }
  return Object.seal(Object.setPrototypeOf(fields, null))
}

/**
 * The compiled decoder of a struct, or `undefined` when the struct is not covered or code cannot
 * be generated here (then nothing is generated, and Schema's path is kept).
 *
 * @internal
 */
export const compile = (
  ast: SchemaAST.Objects,
  reads: Reads,
  generator: CodeGenerator | undefined = platformGenerator()
): Decoder | undefined => {
  if (generator === undefined || ast.encoding !== undefined || hasEncodingChecks(ast)) return undefined
  const compiled = source(ast, reads)
  if (compiled === undefined) return undefined
  try {
    const factory = generator("K", "O", "A", "H", "S", "Y", "E", compiled.body)
    if (typeof factory !== "function") return undefined
    const decoder: unknown = factory(compiled.constants, strict, isArray, hasOwn, assign, symbolsOf, isEnumerable)
    return typeof decoder === "function" ? (decoder as Decoder) : undefined
  } catch {
    // Code generation refused after all (a policy that changed since it was tested).
    return undefined
  }
}
