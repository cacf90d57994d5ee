/**
 * The synchronous core's fast path (an input the compiled decoder accepts at once, a tool that
 * answers text it renders as it is) answers exactly as the path through a middleware, which
 * decodes with `decodeInput` and renders through `fromValue`: random parameters and inputs,
 * hostile ones included (throwing getters, Proxies, symbol keys, `__proto__` keys, null
 * prototypes, arrays, huge objects), the same outcome and the same decoded input for the tool.
 */
import { MessageCatalog, ResponseContract, Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import fc from "fast-check"
import { Execute, type Outcome } from "../src/index.ts"
import { type Field, fields, inputOf, parametersOf } from "../../tool-schema/test/arbitraries.ts"

/** A value with its keys in order, its prototypes and the sign of zeros; unreadable values by identity. */
const layout = (value: unknown): unknown => {
  if (Object.is(value, -0)) return "-0"
  if (typeof value !== "object" || value === null) return value
  try {
    if (Array.isArray(value)) return { items: value.map(layout) }
    const entries = Reflect.ownKeys(value).map((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(value, key)
      return [key, descriptor !== undefined && "value" in descriptor ? layout(descriptor.value) : descriptor]
    })
    return { plain: Object.getPrototypeOf(value) === Object.prototype, entries }
  } catch {
    return { unreadable: value }
  }
}

const boom = (what: string) => (): never => {
  throw new Error(`${what} boom`)
}

/** Ways to make an input hostile, made fresh for each path. */
const hostile: ReadonlyArray<readonly [string, (base: Record<PropertyKey, unknown>, first: string) => unknown]> = [
  ["throwing getter", (base, first) => Object.defineProperty(base, first, { enumerable: true, get: boom("getter") })],
  [
    "revoked Proxy",
    (base) => {
      const { proxy, revoke } = Proxy.revocable(base, {})
      revoke()
      return proxy
    }
  ],
  ["ownKeys trap", (base) => new Proxy(base, { ownKeys: boom("ownKeys") })],
  ["get trap", (base) => new Proxy(base, { get: boom("get") })],
  ["descriptor trap", (base) => new Proxy(base, { getOwnPropertyDescriptor: boom("descriptor") })],
  ["prototype trap", (base) => new Proxy(base, { getPrototypeOf: boom("prototype") })],
  ["Proxy on the prototype", (base) => Object.setPrototypeOf(base, new Proxy({}, { ownKeys: boom("proto") }))],
  ["enumerable symbol key", (base) => Object.assign(base, { [Symbol("extra")]: 1 })],
  ["hidden symbol key", (base) => Object.defineProperty(base, Symbol("hidden"), { value: 1, enumerable: false })],
  [
    "own __proto__ key",
    (base) => Object.defineProperty(base, "__proto__", { value: { polluted: true }, enumerable: true })
  ],
  ["null prototype", (base) => Object.assign(Object.create(null), base)],
  ["array", (base) => Object.values(base)],
  [
    "ten thousand extra keys",
    (base) => {
      for (let i = 0; i < 10_000; i++) base[`k${i}`] = i
      return base
    }
  ]
]

/** One recipe: an input of the parameters, maybe made hostile (by index). */
const recipes = (f: ReadonlyArray<Field>) =>
  fc.array(
    fc.record({
      input: inputOf(f),
      how: fc.option(fc.integer({ min: 0, max: hostile.length - 1 }), { freq: 3, nil: undefined })
    }),
    { minLength: 10, maxLength: 10 }
  )

const make = (f: ReadonlyArray<Field>, input: unknown, how: number | undefined): unknown => {
  if (how === undefined) return input
  const base: Record<PropertyKey, unknown> =
    typeof input === "object" && input !== null && !Array.isArray(input) ? { ...input } : {}
  const maker = hostile[how]
  if (maker === undefined) throw new Error(`no hostile input ${how}`)
  return maker[1](base, (f[0] as Field).name)
}

/** A toolset of one tool answering text, recording the decoded input it was given. */
const textTool = (parameters: Tool.Parameters, seen: Array<unknown>) =>
  Toolset.make(
    Tool.make("t", {
      description: "",
      parameters,
      run: (input) => {
        seen.push(input)
        return "ran"
      }
    })
  )

/** Through a middleware that adds nothing: `decodeInput`, then the tool, then `fromValue`. */
const throughMiddleware = (toolset: Toolset.Toolset<Tool.Any>, call: Toolset.RawCall): Outcome.Outcome =>
  Effect.runSync(
    Effect.provideService(
      Execute.execute(toolset, call),
      Execute.Middleware,
      (_call, _tool, run) => run
    ) as Effect.Effect<Outcome.Outcome>
  )

const sync = (toolset: Toolset.Toolset<Tool.Any>, call: Toolset.RawCall): Outcome.Outcome => {
  const now = Execute.executeSync(toolset, call)
  if (Effect.isEffect(now)) throw new Error("a text tool finished later")
  return now
}

describe("the synchronous core's fast path", () => {
  it("answers every input as the path through a middleware does: the same outcome, the same decoded input", () => {
    let succeeded = 0
    let refused = 0
    fc.assert(
      fc.property(
        fields.chain((f) => fc.tuple(fc.constant(f), recipes(f))),
        ([f, list]) => {
          const parameters = parametersOf(f)
          for (const { input, how } of list) {
            const seenSync: Array<unknown> = []
            const seenMiddleware: Array<unknown> = []
            const call = (raw: unknown) => ({ id: "c1", name: "t", input: raw })
            const now = sync(textTool(parameters, seenSync), call(make(f, input, how)))
            const before = throughMiddleware(textTool(parameters, seenMiddleware), call(make(f, input, how)))
            expect(layout(now)).toStrictEqual(layout(before))
            expect(seenSync.map(layout)).toStrictEqual(seenMiddleware.map(layout))
            if (now._tag === "Succeeded") succeeded++
            else refused++
          }
        }
      ),
      { numRuns: 150 }
    )
    expect(succeeded).toBeGreaterThan(100)
    expect(refused).toBeGreaterThan(100)
  })

  it("refuses what the strict contract refuses, symbol keys included, and runs nothing then", () => {
    const Pair = Schema.Struct({ path: Schema.String, limit: Schema.Finite })
    const seen: Array<unknown> = []
    const toolset = textTool(Pair, seen)
    const ok = { path: "a", limit: 1 }
    const refusals: ReadonlyArray<readonly [unknown, string]> = [
      [
        { ...ok, [Symbol("extra")]: 1 },
        "not executed: invalid input: Expected no excess property\n  at [Symbol(extra)]"
      ],
      [{ ...ok, extra: 1 }, "not executed: unexpected field 'extra'"],
      [
        JSON.parse('{"path":"a","limit":1,"__proto__":{"polluted":true}}'),
        "not executed: unexpected field '__proto__'"
      ],
      [{ ...ok, limit: Number.POSITIVE_INFINITY }, "not executed: field 'limit' must be a finite number"],
      [[ok], "not executed: input must be an object"]
    ]
    for (const [input, content] of refusals) {
      expect(sync(toolset, { id: "c1", name: "t", input })).toMatchObject({ _tag: "NotExecuted", content })
    }
    expect(seen).toStrictEqual([])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    // Keys Schema does not count as unexpected: inherited, hidden, and a null prototype.
    for (const input of [
      Object.assign(Object.create({ extra: 1 }), ok),
      Object.defineProperty({ ...ok }, Symbol("hidden"), { value: 1, enumerable: false }),
      Object.assign(Object.create(null), ok)
    ]) {
      expect(sync(toolset, { id: "c1", name: "t", input })).toMatchObject({ _tag: "Succeeded", content: "ran" })
    }
    // The tool gets a fresh plain object of the declared keys, never the input itself.
    expect(seen.map(layout)).toStrictEqual([layout(ok), layout(ok), layout(ok)])
  })

  it("a getter read twice answers one value: the tool gets the first, on both paths", () => {
    const Path = Schema.Struct({ path: Schema.String })
    for (const path of [sync, throughMiddleware]) {
      let reads = 0
      const seen: Array<unknown> = []
      const input = Object.defineProperty({}, "path", {
        enumerable: true,
        get: () => {
          reads += 1
          return reads === 1 ? "notes/a" : "secrets/k"
        }
      })
      const outcome = path(textTool(Path, seen), { id: "c1", name: "t", input })
      expect(outcome._tag).toBe("Succeeded")
      expect(seen).toStrictEqual([{ path: "notes/a" }])
    }
  })

  it("text from a tool is the outcome `fromValue` builds: cut at the limit, in the harness's words", () => {
    const Path = Schema.Struct({ path: Schema.String })
    const long = "x".repeat(50)
    const fast = Toolset.make(Tool.make("t", { description: "", parameters: Path, run: () => long }))
    // A content function of its own takes the general path, with the same text.
    const general = Toolset.make(
      Tool.make("t", { description: "", parameters: Path, run: () => long, content: (text: string) => text })
    )
    const call = { id: "c1", name: "t", input: { path: "a" } }
    for (const catalog of [MessageCatalog.english, MessageCatalog.spanish]) {
      for (const maxContent of [10, 50, 120_000, Number.POSITIVE_INFINITY]) {
        const harness = {
          catalog,
          parser: ResponseContract.contract(),
          limits: { maxContent, maxPartBytes: 1000 }
        }
        const now = Execute.executeSync(fast, call, harness)
        expect(now).toStrictEqual(Execute.executeSync(general, call, harness))
        expect(now).toMatchObject({ _tag: "Succeeded", value: long })
      }
    }
    expect(Execute.executeSync(fast, call)).toStrictEqual({
      _tag: "Succeeded",
      id: "c1",
      name: "t",
      value: long,
      content: long
    })
  })

  it("text from an envelope tool, or from a tool with an output schema, is not taken as it is", () => {
    const Path = Schema.Struct({ path: Schema.String })
    const call = { id: "c1", name: "t", input: { path: "a" } }
    const envelope = Toolset.make(
      Tool.make("t", { description: "", parameters: Path, envelope: true, run: () => "not an envelope" })
    )
    expect(Execute.executeSync(envelope, call)).toMatchObject({ _tag: "Failed" })
    expect(Execute.executeSync(envelope, call)).toStrictEqual(throughMiddleware(envelope, call))
    const output = Toolset.make(
      Tool.make("t", { description: "", parameters: Path, output: Schema.String, run: () => "text" })
    )
    expect(Execute.executeSync(output, call)).toMatchObject({ _tag: "Succeeded", structured: "text" })
    expect(Execute.executeSync(output, call)).toStrictEqual(throughMiddleware(output, call))
  })
})
