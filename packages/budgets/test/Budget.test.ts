import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Budget, Deadline, Meter } from "../src/index.ts"

describe("Budget", () => {
  it("spends exactly up to its limit and refuses one more", () => {
    let b = Budget.steps(3)
    for (let i = 0; i < 3; i++) {
      const next = Budget.spend(b, 1)
      expect(Result.isSuccess(next)).toBe(true)
      if (Result.isSuccess(next)) b = next.success
    }
    expect(b).toStrictEqual({ kind: "steps", limit: 3, used: 3 })
    expect(Budget.isExhausted(b)).toBe(true)
    const refused = Budget.spend(b, 1)
    expect(Result.isFailure(refused)).toBe(true)
    if (Result.isFailure(refused)) {
      expect(refused.failure.reason).toBe("step_budget")
      expect(refused.failure.message).toBe("step_budget: 3 of 3 steps used, 1 more requested")
    }
  })

  it("refuses an amount that does not fit whole, spending nothing", () => {
    const b = { ...Budget.steps(5), used: 3 }
    expect(Budget.canSpend(b, 2)).toBe(true)
    expect(Budget.canSpend(3)(b)).toBe(false)
    const refused = Budget.spend(b, 3)
    expect(Result.isFailure(refused) && refused.failure.requested).toBe(3)
    expect(Budget.remaining(b)).toBe(2)
  })

  it("names each kind's stop reason", () => {
    expect(Budget.exhausted(Budget.replans(0), 1).reason).toBe("replan_budget")
    expect(Budget.exhausted(Budget.turns(2), 1).reason).toBe("turn_cap")
    expect(Budget.exhausted(Budget.time(10), 0).reason).toBe("time_budget")
  })

  it("a zero budget allows nothing", () => {
    expect(Budget.canSpend(Budget.replans(0), 1)).toBe(false)
    expect(Budget.isExhausted(Budget.replans(0))).toBe(true)
  })

  it("throws on a limit that is not a whole number ≥ 0", () => {
    expect(() => Budget.steps(-1)).toThrow("a steps budget needs a whole number limit of at least 0, got -1")
    expect(() => Budget.turns(1.5)).toThrow(RangeError)
  })

  it("is data: it round-trips through JSON with its Schema", () => {
    const b = { ...Budget.turns(10), used: 4 }
    const json = JSON.parse(JSON.stringify(Schema.encodeSync(Budget.Budget)(b)))
    expect(Schema.decodeSync(Budget.Budget)(json)).toStrictEqual(b)
    expect(() => Schema.decodeSync(Budget.Budget)({ kind: "steps", limit: -1, used: 0 })).toThrow()
  })
})

describe("Meter", () => {
  it.effect("spends inside Effect and fails typed when exhausted", () =>
    Effect.gen(function* () {
      const meter = yield* Meter.make(Budget.steps(2))
      yield* meter.spend()
      yield* meter.spend()
      expect(yield* meter.remaining).toBe(0)
      const error = yield* Effect.flip(meter.spend())
      expect(error._tag).toBe("BudgetExhausted")
      expect(error.reason).toBe("step_budget")
      expect(yield* meter.current).toStrictEqual({ kind: "steps", limit: 2, used: 2 })
    })
  )

  it.effect("concurrent spending never overspends", () =>
    Effect.gen(function* () {
      const meter = yield* Meter.make(Budget.steps(10))
      const results = yield* Effect.forEach(Array.from({ length: 25 }), () => Effect.exit(meter.spend()), {
        concurrency: "unbounded"
      })
      expect(results.filter(Exit.isSuccess)).toHaveLength(10)
      expect((yield* meter.current).used).toBe(10)
    })
  )
})

describe("Deadline", () => {
  it.effect("passes before the deadline and fails with time_budget after it", () =>
    Effect.gen(function* () {
      const deadline = yield* Deadline.start("2 seconds")
      yield* Deadline.check(deadline)
      yield* TestClock.adjust("1999 millis")
      yield* Deadline.check(deadline)
      expect((yield* Deadline.elapsed(deadline)).used).toBe(1999)
      yield* TestClock.adjust("1 millis")
      const error = yield* Effect.flip(Deadline.check(deadline))
      expect(error.reason).toBe("time_budget")
      expect(error.message).toBe("time_budget: 2000 of 2000 ms used, 0 more requested")
    })
  )

  it.effect("works with a sleeping fiber", () =>
    Effect.gen(function* () {
      const deadline = yield* Deadline.start(1000)
      const fiber = yield* Effect.forkChild(Effect.andThen(Effect.sleep("5 seconds"), Deadline.check(deadline)))
      yield* TestClock.adjust("5 seconds")
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit)).toBe(true)
    })
  )
})
