/**
 * The numbers of a trials report, as pure functions: the unbiased pass@k and pass^k estimators,
 * the Wilson score interval for a pass rate, and a paired comparison of two variants run on the
 * same trials (Newcombe's interval for the difference, the exact McNemar test, a verdict). Every
 * function is exact where the mathematics allows and numerically safe up to `maxTrials`:
 * binomials are never formed, only products of ratios summed as logarithms.
 *
 * Bad input (NaN, Infinity, a fraction, a negative count, `c > n`, `k > n`, more than
 * `maxTrials`, a pair that is not two booleans) throws at once: a `TypeError` when a value is
 * not of the right type, a `RangeError` when it is out of range; the message names the argument
 * and the value.
 *
 * @since 0.1.0
 */

/**
 * The most trials (or pairs) any function here accepts: ten million. Above it a product of
 * ratios would take too long to be a report's arithmetic, so it is refused with a `RangeError`.
 *
 * @since 0.1.0
 */
export const maxTrials: number = 10_000_000

const describe = (value: unknown): string => {
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value)
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (typeof value === "bigint") return `${value}n`
  if (typeof value === "boolean" || value === undefined || value === null) return String(value)
  return `a value of type ${typeof value}`
}

/** Reads a value that may be behind a throwing getter or a proxy: a throw becomes a `TypeError` naming it. */
const readOrThrow = <A>(name: string, read: () => A): A => {
  try {
    return read()
  } catch (error) {
    let reason = "it threw"
    try {
      if (error instanceof Error && typeof error.message === "string") reason = error.message
    } catch {
      // a hostile error: keep the plain reason
    }
    throw new TypeError(`${name} could not be read: ${reason}`)
  }
}

/** A whole number from `min` to `max`, or a thrown error naming `name`. */
const whole = (name: string, value: unknown, min: number, max: number, range: string): number => {
  if (typeof value !== "number") throw new TypeError(`${name} must be a number ${range}, got ${describe(value)}`)
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be a whole number ${range}, got ${describe(value)}`)
  }
  return value
}

const trials = (n: unknown): number => whole("n", n, 0, maxTrials, `from 0 to ${maxTrials}`)

const confidenceLevel = (confidence: unknown): number => {
  if (typeof confidence !== "number") {
    throw new TypeError(`confidence must be a number between 0 and 1, got ${describe(confidence)}`)
  }
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`confidence must be between 0 and 1 (exclusive), got ${describe(confidence)}`)
  }
  return confidence
}

const confidenceOption = (options: { readonly confidence?: number } | undefined): number =>
  confidenceLevel(options === undefined ? 0.95 : (readOrThrow("options.confidence", () => options.confidence) ?? 0.95))

/** Checks `(n, c, k)` for the estimators: `1 ≤ k ≤ n`, `0 ≤ c ≤ n`. */
const estimatorArguments = (n: unknown, c: unknown, k: unknown): readonly [number, number, number] => {
  const trialCount = whole("n", n, 1, maxTrials, `from 1 to ${maxTrials}`)
  const passes = whole("c", c, 0, trialCount, `from 0 to n (${trialCount})`)
  const draws = whole("k", k, 1, trialCount, `from 1 to n (${trialCount})`)
  return [trialCount, passes, draws]
}

/**
 * `log ∏_{i<terms} (1 − x/(n − i))`: the logarithm of a ratio of binomials as a sum of `log1p`,
 * accurate when the product is near 1 and when it is tiny. Stops early once the product is below
 * the smallest double (`−Infinity` then).
 */
const logProduct = (n: number, x: number, terms: number): number => {
  let sum = 0
  for (let i = 0; i < terms; i++) {
    const ratio = x / (n - i)
    if (ratio >= 1) return Number.NEGATIVE_INFINITY
    sum += Math.log1p(-ratio)
    if (sum < -800) return Number.NEGATIVE_INFINITY
  }
  return sum
}

/**
 * The unbiased estimator of pass@k — the chance that at least one of `k` trials drawn without
 * replacement from `n` trials with `c` passes passes: `1 − C(n−c, k) / C(n, k)` (Chen et al.
 * 2021, "Evaluating Large Language Models Trained on Code"). `passAtK(n, c, 1)` is `c / n`.
 *
 * Computed as a product of ratios, `∏ (1 − c/(n−i))` over `k` terms or, equivalently,
 * `∏ (1 − k/(n−i))` over `c` terms (whichever is shorter), summed as logarithms: no binomial is
 * ever formed. Throws a `RangeError` naming the argument unless `n`, `c` and `k` are whole
 * numbers with `1 ≤ k ≤ n ≤ maxTrials` and `0 ≤ c ≤ n`.
 *
 * @since 0.1.0
 */
export const passAtK = (n: number, c: number, k: number): number => {
  const [trialCount, passes, draws] = estimatorArguments(n, c, k)
  if (passes === 0) return 0
  if (trialCount - passes < draws) return 1
  const log = draws <= passes ? logProduct(trialCount, passes, draws) : logProduct(trialCount, draws, passes)
  return -Math.expm1(log)
}

/**
 * The unbiased estimator of pass^k — the chance that all of `k` trials drawn without
 * replacement from `n` trials with `c` passes pass: `C(c, k) / C(n, k)` (Yao et al. 2024,
 * "τ-bench"). `passHatK(n, c, 1)` is `c / n`; pass^k falls as `k` grows, pass@k rises.
 *
 * Computed as `∏ (1 − (n−c)/(n−i))` over `k` terms or `∏ (1 − k/(n−i))` over `n − c` terms,
 * whichever is shorter, summed as logarithms. Throws like `passAtK`.
 *
 * @since 0.1.0
 */
export const passHatK = (n: number, c: number, k: number): number => {
  const [trialCount, passes, draws] = estimatorArguments(n, c, k)
  if (passes === trialCount) return 1
  if (passes < draws) return 0
  const failures = trialCount - passes
  const log = draws <= failures ? logProduct(trialCount, failures, draws) : logProduct(trialCount, draws, failures)
  return Math.exp(log)
}

/** `Φ(x)` for `x ≥ 0`: Marsaglia's series `1/2 + φ(x) Σ x^(2j+1)/(2j+1)!!`, all terms positive. */
const normalCdf = (x: number): number => {
  let term = x
  let sum = x
  for (let j = 1; j < 2000; j++) {
    term *= (x * x) / (2 * j + 1)
    sum += term
    if (term < sum * 1e-17) break
  }
  return 0.5 + sum * Math.exp(-0.5 * x * x - 0.5 * Math.log(2 * Math.PI))
}

/** The upper quantile `z` with `Φ(z) = p` for `1/2 ≤ p < 1`: bisection, then Newton steps. */
const normalQuantile = (p: number): number => {
  let low = 0
  let high = 40
  for (let i = 0; i < 60; i++) {
    const middle = (low + high) / 2
    if (normalCdf(middle) < p) low = middle
    else high = middle
  }
  let z = (low + high) / 2
  for (let i = 0; i < 3; i++) {
    const density = Math.exp(-0.5 * z * z - 0.5 * Math.log(2 * Math.PI))
    if (density === 0) break
    z -= (normalCdf(z) - p) / density
  }
  return z
}

let lastConfidence = 0.95
let lastZ = normalQuantile(0.975)

/**
 * The two-sided critical value for a confidence level: `z` with `Φ(z) = 1 − (1 − confidence)/2`
 * (1.959963984540054 for 0.95). Throws a `RangeError` unless `0 < confidence < 1`.
 *
 * @since 0.1.0
 */
export const criticalValue = (confidence: number): number => {
  const level = confidenceLevel(confidence)
  if (level !== lastConfidence) {
    lastZ = normalQuantile(1 - (1 - level) / 2)
    lastConfidence = level
  }
  return lastZ
}

/**
 * A pass rate with its confidence interval: `rate = passes / n`, and `low ≤ rate ≤ high`, the
 * bounds of the interval (all in `[0, 1]`).
 *
 * @since 0.1.0
 */
export interface Interval {
  /** How many trials passed. */
  readonly passes: number
  /** How many trials ran. */
  readonly n: number
  /** `passes / n`; 0 when no trial ran. */
  readonly rate: number
  /** The interval's lower bound. */
  readonly low: number
  /** The interval's upper bound. */
  readonly high: number
}

/**
 * The Wilson score interval for a pass rate (Wilson 1927): the `p` with
 * `|p̂ − p| ≤ z √(p(1 − p)/n)`, that is
 * `(p̂ + z²/2n ± z √(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n)` with `p̂ = c/n` and `z` the critical
 * value of `confidence` (default 0.95). Unlike the normal ("Wald") interval it stays inside
 * `[0, 1]` and keeps close to its nominal coverage for small `n` and rates near 0 or 1; `c = 0`
 * gives `low = 0` and `c = n` gives `high = 1` exactly. With `n = 0` nothing is known: `rate` is
 * 0 and the interval is `[0, 1]`.
 *
 * Throws a `RangeError` naming the argument unless `0 ≤ c ≤ n ≤ maxTrials` are whole numbers and
 * `0 < confidence < 1`.
 *
 * @since 0.1.0
 */
export const wilson = (c: number, n: number, confidence: number = 0.95): Interval => {
  const trialCount = trials(n)
  const passes = whole("c", c, 0, trialCount, `from 0 to n (${trialCount})`)
  const z = criticalValue(confidence)
  if (trialCount === 0) return { passes, n: trialCount, rate: 0, low: 0, high: 1 }
  const rate = passes / trialCount
  const z2 = z * z
  const denominator = 1 + z2 / trialCount
  const center = (rate + z2 / (2 * trialCount)) / denominator
  const half = (z / denominator) * Math.sqrt((rate * (1 - rate)) / trialCount + z2 / (4 * trialCount * trialCount))
  return {
    passes,
    n: trialCount,
    rate,
    low: passes === 0 ? 0 : Math.max(0, Math.min(rate, center - half)),
    high: passes === trialCount ? 1 : Math.min(1, Math.max(rate, center + half))
  }
}

/**
 * One trial run by both variants: whether variant `a` passed and whether variant `b` passed.
 *
 * @since 0.1.0
 */
export interface Pair {
  /** Whether variant `a` (the baseline, e.g. `before`) passed this trial. */
  readonly a: boolean
  /** Whether variant `b` (the candidate, e.g. `fixed`) passed this trial. */
  readonly b: boolean
}

/**
 * The 2×2 table of paired trials: how many both variants passed, how many only `a` passed
 * (`b10`), how many only `b` passed (`b01`), and how many neither passed.
 *
 * @since 0.1.0
 */
export interface Counts {
  /** Trials both variants passed. */
  readonly both: number
  /** Trials `a` passed and `b` failed (discordant: `b` lost them). */
  readonly b10: number
  /** Trials `a` failed and `b` passed (discordant: `b` won them). */
  readonly b01: number
  /** Trials neither variant passed. */
  readonly neither: number
}

/**
 * What a paired comparison concluded at its level (0.05 by default): `"better"` when `b` passes
 * significantly more often than `a`, `"worse"` when significantly less often, otherwise
 * `"within noise"`.
 *
 * @since 0.1.0
 */
export type Verdict = "better" | "worse" | "within noise"

/**
 * Two variants compared on the same trials. `difference` is `bRate − aRate`; `interval` is its
 * paired confidence interval (Newcombe 1998, method 10); `pValue` is the exact two-sided
 * McNemar test on the discordant pairs; `verdict` follows `pValue`.
 *
 * @since 0.1.0
 */
export interface Comparison extends Counts {
  /** How many paired trials. */
  readonly n: number
  /** The pass rate of `a`: `(both + b10) / n`, 0 when `n` is 0. */
  readonly aRate: number
  /** The pass rate of `b`: `(both + b01) / n`, 0 when `n` is 0. */
  readonly bRate: number
  /** `bRate − aRate`, that is `(b01 − b10) / n`: positive when `b` passes more often. */
  readonly difference: number
  /** The confidence interval of `difference` (bounds in `[−1, 1]`; `[−1, 1]` when `n` is 0). */
  readonly interval: { readonly low: number; readonly high: number }
  /** The confidence level of `interval` (0.95 by default). */
  readonly confidence: number
  /** The exact two-sided McNemar p-value: `min(1, 2 P(X ≤ min(b01, b10)))`, `X ~ Bin(b01 + b10, 1/2)`. */
  readonly pValue: number
  /** `"better"` or `"worse"` when `pValue < 1 − confidence`, by the sign of `difference`; else `"within noise"`. */
  readonly verdict: Verdict
}

/**
 * The exact two-sided McNemar test (a binomial sign test on the discordant pairs): with
 * `m = b01 + b10` and `x = min(b01, b10)`, `min(1, 2 P(X ≤ x))` for `X ~ Binomial(m, 1/2)`; 1
 * when there is no discordant pair. Under "both variants pass equally often" each discordant
 * pair is a fair coin, so the test holds its level exactly, for small counts and large.
 *
 * Computed from `log C(m, x) − m log 2` and the tail summed from `x` down as ratios of terms;
 * throws a `RangeError` unless `b01` and `b10` are whole numbers with `b01 + b10 ≤ maxTrials`.
 *
 * @since 0.1.0
 */
export const mcnemar = (b01: number, b10: number): number => {
  const won = whole("b01", b01, 0, maxTrials, `from 0 to ${maxTrials}`)
  const lost = whole("b10", b10, 0, maxTrials - won, `from 0 to ${maxTrials} − b01`)
  const m = won + lost
  const x = Math.min(won, lost)
  if (2 * x >= m) return 1
  let logTerm = -m * Math.LN2
  for (let j = 1; j <= x; j++) logTerm += Math.log((m - x + j) / j)
  let ratio = 1
  let sum = 1
  for (let i = x; i > 0; i--) {
    ratio *= i / (m - i + 1)
    sum += ratio
    if (ratio < sum * 1e-17) break
  }
  return Math.min(1, 2 * Math.exp(logTerm + Math.log(sum)))
}

/**
 * `compare` from the 2×2 table instead of the pairs (see `Counts`). Throws a `RangeError`
 * naming the count unless every count is a whole number and their sum is at most `maxTrials`.
 *
 * @since 0.1.0
 */
export const compareCounts = (counts: Counts, options?: { readonly confidence?: number }): Comparison => {
  if (typeof counts !== "object" || counts === null) {
    throw new TypeError(`counts must be an object { both, b10, b01, neither }, got ${describe(counts)}`)
  }
  const read = (name: keyof Counts): unknown => readOrThrow(`counts.${name}`, () => counts[name])
  const both = whole("counts.both", read("both"), 0, maxTrials, `from 0 to ${maxTrials}`)
  const b10 = whole("counts.b10", read("b10"), 0, maxTrials, `from 0 to ${maxTrials}`)
  const b01 = whole("counts.b01", read("b01"), 0, maxTrials, `from 0 to ${maxTrials}`)
  const neither = whole("counts.neither", read("neither"), 0, maxTrials, `from 0 to ${maxTrials}`)
  const n = both + b10 + b01 + neither
  if (n > maxTrials) throw new RangeError(`the counts add up to ${n} pairs, more than maxTrials (${maxTrials})`)
  const confidence = confidenceOption(options)
  const pValue = mcnemar(b01, b10)
  const difference = n === 0 ? 0 : (b01 - b10) / n
  const verdict: Verdict = pValue < 1 - confidence ? (b01 > b10 ? "better" : "worse") : "within noise"
  const base = { n, both, b10, b01, neither, confidence, pValue, verdict, difference }
  if (n === 0) return { ...base, aRate: 0, bRate: 0, interval: { low: -1, high: 1 } }
  // Newcombe (1998), method 10, with p1 = bRate and p2 = aRate so that θ = p1 − p2 = difference.
  const b = wilson(both + b01, n, confidence)
  const a = wilson(both + b10, n, confidence)
  const marginals = (both + b01) * (b10 + neither) * (both + b10) * (b01 + neither)
  // φ, the correlation of the pairs, shrunk towards 0 by n/2 when positive (Newcombe's φ*).
  const cross = both * neither - b01 * b10
  const shrunk = cross > 0 ? Math.max(0, cross - n / 2) : cross
  const phi = marginals === 0 ? 0 : shrunk / Math.sqrt(marginals)
  const bDown = b.rate - b.low
  const bUp = b.high - b.rate
  const aDown = a.rate - a.low
  const aUp = a.high - a.rate
  const delta = Math.sqrt(Math.max(0, bDown * bDown - 2 * phi * bDown * aUp + aUp * aUp))
  const epsilon = Math.sqrt(Math.max(0, aDown * aDown - 2 * phi * aDown * bUp + bUp * bUp))
  return {
    ...base,
    aRate: a.rate,
    bRate: b.rate,
    interval: { low: Math.max(-1, difference - delta), high: Math.min(1, difference + epsilon) }
  }
}

/**
 * Compares variant `b` with variant `a` on the same trials (one `Pair` per trial, both variants
 * run on it): the rates, their difference with a paired confidence interval (Newcombe 1998,
 * method 10: the square-and-add of the two Wilson intervals with the correlation `φ*` of the
 * pairs, shrunk towards 0 by `n/2` as Newcombe does), the discordant counts, the exact McNemar p-value and a verdict at `1 − confidence`.
 * Pairing matters: trials that are hard for both variants cancel out, so a real difference is
 * found with fewer trials than two independent samples would need.
 *
 * Throws a `TypeError` naming the index when `pairs` is not an array of `{ a: boolean, b: boolean }`
 * (a throwing getter included), a `RangeError` when it holds more than `maxTrials` pairs.
 *
 * @since 0.1.0
 */
export const compare = (pairs: ReadonlyArray<Pair>, options?: { readonly confidence?: number }): Comparison => {
  if (!Array.isArray(pairs)) throw new TypeError(`pairs must be an array of { a, b }, got ${describe(pairs)}`)
  const length = readOrThrow("pairs.length", () => pairs.length)
  if (typeof length !== "number" || !Number.isInteger(length) || length > maxTrials) {
    throw new RangeError(`pairs must hold at most ${maxTrials} pairs, got a length of ${describe(length)}`)
  }
  const counts = { both: 0, b10: 0, b01: 0, neither: 0 }
  for (let i = 0; i < length; i++) {
    const pair = readOrThrow<unknown>(`pairs[${i}]`, () => pairs[i])
    if (typeof pair !== "object" || pair === null) {
      throw new TypeError(`pairs[${i}] must be an object { a, b }, got ${describe(pair)}`)
    }
    const fields: { readonly a?: unknown; readonly b?: unknown } = pair
    const a = readOrThrow(`pairs[${i}].a`, () => fields.a)
    const b = readOrThrow(`pairs[${i}].b`, () => fields.b)
    if (typeof a !== "boolean") throw new TypeError(`pairs[${i}].a must be a boolean, got ${describe(a)}`)
    if (typeof b !== "boolean") throw new TypeError(`pairs[${i}].b must be a boolean, got ${describe(b)}`)
    if (a && b) counts.both++
    else if (a) counts.b10++
    else if (b) counts.b01++
    else counts.neither++
  }
  return compareCounts(counts, options)
}

/**
 * A seeded pseudo-random generator (splitmix32: a Weyl sequence `state += 0x9e3779b9` through
 * a 32-bit mixing function): each call returns the next number in `[0, 1)`, the same sequence
 * for the same seed on every platform. For tests and stochastic fakes, never for anything
 * secret. Throws a `RangeError` unless `seed` is a whole number (it is taken modulo 2³²).
 *
 * @since 0.1.0
 */
export const seeded = (seed: number): (() => number) => {
  if (typeof seed !== "number") throw new TypeError(`seed must be a whole number, got ${describe(seed)}`)
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a whole number, got ${describe(seed)}`)
  let weyl = seed >>> 0
  return () => {
    weyl = (weyl + 0x9e3779b9) >>> 0
    const first = Math.imul(weyl ^ (weyl >>> 16), 0x21f0aaad)
    const second = Math.imul(first ^ (first >>> 15), 0x735a2d97)
    return ((second ^ (second >>> 15)) >>> 0) / 2 ** 32
  }
}
