import { describe, expect, it } from "@effect/vitest"
import { Statistics } from "../src/index.ts"
import * as Exact from "./fixtures/exact.ts"
import * as Simulate from "./fixtures/simulate.ts"

const table = (both: number, b10: number, b01: number, neither: number): ReadonlyArray<Statistics.Pair> => [
  ...Array.from({ length: both }, () => ({ a: true, b: true })),
  ...Array.from({ length: b10 }, () => ({ a: true, b: false })),
  ...Array.from({ length: b01 }, () => ({ a: false, b: true })),
  ...Array.from({ length: neither }, () => ({ a: false, b: false }))
]

/**
 * The exact chance that `compare` says "better" or "worse" for a design with independent pairs:
 * the discordant count m ~ Bin(n, q01 + q10), then b01 ~ Bin(m, q01 / (q01 + q10)).
 */
const exactRejection = (pA: number, pB: number, n: number): number => {
  const q01 = (1 - pA) * pB
  const q10 = pA * (1 - pB)
  const discordant = Exact.binomialPmf(n, q01 + q10)
  let total = 0
  for (let m = 1; m <= n; m++) {
    const split = Exact.binomialPmf(m, q01 / (q01 + q10))
    for (let b01 = 0; b01 <= m; b01++) {
      if (Statistics.mcnemar(b01, m - b01) < 0.05) total += (discordant[m] ?? 0) * (split[b01] ?? 0)
    }
  }
  return total
}

describe("Statistics.mcnemar", () => {
  it("is the exact two-sided binomial test on the discordant pairs (BigInt sums)", () => {
    for (let m = 0; m <= 60; m++) {
      for (let b01 = 0; b01 <= m; b01++) {
        expect(Exact.relativeError(Statistics.mcnemar(b01, m - b01), Exact.mcnemar(b01, m - b01))).toBeLessThan(1e-12)
      }
    }
    for (const [b01, b10] of [
      [900, 1100],
      [1100, 900],
      [950, 1050],
      [10, 1990],
      [0, 2000],
      [1000, 1000]
    ] as const) {
      expect(Exact.relativeError(Statistics.mcnemar(b01, b10), Exact.mcnemar(b01, b10))).toBeLessThan(1e-10)
    }
    expect(Statistics.mcnemar(0, 10)).toBe(2 / 1024)
    expect(Statistics.mcnemar(0, 0)).toBe(1)
  })

  it("stays finite and fast for 100,000 discordant pairs", () => {
    const start = performance.now()
    expect(Statistics.mcnemar(50_000, 50_000)).toBe(1)
    const near = Statistics.mcnemar(49_800, 50_200)
    expect(near).toBeGreaterThan(0.2)
    expect(near).toBeLessThan(0.25)
    expect(Statistics.mcnemar(40_000, 60_000)).toBe(0)
    expect(performance.now() - start).toBeLessThan(1000)
  })
})

describe("Statistics.compare", () => {
  it("counts the table, the rates and the difference b − a", () => {
    const result = Statistics.compare(table(10, 2, 12, 6))
    expect(result).toMatchObject({ n: 30, both: 10, b10: 2, b01: 12, neither: 6, confidence: 0.95 })
    expect(result.aRate).toBeCloseTo(12 / 30, 15)
    expect(result.bRate).toBeCloseTo(22 / 30, 15)
    expect(result.difference).toBeCloseTo(10 / 30, 15)
    expect(result.pValue).toBeCloseTo(Exact.mcnemar(12, 2), 14)
    expect(result.verdict).toBe("better")
    expect(result.interval.low).toBeGreaterThan(0)
    expect(result.interval.high).toBeGreaterThan(result.difference)
    expect(Statistics.compareCounts({ both: 10, b10: 2, b01: 12, neither: 6 })).toEqual(result)
  })

  // Fagerland, Lydersen & Laake, "Statistical Analysis of Contingency Tables" (2017), ch. 8:
  // Cavo et al. 2012, complete response before and after consolidation therapy (59, 6, 16, 80):
  // Newcombe's square-and-add interval −0.0621 (95% CI −0.1186 to −0.0046).
  it("gives the published Newcombe interval for the textbook's paired example", () => {
    const result = Statistics.compareCounts({ both: 59, b01: 6, b10: 16, neither: 80 })
    expect(result.difference).toBeCloseTo(-0.0621, 4)
    expect(result.interval.low).toBeCloseTo(-0.1186, 4)
    expect(result.interval.high).toBeCloseTo(-0.0046, 4)
  })

  it("mirrors when the variants swap: the difference and the interval change sign, the verdict flips", () => {
    const forward = Statistics.compare(table(10, 2, 12, 6))
    const back = Statistics.compare(table(10, 12, 2, 6))
    expect(back.difference).toBeCloseTo(-forward.difference, 15)
    expect(back.interval.low).toBeCloseTo(-forward.interval.high, 12)
    expect(back.interval.high).toBeCloseTo(-forward.interval.low, 12)
    expect(back.verdict).toBe("worse")
    expect(back.pValue).toBe(forward.pValue)
  })

  it("says within noise for no pairs, equal variants and a small difference", () => {
    expect(Statistics.compare([])).toMatchObject({ n: 0, difference: 0, pValue: 1, verdict: "within noise" })
    expect(Statistics.compare([]).interval).toEqual({ low: -1, high: 1 })
    expect(Statistics.compare(table(5, 0, 0, 5))).toMatchObject({ difference: 0, pValue: 1, verdict: "within noise" })
    const small = Statistics.compare(table(10, 3, 6, 11))
    expect(small.verdict).toBe("within noise")
    expect(small.interval.low).toBeLessThan(0)
    expect(small.interval.high).toBeGreaterThan(0)
  })

  it("keeps the interval inside [−1, 1] around the difference, even at the edges", () => {
    for (const counts of [
      [0, 0, 20, 0],
      [0, 20, 0, 0],
      [20, 0, 0, 0],
      [0, 0, 0, 20],
      [0, 1, 0, 0],
      [3, 0, 7, 0]
    ] as const) {
      const [both, b10, b01, neither] = counts
      const { difference, interval } = Statistics.compare(table(both, b10, b01, neither))
      expect(interval.low).toBeGreaterThanOrEqual(-1)
      expect(interval.high).toBeLessThanOrEqual(1)
      expect(interval.low).toBeLessThanOrEqual(difference)
      expect(interval.high).toBeGreaterThanOrEqual(difference)
    }
  })

  // Known truth, 2,000 seeded experiments of 200 paired trials each: when both variants pass
  // with the same probability the exact McNemar test says "better" or "worse" at most 5% of the
  // time (its exact rate is computed, then the simulation must agree within 4 standard errors).
  it("false-alarms at most 5% of the time when the variants are equal", () => {
    const runs = 2000
    const exact = exactRejection(0.5, 0.5, 200)
    expect(exact).toBeLessThanOrEqual(0.05)
    expect(exact).toBeGreaterThan(0.03)
    for (const correlation of [0, 0.6]) {
      const results = Simulate.experiments({ pA: 0.5, pB: 0.5, correlation, trials: 200 }, runs, 1)
      const alarms = results.filter((result) => result.verdict !== "within noise").length / runs
      expect(alarms).toBeLessThanOrEqual(0.05 + Simulate.band(0.05, runs))
      if (correlation === 0) expect(Math.abs(alarms - exact)).toBeLessThan(Simulate.band(exact, runs))
    }
  })

  // Power at 0.5 vs 0.7 with 200 independent pairs: 100 discordant pairs are expected, 70% of
  // them won by b, so the exact power is about 0.98; the simulation must agree with it.
  it("finds a 20-point improvement (0.5 → 0.7, 200 paired trials) with power ≥ 0.8", () => {
    const runs = 2000
    const exact = exactRejection(0.5, 0.7, 200)
    expect(exact).toBeGreaterThanOrEqual(0.9)
    const results = Simulate.experiments({ pA: 0.5, pB: 0.7, correlation: 0, trials: 200 }, runs, 10_000)
    const found = results.filter((result) => result.verdict === "better").length / runs
    expect(results.some((result) => result.verdict === "worse")).toBe(false)
    expect(found).toBeGreaterThanOrEqual(0.8)
    expect(Math.abs(found - exact)).toBeLessThan(Simulate.band(exact, runs))
    const correlated = Simulate.experiments({ pA: 0.5, pB: 0.7, correlation: 0.6, trials: 200 }, runs, 20_000)
    expect(correlated.filter((result) => result.verdict === "better").length / runs).toBeGreaterThanOrEqual(found)
  })

  // The paired interval's coverage of the true difference pB − pA, over seeded experiments.
  it("covers the true difference some 95% of the time (Newcombe's method 10)", () => {
    const runs = 2000
    for (const design of [
      { pA: 0.5, pB: 0.7, correlation: 0, trials: 200 },
      { pA: 0.3, pB: 0.4, correlation: 0.7, trials: 100 },
      { pA: 0.8, pB: 0.8, correlation: 0.5, trials: 50 }
    ]) {
      const truth = design.pB - design.pA
      const covered =
        Simulate.experiments(design, runs, 30_000).filter(
          ({ interval }) => interval.low <= truth + 1e-12 && truth - 1e-12 <= interval.high
        ).length / runs
      expect(covered).toBeGreaterThanOrEqual(0.93)
      expect(covered).toBeLessThanOrEqual(0.99)
    }
  })

  it("rejects bad pairs, naming the index, and never lets a hostile value escape as a crash", () => {
    // @ts-expect-error: hostile input
    expect(() => Statistics.compare("pairs")).toThrow(/^pairs must be an array of \{ a, b \}, got "pairs"$/)
    // @ts-expect-error: hostile input
    expect(() => Statistics.compare([{ a: true, b: true }, null])).toThrow(/^pairs\[1\] must be an object/)
    // @ts-expect-error: hostile input
    expect(() => Statistics.compare([{ a: 1, b: true }])).toThrow(/^pairs\[0\]\.a must be a boolean, got 1$/)
    // @ts-expect-error: hostile input
    expect(() => Statistics.compare([{ a: true }])).toThrow(/^pairs\[0\]\.b must be a boolean, got undefined$/)
    const getter = {
      a: true,
      get b(): boolean {
        throw new Error("boom")
      }
    }
    expect(() => Statistics.compare([getter])).toThrow(/^pairs\[0\]\.b could not be read: boom$/)
    const proxy = new Proxy([{ a: true, b: true }], {
      get: (target, key) => {
        if (key === "0") throw new Error("trap")
        return Reflect.get(target, key)
      }
    })
    expect(() => Statistics.compare(proxy)).toThrow(/^pairs\[0\] could not be read: trap$/)
    const long = new Proxy([], { get: (target, key) => (key === "length" ? 1e12 : Reflect.get(target, key)) })
    expect(() => Statistics.compare(long)).toThrow(
      /^pairs must hold at most 10000000 pairs, got a length of 1000000000000$/
    )
    expect(() => Statistics.compare([], { confidence: 2 })).toThrow(/^confidence must be between 0 and 1/)
  })

  it("rejects bad counts, naming the count", () => {
    expect(() => Statistics.compareCounts({ both: 1, b10: -1, b01: 0, neither: 0 })).toThrow(
      /^counts\.b10 must be a whole number from 0 to 10000000, got -1$/
    )
    expect(() => Statistics.compareCounts({ both: 1, b10: 0, b01: Number.NaN, neither: 0 })).toThrow(/counts\.b01/)
    expect(() => Statistics.compareCounts({ both: 9e6, b10: 9e6, b01: 0, neither: 0 })).toThrow(
      /^the counts add up to 18000000 pairs, more than maxTrials/
    )
    const hostile = {
      both: 1,
      b10: 0,
      b01: 0,
      get neither(): number {
        throw new Error("no")
      }
    }
    expect(() => Statistics.compareCounts(hostile)).toThrow(/^counts\.neither could not be read: no$/)
    // @ts-expect-error: hostile input
    expect(() => Statistics.compareCounts(null)).toThrow(TypeError)
  })
})
