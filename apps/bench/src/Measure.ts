/**
 * The measuring: tinybench times every invocation of a case (one sample per call, as the issue's
 * reference numbers were taken), after a warm-up and a full garbage collection. A round runs
 * every case of a group once, in a fresh shuffled order; the figure of a case is the median,
 * over the rounds, of its per-round median. Cases that do many calls per invocation divide by
 * that count.
 *
 * The timer only ticks every few nanoseconds (10 ns here), so a plain median of tens-of-ns
 * samples jumps from tick to tick (A reads 40 or 50 ns). The per-round median is therefore the
 * median of grouped data: samples are binned on the timer's step, and the median is interpolated
 * inside its bin.
 */
import { Bench } from "tinybench"
import { gc } from "./Gc.ts"

/** How long to measure. */
export interface Settings {
  readonly quick: boolean
  readonly rounds: number
  /** Time budget per case per round, ms. */
  readonly time: number
  readonly warmupTime: number
  /** Minimum samples per case per round (slow cases stop at the time budget after these). */
  readonly iterations: number
}

export const full: Settings = { quick: false, rounds: 9, time: 150, warmupTime: 100, iterations: 12 }
export const quick: Settings = { quick: true, rounds: 3, time: 40, warmupTime: 20, iterations: 4 }

/** One thing to time. */
export interface Case {
  readonly name: string
  readonly fn: () => unknown
  /** Calls made by one invocation (the median is divided by it); default 1. */
  readonly per?: number | undefined
}

const shuffled = <A>(items: ReadonlyArray<A>): Array<A> => {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    const a = out[i] as A
    out[i] = out[j] as A
    out[j] = a
  }
  return out
}

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/**
 * The timer's step in ns: the smallest gap between the sample values that carry weight, once
 * values within 2 ns of each other (float noise of the ms clock) are taken as one. 1 on a timer
 * that ticks every nanosecond.
 */
export const timerStep = (sortedNs: ReadonlyArray<number>): number => {
  const counts = new Map<number, number>()
  for (const v of sortedNs) counts.set(Math.round(v), (counts.get(Math.round(v)) ?? 0) + 1)
  const heavy = [...counts.entries()].filter(([, n]) => n >= sortedNs.length / 1000).sort((a, b) => a[0] - b[0])
  // Clusters of values within 2 ns, each represented by its most frequent value.
  const reps: Array<number> = []
  let best: [number, number] | undefined
  let last = Number.NEGATIVE_INFINITY
  for (const [value, n] of heavy) {
    if (value - last > 2 && best !== undefined) {
      reps.push(best[0])
      best = undefined
    }
    if (best === undefined || n > best[1]) best = [value, n]
    last = value
  }
  if (best !== undefined) reps.push(best[0])
  let step = Number.POSITIVE_INFINITY
  for (let i = 1; i < reps.length; i++) step = Math.min(step, (reps[i] as number) - (reps[i - 1] as number))
  return Number.isFinite(step) && step > 2 ? step : 1
}

/** The median of samples binned on the timer's step, interpolated inside the median bin. */
export const groupedMedian = (sortedNs: ReadonlyArray<number>, step: number): number => {
  const bins = new Map<number, number>()
  for (const v of sortedNs) {
    const bin = Math.round(v / step)
    bins.set(bin, (bins.get(bin) ?? 0) + 1)
  }
  const half = sortedNs.length / 2
  let below = 0
  for (const [bin, n] of [...bins.entries()].sort((a, b) => a[0] - b[0])) {
    if (below + n >= half) return (bin - 0.5) * step + ((half - below) / n) * step
    below += n
  }
  return median(sortedNs)
}

/** One case timed once: the grouped median of its samples, ns per invocation. */
const time = async (c: Case, settings: Settings): Promise<number> => {
  // A bench per case, so that no other case's samples are still held while it runs.
  const bench = new Bench({
    time: settings.time,
    warmupTime: settings.warmupTime,
    iterations: settings.iterations,
    warmupIterations: Math.min(settings.iterations, 16),
    retainSamples: true,
    setup: () => gc(),
    throws: true
  })
  bench.add(c.name, c.fn)
  await bench.run()
  const result = bench.tasks[0]?.result
  if (result?.state !== "completed") throw new Error(`bench case '${c.name}' ended ${result?.state}`)
  const samples = (result.latency.samples ?? []).map((ms) => ms * 1e6)
  return samples.length === 0 ? result.latency.p50 * 1e6 : groupedMedian(samples, timerStep(samples))
}

/** Median ns per call of every case, by name. */
export const run = async (cases: ReadonlyArray<Case>, settings: Settings): Promise<ReadonlyMap<string, number>> => {
  const perRound = new Map<string, Array<number>>()
  for (let round = 0; round < settings.rounds; round++) {
    for (const c of shuffled(cases)) {
      const ns = (await time(c, settings)) / (c.per ?? 1)
      const list = perRound.get(c.name) ?? []
      list.push(ns)
      perRound.set(c.name, list)
    }
  }
  const out = new Map<string, number>()
  for (const [name, values] of perRound) out.set(name, median(values))
  return out
}

/** The value of a case, which must have been measured. */
export const get = (results: ReadonlyMap<string, number>, name: string): number => {
  const value = results.get(name)
  if (value === undefined) throw new Error(`no measurement for '${name}'`)
  return value
}
