import { type Price, Spend, SpendMeter } from "@agent-harness/budgets"
import { Message, Model, Spending } from "@agent-harness/executor"
import { Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { type Event as Events, ModelPlanner, Session } from "../src/index.ts"
import { fail, scriptedTool } from "./fixtures.ts"

const price: Price.Price = { input: 3, output: 15 }

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

interface Planning {
  /** Reported usage for a request (its bound given); `undefined`: none reported. */
  readonly usage?: ((bound: number, n: number) => Model.Usage | undefined) | undefined
  /** Whether the n-th call fails (a provider error). */
  readonly fails?: ((n: number) => boolean) | undefined
  readonly cap?: number | undefined
}

/** A planning model: each call answers a one-step plan of `act` with a fresh id (so it runs). */
const planningModel = (options: Planning = {}) => {
  const requests: Array<Model.Request> = []
  const usages: Array<Model.Usage | undefined> = []
  const shape: Model.Shape = {
    respond: (request) =>
      Effect.suspend(() => {
        requests.push(request)
        const n = requests.length
        if (options.fails?.(n) === true) {
          usages.push(undefined)
          return Effect.fail({ _tag: "ProviderError", message: `call ${n} failed` })
        }
        const bound = Spending.requestTokens(request.messages, request.toolset)
        const usage =
          options.usage === undefined
            ? { inputTokens: Math.floor(bound / 2), outputTokens: 40 }
            : options.usage(bound, n)
        usages.push(usage)
        const text = JSON.stringify({
          steps: [{ id: n, tool_name: "act", args: { n }, expected_outcome: "it acts" }]
        })
        return Effect.succeed({ content: [Message.text(text)], ...(usage === undefined ? {} : { usage }) })
      }),
    ...(options.cap === null ? {} : { maxOutputTokens: options.cap ?? 200 })
  }
  return { layer: Model.layer(shape), requests, usages }
}

/** `act` fails every time: the session replans until a budget stops it. */
const failing = () => scriptedTool("act", [fail("the service is down")])

const sessionWith = (spend: Spend.Spend | SpendMeter.SpendMeter | undefined, maxReplans = 200) => {
  const act = failing()
  const toolset = Toolset.make(act.tool)
  return Session.run({
    goal: "act until it works",
    planner: ModelPlanner.make({ toolset }),
    toolset,
    maxSteps: 1_000,
    maxReplans,
    ...(spend === undefined ? {} : { spend })
  })
}

type Event = Events.Event

const ofType = <K extends Event["type"]>(events: ReadonlyArray<Event>, type: K) =>
  events.filter((e): e is Extract<Event, { readonly type: K }> => e.type === type)

describe("Session with a spend", () => {
  it.effect(
    "the planner's calls draw from it: the session stops with token_budget before the call that could pass it",
    () =>
      Effect.gen(function* () {
        const model = planningModel()
        const result = yield* sessionWith(Spend.make({ totalTokens: 30_000 })).pipe(Effect.provide(model.layer))
        assert.strictEqual(result.reason, "token_budget")
        assert.strictEqual(result.status, "failed")
        const spent = result.spent
        assert.isDefined(spent)
        if (spent === undefined) return
        assert.isAtMost(spent.input_tokens + spent.output_tokens, 30_000)
        assert.isAbove(model.requests.length, 3)
        const settled = ofType(result.events, "spend.settled")
        const refused = ofType(result.events, "spend.refused")
        // One settlement per call made; the refused call was never made.
        assert.strictEqual(settled.length, model.requests.length)
        assert.strictEqual(refused.length, 1)
        assert.strictEqual(refused[0]?.kind, "total_tokens")
        assert.isAbove((refused[0]?.committed ?? 0) + (refused[0]?.requested ?? 0), 30_000)
        assert.strictEqual(refused[0]?.revision, settled.at(-1)?.revision === undefined ? 0 : settled.length)
        // The settled amounts are the reported usage, and add up to the total.
        const reported = model.usages.reduce(
          (sum, usage) => sum + (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0),
          0
        )
        assert.strictEqual(spent.input_tokens + spent.output_tokens, reported)
        assert.deepStrictEqual(settled.at(-1)?.total, spent)
        assert.strictEqual(result.events.at(-1)?.type, "session.finished")
      })
  )

  it.effect("a cost budget stops it with cost_budget; the money is the reported usage priced", () =>
    Effect.gen(function* () {
      const model = planningModel({ cap: 1_000 })
      const result = yield* sessionWith(Spend.make({ cost: 0.08 }, { price })).pipe(Effect.provide(model.layer))
      assert.strictEqual(result.reason, "cost_budget")
      const cost = result.spent?.cost ?? Number.NaN
      assert.isAtMost(cost, 0.08)
      const priced = model.usages.reduce(
        (sum, usage) => sum + ((usage?.inputTokens ?? 0) * 3 + (usage?.outputTokens ?? 0) * 15) / 1e6,
        0
      )
      assert.closeTo(cost, priced, 1e-12)
    })
  )

  it.effect("a spend without limits only counts; without a spend there is no `spent`", () =>
    Effect.gen(function* () {
      const counted = yield* sessionWith(Spend.make({}, { price }), 3).pipe(Effect.provide(planningModel().layer))
      assert.strictEqual(counted.reason, "replan_budget")
      assert.isAbove(counted.spent?.input_tokens ?? 0, 0)
      assert.strictEqual(ofType(counted.events, "spend.settled").length, 4)
      const plain = yield* sessionWith(undefined, 3).pipe(Effect.provide(planningModel().layer))
      assert.isUndefined(plain.spent)
      assert.strictEqual(ofType(plain.events, "spend.settled").length, 0)
    })
  )

  it.effect("a limited spend and no output cap anywhere: OutputCapMissing, no call made", () =>
    Effect.gen(function* () {
      const model = planningModel({ cap: null as unknown as number })
      const exit = yield* Effect.exit(
        sessionWith(Spend.make({ totalTokens: 10_000 })).pipe(Effect.provide(model.layer))
      )
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
      const failure = error?._tag === "Fail" ? error.error : undefined
      assert.instanceOf(failure, ModelPlanner.OutputCapMissing)
      assert.include(String((failure as { message?: unknown } | undefined)?.message), "maxOutputTokens")
      assert.strictEqual(model.requests.length, 0)
      // The planner's own cap is enough.
      const act = failing()
      const toolset = Toolset.make(act.tool)
      const capped = yield* Session.run({
        goal: "g",
        planner: ModelPlanner.make({ toolset, maxOutputTokens: 100 }),
        toolset,
        maxSteps: 10,
        maxReplans: 1,
        spend: Spend.make({ totalTokens: 100_000 })
      }).pipe(Effect.provide(planningModel({ cap: null as unknown as number }).layer))
      assert.strictEqual(capped.reason, "replan_budget")
    })
  )

  it.effect("two sessions on one SpendMeter never pass its limit together", () =>
    Effect.gen(function* () {
      const meter = SpendMeter.makeUnsafe(Spend.make({ outputTokens: 2_000 }))
      const [a, b] = yield* Effect.all(
        [
          sessionWith(meter).pipe(Effect.provide(planningModel().layer)),
          sessionWith(meter).pipe(Effect.provide(planningModel().layer))
        ],
        { concurrency: 2 }
      )
      assert.strictEqual(a.reason, "token_budget")
      assert.strictEqual(b.reason, "token_budget")
      const spent = (yield* meter.current).spent
      assert.isAtMost(spent.outputTokens, 2_000)
      assert.deepStrictEqual(a.spent, b.spent)
    })
  )

  it.effect(
    "2,000 random sessions never spend past a limit, and stop with the typed reason when they would",
    () =>
      Effect.gen(function* () {
        const random = seeded(24)
        let stoppedByBudget = 0
        for (let i = 0; i < 2_000; i++) {
          const kind = Math.floor(random() * 3)
          const cap = 50 + Math.floor(random() * 400)
          const limits: Spend.Limits =
            kind === 0
              ? { totalTokens: Math.floor(random() * 40_000) }
              : kind === 1
                ? { outputTokens: Math.floor(random() * 3_000) }
                : { cost: random() * 0.05 }
          const silentEvery = 2 + Math.floor(random() * 6)
          const failAt = random() < 0.2 ? 1 + Math.floor(random() * 10) : -1
          const model = planningModel({
            cap,
            usage: (bound, n) =>
              n % silentEvery === 0
                ? undefined
                : { inputTokens: Math.floor(bound * random()), outputTokens: Math.floor(cap * random()) },
            fails: (n) => n === failAt
          })
          const meter = SpendMeter.makeUnsafe(Spend.make(limits, { price }))
          const exit = yield* Effect.exit(
            sessionWith(meter, Math.floor(random() * 30)).pipe(Effect.provide(model.layer))
          )
          const spent = (yield* meter.current).spent
          if (limits.totalTokens !== undefined)
            assert.isAtMost(spent.inputTokens + spent.outputTokens, limits.totalTokens)
          if (limits.outputTokens !== undefined) assert.isAtMost(spent.outputTokens, limits.outputTokens)
          if (limits.cost !== undefined) assert.isAtMost(spent.cost, limits.cost + 1e-12)
          assert.deepStrictEqual((yield* meter.current).reserved, Spend.zero)
          if (Exit.isFailure(exit)) {
            // Only the scripted provider failure ends a session's Effect.
            assert.strictEqual(model.requests.length, failAt)
            continue
          }
          const result = exit.value
          const refused = ofType(result.events, "spend.refused")
          const byBudget = result.reason === "token_budget" || result.reason === "cost_budget"
          assert.strictEqual(refused.length, byBudget ? 1 : 0)
          if (byBudget) {
            stoppedByBudget++
            assert.strictEqual(refused[0]?.reason, result.reason)
          }
          assert.strictEqual(ofType(result.events, "spend.settled").length, model.requests.length)
        }
        assert.isAbove(stoppedByBudget, 500)
      }),
    120_000
  )
})
