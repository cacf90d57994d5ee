/**
 * The compiled decoder accepts exactly what Schema's strict decode accepts, with the same decoded
 * value. Through a toolset, every input gets the answer it got before the compiler existed: the
 * same violation, the same texts, hostile inputs included. Where code generation is forbidden
 * nothing is compiled, and the toolset is the one it was.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { createContext, runInNewContext } from "node:vm"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema, SchemaIssue, SchemaParser } from "effect"
import fc from "fast-check"
import * as Compile from "../src/Compile.ts"
import * as FastDecode from "../src/FastDecode.ts"
import { firstViolation } from "../src/Diagnose.ts"
import { MessageCatalog, Tool, Toolset, Violation } from "../src/index.ts"
import { type Field, fields, inputOf, names, parametersOf, valuesOf } from "./arbitraries.ts"
import { cases, parameters } from "./codegen.ts"

const strict = { errors: "first", onExcessProperty: "error" } as const
const all = { errors: "all", onExcessProperty: "error" } as const
const formatIssue = SchemaIssue.makeFormatterDefault()

/** The `Function` constructor of a context that forbids code generation from strings (as a CSP does). */
const restricted: FunctionConstructor = runInNewContext(
  "Function",
  createContext({}, { codeGeneration: { strings: false, wasm: false } })
)

/** Runs `f` with `globalThis.Function` replaced. */
const withFunction = <A>(replacement: FunctionConstructor, f: () => A): A => {
  const original = globalThis.Function
  globalThis.Function = replacement
  try {
    return f()
  } finally {
    globalThis.Function = original
  }
}

const isObject = (u: unknown): u is object => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * A value with its keys in order, its prototypes and the sign of zeros, to compare decoded values
 * exactly. Values that cannot be read without running their code (getters, Proxies: what an
 * `unknown` field passes through as it is) are compared as they are.
 */
const layout = (value: unknown): unknown => {
  if (Object.is(value, -0)) return "-0"
  if (typeof value !== "object" || value === null) return value
  try {
    if (Array.isArray(value)) return { dense: Object.keys(value).length === value.length, items: value.map(layout) }
    const entries = Reflect.ownKeys(value).map((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(value, key)
      return [key, descriptor !== undefined && "value" in descriptor ? layout(descriptor.value) : descriptor]
    })
    return { plain: Object.getPrototypeOf(value) === Object.prototype, entries }
  } catch {
    // The same value on both sides: the same number (the value itself would be read by `expect`).
    let id = unreadable.get(value)
    if (id === undefined) {
      id = unreadable.size
      unreadable.set(value, id)
    }
    return { unreadable: id }
  }
}
const unreadable = new Map<unknown, number>()

const toolOf = (parameters: Tool.Parameters) => Tool.make("t", { description: "t", parameters, run: () => Effect.void })

/**
 * The entry of a one-tool toolset, as it is now, or as it was before the compiler: the same
 * entry with the fast path built without compiled decoders (Schema's JIT compiler still decodes
 * flat structs, as it did).
 */
const entryOf = (parameters: Tool.Parameters, now: boolean): Toolset.Entry => {
  const entry = Toolset.entry(Toolset.make(toolOf(parameters)), "t")
  if (entry === undefined) throw new Error("no entry")
  return now ? entry : { ...entry, fast: FastDecode.plain(parameters, () => undefined) }
}

/** Schema alone, interpreted: the strict decode, then the diagnosis of every issue. */
const referenceOf = (parameters: Tool.Parameters) => {
  const decode = SchemaParser.decodeUnknownResult(parameters)
  const names = parameters.ast.propertySignatures.map((ps) => ps.name)
  return (input: unknown): Result.Result<unknown, Violation.Violation> => {
    if (!isObject(input)) return Result.fail(Violation.inputNotObject)
    const decoded = decode(input, strict)
    if (Result.isSuccess(decoded)) return Result.succeed(decoded.success)
    const every = decode(input, all)
    return Result.fail(
      firstViolation(Result.isFailure(every) ? every.failure : decoded.failure, names, input, formatIssue)
    )
  }
}

/**
 * The same answer: both decode to the same layout (keys in order, prototypes, signs of zeros;
 * compared as layouts because a decoded own `constructor` field confuses `toStrictEqual`), or
 * both refuse with the same violation and the same texts in both catalogues.
 */
const expectSameAnswer = (
  got: Result.Result<unknown, Violation.Violation>,
  expected: Result.Result<unknown, Violation.Violation>
) => {
  expect(got._tag).toBe(expected._tag)
  if (Result.isSuccess(got) && Result.isSuccess(expected))
    expect(layout(got.success)).toStrictEqual(layout(expected.success))
  if (Result.isFailure(got) && Result.isFailure(expected)) {
    expect(got.failure).toStrictEqual(expected.failure)
    for (const catalog of [MessageCatalog.english, MessageCatalog.spanish]) {
      expect(MessageCatalog.notExecuted(catalog, got.failure)).toBe(
        MessageCatalog.notExecuted(catalog, expected.failure)
      )
    }
  }
}

/** Parameters with their inputs: 20 per schema. */
const withInputs = <A>(inputs: (fields: ReadonlyArray<Field>) => fc.Arbitrary<A>) =>
  fields.chain((f) => fc.tuple(fc.constant(f), fc.array(inputs(f), { minLength: 20, maxLength: 20 })))

class Boom extends Error {}

const hostile = [
  "getter on a declared key",
  "getter on an undeclared key",
  "getter throwing a string",
  "revoked proxy",
  "ownKeys trap",
  "get trap",
  "has trap",
  "getPrototypeOf trap",
  "getOwnPropertyDescriptor trap",
  "nested revoked proxy",
  "nested getter",
  "proxy on the prototype chain, ownKeys trap",
  "proxy on the prototype chain, getPrototypeOf trap"
] as const

/**
 * An input whose reading throws somewhere (a getter, a Proxy trap, a revoked Proxy, at the root
 * or nested), made from a value of the parameters. Made inside the property, not by fast-check,
 * which would read it.
 */
const makeHostile = (f: ReadonlyArray<Field>, value: unknown, how: (typeof hostile)[number]): unknown => {
  const base: Record<string, unknown> = isObject(value) ? { ...value } : {}
  const first = (f[0] as Field).name
  const boom = () => {
    throw new Boom(`${how} threw`)
  }
  const trap = (name: string): ProxyHandler<object> => ({ [name]: boom })
  switch (how) {
    case "getter on a declared key":
      return Object.defineProperty(base, first, { get: boom, enumerable: true })
    case "getter on an undeclared key":
      return Object.defineProperty(base, "extra", { get: boom, enumerable: true })
    case "getter throwing a string":
      return Object.defineProperty(base, first, {
        get: () => {
          throw "a string"
        },
        enumerable: true
      })
    case "revoked proxy": {
      const { proxy, revoke } = Proxy.revocable(base, {})
      revoke()
      return proxy
    }
    case "ownKeys trap":
      return new Proxy(base, trap("ownKeys"))
    case "get trap":
      return new Proxy(base, trap("get"))
    case "has trap":
      return new Proxy(base, trap("has"))
    case "getPrototypeOf trap":
      return new Proxy(base, trap("getPrototypeOf"))
    case "getOwnPropertyDescriptor trap":
      return new Proxy(base, trap("getOwnPropertyDescriptor"))
    case "nested revoked proxy": {
      const { proxy, revoke } = Proxy.revocable({}, {})
      revoke()
      return { ...base, [first]: proxy }
    }
    case "nested getter":
      return { ...base, [first]: Object.defineProperty({}, "x", { get: boom, enumerable: true }) }
    case "proxy on the prototype chain, ownKeys trap":
      return Object.setPrototypeOf(base, new Proxy({}, trap("ownKeys")))
    case "proxy on the prototype chain, getPrototypeOf trap":
      return Object.setPrototypeOf(base, new Proxy({}, trap("getPrototypeOf")))
  }
}

/** Inputs of the parameters, and (one in five) hostile ones, as a recipe. */
const inputOrHostile = (f: ReadonlyArray<Field>) =>
  fc.oneof(
    { weight: 4, arbitrary: inputOf(f).map((input) => ({ input, how: undefined })) },
    {
      weight: 1,
      arbitrary: fc.record({ input: valuesOf({ kind: "struct", fields: f }, 0), how: fc.constantFrom(...hostile) })
    }
  )

describe("the compiled decoder", () => {
  it("accepts exactly what Schema's strict decode accepts, with the same decoded value", () => {
    let schemas = 0
    let compiled = 0
    let accepted = 0
    let refused = 0
    fc.assert(
      fc.property(withInputs(inputOf), ([f, inputs]) => {
        schemas++
        const ast = parametersOf(f).ast
        const decoders = [Compile.compile(ast, "jit"), Compile.compile(ast, "interpreter")]
        if (decoders[0] === undefined) return
        compiled++
        const reference = SchemaParser.decodeUnknownResult(parametersOf(f))
        for (const input of inputs) {
          // The caller hands it objects only.
          if (!isObject(input)) continue
          const expected = reference(input, strict)
          if (Result.isSuccess(expected)) accepted++
          else refused++
          for (const decoder of decoders) {
            const got = decoder?.(input)
            if (Result.isSuccess(expected)) {
              expect(got).not.toBeUndefined()
              expect(got).not.toBe(input)
              expect(layout(got)).toStrictEqual(layout(expected.success))
            } else {
              expect(got).toBeUndefined()
            }
          }
        }
      }),
      { numRuns: 300 }
    )
    // Most random parameters compile (the others hold a union two of whose members build values);
    // thousands of inputs are accepted and thousands refused.
    expect(compiled / schemas).toBeGreaterThan(0.7)
    expect(accepted).toBeGreaterThan(1000)
    expect(refused).toBeGreaterThan(1000)
  })

  it("through a toolset, answers every input as before: the same violations and texts, hostile inputs included", () => {
    let onCompiledPath = 0
    fc.assert(
      fc.property(withInputs(inputOrHostile), ([f, recipes]) => {
        const now = entryOf(parametersOf(f), true)
        const before = entryOf(parametersOf(f), false)
        expect(before.fast?.compiled).toBeUndefined()
        if (now.fast?.compiled !== undefined) onCompiledPath++
        for (const { input, how } of recipes) {
          const raw = how === undefined ? input : makeHostile(f, input, how)
          expectSameAnswer(Toolset.decodeInput(now, raw), Toolset.decodeInput(before, raw))
        }
      }),
      { numRuns: 300 }
    )
    expect(onCompiledPath).toBeGreaterThan(200)
  })

  it("gives the answers of Schema alone (strict decode, then the diagnosis) to inputs that can be read", () => {
    fc.assert(
      fc.property(withInputs(inputOf), ([f, inputs]) => {
        const now = entryOf(parametersOf(f), true)
        // Built and used here, before any toolset enables the JIT compiler on it: interpreted.
        const reference = referenceOf(parametersOf(f))
        for (const input of inputs) {
          expectSameAnswer(Toolset.decodeInput(now, input), reference(input))
        }
      }),
      { numRuns: 200 }
    )
  })
})

describe("hostile input", () => {
  const Pair = Schema.Struct({ path: Schema.String, limit: Schema.Finite })
  const entry = entryOf(Pair, true)
  const decode = (input: unknown) => Toolset.decodeInput(entry, input)

  it("an own `__proto__` key is an unexpected field, and pollutes nothing", () => {
    const input: unknown = JSON.parse('{"path":"a","limit":1,"__proto__":{"polluted":true}}')
    expect(decode(input)).toStrictEqual(Result.fail(Violation.unexpectedField("__proto__")))
    expect(Object.prototype).not.toHaveProperty("polluted")
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it("a declared `constructor` field is decoded into an own field of a plain object", () => {
    const WithConstructor = Schema.Struct({ constructor: Schema.String })
    expect(Compile.compile(WithConstructor.ast, "jit")).toBeTypeOf("function")
    const decoded = Toolset.decodeInput(entryOf(WithConstructor, true), { constructor: "x" })
    if (Result.isFailure(decoded)) throw new Error("refused")
    const value = decoded.success as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toStrictEqual(["constructor"])
    expect(value.constructor).toBe("x")
  })

  it("an absent field named like an Object.prototype member is read as Schema reads it (inherited), as before", () => {
    const WithToString = Schema.Struct({ a: Schema.String, toString: Schema.optionalKey(Schema.String) })
    expect(Compile.compile(WithToString.ast, "jit")).toBeTypeOf("function")
    const now = Toolset.decodeInput(entryOf(WithToString, true), { a: "x" })
    expectSameAnswer(now, Toolset.decodeInput(entryOf(WithToString, false), { a: "x" }))
    expect(now).toStrictEqual(Result.fail(Violation.wrongType("toString", { kind: "string" })))
  })

  it("field names are embedded as string literals: a name cannot inject code", () => {
    const name = names[names.length - 1] as string
    const Injected = Schema.Struct({ [name]: Schema.String, "a\\": Schema.optionalKey(Schema.Finite) })
    const decoder = Compile.compile(Injected.ast, "interpreter")
    expect(decoder).toBeTypeOf("function")
    expect(decoder?.({ [name]: "x", "a\\": 1 })).toStrictEqual({ [name]: "x", "a\\": 1 })
    expect(decoder?.({ [name]: 1 })).toBeUndefined()
    expect(globalThis).not.toHaveProperty("injected")
  })

  it("an array or a class instance where an object is expected gets the violation it got before", () => {
    const Nested = Schema.Struct({ opts: Schema.Struct({ depth: Schema.Finite }) })
    const now = entryOf(Nested, true)
    const before = entryOf(Nested, false)
    for (const input of [[], [{ depth: 1 }], { opts: [] }, { opts: [1] }, { opts: new Date(0) }, { opts: null }]) {
      expectSameAnswer(Toolset.decodeInput(now, input), Toolset.decodeInput(before, input))
    }
    expect(Toolset.decodeInput(now, [{ depth: 1 }])).toStrictEqual(Result.fail(Violation.inputNotObject))
    expect(Toolset.decodeInput(now, { opts: [] })).toStrictEqual(
      Result.fail(Violation.wrongType("opts", { kind: "object" }))
    )
  })

  it("a Proxy whose `has` trap throws gets the answer of the decoder Schema used before", () => {
    const hasThrows = (target: object) =>
      new Proxy(target, {
        has: () => {
          throw new Error("has boom")
        }
      })
    // A flat struct was decoded by Schema's JIT compiler, which does not ask `in` for a string.
    expect(Result.isSuccess(decode(hasThrows({ path: "a", limit: 1 })))).toBe(true)
    expectSameAnswer(
      decode(hasThrows({ path: "a", limit: 1 })),
      Toolset.decodeInput(entryOf(Pair, false), hasThrows({ path: "a", limit: 1 }))
    )
    // A nested struct was decoded by the interpreter, which asks `in` for every key.
    const Nested = Schema.Struct({ path: Schema.String, opts: Schema.Struct({ depth: Schema.Finite }) })
    const input = hasThrows({ path: "a", opts: { depth: 1 } })
    const now = Toolset.decodeInput(entryOf(Nested, true), input)
    expect(now).toStrictEqual(Result.fail(Violation.uncheckableInput("has boom")))
    expectSameAnswer(now, Toolset.decodeInput(entryOf(Nested, false), input))
  })

  it("a revoked Proxy passed to a union that accepts anything is refused, as Schema reads its type first", () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    for (const Loose of [
      Schema.Struct({ path: Schema.String, meta: Schema.optional(Schema.Unknown) }),
      Schema.Struct({ opts: Schema.Struct({ meta: Schema.NullOr(Schema.Unknown) }) })
    ]) {
      const input = "opts" in Loose.fields ? { opts: { meta: proxy } } : { path: "a", meta: proxy }
      const now = Toolset.decodeInput(entryOf(Loose, true), input)
      expect(Result.isFailure(now) && now.failure._tag).toBe("UncheckableInput")
      expectSameAnswer(now, Toolset.decodeInput(entryOf(Loose, false), input))
    }
  })

  it("a getter, a Proxy trap or a check that throws gives `UncheckableInput`, never a throw", () => {
    const throwing = Object.defineProperty({ limit: 1 }, "path", {
      get: () => {
        throw new Error("no path")
      },
      enumerable: true
    })
    expect(decode(throwing)).toStrictEqual(Result.fail(Violation.uncheckableInput("no path")))
    const { proxy, revoke } = Proxy.revocable({ path: "a", limit: 1 }, {})
    revoke()
    expect(Result.isFailure(decode(proxy)) && decode(proxy)).toMatchObject({ failure: { _tag: "UncheckableInput" } })
    const Checked = Schema.Struct({
      path: Schema.String.check(
        Schema.makeFilter(() => {
          throw new Error("the check threw")
        })
      )
    })
    expect(Compile.compile(Checked.ast, "jit")).toBeTypeOf("function")
    expect(Toolset.decodeInput(entryOf(Checked, true), { path: "a" })).toStrictEqual(
      Result.fail(Violation.uncheckableInput("the check threw"))
    )
  })
})

describe("known checks", () => {
  it("Schema's own Finite and Int are tested as such, other checks through their run: the same answers", () => {
    const numbers = [0, -0, 1, 1.5, -2, 2 ** 53, 2 ** 53 - 1, Number.NaN, Infinity, -Infinity, Number.MAX_VALUE]
    for (const [shared, own] of [
      [Schema.Finite, Schema.Number.check(Schema.isFinite())],
      [Schema.Int, Schema.Number.check(Schema.isInt())]
    ] as const) {
      const known = Compile.source(Schema.Struct({ n: shared }).ast, "jit")
      const general = Compile.source(Schema.Struct({ n: own }).ast, "jit")
      expect(known?.body).toMatch(/globalThis\.Number\.is(Finite|SafeInteger)\(/)
      expect(known?.body).not.toContain(".run(")
      expect(general?.body).toContain(".run(")
      const decoders = [Schema.Struct({ n: shared }), Schema.Struct({ n: own })].map((parameters) => ({
        compiled: Compile.compile(parameters.ast, "jit"),
        reference: SchemaParser.decodeUnknownResult(parameters)
      }))
      for (const n of numbers) {
        for (const { compiled, reference } of decoders) {
          const expected = reference({ n }, strict)
          if (Result.isSuccess(expected)) expect(layout(compiled?.({ n }))).toStrictEqual(layout(expected.success))
          else expect(compiled?.({ n })).toBeUndefined()
        }
      }
    }
  })
})

describe("decodeAtOnce, then decodeRest: decodeInput in two steps", () => {
  it("answers every input as before: accepted at once with the same value, or the rest gives the same answer", () => {
    let atOnce = 0
    let rest = 0
    fc.assert(
      fc.property(withInputs(inputOrHostile), ([f, recipes]) => {
        const now = entryOf(parametersOf(f), true)
        const before = entryOf(parametersOf(f), false)
        for (const { input, how } of recipes) {
          const raw = how === undefined ? input : makeHostile(f, input, how)
          const first = Toolset.decodeAtOnce(now, raw)
          if (first !== undefined) atOnce++
          else rest++
          const answer = first === undefined ? Toolset.decodeRest(now, raw) : Result.succeed(first)
          expectSameAnswer(answer, Toolset.decodeInput(before, raw))
          expectSameAnswer(Toolset.decodeInput(now, raw), answer)
        }
      }),
      { numRuns: 300 }
    )
    expect(atOnce).toBeGreaterThan(500)
    expect(rest).toBeGreaterThan(500)
  })

  it("decodeAtOnce never throws, and answers `undefined` for what is not an object, arrays and unreadable inputs", () => {
    const entry = entryOf(Schema.Struct({ path: Schema.String, limit: Schema.Finite }), true)
    const { proxy, revoke } = Proxy.revocable({ path: "a", limit: 1 }, {})
    revoke()
    for (const input of [
      undefined,
      null,
      0,
      "a",
      true,
      1n,
      Symbol("s"),
      () => 1,
      [],
      [{ path: "a", limit: 1 }],
      proxy
    ]) {
      expect(Toolset.decodeAtOnce(entry, input)).toBeUndefined()
    }
    expect(Toolset.decodeInput(entry, proxy)).toMatchObject({ failure: { _tag: "UncheckableInput" } })
    expect(Toolset.decodeAtOnce(entry, { path: "a", limit: 1 })).toStrictEqual({ path: "a", limit: 1 })
    // Parameters without a compiled decoder: always the rest.
    const empty = entryOf(Schema.Struct({}), true)
    expect(Toolset.decodeAtOnce(empty, {})).toBeUndefined()
    expect(Toolset.decodeRest(empty, {})).toStrictEqual(Result.succeed({}))
  })

  it("refuses an enumerable symbol key, and no other, for structs of one to six keys and nested ones", () => {
    const hidden = (value: object) => Object.defineProperty(value, Symbol("hidden"), { value: 1, enumerable: false })
    for (let size = 1; size <= 6; size++) {
      const fields: Record<string, Schema.String> = {}
      const value: Record<string, string> = {}
      for (let i = 0; i < size; i++) {
        fields[`k${i}`] = Schema.String
        value[`k${i}`] = "v"
      }
      const Flat = Schema.Struct(fields)
      const Nested = Schema.Struct({ inner: Flat })
      for (const [parameters, make] of [
        [Flat, (extra: object) => ({ ...value, ...extra })],
        [Nested, (extra: object) => ({ inner: { ...value, ...extra } })]
      ] as const) {
        const entry = entryOf(parameters, true)
        const reference = referenceOf(parameters)
        const symbol = make({ [Symbol("extra")]: 1 })
        expect(Toolset.decodeAtOnce(entry, symbol)).toBeUndefined()
        expectSameAnswer(Toolset.decodeInput(entry, symbol), reference(make({ [Symbol("extra")]: 1 })))
        expect(Result.isFailure(Toolset.decodeInput(entry, symbol))).toBe(true)
        const ok = hidden(make({}))
        expect(Toolset.decodeAtOnce(entry, ok)).toStrictEqual(make({}))
        expectSameAnswer(Toolset.decodeInput(entry, ok), reference(hidden(make({}))))
      }
    }
  })

  it("keeps nothing of the input: the values it checked can be collected", async () => {
    setFlagsFromString("--expose-gc")
    const gc = runInNewContext("gc") as () => void
    const Loose = Schema.Struct({ path: Schema.String, meta: Schema.Unknown })
    const entry = entryOf(Loose, true)
    const refs: Array<WeakRef<object>> = []
    const decode = (extra: object) => {
      const meta = { big: "x".repeat(1000) }
      refs.push(new WeakRef(meta))
      return Toolset.decodeAtOnce(entry, { path: "a", meta, ...extra })
    }
    expect(decode({})).toBeDefined()
    // Refused by the probe, after it had been given `meta`.
    expect(decode({ [Symbol("extra")]: 1 })).toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 0))
    gc()
    await new Promise((resolve) => setTimeout(resolve, 0))
    gc()
    expect(refs.map((ref) => ref.deref())).toStrictEqual([undefined, undefined])
  })

  it("a getter that decodes another input with the same decoder, while it is checked, changes no answer", () => {
    const Pair = Schema.Struct({ path: Schema.String, limit: Schema.Finite })
    const now = entryOf(Pair, true)
    const before = entryOf(Pair, false)
    const inner = [
      { path: "inner", limit: 2 },
      { path: "inner", limit: 2, extra: 1 },
      { path: "inner", limit: 2, [Symbol("s")]: 1 }
    ]
    const seen: Array<readonly [number, Result.Result<unknown, Violation.Violation>]> = []
    const reentrant = (entry: Toolset.Entry, extra: object) =>
      Object.defineProperty({ limit: 1, ...extra }, "path", {
        enumerable: true,
        get: () => {
          inner.forEach((input, i) => {
            seen.push([i, Toolset.decodeInput(entry, input)])
          })
          return "outer"
        }
      })
    for (const extra of [{}, { extra: 1 }, { [Symbol("extra")]: 1 }]) {
      expectSameAnswer(
        Toolset.decodeInput(now, reentrant(now, extra)),
        Toolset.decodeInput(before, reentrant(before, extra))
      )
    }
    // Every decode made inside a getter answered as it does outside.
    expect(seen.length).toBeGreaterThan(0)
    for (const [i, answer] of seen) expectSameAnswer(answer, Toolset.decodeInput(before, inner[i]))
  })

  it("a huge input (ten thousand unexpected keys) refused as before; a thousand declared keys, a symbol among them refused", () => {
    const Pair = Schema.Struct({ path: Schema.String, limit: Schema.Finite })
    const now = entryOf(Pair, true)
    const before = entryOf(Pair, false)
    const huge = (symbol: boolean) => {
      const input: Record<PropertyKey, unknown> = { path: "a", limit: 1 }
      for (let i = 0; i < 10_000; i++) input[`k${i}`] = i
      if (symbol) input[Symbol("extra")] = 1
      return input
    }
    expectSameAnswer(Toolset.decodeInput(now, huge(false)), Toolset.decodeInput(before, huge(false)))
    expect(Toolset.decodeInput(now, huge(false))).toStrictEqual(Result.fail(Violation.unexpectedField("k0")))
    const manyDeclared = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`f${i}`, Schema.Finite]))
    const Wide = Schema.Struct(manyDeclared)
    const wide = entryOf(Wide, true)
    const value = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`f${i}`, i]))
    expect(Toolset.decodeAtOnce(wide, value)).toStrictEqual(value)
    expect(Toolset.decodeAtOnce(wide, { ...value, [Symbol("s")]: 1 })).toBeUndefined()
  })
})

describe("where code generation is forbidden", () => {
  it("nothing is compiled: the restriction is detected, once per Function constructor", () => {
    expect(Compile.canGenerate(restricted)).toBe(false)
    expect(Compile.canGenerate(globalThis.Function)).toBe(true)
    expect(Compile.compile(parameters.ast, "interpreter", restricted)).toBeUndefined()
    let tried = 0
    const counting = new Proxy(restricted, {
      apply: (target, self, args) => {
        tried++
        return Reflect.apply(target, self, args)
      }
    })
    withFunction(counting, () => {
      expect(Compile.platformGenerator()).toBeUndefined()
      expect(Compile.compile(parameters.ast, "interpreter")).toBeUndefined()
      expect(Compile.platformGenerator()).toBeUndefined()
    })
    expect(tried).toBe(1)
    // A toolset built there has no compiled decoder, and answers as the one built here.
    // (A new struct of the same fields: what is built from a schema is cached.)
    const fresh = Schema.Struct(parameters.fields)
    const there = withFunction(restricted, () => Toolset.entry(Toolset.make(toolOf(fresh)), "t"))
    expect(there?.fast).toBeUndefined()
    const Flat = Schema.Struct({ path: Schema.String, limit: Schema.Finite })
    const flatThere = withFunction(restricted, () => Toolset.entry(Toolset.make(toolOf(Flat)), "t"))
    expect(flatThere?.fast?.compiled).toBeUndefined()
    expect(flatThere?.fast?.flat).toBeDefined()
    const here = entryOf(parameters, true)
    for (const input of cases) {
      if (there !== undefined) expectSameAnswer(Toolset.decodeInput(there, input), Toolset.decodeInput(here, input))
    }
    expect(Compile.platformGenerator()).toBe(globalThis.Function)
    expect(Compile.compile(parameters.ast, "interpreter")).toBeTypeOf("function")
  })

  it("under `node --disallow-code-generation-from-strings`, a toolset answers as it does here", () => {
    const script = fileURLToPath(new URL("./codegen.ts", import.meta.url))
    const run = spawnSync(
      process.execPath,
      ["--disable-warning=ExperimentalWarning", "--disallow-code-generation-from-strings", script],
      { encoding: "utf8", timeout: 45_000 }
    )
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    const there = JSON.parse(run.stdout) as { readonly compiled: boolean; readonly answers: unknown }
    expect(there.compiled).toBe(false)
    const entry = entryOf(parameters, true)
    expect(entry.fast?.compiled).toBeTypeOf("function")
    expect(there.answers).toStrictEqual(
      JSON.parse(JSON.stringify(cases.map((input) => Toolset.decodeInput(entry, input))))
    )
  }, 60_000)
})
