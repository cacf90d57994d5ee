import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { type Price, Spend, SpendMeter } from "../src/index.ts"

const sonnet: Price.Price = { input: 3, output: 15 }

describe("SpendMeter", () => {
  it.effect("reserve, settle and count go through one shared spend", () =>
    Effect.gen(function* () {
      const meter = yield* SpendMeter.make(Spend.make({ totalTokens: 10_000 }, { price: sonnet }))
      const reservation = yield* meter.reserve({ inputTokens: 6_000, outputTokens: 1_000, cost: 0 })
      // While the first is held, a second worst case of 4,000 does not fit.
      const second = yield* Effect.exit(meter.reserve({ inputTokens: 3_000, outputTokens: 1_000, cost: 0 }))
      assert.isTrue(Exit.isFailure(second))
      const settled = yield* meter.settle(reservation, { inputTokens: 2_000, outputTokens: 500 })
      assert.deepStrictEqual(settled.spent, { inputTokens: 2_000, outputTokens: 500, cost: 0.0135 })
      assert.deepStrictEqual(settled.total, settled.spent)
      const total = yield* meter.count({ inputTokens: 100, outputTokens: 0, cost: 0.0003 })
      assert.strictEqual(total.inputTokens, 2_100)
      const now = yield* meter.current
      assert.deepStrictEqual(now.reserved, Spend.zero)
      assert.isTrue(SpendMeter.isSpendMeter(meter))
      assert.isFalse(SpendMeter.isSpendMeter(now))
      assert.isFalse(SpendMeter.isSpendMeter(null))
      // `from`: a meter as it is (shared), a Spend value in a new meter.
      assert.strictEqual(SpendMeter.from(meter), meter)
      const fresh = SpendMeter.from(now)
      assert.notStrictEqual(fresh, meter)
      assert.deepStrictEqual(yield* fresh.current, now)
    })
  )

  it.effect("metered: a refused call is not run; a failed or interrupted one spends its whole reservation", () =>
    Effect.gen(function* () {
      const meter = SpendMeter.makeUnsafe(Spend.make({ totalTokens: 1_000 }))
      let ran = 0
      const call = (usage: number) =>
        Effect.sync(() => {
          ran++
          return usage
        })
      const refused = yield* Effect.exit(
        SpendMeter.metered(meter, { inputTokens: 900, outputTokens: 200, cost: 0 }, call(1), () => ({}))
      )
      assert.isTrue(Exit.isFailure(refused))
      assert.strictEqual(ran, 0)
      const seen: Array<boolean> = []
      yield* SpendMeter.metered(
        meter,
        { inputTokens: 300, outputTokens: 100, cost: 0 },
        call(1),
        (n) => ({ inputTokens: n * 10, outputTokens: n }),
        (settled) => Effect.sync(() => seen.push(settled.reported))
      )
      assert.deepStrictEqual((yield* meter.current).spent, { inputTokens: 10, outputTokens: 1, cost: 0 })
      yield* Effect.exit(
        SpendMeter.metered(meter, { inputTokens: 300, outputTokens: 100, cost: 0 }, Effect.fail("boom"), () => ({}))
      )
      assert.deepStrictEqual((yield* meter.current).spent, { inputTokens: 310, outputTokens: 101, cost: 0 })
      const fiber = yield* Effect.forkChild(
        SpendMeter.metered(meter, { inputTokens: 100, outputTokens: 100, cost: 0 }, Effect.never, () => ({}))
      )
      yield* Effect.yieldNow
      yield* Fiber.interrupt(fiber)
      const after = yield* meter.current
      assert.deepStrictEqual(after.spent, { inputTokens: 410, outputTokens: 201, cost: 0 })
      assert.deepStrictEqual(after.reserved, Spend.zero)
      assert.deepStrictEqual(seen, [true])
    })
  )

  it.effect("concurrent callers never commit past the limit together", () =>
    Effect.gen(function* () {
      const meter = SpendMeter.makeUnsafe(Spend.make({ outputTokens: 5_000 }))
      const one = (i: number) =>
        Effect.exit(
          SpendMeter.metered(
            meter,
            { inputTokens: 0, outputTokens: 300, cost: 0 },
            Effect.as(Effect.yieldNow, i),
            (n) => ({ outputTokens: 200 + (n % 100) })
          )
        )
      const exits = yield* Effect.forEach(
        Array.from({ length: 200 }, (_, i) => i),
        one,
        { concurrency: "unbounded" }
      )
      const done = exits.filter(Exit.isSuccess).length
      const spent = (yield* meter.current).spent.outputTokens
      assert.isAtMost(spent, 5_000)
      assert.isAtLeast(done, 16)
      assert.isTrue(exits.some(Exit.isFailure))
    })
  )
})
