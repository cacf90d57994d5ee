import { describe, expect, it } from "@effect/vitest"
import { Statistics } from "../src/index.ts"
import * as Exact from "./fixtures/exact.ts"

const draw = (seed: number, count: number): ReadonlyArray<number> => {
  const random = Statistics.seeded(seed)
  return Array.from({ length: count }, () => random())
}

describe("Statistics.seeded", () => {
  it("repeats the same sequence for the same seed, and another for another seed", () => {
    expect(draw(42, 100)).toEqual(draw(42, 100))
    expect(draw(42, 100)).not.toEqual(draw(43, 100))
    expect(draw(-1, 10)).toEqual(draw(2 ** 32 - 1, 10))
  })

  it("is splitmix32: the same numbers as the algorithm worked in BigInt modulo 2³²", () => {
    for (const seed of [0, 1, 42, 2 ** 31, 2 ** 32 - 1]) {
      expect(draw(seed, 50)).toEqual(Exact.splitmix32(seed, 50))
    }
  })

  it("is uniform on [0, 1): 200,000 draws pass a chi-square test over 20 bins", () => {
    const bins = new Array<number>(20).fill(0)
    const random = Statistics.seeded(7)
    let outside = 0
    for (let i = 0; i < 200_000; i++) {
      const x = random()
      if (!(x >= 0 && x < 1)) outside++
      else {
        const bin = Math.floor(x * 20)
        bins[bin] = (bins[bin] ?? 0) + 1
      }
    }
    expect(outside).toBe(0)
    const expected = 200_000 / 20
    const chiSquare = bins.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0)
    // 19 degrees of freedom: P(χ² > 43.8) = 0.001.
    expect(chiSquare).toBeLessThan(43.8)
  })

  it("rejects a seed that is not a whole number", () => {
    expect(() => Statistics.seeded(1.5)).toThrow(/^seed must be a whole number, got 1.5$/)
    expect(() => Statistics.seeded(Number.NaN)).toThrow(RangeError)
    // @ts-expect-error: hostile input
    expect(() => Statistics.seeded("1")).toThrow(TypeError)
  })
})
