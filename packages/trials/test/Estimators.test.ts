import { describe, expect, it } from "@effect/vitest"
import { Statistics } from "../src/index.ts"
import * as Exact from "./fixtures/exact.ts"

/** Every (n, c, k) with 1 ≤ k ≤ n ≤ 40, and some large ones. */
const small = (): ReadonlyArray<readonly [number, number, number]> => {
  const out: Array<readonly [number, number, number]> = []
  for (let n = 1; n <= 40; n++) for (let c = 0; c <= n; c++) for (let k = 1; k <= n; k++) out.push([n, c, k])
  return out
}
const large: ReadonlyArray<readonly [number, number, number]> = [
  [200, 1, 1],
  [200, 1, 100],
  [200, 199, 100],
  [200, 100, 50],
  [1000, 3, 10],
  [1000, 997, 10],
  [1000, 500, 500],
  [1000, 900, 20],
  [3000, 1500, 1000],
  [3000, 2999, 2999],
  [3000, 10, 2990]
]

describe("Statistics.passAtK and passHatK against exact BigInt binomials", () => {
  it("agree with 1 − C(n−c,k)/C(n,k) and C(c,k)/C(n,k) for every n ≤ 40 and for large n", () => {
    let worstAt = 0
    let worstHat = 0
    for (const [n, c, k] of [...small(), ...large]) {
      const at = Exact.relativeError(Statistics.passAtK(n, c, k), Exact.passAtK(n, c, k))
      const hat = Exact.relativeError(Statistics.passHatK(n, c, k), Exact.passHatK(n, c, k))
      worstAt = Math.max(worstAt, at)
      worstHat = Math.max(worstHat, hat)
      if (at > 1e-11 || hat > 1e-11) expect({ n, c, k, at, hat }).toBe("within 1e-11")
    }
    expect(worstAt).toBeLessThan(1e-11)
    expect(worstHat).toBeLessThan(1e-11)
  })

  it("keeps tiny values: pass^k far below 1e-100 is exact in relative terms, 0 only below the doubles", () => {
    const want = Exact.passHatK(1000, 500, 400)
    expect(want).toBeGreaterThan(0)
    expect(want).toBeLessThan(1e-100)
    expect(Exact.relativeError(Statistics.passHatK(1000, 500, 400), want)).toBeLessThan(1e-11)
    expect(Statistics.passHatK(100_000, 50_000, 50_000)).toBe(0)
    expect(Statistics.passAtK(100_000, 50_000, 50_000)).toBe(1)
  })

  it("has the limits: k = 1 is c/n; k = n is 1 (any pass) for pass@k and 0 (any failure) for pass^k", () => {
    for (const n of [1, 2, 7, 30, 1000, 100_000]) {
      for (const c of [0, 1, Math.floor(n / 3), n - 1, n].filter((c) => c >= 0)) {
        expect(Statistics.passAtK(n, c, 1)).toBeCloseTo(c / n, 14)
        expect(Statistics.passHatK(n, c, 1)).toBeCloseTo(c / n, 14)
        expect(Statistics.passAtK(n, c, n)).toBe(c > 0 ? 1 : 0)
        expect(Statistics.passHatK(n, c, n)).toBe(c === n ? 1 : 0)
      }
    }
  })

  it("pass@k rises and pass^k falls as k grows, and pass^k ≤ c/n ≤ pass@k", () => {
    const n = 50
    for (const c of [1, 10, 25, 49]) {
      for (let k = 2; k <= n; k++) {
        expect(Statistics.passAtK(n, c, k)).toBeGreaterThanOrEqual(Statistics.passAtK(n, c, k - 1))
        expect(Statistics.passHatK(n, c, k)).toBeLessThanOrEqual(Statistics.passHatK(n, c, k - 1))
        expect(Statistics.passHatK(n, c, k)).toBeLessThanOrEqual(c / n)
        expect(Statistics.passAtK(n, c, k)).toBeGreaterThanOrEqual(c / n)
      }
    }
  })

  it("stays fast and finite at n = 100,000 (products of ratios, no huge binomials)", () => {
    const start = performance.now()
    const at = Statistics.passAtK(100_000, 1, 50_000)
    const hat = Statistics.passHatK(100_000, 99_999, 50_000)
    const mid = Statistics.passHatK(100_000, 99_990, 5)
    expect(at).toBeCloseTo(0.5, 12)
    expect(hat).toBeCloseTo(0.5, 12)
    expect(Exact.relativeError(mid, Exact.passHatK(100_000, 99_990, 5))).toBeLessThan(1e-12)
    expect(performance.now() - start).toBeLessThan(1000)
  })
})

describe("Statistics.passAtK and passHatK reject bad input, naming the argument", () => {
  const cases: ReadonlyArray<readonly [unknown, unknown, unknown, RegExp]> = [
    [Number.NaN, 1, 1, /^n must be a whole number from 1 to 10000000, got NaN$/],
    [Number.POSITIVE_INFINITY, 1, 1, /^n must .* got Infinity$/],
    [1e15, 1, 1, /^n must .* got 1000000000000000$/],
    [0, 0, 1, /^n must .* got 0$/],
    [-3, 0, 1, /^n must .* got -3$/],
    [10.5, 1, 1, /^n must .* got 10.5$/],
    [10, 11, 1, /^c must be a whole number from 0 to n \(10\), got 11$/],
    [10, -1, 1, /^c must .* got -1$/],
    [10, 2.5, 1, /^c must .* got 2.5$/],
    [10, Number.NaN, 1, /^c must .* got NaN$/],
    [10, 2, 11, /^k must be a whole number from 1 to n \(10\), got 11$/],
    [10, 2, 0, /^k must .* got 0$/],
    [10, 2, Number.NEGATIVE_INFINITY, /^k must .* got -Infinity$/]
  ]
  it("throws a RangeError for numbers out of range", () => {
    for (const [n, c, k, message] of cases) {
      for (const f of [Statistics.passAtK, Statistics.passHatK]) {
        // @ts-expect-error: hostile input, typed as unknown
        expect(() => f(n, c, k)).toThrow(RangeError)
        // @ts-expect-error: hostile input, typed as unknown
        expect(() => f(n, c, k)).toThrow(message)
      }
    }
  })

  it("throws a TypeError for values that are not numbers", () => {
    for (const bad of ["10", 10n, null, undefined, {}, [10]]) {
      // @ts-expect-error: hostile input
      expect(() => Statistics.passAtK(bad, 1, 1)).toThrow(TypeError)
      // @ts-expect-error: hostile input
      expect(() => Statistics.passHatK(10, bad, 1)).toThrow(/^c must be a number/)
    }
  })
})
