import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { type Price, Spend } from "../src/index.ts"

const sonnet: Price.Price = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 }

/** A seeded generator (mulberry32): the same sessions on every run. */
const seeded = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe("Spend", () => {
  it("a reservation that fits is held until settled; the reported usage is what is spent", () => {
    const spend = Spend.make({ totalTokens: 10_000 })
    const reserved = Spend.reserve(spend, Spend.worstCase(spend, 6_000, 1_000))
    assert.isTrue(Result.isSuccess(reserved))
    if (Result.isFailure(reserved)) return
    const [held, reservation] = reserved.success
    assert.deepStrictEqual(Spend.committed(held), { inputTokens: 6_000, outputTokens: 1_000, cost: 0 })
    // A second call's worst case does not fit while the first is held.
    const second = Spend.reserve(held, Spend.worstCase(held, 3_000, 1_000))
    assert.isTrue(Result.isFailure(second))
    const settled = Spend.settle(held, reservation, { inputTokens: 2_000, outputTokens: 300 })
    assert.deepStrictEqual(settled.spent, { inputTokens: 2_000, outputTokens: 300, cost: 0 })
    assert.deepStrictEqual(settled.reserved, Spend.zero)
    // Data-last too.
    assert.isTrue(Result.isSuccess(Spend.reserve(Spend.worstCase(settled, 3_000, 1_000))(settled)))
  })

  it("a call whose usage is unknown spends its whole reservation", () => {
    const spend = Spend.make({ cost: 1 }, { price: sonnet })
    const reserved = Spend.reserve(spend, Spend.worstCase(spend, 10_000, 2_000))
    if (Result.isFailure(reserved)) return assert.fail("refused")
    const [held, reservation] = reserved.success
    const settled = Spend.settle(reservation, undefined)(held)
    assert.deepStrictEqual(settled.spent, reservation.amount)
    assert.isAbove(settled.spent.cost, 0)
  })

  it("refusals name the limit, what is committed and what was asked, with the stop reason", () => {
    const tokens = Spend.make({ inputTokens: 1_000 }, { spent: { inputTokens: 900, outputTokens: 0, cost: 0 } })
    const refused = Spend.reserve(tokens, Spend.worstCase(tokens, 200, 0))
    if (Result.isSuccess(refused)) return assert.fail("fitted")
    assert.strictEqual(refused.failure.kind, "input_tokens")
    assert.strictEqual(refused.failure.reason, "token_budget")
    assert.strictEqual(
      refused.failure.message,
      "token_budget: 900 of 1,000 input tokens spent or reserved, the next call needs up to 200 more"
    )
    const money = Spend.make({ cost: 0.01 }, { price: sonnet })
    const dear = Spend.reserve(money, Spend.worstCase(money, 1_000, 1_000))
    if (Result.isSuccess(dear)) return assert.fail("fitted")
    assert.strictEqual(dear.failure.reason, "cost_budget")
    assert.match(
      dear.failure.message,
      /^cost_budget: \$0\.0000 of \$0\.0100 spent or reserved, the next call needs up to \$0\.0\d+ more$/
    )
  })

  it("bad limits are programming errors naming the limit; a cost limit needs a price", () => {
    assert.throws(
      () => Spend.make({ totalTokens: -1 }),
      /limit 'totalTokens' must be a whole number of at least 0, got -1/
    )
    assert.throws(() => Spend.make({ inputTokens: 1.5 }), /limit 'inputTokens'/)
    assert.throws(() => Spend.make({ cost: Number.NaN }, { price: sonnet }), /limit 'cost' must be a finite number/)
    assert.throws(() => Spend.make({ cost: 1 }), /a 'cost' limit needs a price/)
    assert.isFalse(Spend.isLimited(Spend.make({})))
    assert.isTrue(Spend.isLimited(Spend.make({ outputTokens: 0 })))
  })

  it("10,000 random sessions never commit more than a limit, and stop with the typed reason when a call would pass it", () => {
    const random = seeded(24)
    const int = (max: number) => Math.floor(random() * (max + 1))
    let refusals = 0
    let completed = 0
    for (let session = 0; session < 10_000; session++) {
      const price: Price.Price = {
        input: random() * 20,
        output: random() * 80,
        ...(random() < 0.5 ? { cachedInput: random() * 2 } : {}),
        ...(random() < 0.3 ? { cacheWrite: random() * 25 } : {}),
        ...(random() < 0.3 ? { reasoning: random() * 80 } : {})
      }
      const limits: Spend.Limits = {
        ...(random() < 0.5 ? { inputTokens: int(200_000) } : {}),
        ...(random() < 0.5 ? { outputTokens: int(50_000) } : {}),
        ...(random() < 0.5 ? { totalTokens: int(250_000) } : {}),
        ...(random() < 0.5 ? { cost: random() * 2 } : {})
      }
      let spend = Spend.make(limits, { price })
      const within = (s: Spend.Spend) => {
        const c = Spend.committed(s)
        const eps = 1e-9
        if (limits.inputTokens !== undefined) assert.isAtMost(c.inputTokens, limits.inputTokens)
        if (limits.outputTokens !== undefined) assert.isAtMost(c.outputTokens, limits.outputTokens)
        if (limits.totalTokens !== undefined) assert.isAtMost(c.inputTokens + c.outputTokens, limits.totalTokens)
        if (limits.cost !== undefined) assert.isAtMost(c.cost, limits.cost + eps)
      }
      let prompt = int(20_000)
      for (let call = 0; call < 40; call++) {
        const cap = 1 + int(8_000)
        const worst = Spend.worstCase(spend, prompt, cap)
        const reserved = Spend.reserve(spend, worst)
        if (Result.isFailure(reserved)) {
          // Refused only when the call would pass the limit it names.
          const { kind, limit, committed, requested } = reserved.failure
          assert.isAbove(committed + requested, limit)
          assert.strictEqual(reserved.failure.reason, kind === "cost" ? "cost_budget" : "token_budget")
          refusals++
          break
        }
        spend = reserved.success[0]
        within(spend)
        const outcome = random()
        // A failed call (usage unknown), a retry (the same prompt reserved again), or a reply.
        const usage =
          outcome < 0.1
            ? undefined
            : (() => {
                const input = int(prompt)
                const cached = int(input)
                const output = int(cap)
                return {
                  inputTokens: input,
                  cacheReadTokens: cached,
                  cacheWriteTokens: int(input - cached),
                  outputTokens: output,
                  reasoningTokens: int(output)
                }
              })()
        spend = Spend.settle(spend, reserved.success[1], usage)
        within(spend)
        if (outcome >= 0.2) prompt += int(5_000) + (usage?.outputTokens ?? 0)
        if (call === 39) completed++
      }
    }
    // Both happened: the property is not vacuous.
    assert.isAbove(refusals, 1_000)
    assert.isAbove(completed, 100)
  })
})
