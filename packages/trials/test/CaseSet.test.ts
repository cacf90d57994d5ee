import { Message, Model } from "@agent-harness/executor"
import { ScenarioFile, Variant } from "@agent-harness/scenario"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Result } from "effect"
import { CaseSet, ReportLines, Statistics } from "../src/index.ts"
import { memoryFiles } from "./fixtures/memoryFiles.ts"

const liveCase = (name: string, extra: Record<string, unknown> = {}): ScenarioFile.Live => {
  const decoded = ScenarioFile.decode(`cases/${name}.json`, {
    format: 1,
    kind: "live",
    name,
    user: "Say done.",
    pass: [{ text: "done" }],
    ...extra
  })
  if (Result.isFailure(decoded) || decoded.success.kind !== "live") throw new Error("not a live case")
  return decoded.success
}

const caseOf = (name: string, extra: Record<string, unknown> = {}): CaseSet.Case => ({
  live: liveCase(name, extra),
  file: `cases/${name}.json`,
  digest: `digest-of-${name}`,
  reserved: false
})

/** The chance `u` of a trial, the same for every variant of (case, index): deterministic, seeded. */
const chance = (file: string, index: number): number => {
  let seed = index * 7919
  for (const char of file) seed = (seed * 31 + char.charCodeAt(0)) >>> 0
  return Statistics.seeded(seed)()
}

/** The pass probability of each variant: `before` 0.5, `fixed` 0.7. */
const probability = (variant: string): number => (variant === "before" ? 0.5 : 0.7)

const passes = (file: string, variant: string, index: number): boolean => chance(file, index) < probability(variant)

/**
 * A stochastic model per trial: passes with the variant's probability, by the trial's chance
 * (so `a_i` passing implies `b_i` passing); counts its builds and their order.
 */
const stochastic = () => {
  const builds: Array<string> = []
  const model = (at: CaseSet.TrialAt) =>
    Layer.effect(
      Model.Model,
      Effect.sync(() => {
        builds.push(`${at.case.live.name}.${at.variant.name}.${at.index}`)
        const passed = passes(at.case.file, at.variant.name, at.index)
        return Model.fromReply(() => Effect.succeed([Message.text(passed ? "done" : "not done")]))
      })
    )
  return { model, builds }
}

const both = [Variant.before, Variant.fixed] as const

describe("CaseSet.run", () => {
  it.effect("two variants: the same trials interleaved, paired, compared as Statistics.compare does", () =>
    Effect.gen(function* () {
      const cases = [caseOf("one"), caseOf("two")]
      const { model, builds } = stochastic()
      const report = yield* CaseSet.run(cases, { trials: 30, variants: both, model, modelName: "fake:model" })
      assert.strictEqual(builds.length, 2 * 2 * 30)
      assert.deepStrictEqual(builds.slice(0, 4), ["one.before.0", "one.fixed.0", "one.before.1", "one.fixed.1"])
      assert.strictEqual(builds[60], "two.before.0")
      assert.deepStrictEqual(
        report.cases.map((c) => `${c.name}.${c.variant}`),
        ["one.before", "one.fixed", "two.before", "two.fixed"]
      )
      const pooled: Array<Statistics.Pair> = []
      for (const c of cases) {
        const pairs = Array.from({ length: 30 }, (_, i) => ({
          a: passes(c.file, "before", i),
          b: passes(c.file, "fixed", i)
        }))
        pooled.push(...pairs)
        const compared = report.comparisons.find((x) => x.file === c.file)
        assert.deepStrictEqual(compared?.comparison, Statistics.compare(pairs))
        assert.strictEqual(compared?.comparison.b10, 0)
        const before = report.cases.find((r) => r.file === c.file && r.variant === "before")
        const passed = pairs.filter((p) => p.a).length
        assert.deepStrictEqual(before?.rate, Statistics.wilson(passed, 30))
        assert.deepStrictEqual(
          before?.failing.map((f) => f.index),
          pairs.flatMap((p, i) => (p.a ? [] : [i]))
        )
      }
      const overall = report.comparisons.at(-1)
      assert.strictEqual(overall?.file, null)
      assert.strictEqual(overall?.name, "all cases")
      assert.deepStrictEqual(overall?.comparison, Statistics.compare(pooled))
      assert.strictEqual(report.summary.ran, 120)
      assert.strictEqual(report.summary.resumed, 0)
      assert.isFalse(report.summary.interrupted)
      // The known truth: 0.5 against 0.7 over 60 pairs, b never loses a pair.
      assert.isTrue(overall !== undefined && overall.comparison.b01 > 5, JSON.stringify(overall))
    }).pipe(Effect.provide(memoryFilesLayer()))
  )

  it.effect("resume: a run stopped half-way, run again, runs only what is left and gives the same numbers", () =>
    Effect.gen(function* () {
      const cases = [caseOf("one"), caseOf("two", { threshold: { minPassRate: 0.4 } })]
      const whole = stochastic()
      const uninterrupted = yield* CaseSet.run(cases, {
        trials: 10,
        variants: both,
        model: whole.model,
        modelName: "fake:model",
        folder: "/whole"
      })
      const first = stochastic()
      const stop = yield* Deferred.make<void>()
      const partial = yield* CaseSet.run(cases, {
        trials: 10,
        variants: both,
        model: first.model,
        modelName: "fake:model",
        folder: "/report",
        onTrial: (event) => (event.finished >= 13 ? Deferred.succeed(stop, undefined) : Effect.void),
        interrupt: Deferred.await(stop)
      })
      assert.isTrue(partial.summary.interrupted)
      assert.strictEqual(partial.summary.ran, first.builds.length)
      assert.isBelow(first.builds.length, 40)
      assert.isAtLeast(first.builds.length, 13)
      const again = stochastic()
      const resumed = yield* CaseSet.run(cases, {
        trials: 10,
        variants: both,
        model: again.model,
        modelName: "fake:model",
        folder: "/report"
      })
      assert.strictEqual(first.builds.length + again.builds.length, 40)
      assert.strictEqual(resumed.summary.resumed, first.builds.length)
      assert.strictEqual(resumed.summary.ran, again.builds.length)
      const numbers = (r: CaseSet.Report) => ReportLines.objects(r).map((line) => ({ ...line, resumed: 0, ran: 0 }))
      assert.deepStrictEqual(numbers(resumed), numbers(uninterrupted))
    }).pipe(Effect.provide(memoryFilesLayer()))
  )
})

function memoryFilesLayer() {
  const fs = memoryFiles()
  return Layer.merge(fs.layer, fs.path)
}
