import { Message, Model } from "@agent-harness/executor"
import { type LiveCase, ScenarioFile, Variant } from "@agent-harness/scenario"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Result } from "effect"
import { CaseSet, Journal, ReportLines, Statistics } from "../src/index.ts"
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

  it.effect("with a folder: a trace per trial, capture called for the failing ones only, its answer journaled", () => {
    const fs = memoryFiles()
    return Effect.gen(function* () {
      const cases = [caseOf("one"), caseOf("two")]
      const { model } = stochastic()
      const captured: Array<string> = []
      const report = yield* CaseSet.run(cases, {
        trials: 6,
        variants: [Variant.before],
        model,
        modelName: "fake:model",
        folder: "/r",
        concurrency: 3,
        traces: "all",
        capture: (info) =>
          Effect.sync(() => {
            captured.push(`${info.stem}.${info.variant.name}.${info.index}`)
            assert.strictEqual(info.trace, `/r/traces/${info.stem}.before.${info.index}.jsonl`)
            assert.strictEqual(fs.files.get(info.trace), info.traceText)
            assert.isFalse(info.record.passed)
            if (info.index === 0) throw new Error("capture blew up")
            return info.index % 2 === 0
              ? { scenario: CaseSet.capturedPath(info.stem, info.variant.name, info.index) }
              : { captureError: "the trace did not replay" }
          })
      })
      const all = report.cases.flatMap((c) => c.records)
      assert.strictEqual(all.length, 12)
      for (const record of all) {
        const stem = record.file === "cases/one.json" ? "one" : "two"
        assert.strictEqual(record.trace, `traces/${stem}.before.${record.index}.jsonl`)
        const trace = fs.files.get(`/r/${record.trace}`) ?? ""
        const events = trace
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l))
        assert.isAbove(events.length, 1, record.trace)
        const replied = JSON.stringify(events)
        assert.include(replied, record.passed ? "done" : "not done")
      }
      const failing = all.filter((r) => !r.passed)
      assert.isAbove(failing.length, 0)
      assert.sameMembers(
        captured,
        failing.map((r) => `${r.file === "cases/one.json" ? "one" : "two"}.before.${r.index}`)
      )
      for (const record of failing) {
        if (record.index === 0) assert.strictEqual(record.captureError, "capture blew up")
        else if (record.index % 2 === 0) assert.match(record.scenario ?? "", /^captured\/(one|two)\.before\.\d\.json$/)
        else assert.strictEqual(record.captureError, "the trace did not replay")
      }
      for (const record of all.filter((r) => r.passed)) {
        assert.isUndefined(record.scenario)
        assert.isUndefined(record.captureError)
      }
      const journaled = yield* Journal.read("/r/journal.jsonl")
      assert.sameDeepMembers([...journaled.records], all)
    }).pipe(Effect.provide(Layer.merge(fs.layer, fs.path)))
  })

  it.effect(
    "priced: each trial's loop settles every turn, its record keeps its cost, a resume keeps the journal's",
    () => {
      const fs = memoryFiles()
      const usage = { inputTokens: 1000, outputTokens: 200 }
      const price = { input: 3, output: 15 }
      // What one trial costs (one model call), from the usage and the price per million tokens.
      const perTrial = (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000
      // `Spend.make({}, { price })` of @agent-harness/budgets, written out: no limits, nothing spent.
      const zero = { inputTokens: 0, outputTokens: 0, cost: 0 }
      const spend: LiveCase.Spend = { limits: {}, price, spent: zero, reserved: zero }
      let calls = 0
      const model = Model.layer({
        respond: () =>
          Effect.sync(() => {
            calls++
            return { content: [Message.text(calls % 4 === 2 ? "not done" : "done")], usage }
          })
      })
      return Effect.gen(function* () {
        const options = {
          trials: 4,
          variants: [Variant.fixed] as const,
          model,
          modelName: "fake:model",
          folder: "/r",
          traces: "all" as const,
          spend
        }
        const report = yield* CaseSet.run([caseOf("one")], options)
        const [one] = report.cases
        assert.deepStrictEqual(
          one?.records.map((r) => r.cost),
          [perTrial, perTrial, perTrial, perTrial]
        )
        assert.closeTo(one?.cost ?? Number.NaN, 4 * perTrial, 1e-12)
        assert.strictEqual(one?.costed, 4)
        assert.closeTo(report.summary.cost ?? Number.NaN, 4 * perTrial, 1e-12)
        // The loop settled the turn in each trial's trace: spend.settled, its cost the record's.
        for (const record of one?.records ?? []) {
          const events = (fs.files.get(`/r/${record.trace}`) ?? "")
            .split("\n")
            .filter((l) => l !== "")
            .map((l) => JSON.parse(l) as { type: string; spent?: { cost: number } })
          const settled = events.filter((e) => e.type === "spend.settled")
          assert.strictEqual(settled.length, 1, record.trace)
          assert.closeTo(settled[0]?.spent?.cost ?? Number.NaN, perTrial, 1e-12)
        }
        const [caseJson, summaryJson] = ReportLines.objects(report)
        assert.closeTo(caseJson?.cost as number, 4 * perTrial, 1e-12)
        assert.strictEqual(caseJson?.costed, 4)
        assert.deepStrictEqual(
          ((caseJson?.failing ?? []) as ReadonlyArray<{ cost: number }>).map((f) => f.cost),
          [perTrial]
        )
        assert.closeTo(summaryJson?.cost as number, 4 * perTrial, 1e-12)
        // Resumed: the journal's cost is used as recorded, not recounted (trial 0's is changed
        // there; trial 3's line is dropped, so it runs again and is priced anew).
        const journal = fs.files.get("/r/journal.jsonl") ?? ""
        const lines = journal.split("\n").filter((l) => l !== "")
        const changed = lines.slice(0, 4).map((line) => {
          const parsed = JSON.parse(line) as { type: string; index?: number; cost?: number }
          return parsed.type === "trial" && parsed.index === 0 ? JSON.stringify({ ...parsed, cost: 0.5 }) : line
        })
        fs.files.set("/r/journal.jsonl", `${changed.join("\n")}\n`)
        const before = calls
        const again = yield* CaseSet.run([caseOf("one")], options)
        assert.strictEqual(calls, before + 1)
        assert.strictEqual(again.summary.resumed, 3)
        assert.deepStrictEqual(
          again.cases[0]?.records.map((r) => r.cost),
          [0.5, perTrial, perTrial, perTrial]
        )
        assert.closeTo(again.summary.cost ?? Number.NaN, 0.5 + 3 * perTrial, 1e-12)
        // Unpriced: no cost anywhere, not 0.
        const unpriced = yield* CaseSet.run([caseOf("one")], { ...options, folder: "/u", spend: undefined })
        assert.isUndefined(unpriced.summary.cost)
        assert.isUndefined(unpriced.cases[0]?.cost)
        assert.isTrue(unpriced.cases[0]?.records.every((r) => !("cost" in r)))
        assert.notInclude(ReportLines.lines(unpriced).join("\n"), '"cost"')
      }).pipe(Effect.provide(Layer.merge(fs.layer, fs.path)))
    }
  )

  it("costOf: the trials that have a cost summed and counted; nothing when none has", () => {
    assert.deepStrictEqual(CaseSet.costOf([]), {})
    assert.deepStrictEqual(CaseSet.costOf([{}, { cost: undefined }]), {})
    assert.deepStrictEqual(CaseSet.costOf([{ cost: 0.25 }, {}, { cost: 0.5 }]), { cost: 0.75, costed: 2 })
    // A priced trial that cost nothing is counted (0 is a price's answer, not a missing one).
    assert.deepStrictEqual(CaseSet.costOf([{ cost: 0 }]), { cost: 0, costed: 1 })
  })

  it.effect("by default only the failing trials' traces are written; the passing ones stay in memory", () => {
    const fs = memoryFiles()
    return Effect.gen(function* () {
      const { model } = stochastic()
      const report = yield* CaseSet.run([caseOf("one")], {
        trials: 8,
        variants: [Variant.before],
        model,
        folder: "/r"
      })
      const records = report.cases[0]?.records ?? []
      assert.isAbove(records.filter((r) => r.passed).length, 0)
      assert.isAbove(records.filter((r) => !r.passed).length, 0)
      for (const record of records) {
        const file = `/r/traces/one.before.${record.index}.jsonl`
        if (record.passed) {
          assert.isUndefined(record.trace)
          assert.isFalse(fs.files.has(file))
        } else {
          assert.strictEqual(record.trace, `traces/one.before.${record.index}.jsonl`)
          assert.include(fs.files.get(file) ?? "", "not done")
        }
      }
    }).pipe(Effect.provide(Layer.merge(fs.layer, fs.path)))
  })

  it.effect("runTrial: the trials run where it says, named by the journal's run id, kept across a resume", () => {
    const fs = memoryFiles()
    return Effect.gen(function* () {
      const seen: Array<CaseSet.TrialAt> = []
      const runTrial = (at: CaseSet.TrialAt) =>
        Effect.sync((): CaseSet.TrialRun => {
          seen.push(at)
          const passed = at.index % 2 === 0
          return {
            record: {
              file: "ignored: the run's own file is kept",
              digest: at.case.digest,
              variant: at.variant.name,
              index: at.index,
              passed,
              stop: "end",
              failures: passed ? [] : [{ kind: "check", message: "pass[0]: expected done" }],
              usage: { inputTokens: 3, outputTokens: 1 },
              durationMs: 1,
              runner: "127.0.0.1:40001"
            },
            trace: '{"type":"run.started"}\n'
          }
        })
      const options = { trials: 4, variants: [Variant.before] as const, runTrial, modelName: "x:y", folder: "/r" }
      const first = yield* CaseSet.run([caseOf("one")], options)
      const records = first.cases[0]?.records ?? []
      assert.deepStrictEqual(
        records.map((r) => [r.file, r.passed, r.runner, r.trace]),
        [
          ["cases/one.json", true, "127.0.0.1:40001", undefined],
          ["cases/one.json", false, "127.0.0.1:40001", "traces/one.before.1.jsonl"],
          ["cases/one.json", true, "127.0.0.1:40001", undefined],
          ["cases/one.json", false, "127.0.0.1:40001", "traces/one.before.3.jsonl"]
        ]
      )
      assert.strictEqual(fs.files.get("/r/traces/one.before.1.jsonl"), '{"type":"run.started"}\n')
      const journal = yield* Journal.read("/r/journal.jsonl")
      const run = journal.header?.run ?? ""
      assert.match(run, /^[0-9a-f-]{36}$/)
      assert.deepStrictEqual(new Set(seen.map((at) => at.run)), new Set([run]))
      // Resumed: nothing runs again; a fresh run gets a new id.
      seen.length = 0
      const again = yield* CaseSet.run([caseOf("one"), caseOf("two")], options)
      assert.strictEqual(again.summary.resumed, 4)
      assert.deepStrictEqual(
        seen.map((at) => [at.case.live.name, at.index, at.run]),
        [0, 1, 2, 3].map((i) => ["two", i, run])
      )
      seen.length = 0
      yield* CaseSet.run([caseOf("one")], { ...options, fresh: true })
      assert.strictEqual(seen.length, 4)
      assert.notStrictEqual(seen[0]?.run, run)
    }).pipe(Effect.provide(Layer.merge(fs.layer, fs.path)))
  })

  it("neither model nor runTrial, or traces of another name: a RangeError naming the option", () => {
    assert.throws(() => CaseSet.run([caseOf("one")], { trials: 1, variants: [Variant.fixed] }), /'model'.*'runTrial'/)
    const { model } = stochastic()
    assert.throws(
      // @ts-expect-error: not one of the modes
      () => CaseSet.run([caseOf("one")], { trials: 1, variants: [Variant.fixed], model, traces: "some" }),
      /'traces' must be "failing" or "all", got some/
    )
  })

  it.effect("one pool over all cases: never more than `concurrency` trials at once, and that many", () =>
    Effect.gen(function* () {
      let active = 0
      let most = 0
      const model = Layer.succeed(
        Model.Model,
        Model.fromReply(() =>
          Effect.gen(function* () {
            active++
            most = Math.max(most, active)
            for (let i = 0; i < 5; i++) yield* Effect.yieldNow
            active--
            return [Message.text("done")]
          })
        )
      )
      const report = yield* CaseSet.run([caseOf("one"), caseOf("two"), caseOf("three")], {
        trials: 4,
        variants: both,
        model,
        concurrency: 3
      })
      assert.strictEqual(most, 3)
      assert.strictEqual(report.summary.ran, 24)
      assert.strictEqual(report.summary.met, 3)
      assert.strictEqual(report.summary.notMet, 0)
    }).pipe(Effect.provide(memoryFilesLayer()))
  )

  it.effect("a changed case (another digest) is run again, not resumed", () =>
    Effect.gen(function* () {
      const first = stochastic()
      yield* CaseSet.run([caseOf("one")], { trials: 3, variants: both, model: first.model, folder: "/c" })
      const same = stochastic()
      const resumed = yield* CaseSet.run([caseOf("one")], {
        trials: 3,
        variants: both,
        model: same.model,
        folder: "/c"
      })
      assert.strictEqual(same.builds.length, 0)
      assert.strictEqual(resumed.summary.resumed, 6)
      assert.deepStrictEqual(
        resumed.cases.map((c) => c.resumed),
        [3, 3]
      )
      const changed = stochastic()
      const rerun = yield* CaseSet.run([{ ...caseOf("one"), digest: "another" }], {
        trials: 3,
        variants: both,
        model: changed.model,
        folder: "/c"
      })
      assert.strictEqual(changed.builds.length, 6)
      assert.strictEqual(rerun.summary.resumed, 0)
      const other = yield* Effect.flip(
        CaseSet.run([caseOf("one")], { trials: 4, variants: both, model: changed.model, folder: "/c" })
      )
      assert.strictEqual(other._tag, "JournalMismatch")
    }).pipe(Effect.provide(memoryFilesLayer()))
  )

  it.effect("two files with the same bytes are two cases: each runs its own trials, neither resumes the other's", () =>
    Effect.gen(function* () {
      const twin = (name: string): CaseSet.Case => ({ ...caseOf(name), digest: "the-same-bytes" })
      const first = stochastic()
      yield* CaseSet.run([twin("one")], { trials: 2, variants: both, model: first.model, folder: "/t" })
      const second = stochastic()
      const report = yield* CaseSet.run([twin("one"), twin("two")], {
        trials: 2,
        variants: both,
        model: second.model,
        folder: "/t"
      })
      assert.deepStrictEqual(second.builds, ["two.before.0", "two.fixed.0", "two.before.1", "two.fixed.1"])
      assert.strictEqual(report.summary.resumed, 4)
    }).pipe(Effect.provide(memoryFilesLayer()))
  )

  it.effect("the lines: valid JSON, type first, every field of the contract, finite numbers", () =>
    Effect.gen(function* () {
      const cases = [caseOf("one", { threshold: { minPassRate: 0.5, minLowerBound: 0.2 } }), caseOf("two")]
      const report = yield* CaseSet.run(cases, {
        trials: 8,
        variants: both,
        model: stochastic().model,
        modelName: "fake:model",
        folder: "/l"
      })
      const lines = ReportLines.lines(report)
      const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
      assert.deepStrictEqual(
        parsed.map((line) => line.type),
        [...Array(4).fill("trials.case"), ...Array(3).fill("trials.comparison"), "trials.summary"]
      )
      for (const line of lines) assert.match(line, /^\{"type":/)
      const numbers = (value: unknown): ReadonlyArray<number> =>
        typeof value === "number"
          ? [value]
          : typeof value === "object" && value !== null
            ? Object.values(value).flatMap(numbers)
            : []
      for (const line of parsed) for (const n of numbers(line)) assert.isTrue(Number.isFinite(n))
      const caseKeys = [
        "type",
        "file",
        "name",
        "variant",
        "reserved",
        "trials",
        "passes",
        "rate",
        "confidence",
        "passAtK",
        "passHatK",
        "threshold",
        "met",
        "failing",
        "usage",
        "durationMs",
        "resumed"
      ]
      assert.deepStrictEqual(Object.keys(parsed[0] ?? {}), caseKeys)
      const first = parsed[0] as Record<string, unknown>
      const result = report.cases[0]
      assert.deepStrictEqual(first.rate, result?.rate)
      assert.deepStrictEqual(first.threshold, { minPassRate: 0.5, minLowerBound: 0.2 })
      assert.strictEqual((first.passAtK as ReadonlyArray<number>).length, 8)
      assert.strictEqual(first.confidence, 0.95)
      const failing = first.failing as ReadonlyArray<Record<string, unknown>>
      for (const f of failing) {
        assert.deepStrictEqual(Object.keys(f), ["index", "stop", "failures", "trace"])
        assert.match(String(f.trace), /^traces\/one\.before\.\d\.jsonl$/)
      }
      assert.strictEqual(failing.length, 8 - (result?.rate.passes ?? 0))
      const comparisonKeys = [
        "type",
        "file",
        "name",
        "a",
        "b",
        "n",
        "both",
        "b10",
        "b01",
        "neither",
        "aRate",
        "bRate",
        "difference",
        "interval",
        "confidence",
        "pValue",
        "verdict"
      ]
      assert.deepStrictEqual(Object.keys(parsed[4] ?? {}), comparisonKeys)
      const overall = parsed[6] as Record<string, unknown>
      assert.strictEqual(overall.file, null)
      assert.strictEqual(overall.a, "before")
      assert.strictEqual(overall.b, "fixed")
      const { file: _f, name: _n, a: _a, b: _b, type: _t, ...comparison } = overall
      assert.deepStrictEqual(comparison, { ...report.comparisons[2]?.comparison })
      const summary = parsed[7] as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(summary), [
        "type",
        "model",
        "trialsPerCase",
        "variants",
        "cases",
        "met",
        "notMet",
        "usage",
        "durationMs",
        "resumed",
        "ran",
        "interrupted"
      ])
      assert.deepStrictEqual(summary.variants, ["before", "fixed"])
      assert.strictEqual(summary.model, "fake:model")
      assert.strictEqual(summary.cases, 2)
    }).pipe(Effect.provide(memoryFilesLayer()))
  )

  it.effect("the fiber interrupted: the trials finished so far are in the journal, and a new run resumes them", () =>
    Effect.gen(function* () {
      const five = yield* Deferred.make<void>()
      const first = stochastic()
      const fiber = yield* Effect.forkChild(
        CaseSet.run([caseOf("one")], {
          trials: 20,
          variants: both,
          model: first.model,
          folder: "/i",
          onTrial: (event) => (event.finished === 5 ? Deferred.succeed(five, undefined) : Effect.void)
        })
      )
      yield* Deferred.await(five)
      yield* Fiber.interrupt(fiber)
      const journaled = yield* Journal.read("/i/journal.jsonl")
      assert.isAtLeast(journaled.records.length, 5)
      assert.isBelow(journaled.records.length, 40)
      const again = stochastic()
      const resumed = yield* CaseSet.run([caseOf("one")], {
        trials: 20,
        variants: both,
        model: again.model,
        folder: "/i"
      })
      assert.strictEqual(resumed.summary.resumed, journaled.records.length)
      assert.strictEqual(again.builds.length, 40 - journaled.records.length)
      assert.isFalse(resumed.summary.interrupted)
    }).pipe(Effect.provide(memoryFilesLayer()))
  )

  it.effect("a failing model is a failed trial, its reason kept: stop null, the failure's kind", () =>
    Effect.gen(function* () {
      const model = Layer.succeed(
        Model.Model,
        Model.fromReply(() => Effect.fail({ _tag: "RateLimited", message: "429 too many" }))
      )
      const report = yield* CaseSet.run([caseOf("one")], { trials: 2, variants: [Variant.fixed], model })
      const [record] = report.cases[0]?.records ?? []
      assert.isFalse(record?.passed)
      assert.isNull(record?.stop)
      assert.strictEqual(record?.failures[0]?.kind, "ModelError")
      assert.include(record?.failures[0]?.message, "429 too many")
      assert.deepStrictEqual(report.comparisons, [])
      assert.deepStrictEqual(
        ReportLines.objects(report).map((line) => line.type),
        ["trials.case", "trials.summary"]
      )
      assert.strictEqual(report.summary.notMet, 1)
    }).pipe(Effect.provide(memoryFilesLayer()))
  )

  it("bad options are refused, naming the option", () => {
    const model = stochastic().model
    assert.throws(() => CaseSet.run([], { trials: 0, variants: both, model }), /'trials' must be a whole number from 1/)
    assert.throws(() => CaseSet.run([], { trials: 2, variants: both, model, concurrency: 1.5 }), /'concurrency'/)
    assert.throws(
      () => CaseSet.run([], { trials: 2, variants: [Variant.fixed, Variant.fixed], model }),
      /two different names, got fixed twice/
    )
    assert.throws(() => CaseSet.run([], { trials: 2, variants: both, model, confidence: 1 }), /confidence/)
  })
})

function memoryFilesLayer() {
  const fs = memoryFiles()
  return Layer.merge(fs.layer, fs.path)
}

describe("CaseSet helpers", () => {
  it.effect("digest: the sha-256 of the bytes, in hex", () =>
    Effect.gen(function* () {
      const expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
      assert.strictEqual(yield* CaseSet.digest("abc"), expected)
      assert.strictEqual(yield* CaseSet.digest(new TextEncoder().encode("abc")), expected)
    })
  )

  it("stems: the path from the common folder, / → -, without .json", () => {
    assert.deepStrictEqual(CaseSet.stems(["cases/a/b.json", "cases/c.json"]), ["a-b", "c"])
    assert.deepStrictEqual(CaseSet.stems(["cases/live/one.json"]), ["one"])
    assert.deepStrictEqual(CaseSet.stems(["x/a.json", "y/a.json"]), ["x-a", "y-a"])
    assert.deepStrictEqual(CaseSet.stems(["c/a/b.json", "c/a-b.json", "c/a-b~2.json"]), ["a-b", "a-b~3", "a-b~2"])
  })
})
