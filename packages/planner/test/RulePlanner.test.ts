import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { RulePlanner } from "../src/index.ts"
import { step } from "./fixtures.ts"

const request = (lastError: string | null) => ({ goal: "g", history: [], lastError })

describe("RulePlanner.matches", () => {
  it("null matches only 'no error yet'", () => {
    expect(RulePlanner.matches(null, null)).toBe(true)
    expect(RulePlanner.matches(null, "")).toBe(false)
    expect(RulePlanner.matches(null, "boom")).toBe(false)
  })

  it("a string matches as a substring of the last error, never before an error", () => {
    expect(RulePlanner.matches("time", "X: timed out")).toBe(true)
    expect(RulePlanner.matches("X: timed out", "X: timed out")).toBe(true)
    expect(RulePlanner.matches("Time", "X: timed out")).toBe(false)
    expect(RulePlanner.matches("time", null)).toBe(false)
    expect(RulePlanner.matches("", "anything")).toBe(true)
    expect(RulePlanner.matches("", null)).toBe(false)
  })

  it("a RegExp matches as a pattern anywhere in the last error", () => {
    expect(RulePlanner.matches(/^Y:/, "Y: quota")).toBe(true)
    expect(RulePlanner.matches(/^Y:/, "not Y: quota")).toBe(false)
    expect(RulePlanner.matches(/quota|limit/, "rate limit hit")).toBe(true)
    expect(RulePlanner.matches(/./, null)).toBe(false)
    // A global RegExp keeps no state between calls.
    const global = /boom/g
    expect([RulePlanner.matches(global, "boom"), RulePlanner.matches(global, "boom")]).toStrictEqual([true, true])
  })
})

describe("RulePlanner.make", () => {
  const first = [step(1, "a"), step(2, "b"), step(3, "c"), step(4, "d")]
  const aroundX = [step(2, "b2"), step(3, "c"), step(4, "d")]
  const giveUp = [step(3, "report"), step(4, "stop")]
  const planner = RulePlanner.make([
    { when: null, plan: first },
    { when: "X", plan: aroundX },
    { when: /^Y/, plan: giveUp },
    { when: "XY", plan: [step(9, "never")] }
  ])

  it.effect("the seed's planner: four steps, then around X, then give up on Y, else nothing", () =>
    Effect.gen(function* () {
      expect(yield* planner(request(null))).toStrictEqual(first)
      expect(yield* planner(request("X happened"))).toStrictEqual(aroundX)
      expect(yield* planner(request("Y happened"))).toStrictEqual(giveUp)
      expect(yield* planner(request("something else"))).toStrictEqual([])
    })
  )

  it.effect("the first matching rule wins", () =>
    Effect.gen(function* () {
      // "XY" also matches "X", which comes first.
      expect(yield* planner(request("XY"))).toStrictEqual(aroundX)
      // "Y then X" matches "X" (substring) before /^Y/.
      expect(yield* planner(request("Y then X"))).toStrictEqual(aroundX)
    })
  )

  it.effect("no rules: the empty plan, always", () =>
    Effect.gen(function* () {
      const empty = RulePlanner.make([])
      expect(yield* empty(request(null))).toStrictEqual([])
      expect(yield* empty(request("boom"))).toStrictEqual([])
    })
  )

  it.effect("it reads only the last error: goal and history do not change the answer", () =>
    Effect.gen(function* () {
      const answer = yield* planner({
        goal: "another goal",
        history: [{ ...step(1, "a"), result: null, error: "X" }],
        lastError: null
      })
      expect(answer).toStrictEqual(first)
    })
  )
})
