import { Message, Model } from "@agent-harness/executor"
import { ScenarioFile } from "@agent-harness/scenario"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import { Statistics, Trials } from "../src/index.ts"

const liveCase = (extra: Record<string, unknown> = {}): ScenarioFile.Live => {
  const decoded = ScenarioFile.decode("cases/live.json", {
    format: 1,
    kind: "live",
    user: "Say done.",
    files: { "list.txt": "bread" },
    pass: [{ text: "done" }],
    ...extra
  })
  if (Result.isFailure(decoded) || decoded.success.kind !== "live") throw new Error("not a live case")
  return decoded.success
}

/** A stochastic model: each trial (each build of the layer) passes with probability `p`, seeded. */
const stochastic = (p: number, seed: number) => {
  const random = Statistics.seeded(seed)
  let built = 0
  const layer = Layer.effect(
    Model.Model,
    Effect.sync(() => {
      built++
      const passes = random() < p
      return Model.fromReply(() => Effect.succeed([Message.text(passes ? "done" : "not done")]))
    })
  )
  return { layer, built: () => built }
}

describe("Trials.run", () => {
  it.effect("n independent trials, each with its own model: passes, the Wilson interval, pass@k and pass^k", () =>
    Effect.gen(function* () {
      const model = stochastic(0.6, 7)
      const report = yield* Trials.run(liveCase(), "cases/live.json", {
        trials: 40,
        model: model.layer,
        concurrency: 4
      })
      assert.strictEqual(model.built(), 40)
      assert.strictEqual(report.trials.length, 40)
      const passes = report.trials.filter((t) => t.verdict.passed).length
      assert.strictEqual(report.rate.passes, passes)
      assert.deepStrictEqual(report.rate, Statistics.wilson(passes, 40))
      assert.strictEqual(report.failing.length, 40 - passes)
      assert.closeTo(report.passAtK[0] ?? -1, passes / 40, 1e-12)
      assert.closeTo(report.passHatK[0] ?? -1, passes / 40, 1e-12)
      assert.strictEqual(report.passAtK[4], Statistics.passAtK(40, passes, 5))
      assert.strictEqual(report.passHatK.at(-1), passes === 40 ? 1 : 0)
      // No threshold declared: every trial must pass.
      assert.deepStrictEqual(report.threshold, { minPassRate: 1 })
      assert.strictEqual(report.met, passes === 40)
      assert.isTrue(passes > 10 && passes < 35, `seeded 0.6 gave ${passes} of 40`)
    })
  )

  it.effect("the declared threshold decides: the rate, the interval's lower bound, or both", () =>
    Effect.gen(function* () {
      const always = stochastic(1, 1)
      const byRate = yield* Trials.run(liveCase({ threshold: { minPassRate: 0.9 } }), "l.json", {
        trials: 10,
        model: always.layer
      })
      assert.isTrue(byRate.met)
      // 10 of 10 passes: the Wilson lower bound is about 0.72, under 0.8.
      const byBound = yield* Trials.run(liveCase({ threshold: { minLowerBound: 0.8 } }), "l.json", {
        trials: 10,
        model: always.layer
      })
      assert.isFalse(byBound.met)
      assert.isBelow(byBound.rate.low, 0.8)
      const never = stochastic(0, 1)
      const none = yield* Trials.run(liveCase({ threshold: { minPassRate: 0.1 } }), "l.json", {
        trials: 5,
        model: never.layer
      })
      assert.isFalse(none.met)
      assert.deepStrictEqual(none.failing, [0, 1, 2, 3, 4])
    })
  )

  it.effect("a trial never sees another's files: each starts from the case's", () =>
    Effect.gen(function* () {
      const writes = Layer.succeed(
        Model.Model,
        Model.fromReply((request) =>
          Effect.succeed(
            request.messages.some((m) => m.role === "assistant")
              ? [Message.text("done")]
              : [Message.toolUse("w1", "append", { path: "list.txt", content: ", eggs" })]
          )
        )
      )
      const report = yield* Trials.run(liveCase({ pass: [{ file: "list.txt", content: "bread, eggs" }] }), "l.json", {
        trials: 3,
        model: writes
      })
      assert.deepStrictEqual(
        report.trials.map((t) => t.files["list.txt"]),
        ["bread, eggs", "bread, eggs", "bread, eggs"]
      )
      assert.isTrue(report.met)
    })
  )

  it("bad options are refused, naming the option", () => {
    const model = stochastic(1, 1).layer
    assert.throws(
      () => Trials.run(liveCase(), "l.json", { trials: 0, model }),
      /'trials' must be a whole number from 1/
    )
    assert.throws(() => Trials.run(liveCase(), "l.json", { trials: 1.5, model }), /'trials'/)
    assert.throws(
      () => Trials.run(liveCase(), "l.json", { trials: 2, model, concurrency: 0 }),
      /'concurrency' must be a whole number of at least 1, got 0/
    )
  })

  it.effect("10,000 trials against an instant model: every trial built, run and counted, no stack overflow", () =>
    Effect.gen(function* () {
      // A correctness test at scale; its time is the bench's row, not asserted here.
      const model = stochastic(0.5, 42)
      const report = yield* Trials.run(liveCase({ threshold: { minLowerBound: 0.4 } }), "l.json", {
        trials: 10_000,
        model: model.layer,
        concurrency: 16
      })
      assert.strictEqual(model.built(), 10_000)
      assert.strictEqual(report.trials.length, 10_000)
      const passes = report.trials.filter((t) => t.verdict.passed).length
      assert.strictEqual(report.rate.n, 10_000)
      assert.strictEqual(report.rate.passes, passes)
      assert.strictEqual(report.failing.length, 10_000 - passes)
      assert.strictEqual(report.passAtK.length, 10_000)
      assert.strictEqual(report.passHatK.length, 10_000)
      assert.isTrue(report.rate.low < 0.5 && report.rate.high > 0.5, JSON.stringify(report.rate))
      assert.isTrue(report.met)
    })
  )
})
