import { describe, expect, it } from "@effect/vitest"
import { Statistics } from "../src/index.ts"
import * as Exact from "./fixtures/exact.ts"
import * as Simulate from "./fixtures/simulate.ts"

/** The exact coverage of the Wilson interval at a true rate `p`: Σ P(c) over the c it covers p for. */
const exactCoverage = (p: number, n: number): number =>
  Exact.binomialPmf(n, p).reduce((sum, probability, c) => {
    const interval = Statistics.wilson(c, n)
    return interval.low <= p && p <= interval.high ? sum + probability : sum
  }, 0)

describe("Statistics.criticalValue", () => {
  it("is the normal quantile of 1 − (1 − confidence)/2", () => {
    expect(Statistics.criticalValue(0.95)).toBeCloseTo(1.959963984540054, 13)
    expect(Statistics.criticalValue(0.99)).toBeCloseTo(2.5758293035489004, 13)
    expect(Statistics.criticalValue(0.9)).toBeCloseTo(1.6448536269514722, 13)
    expect(Statistics.criticalValue(0.5)).toBeCloseTo(0.6744897501960817, 13)
    expect(Statistics.criticalValue(0.95)).toBeCloseTo(1.959963984540054, 13)
  })
})

describe("Statistics.wilson", () => {
  it("gives the bounds that solve |p̂ − p| = z √(p(1 − p)/n), the score interval's definition", () => {
    const z = Statistics.criticalValue(0.95)
    for (const n of [1, 2, 5, 30, 200, 100_000]) {
      for (const c of [1, Math.floor(n / 7), Math.floor(n / 2), n - 1].filter((c) => c > 0 && c < n)) {
        const { rate, low, high } = Statistics.wilson(c, n)
        for (const p of [low, high]) {
          expect(Math.abs(rate - p) - z * Math.sqrt((p * (1 - p)) / n)).toBeCloseTo(0, 12)
        }
        expect(low).toBeLessThan(rate)
        expect(high).toBeGreaterThan(rate)
      }
    }
  })

  it("has known values, exact ends at c = 0 and c = n, and [0, 1] with no trials", () => {
    const half = Statistics.wilson(5, 10)
    expect(half.low).toBeCloseTo(0.2365930905, 9)
    expect(half.high).toBeCloseTo(0.7634069095, 9)
    expect(Statistics.wilson(0, 10)).toEqual({ passes: 0, n: 10, rate: 0, low: 0, high: expect.closeTo(0.27753, 5) })
    const all = Statistics.wilson(10, 10)
    expect(all.high).toBe(1)
    expect(all.low).toBeCloseTo(1 - 0.27753, 5)
    expect(Statistics.wilson(0, 0)).toEqual({ passes: 0, n: 0, rate: 0, low: 0, high: 1 })
    const wider = Statistics.wilson(5, 10, 0.99)
    expect(wider.low).toBeLessThan(half.low)
    expect(wider.high).toBeGreaterThan(half.high)
  })

  // Known truth: the coverage of a 95% Wilson interval oscillates around 95% as p moves (it is
  // a discrete distribution); at n = 30 and p = 0.1 or 0.9 it is 97.4%, at n = 200 and p = 0.5
  // it is 94.4%. The documented band is 0.93–0.98.
  it("covers the true rate some 95% of the time: exactly, and over 2,000 seeded runs each", () => {
    const runs = 2000
    for (const n of [30, 200]) {
      for (const p of [0.1, 0.5, 0.9]) {
        const exact = exactCoverage(p, n)
        expect(exact).toBeGreaterThanOrEqual(0.93)
        expect(exact).toBeLessThanOrEqual(0.98)
        let covered = 0
        for (let seed = 0; seed < runs; seed++) {
          const { low, high } = Statistics.wilson(Simulate.passes(n, p, Statistics.seeded(seed)), n)
          if (low <= p && p <= high) covered++
        }
        expect(Math.abs(covered / runs - exact)).toBeLessThan(Simulate.band(exact, runs))
      }
    }
  })

  it("rejects bad input, naming the argument", () => {
    expect(() => Statistics.wilson(11, 10)).toThrow(/^c must be a whole number from 0 to n \(10\), got 11$/)
    expect(() => Statistics.wilson(1, Number.NaN)).toThrow(/^n must be a whole number from 0 to 10000000, got NaN$/)
    expect(() => Statistics.wilson(1, 1e12)).toThrow(RangeError)
    expect(() => Statistics.wilson(0.5, 10)).toThrow(/^c must .* got 0.5$/)
    for (const confidence of [0, 1, -0.5, 95, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => Statistics.wilson(1, 10, confidence)).toThrow(/^confidence must be between 0 and 1 \(exclusive\)/)
    }
    // @ts-expect-error: hostile input
    expect(() => Statistics.wilson(1, 10, "0.95")).toThrow(TypeError)
  })
})
