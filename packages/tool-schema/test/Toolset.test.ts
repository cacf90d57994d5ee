import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { pipe } from "effect/Function"
import { Tool, Toolset, Violation } from "../src/index.ts"
import { Checked, Kinds, kindsInput, Pair, Read, Reversed, toolset, violationOf } from "./fixtures.ts"

describe("Toolset.decode: success", () => {
  it("gives the typed call: id, name, the tool and the decoded input", () => {
    const decoded = Toolset.decode(toolset, { id: "toolu_01", name: "pair", input: { a: "x", b: 2 } })
    assert.isTrue(Result.isSuccess(decoded))
    if (Result.isFailure(decoded)) return
    const call = decoded.success
    expect(call.id).toBe("toolu_01")
    expect(call.name).toBe("pair")
    expect(call.tool).toBe(Pair)
    expect(call.input).toEqual({ a: "x", b: 2 })
    // The call is discriminated by name: narrowing gives the tool's own input type.
    if (call.name === "pair") {
      const a: string = call.input.a
      const b: number = call.input.b
      expect([a, b]).toEqual(["x", 2])
    }
  })

  it("is dual: the data-last form decodes the same", () => {
    const call = { id: "c", name: "read", input: { path: "a.txt" } }
    const first = Toolset.decode(toolset, call)
    const last = Toolset.decode(call)(toolset)
    expect(last).toEqual(first)
    expect(Result.getOrThrow(last).input).toEqual({ path: "a.txt" })
  })

  it("accepts every kind of field with valid values, optional keys absent", () => {
    const decoded = Result.getOrThrow(Toolset.decode(toolset, { id: "k", name: "kinds", input: kindsInput }))
    expect(decoded.input).toEqual(kindsInput)
    expect(Object.keys(decoded.input)).toEqual(["s", "f", "i", "flag", "tags", "mode"])
  })

  it("accepts optional keys when present and valid, nested struct included", () => {
    const input = { ...kindsInput, limit: 3, opts: { depth: 0.5 } }
    const decoded = Result.getOrThrow(Toolset.decode(toolset, { id: "k", name: "kinds", input }))
    expect(decoded.input).toEqual(input)
  })

  it("does not mutate the raw input", () => {
    const input = { a: "x", b: 1, extra: true }
    const before = JSON.stringify(input)
    violationOf("pair", input)
    expect(JSON.stringify(input)).toBe(before)
  })
})

describe("Toolset.decode: unknown tool and non-object input", () => {
  it("refuses a name the toolset does not have", () => {
    expect(violationOf("ghost", { path: "a" })).toEqual({ _tag: "UnknownTool", name: "ghost" })
  })

  it("does not find names on Object.prototype", () => {
    expect(violationOf("constructor", {})).toEqual({ _tag: "UnknownTool", name: "constructor" })
    expect(violationOf("toString", {})).toEqual({ _tag: "UnknownTool", name: "toString" })
    expect(violationOf("__proto__", {})).toEqual({ _tag: "UnknownTool", name: "__proto__" })
  })

  it("is case-sensitive on names", () => {
    expect(violationOf("Read", { path: "a" })).toEqual({ _tag: "UnknownTool", name: "Read" })
  })

  it.each([
    ["null", null],
    ["an array", ["a.txt"]],
    ["an empty array", []],
    ["a string", "a.txt"],
    ["a number", 42],
    ["a boolean", true],
    ["undefined", undefined]
  ])("refuses %s as input: InputNotObject", (_label, input) => {
    expect(violationOf("read", input)).toEqual({ _tag: "InputNotObject" })
  })

  it("unknown tool beats everything else", () => {
    expect(violationOf("ghost", null)).toEqual({ _tag: "UnknownTool", name: "ghost" })
    expect(violationOf("ghost", [1, 2])).toEqual({ _tag: "UnknownTool", name: "ghost" })
    expect(violationOf("ghost", { b: "1", x: 1 })).toEqual({ _tag: "UnknownTool", name: "ghost" })
    expect(violationOf("", {})).toEqual({ _tag: "UnknownTool", name: "" })
  })
})

describe("Toolset.decode: missing and wrong fields", () => {
  it("reports a missing required field", () => {
    expect(violationOf("read", {})).toEqual({ _tag: "MissingField", field: "path" })
  })

  it("a string field given a number: WrongType string", () => {
    expect(violationOf("read", { path: 7 })).toEqual({ _tag: "WrongType", field: "path", expected: { kind: "string" } })
  })

  it("a string field given null: WrongType string (null is not absence)", () => {
    expect(violationOf("read", { path: null })).toEqual({
      _tag: "WrongType",
      field: "path",
      expected: { kind: "string" }
    })
  })

  it("Schema.Finite given a string: WrongType number, nothing coerced", () => {
    expect(violationOf("kinds", { ...kindsInput, f: "1" })).toEqual({
      _tag: "WrongType",
      field: "f",
      expected: { kind: "number" }
    })
    expect(violationOf("pair", { a: "x", b: "1" })).toEqual({
      _tag: "WrongType",
      field: "b",
      expected: { kind: "number" }
    })
  })

  it("Schema.Int given 1.5: InvalidValue 'an integer'", () => {
    expect(violationOf("kinds", { ...kindsInput, i: 1.5 })).toEqual({
      _tag: "InvalidValue",
      field: "i",
      expected: "an integer"
    })
  })

  it("Schema.Int given a string: WrongType integer", () => {
    expect(violationOf("kinds", { ...kindsInput, i: "1" })).toEqual({
      _tag: "WrongType",
      field: "i",
      expected: { kind: "integer" }
    })
  })

  it("Schema.Boolean given the string 'true': WrongType boolean", () => {
    expect(violationOf("kinds", { ...kindsInput, flag: "true" })).toEqual({
      _tag: "WrongType",
      field: "flag",
      expected: { kind: "boolean" }
    })
    expect(violationOf("kinds", { ...kindsInput, flag: 1 })).toEqual({
      _tag: "WrongType",
      field: "flag",
      expected: { kind: "boolean" }
    })
  })

  it("Schema.Array given a string: WrongType array", () => {
    expect(violationOf("kinds", { ...kindsInput, tags: "p,q" })).toEqual({
      _tag: "WrongType",
      field: "tags",
      expected: { kind: "array" }
    })
  })

  it("Schema.Literals given another value: WrongType with the literal values", () => {
    expect(violationOf("kinds", { ...kindsInput, mode: "c" })).toEqual({
      _tag: "WrongType",
      field: "mode",
      expected: { kind: "literal", values: ["a", "b"] }
    })
  })

  it("an optional key may be absent but, when present, must have its type", () => {
    expect(violationOf("kinds", { ...kindsInput, limit: "3" })).toEqual({
      _tag: "WrongType",
      field: "limit",
      expected: { kind: "integer" }
    })
    expect(violationOf("kinds", { ...kindsInput, limit: 2.5 })).toEqual({
      _tag: "InvalidValue",
      field: "limit",
      expected: "an integer"
    })
    // optionalKey: the key may be missing, but `undefined` is not a value of the field
    expect(violationOf("kinds", { ...kindsInput, limit: undefined })).toEqual({
      _tag: "WrongType",
      field: "limit",
      expected: { kind: "integer" }
    })
  })

  it("a nested struct field of the wrong type reports its dotted path", () => {
    expect(violationOf("kinds", { ...kindsInput, opts: { depth: "deep" } })).toEqual({
      _tag: "WrongType",
      field: "opts.depth",
      expected: { kind: "number" }
    })
    expect(violationOf("kinds", { ...kindsInput, opts: {} })).toEqual({ _tag: "MissingField", field: "opts.depth" })
    expect(violationOf("kinds", { ...kindsInput, opts: { depth: 1, z: 0 } })).toEqual({
      _tag: "UnexpectedField",
      field: "opts.z"
    })
    expect(violationOf("kinds", { ...kindsInput, opts: "deep" })).toEqual({
      _tag: "WrongType",
      field: "opts",
      expected: { kind: "object" }
    })
  })

  it("an array element of the wrong type reports its index path", () => {
    expect(violationOf("kinds", { ...kindsInput, tags: ["p", 1] })).toEqual({
      _tag: "WrongType",
      field: "tags[1]",
      expected: { kind: "string" }
    })
  })
})

describe("Toolset.decode: unexpected fields are never dropped", () => {
  it("refuses an input with a field the tool does not declare", () => {
    expect(violationOf("read", { path: "a.txt", encoding: "utf8" })).toEqual({
      _tag: "UnexpectedField",
      field: "encoding"
    })
  })

  // BUG (reported): Schema.Struct({}) accepts any non-nullish value and keeps its keys, so a
  // tool without parameters runs with whatever fields the model invented.
  it("a tool without parameters refuses any field", () => {
    const Now = Tool.make("now", { description: "The time", parameters: Schema.Struct({}), run: () => "" })
    const now = Toolset.make(Now)
    expect(Result.getOrThrow(Toolset.decode(now, { id: "n", name: "now", input: {} })).input).toEqual({})
    expect(Toolset.decode(now, { id: "n", name: "now", input: { tz: "UTC" } })).toEqual(
      Result.fail({ _tag: "UnexpectedField", field: "tz" })
    )
  })

  it("reports the first unexpected field in input order", () => {
    expect(violationOf("pair", { z: 1, a: "s", y: 2, b: 1 })).toEqual({ _tag: "UnexpectedField", field: "z" })
    expect(violationOf("pair", { a: "s", y: 2, b: 1, z: 1 })).toEqual({ _tag: "UnexpectedField", field: "y" })
  })

  it("refuses the seed's `rutas` instead of `ruta` as a missing field first", () => {
    const Leer = Tool.make("leer", {
      description: "Lee un fichero",
      parameters: Schema.Struct({ ruta: Schema.String }),
      run: ({ ruta }) => ruta
    })
    const decoded = Toolset.decode(Toolset.make(Leer), {
      id: "t1",
      name: "leer",
      input: { rutas: ["recetas/salmorejo.txt", "lista.txt"] }
    })
    expect(decoded).toEqual(Result.fail({ _tag: "MissingField", field: "ruta" }))
  })
})

describe("Toolset.decode: the order of the contract", () => {
  it("a missing, b wrong, x unexpected: missing 'a'", () => {
    expect(violationOf("pair", { b: "1", x: 1 })).toEqual({ _tag: "MissingField", field: "a" })
    expect(violationOf("pair", { b: 1, x: 1 })).toEqual({ _tag: "MissingField", field: "a" })
  })

  it("a wrong, b missing, x unexpected: wrong type 'a'", () => {
    expect(violationOf("pair", { a: 1, x: 1 })).toEqual({ _tag: "WrongType", field: "a", expected: { kind: "string" } })
  })

  it("b wrong comes before x unexpected", () => {
    expect(violationOf("pair", { a: "s", b: "s", x: 1 })).toEqual({
      _tag: "WrongType",
      field: "b",
      expected: { kind: "number" }
    })
    // whatever the input order
    expect(violationOf("pair", { x: 1, b: "s", a: "s" })).toEqual({
      _tag: "WrongType",
      field: "b",
      expected: { kind: "number" }
    })
  })

  it("a missing before b missing", () => {
    expect(violationOf("pair", {})).toEqual({ _tag: "MissingField", field: "a" })
  })

  it("declared order wins over input order and over alphabetical order", () => {
    // Reversed declares b, then a.
    expect(violationOf("reversed", { a: 1, b: 2 })).toEqual({
      _tag: "WrongType",
      field: "b",
      expected: { kind: "string" }
    })
    expect(violationOf("reversed", { a: 1 })).toEqual({ _tag: "MissingField", field: "b" })
    expect(violationOf("reversed", { b: "s" })).toEqual({ _tag: "MissingField", field: "a" })
  })

  it("a later field's problem does not hide an earlier field's", () => {
    // s is fine, f is wrong, i is missing, mode is wrong, x is unexpected: f first
    const { i: _i, ...withoutI } = kindsInput
    expect(violationOf("kinds", { ...withoutI, f: "1", mode: "z", x: 0 })).toEqual({
      _tag: "WrongType",
      field: "f",
      expected: { kind: "number" }
    })
    // i missing (declared third) before mode wrong and x unexpected, both earlier in the input
    const { i: _i2, mode: _mode, ...rest } = kindsInput
    expect(violationOf("kinds", { x: 0, mode: "z", ...rest })).toEqual({ _tag: "MissingField", field: "i" })
  })

  it("input not an object comes before every field", () => {
    expect(violationOf("pair", ["a", 1])).toEqual({ _tag: "InputNotObject" })
  })
})

describe("Toolset.decode: nothing is coerced", () => {
  it.each([
    [
      "the string '1' for a Finite",
      { a: "s", b: "1" },
      { _tag: "WrongType", field: "b", expected: { kind: "number" } }
    ],
    ["a number for a String", { a: 1, b: 1 }, { _tag: "WrongType", field: "a", expected: { kind: "string" } }],
    ["true for a String", { a: true, b: 1 }, { _tag: "WrongType", field: "a", expected: { kind: "string" } }],
    ["['s'] for a String", { a: ["s"], b: 1 }, { _tag: "WrongType", field: "a", expected: { kind: "string" } }],
    ["null for a Finite", { a: "s", b: null }, { _tag: "WrongType", field: "b", expected: { kind: "number" } }]
  ] as const)("%s is a violation", (_label, input, expected) => {
    expect(violationOf("pair", input)).toEqual(expected)
  })

  it("a valid call keeps its exact values", () => {
    const decoded = Result.getOrThrow(Toolset.decode(toolset, { id: "c", name: "pair", input: { a: "007", b: 7 } }))
    expect(decoded.input).toStrictEqual({ a: "007", b: 7 })
  })
})

describe("Toolset.make / merge / get", () => {
  it("throws an Error naming a duplicated tool", () => {
    const Other = Tool.make("read", {
      description: "Another read",
      parameters: Schema.Struct({ file: Schema.String }),
      run: () => ""
    })
    expect(() => Toolset.make(Read, Pair, Other)).toThrowError(new Error("Toolset.make: two tools are named 'read'"))
  })

  it("keeps the tools in the given order", () => {
    expect(toolset.tools.map((t) => t.name)).toEqual(["pair", "reversed", "kinds", "read"])
    expect(Toolset.isToolset(toolset)).toBe(true)
    expect(Toolset.isToolset({ tools: [] })).toBe(false)
    expect(Toolset.isToolset(null)).toBe(false)
  })

  it("get finds a tool by name, undefined otherwise", () => {
    expect(Toolset.get(toolset, "kinds")).toBe(Kinds)
    expect(Toolset.get(toolset, "ghost")).toBeUndefined()
  })

  it("merge: tools of the second replace same-named tools of the first", () => {
    const NewRead = Tool.make("read", {
      description: "Reads a file, v2",
      parameters: Schema.Struct({ file: Schema.String }),
      run: ({ file }) => file
    })
    const merged = Toolset.merge(Toolset.make(Read, Pair), Toolset.make(NewRead, Reversed))
    expect(merged.tools.map((t) => t.name)).toEqual(["pair", "read", "reversed"])
    expect(Toolset.get(merged, "read")).toBe(NewRead)
    // the replaced tool's schema is gone: decoding uses the new one
    expect(Toolset.decode(merged, { id: "c", name: "read", input: { path: "a" } })).toEqual(
      Result.fail({ _tag: "MissingField", field: "file" })
    )
    expect(Result.getOrThrow(Toolset.decode(merged, { id: "c", name: "read", input: { file: "a" } })).tool).toBe(
      NewRead
    )
  })

  it("entry finds the tool of each name, however names alternate, in each toolset and its copies", () => {
    const first = Toolset.make(Read, Pair)
    const second = Toolset.merge(first, Toolset.make(Reversed))
    const names = ["read", "pair", "read", "read", "ghost", "reversed", "pair", "toString", "__proto__", "read"]
    for (let round = 0; round < 3; round++) {
      for (const name of names) {
        // Names made anew each time, as a model's reply is parsed: equal, not the same string.
        const fresh = `${name} `.trim()
        for (const set of [first, second, { ...first }]) {
          const expected = set.tools.find((tool) => tool.name === name)
          expect(Toolset.entry(set, fresh)?.tool).toBe(expected)
        }
      }
    }
    // A toolset whose map of entries is another's (a copy that replaced it): its own entries.
    const swapped = { ...first, entries: Toolset.make(Pair).entries }
    expect(Toolset.entry(first, "read")?.tool).toBe(Read)
    expect(Toolset.entry(swapped, "read")).toBeUndefined()
    expect(Toolset.entry(swapped, "pair")?.tool).toBe(Pair)
    expect(Toolset.entry(first, "pair")?.tool).toBe(Pair)
  })

  it("merge is dual", () => {
    const merged = pipe(Toolset.make(Read), Toolset.merge(Toolset.make(Pair)))
    expect(merged.tools.map((t) => t.name)).toEqual(["read", "pair"])
  })
})

describe("Tool.make", () => {
  it("fills MCP's default annotations and merges given ones", () => {
    expect(Read.annotations).toEqual({ readOnly: false, destructive: true, idempotent: false, openWorld: true })
    const Safe = Tool.make("safe", {
      description: "",
      parameters: Schema.Struct({}),
      annotations: { readOnly: true, title: "Safe" },
      run: () => ""
    })
    expect(Safe.annotations).toEqual({
      readOnly: true,
      destructive: true,
      idempotent: false,
      openWorld: true,
      title: "Safe"
    })
    expect(Tool.isIdempotent(Safe)).toBe(true)
    expect(Tool.isIdempotent(Read)).toBe(false)
  })

  it("renders content: strings as they are, undefined as '', other values as JSON", () => {
    expect(Tool.renderValue("a\nb")).toBe("a\nb")
    expect(Tool.renderValue(undefined)).toBe("")
    expect(Tool.renderValue({ a: [1, null] })).toBe('{"a":[1,null]}')
    expect(Tool.renderValue(3)).toBe("3")
    expect(Tool.renderValue(null)).toBe("null")
    expect(Tool.renderValue(10n)).toBe("10")
    const cyclic: { self?: unknown } = {}
    cyclic.self = cyclic
    expect(Tool.renderValue(cyclic)).toBe('{"self":"[Circular]"}')
  })

  it("the default failure message is an error's message, else the rendered value", () => {
    const T = Tool.make("t", { description: "", parameters: Schema.Struct({}), run: () => "" })
    const failureMessage = T.failureMessage as (e: unknown) => string
    expect(failureMessage({ _tag: "E", message: "bad path" })).toBe("bad path")
    expect(failureMessage("plain")).toBe("plain")
    expect(failureMessage({ code: 2 })).toBe('{"code":2}')
  })

  it.effect("the run function receives the decoded input and the call id", () =>
    Effect.gen(function* () {
      const seen: Array<unknown> = []
      const Echo = Tool.make("echo", {
        description: "",
        parameters: Schema.Struct({ v: Schema.String }),
        run: (input, context) => Effect.sync(() => seen.push([input, context]))
      })
      const call = Result.getOrThrow(Toolset.decode(Toolset.make(Echo), { id: "i9", name: "echo", input: { v: "x" } }))
      const out = Echo.run(call.input, { id: call.id })
      if (!Effect.isEffect(out)) throw new Error("expected an Effect")
      yield* out
      expect(seen).toEqual([[{ v: "x" }, { id: "i9" }]])
    })
  )
})

describe("Violation constructors", () => {
  it("build plain JSON-ready values", () => {
    expect(Violation.unknownTool("x")).toEqual({ _tag: "UnknownTool", name: "x" })
    expect(Violation.inputNotObject).toEqual({ _tag: "InputNotObject" })
    expect(Violation.missingField("f")).toEqual({ _tag: "MissingField", field: "f" })
    expect(Violation.wrongType("f", { kind: "string" })).toEqual({
      _tag: "WrongType",
      field: "f",
      expected: { kind: "string" }
    })
    expect(Violation.invalidValue("f", "an integer")).toEqual({
      _tag: "InvalidValue",
      field: "f",
      expected: "an integer"
    })
    expect(Violation.unexpectedField("f")).toEqual({ _tag: "UnexpectedField", field: "f" })
    expect(Violation.invalidInput("m")).toEqual({ _tag: "InvalidInput", message: "m" })
    expect(JSON.parse(JSON.stringify(Violation.missingField("f")))).toEqual({ _tag: "MissingField", field: "f" })
  })
})

describe("Toolset.decode: refinements", () => {
  const Range = Tool.make("range", {
    description: "A range",
    parameters: Schema.Struct({
      from: Schema.Finite,
      to: Schema.Finite,
      label: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1)))
    }).check(Schema.makeFilter((r) => r.from <= r.to || "from must not exceed to")),
    run: ({ from, to }) => to - from
  })
  const ranges = Toolset.make(Range)
  const decodeRange = (input: unknown) => Toolset.decode(ranges, { id: "r", name: "range", input })

  it("a field refinement gives InvalidValue with the schema's expectation", () => {
    expect(decodeRange({ from: 1, to: 2, label: "" })).toEqual(
      Result.fail({ _tag: "InvalidValue", field: "label", expected: "a value with a length of at least 1" })
    )
  })

  it("a struct-level refinement gives InvalidInput with its message", () => {
    expect(decodeRange({ from: 3, to: 2 })).toEqual(
      Result.fail({ _tag: "InvalidInput", message: "from must not exceed to" })
    )
    expect(Result.getOrThrow(decodeRange({ from: 1, to: 2 })).input).toEqual({ from: 1, to: 2 })
  })

  it("field problems come before the struct-level refinement", () => {
    expect(decodeRange({ from: 3, to: "2" })).toEqual(
      Result.fail({ _tag: "WrongType", field: "to", expected: { kind: "number" } })
    )
    expect(decodeRange({ from: 3, to: 2, x: 1 })).toEqual(Result.fail({ _tag: "UnexpectedField", field: "x" }))
  })
})

describe("Toolset.decode: input that throws while it is checked", () => {
  const Nested = Tool.make("nested", {
    description: "A struct inside: not on the fast path",
    parameters: Schema.Struct({ opts: Schema.Struct({ depth: Schema.Finite }) }),
    run: ({ opts }) => opts.depth
  })
  const hostile = Toolset.make(Read, Nested, Checked)
  const decodeHostile = (name: string, input: unknown) => Toolset.decode(hostile, { id: "h", name, input })
  const uncheckable = (message: string) => Result.fail(Violation.uncheckableInput(message))
  const trap = (name: "ownKeys" | "has" | "get" | "getOwnPropertyDescriptor") =>
    new Proxy(
      { path: "a.txt" },
      {
        [name]: () => {
          throw new Error(`${name} boom`)
        }
      }
    )

  it("a throwing getter is refused with what it threw, on the fast and the slow path", () => {
    const getter = {
      get path(): string {
        throw new Error("getter boom")
      }
    }
    expect(decodeHostile("read", getter)).toEqual(uncheckable("getter boom"))
    const deep = {
      opts: {
        get depth(): number {
          throw new Error("deep boom")
        }
      }
    }
    expect(decodeHostile("nested", deep)).toEqual(uncheckable("deep boom"))
  })

  it("a Proxy whose traps throw is refused", () => {
    expect(decodeHostile("read", trap("ownKeys"))).toEqual(uncheckable("ownKeys boom"))
    expect(decodeHostile("read", trap("get"))).toEqual(uncheckable("get boom"))
    expect(decodeHostile("nested", trap("ownKeys"))).toEqual(uncheckable("ownKeys boom"))
    // `has` is not consulted on the fast path: the input reads as a valid call there.
    expect(Result.isSuccess(decodeHostile("read", trap("has")))).toBe(true)
  })

  it("a revoked Proxy is refused", () => {
    const { proxy, revoke } = Proxy.revocable({ path: "a.txt" }, {})
    revoke()
    const decoded = decodeHostile("read", proxy)
    assert.isTrue(Result.isFailure(decoded))
    if (Result.isSuccess(decoded)) return
    expect(decoded.failure._tag).toBe("UncheckableInput")
    expect(decoded.failure._tag === "UncheckableInput" && decoded.failure.message).toMatch(/revoked/)
  })

  it("a check of the schema that throws is refused with what it threw", () => {
    expect(decodeHostile("checked", { path: "boom" })).toEqual(uncheckable("filter boom"))
    expect(Result.getOrThrow(decodeHostile("checked", { path: "fine" })).input).toEqual({ path: "fine" })
  })

  it("something thrown without a message is described", () => {
    const input = {
      get path(): string {
        throw undefined
      }
    }
    expect(decodeHostile("read", input)).toEqual(uncheckable("undefined"))
  })

  it("decodeInput answers the same", () => {
    const entry = Toolset.entry(hostile, "read")
    assert(entry !== undefined)
    expect(Toolset.decodeInput(entry, trap("ownKeys"))).toEqual(uncheckable("ownKeys boom"))
  })
})
