import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Data, Effect, Exit, Result, Schema } from "effect"
import fc from "fast-check"
import { Execute, Outcome } from "../src/index.ts"

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

const toolset = Toolset.make(Echo, Stats, Chaos)
const names = ["echo", "stats", "chaos"] as const

/** Values a tool may throw, return or fail with: anything, the odd corners included. */
const payload = fc.oneof(
  fc.anything({
    maxDepth: 2,
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true
  }),
  fc.constantFrom<unknown>(undefined, null, "", "boom", new Error(""), new Error("plain error"), { code: 1 }),
  fc.record({ message: fc.string({ minLength: 1 }) })
)

/** Inputs that pass their schema, by tool. */
const validInput = {
  echo: fc.record({ text: fc.string() }),
  stats: fc.record(
    { n: fc.double({ noNaN: true, noDefaultInfinity: true }), tags: fc.array(fc.string(), { maxLength: 3 }) },
    { requiredKeys: ["n"] }
  ),
  chaos: fc.record({ mode: fc.constantFrom(...modes), payload })
}

const rawCall: fc.Arbitrary<Toolset.RawCall> = fc.oneof(
  // valid calls
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

const renders = (value: unknown): boolean => {
  try {
    Tool.renderValue(value)
    return true
  } catch {
    return false
  }
}

let totalCalls = 0

describe("execute, over arbitrary calls", () => {
  it("answers every call exactly once, in order, and nothing escapes", { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rawCall, { minLength: 10, maxLength: 20 }),
        fc.constantFrom(MessageCatalog.english, MessageCatalog.spanish),
        async (calls, catalog) => {
          ran.length = 0
          const exit = await Effect.runPromiseExit(
            Effect.forEach(calls, (call) => Execute.execute(toolset, call)).pipe(
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
            // an error observation always says something (fails today: see the report on empty messages)
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
            if (expected === "none") {
              if (renders(value)) {
                expect(outcome._tag).toBe("Succeeded")
                expect(outcome.content).toBe(Tool.renderValue(value))
              } else {
                expect(outcome._tag === "Failed" && outcome.failure._tag).toBe("Defect")
              }
            } else {
              expect(outcome._tag === "Failed" && outcome.failure._tag).toBe(expected)
            }
          })
          // a refused call never runs; an accepted one runs exactly once, in call order
          expect(ran).toEqual(expectedRuns)
        }
      ),
      { numRuns: 1_000 }
    )
    expect(totalCalls).toBeGreaterThanOrEqual(10_000)
  })
})
