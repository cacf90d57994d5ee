import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Data, Effect, Exit, Result, Schema } from "effect"
import fc from "fast-check"
import { Execute, Outcome } from "../src/index.ts"
import { nested } from "../../tool-schema/test/fixtures.ts"

class ChaosError extends Data.TaggedError("ChaosError")<{ readonly message: string }> {}

const modes = [
  "succeed",
  "succeedEffect",
  "resolve",
  "failTyped",
  "failRaw",
  "throwError",
  "throw",
  "syncThrow",
  "reject",
  "rejectError",
  "die"
] as const
type Mode = (typeof modes)[number]

/** Which outcome a mode must give once the call has passed its schema. */
const expectedFailure: Record<Mode, "none" | "ToolError" | "Defect"> = {
  succeed: "none",
  succeedEffect: "none",
  resolve: "none",
  failTyped: "ToolError",
  failRaw: "ToolError",
  throwError: "Defect",
  throw: "Defect",
  syncThrow: "Defect",
  reject: "Defect",
  rejectError: "Defect",
  die: "Defect"
}

// ---------------------------------------------------------------------------------------------
// Hostile values: every one is made fresh, and remembered, so the checks know which values may
// turn a success into a Defect (a value returned directly, or through a promise, is asked for
// its `then`; one that cannot answer is a Defect, never an escape).

const hostileValues = new WeakSet<object>()

const hostile = <A extends object>(value: A): A => {
  hostileValues.add(value)
  return value
}

const isHostile = (u: unknown): boolean => typeof u === "object" && u !== null && hostileValues.has(u)

const boom = (what: string) => (): never => {
  throw new Error(`${what} boom`)
}

/** One 10,000-deep value, shared: rendering it is what costs, not building it. */
const deep = nested(10_000)

const makers: ReadonlyArray<readonly [string, () => unknown]> = [
  [
    "throwing getter",
    () => hostile(Object.defineProperty({ text: "t" }, "n", { enumerable: true, get: boom("getter") }))
  ],
  ["ownKeys trap", () => hostile(new Proxy({ text: "t" }, { ownKeys: boom("ownKeys") }))],
  ["has trap", () => hostile(new Proxy({ text: "t" }, { has: boom("has") }))],
  ["get trap", () => hostile(new Proxy({ text: "t" }, { get: boom("get") }))],
  ["descriptor trap", () => hostile(new Proxy({ text: "t" }, { getOwnPropertyDescriptor: boom("descriptor") }))],
  ["prototype trap", () => hostile(new Proxy(new Error("e"), { getPrototypeOf: boom("prototype") }))],
  [
    "revoked Proxy",
    () => {
      const { proxy, revoke } = Proxy.revocable({ text: "t" }, {})
      revoke()
      return hostile(proxy)
    }
  ],
  // biome-ignore lint/suspicious/noThenProperty: a thenable whose then getter throws is the point
  ["then getter throws", () => hostile(Object.defineProperty({}, "then", { enumerable: true, get: boom("then") }))],
  // biome-ignore lint/suspicious/noThenProperty: a thenable whose then throws is the point
  ["then throws", () => hostile({ then: boom("then call") })],
  [
    "Error with a throwing message",
    () => hostile(Object.defineProperty(new Error("x"), "message", { get: boom("message") }))
  ],
  [
    "cyclic",
    () => {
      const value: Record<string, unknown> = { text: "t" }
      value.self = value
      value.list = [1, value]
      return value
    }
  ],
  ["10,000 deep", () => deep],
  ["bigint inside", () => ({ text: "t", n: 10n, list: [1n] })],
  ["null prototype with a bigint", () => Object.assign(Object.create(null) as object, { n: 1n })]
]

/**
 * A hostile value, as fast-check holds it: a token, made into the value only when the property
 * runs (fast-check itself asks generated values questions a hostile Proxy will not answer).
 */
class Hostile {
  readonly index: number
  constructor(index: number) {
    this.index = index
  }
  make(): unknown {
    const maker = makers[this.index]
    if (maker === undefined) throw new Error(`no hostile value ${this.index}`)
    return maker[1]()
  }
}

const hostileValue: fc.Arbitrary<unknown> = fc.integer({ min: 0, max: makers.length - 1 }).map((i) => new Hostile(i))

/** Calls given a hostile input or payload so far. */
let hostileCalls = 0

/** A generated call with its hostile tokens made into hostile values. */
const materialize = (call: Toolset.RawCall): Toolset.RawCall => {
  const input = call.input
  if (input instanceof Hostile) {
    hostileCalls++
    return { ...call, input: input.make() }
  }
  if (typeof input === "object" && input !== null && "payload" in input && input.payload instanceof Hostile) {
    hostileCalls++
    return { ...call, input: { ...input, payload: input.payload.make() } }
  }
  return call
}

// ---------------------------------------------------------------------------------------------
// Tools

/** The ids of the calls whose run function was entered, in order. */
const ran: Array<string> = []

const Echo = Tool.make("echo", {
  description: "Echoes a text",
  parameters: Schema.Struct({ text: Schema.String }),
  run: ({ text }, { id }) => {
    ran.push(id)
    return text
  }
})

const Stats = Tool.make("stats", {
  description: "Counts",
  parameters: Schema.Struct({ n: Schema.Finite, tags: Schema.optionalKey(Schema.Array(Schema.String)) }),
  run: ({ n, tags }, { id }) =>
    Effect.sync(() => {
      ran.push(id)
      return { n, count: tags?.length ?? 0 }
    })
})

/** A schema check that throws for negative numbers: the call is refused, never run. */
const Filtered = Tool.make("filtered", {
  description: "A check that throws",
  parameters: Schema.Struct({
    n: Schema.Finite.check(
      Schema.makeFilter((n) => {
        if (n < 0) throw new Error("filter boom")
        return true
      })
    )
  }),
  run: ({ n }, { id }) => {
    ran.push(id)
    return n
  }
})

const Chaos = Tool.make("chaos", {
  description: "Does what it is told, badly",
  parameters: Schema.Struct({ mode: Schema.Literals(modes), payload: Schema.Unknown }),
  run: ({ mode, payload }, { id }): Tool.RunResult<unknown, unknown, never> => {
    ran.push(id)
    switch (mode) {
      case "succeed":
        return payload
      case "succeedEffect":
        return Effect.succeed(payload)
      case "resolve":
        return Promise.resolve(payload)
      case "failTyped":
        return Effect.fail(new ChaosError({ message: `chaos ${typeof payload}` }))
      case "failRaw":
        return Effect.fail(payload)
      case "throwError":
        throw new Error(`thrown ${typeof payload}`)
      case "throw":
        throw payload
      case "syncThrow":
        return Effect.sync(() => {
          throw payload
        })
      case "reject":
        return Promise.reject(payload)
      case "rejectError":
        return Promise.reject(new TypeError("rejected"))
      case "die":
        return Effect.die(payload)
    }
  }
})

const toolset = Toolset.make(Echo, Stats, Filtered, Chaos)
const names = ["echo", "stats", "filtered", "chaos"] as const

// ---------------------------------------------------------------------------------------------
// Calls

/** Values a tool may throw, return or fail with: anything, the odd corners and hostile ones included. */
const payload = fc.oneof(
  { arbitrary: hostileValue, weight: 2 },
  {
    arbitrary: fc.anything({
      maxDepth: 2,
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true
    }),
    weight: 3
  },
  {
    arbitrary: fc.constantFrom<unknown>(undefined, null, "", "boom", new Error(""), new Error("plain error"), {
      code: 1
    }),
    weight: 1
  },
  { arbitrary: fc.record({ message: fc.string({ minLength: 1 }) }), weight: 1 }
)

/** Inputs that pass their schema, by tool. */
const validInput = {
  echo: fc.record({ text: fc.string() }),
  stats: fc.record(
    { n: fc.double({ noNaN: true, noDefaultInfinity: true }), tags: fc.array(fc.string(), { maxLength: 3 }) },
    { requiredKeys: ["n"] }
  ),
  filtered: fc.record({ n: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
  chaos: fc.record({ mode: fc.constantFrom(...modes), payload })
}

const rawCall: fc.Arbitrary<Toolset.RawCall> = fc.oneof(
  // valid calls (their payload may be hostile)
  fc.oneof(
    ...names.map((name) =>
      fc.record({ id: fc.string(), name: fc.constant<string>(name), input: validInput[name] as fc.Arbitrary<unknown> })
    )
  ),
  // declared names with whatever input
  fc.record({
    id: fc.string(),
    name: fc.constantFrom<string>(...names),
    input: fc.anything({ maxDepth: 2, withNullPrototype: true, withBigInt: true, withMap: true, withSet: true })
  }),
  // declared names with a hostile input: a getter, a trap or a revoked Proxy, a cycle, depth
  fc.record({ id: fc.string(), name: fc.constantFrom<string>(...names), input: hostileValue }),
  // near misses: a valid input with one field broken or added
  fc.record({
    id: fc.string(),
    name: fc.constantFrom<string>(...names),
    input: fc
      .tuple(fc.constantFrom("text", "n", "mode", "payload", "tags", "extra"), fc.jsonValue())
      .map(([key, value]) => ({ text: "t", n: 1, mode: "succeed", payload: 1, [key]: value }))
  }),
  // garbage names
  fc.record({ id: fc.string(), name: fc.string(), input: fc.anything({ maxDepth: 1 }) })
)

// ---------------------------------------------------------------------------------------------
// Harnesses: English, Spanish, a catalogue whose texts throw; the synchronous core, or the path
// with a timeout (decoding and running inside an Effect).

const throwing: MessageCatalog.MessageCatalog = {
  ...MessageCatalog.spanish,
  locale: "broken",
  violation: boom("catalogue"),
  thrownValue: boom("catalogue"),
  emptyError: boom("catalogue")
}

const catalogs = [MessageCatalog.english, MessageCatalog.spanish, throwing] as const
const optionsOf: ReadonlyArray<Execute.Options | undefined> = [undefined, { timeout: "1 minute" }]

let totalCalls = 0

describe("execute, over arbitrary and hostile calls", () => {
  it("answers every call exactly once, in order, and nothing escapes", { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rawCall, { minLength: 10, maxLength: 20 }),
        fc.constantFrom(...catalogs),
        fc.constantFrom(...optionsOf),
        async (specs, catalog, options) => {
          const calls = specs.map(materialize)
          ran.length = 0
          const exit = await Effect.runPromiseExit(
            Effect.forEach(calls, (call) => Execute.execute(toolset, call, options)).pipe(
              Effect.provideService(MessageCatalog.MessageCatalog, catalog)
            )
          )
          if (!Exit.isSuccess(exit)) throw new Error(`execute escaped: ${String(exit)}`)
          const outcomes = exit.value
          totalCalls += calls.length

          expect(outcomes.length).toBe(calls.length)
          expect(outcomes.map((o) => o.id)).toEqual(calls.map((c) => c.id))

          const expectedRuns: Array<string> = []
          calls.forEach((call, i) => {
            const outcome = outcomes[i]
            if (outcome === undefined) throw new Error("missing outcome")
            expect(outcome.name).toBe(call.name)
            expect(typeof outcome.content).toBe("string")
            expect(Outcome.toToolResult(outcome)).toStrictEqual({
              type: "tool_result",
              tool_use_id: call.id,
              content: outcome.content,
              is_error: outcome._tag !== "Succeeded"
            })
            // an error observation always says something
            if (Outcome.isError(outcome)) expect(outcome.content).not.toBe("")

            const decoded = Toolset.decode(toolset, call)
            if (Result.isFailure(decoded)) {
              expect(outcome._tag).toBe("NotExecuted")
              if (outcome._tag !== "NotExecuted") return
              expect(outcome.violation).toEqual(decoded.failure)
              expect(outcome.content).toBe(MessageCatalog.notExecuted(catalog, decoded.failure))
              return
            }
            expectedRuns.push(call.id)
            expect(outcome._tag).not.toBe("NotExecuted")
            if (decoded.success.name !== "chaos") {
              expect(outcome._tag).toBe("Succeeded")
              return
            }
            const { mode, payload: value } = decoded.success.input
            const expected = expectedFailure[mode]
            if (expected !== "none") {
              expect(outcome._tag === "Failed" && outcome.failure._tag).toBe(expected)
              return
            }
            if (outcome._tag === "Succeeded") {
              // never '[object Object]': the value's own rendering, markers where JSON gives up
              expect(outcome.content).toBe(Tool.renderValue(value))
              return
            }
            // Only a value that cannot say whether it is a promise turns a success into a Defect.
            expect(mode === "succeedEffect" ? false : isHostile(value)).toBe(true)
            expect(outcome._tag === "Failed" && outcome.failure._tag).toBe("Defect")
          })
          // a refused call never runs; an accepted one runs exactly once, in call order
          expect(ran).toEqual(expectedRuns)
        }
      ),
      { numRuns: 1_000 }
    )
    expect(totalCalls).toBeGreaterThanOrEqual(10_000)
    // The hostile values are not a rounding error of the generator.
    expect(hostileCalls).toBeGreaterThanOrEqual(2_000)
  })
})
