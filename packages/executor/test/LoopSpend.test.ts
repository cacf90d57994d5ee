import { type Price, Spend } from "@agent-harness/budgets"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Loop, Message, Model, Spending, Trace } from "../src/index.ts"

const Echo = Tool.make("echo", {
  description: "Says it back",
  parameters: Schema.Struct({ text: Schema.String }),
  run: ({ text }) => Effect.succeed(text.repeat(20))
})
const toolset = Toolset.make(Echo)
const opening = [Message.user("go")]
const price: Price.Price = { input: 3, output: 15, cachedInput: 0.3 }

/**
 * A model that calls `echo` until `calls` replies were given, then ends; each reply reports
 * `usage(request)` (default: half the request's bound, a tenth of the output cap).
 */
const model = (options: {
  readonly calls: number
  readonly cap?: number | undefined
  readonly usage?: ((request: Model.Request, bound: number) => Model.Usage | undefined) | undefined
}) => {
  const requests: Array<Model.Request> = []
  const shape: Model.Shape = {
    respond: (request) =>
      Effect.sync(() => {
        requests.push(request)
        const bound = Spending.requestTokens(request.messages, request.toolset)
        const usage =
          options.usage === undefined
            ? { inputTokens: Math.floor(bound / 2), outputTokens: Math.floor((options.cap ?? 1000) / 10) }
            : options.usage(request, bound)
        const n = requests.length
        const content =
          n > options.calls
            ? [Message.text("done")]
            : [Message.toolUse(`c${n}`, "echo", { text: `turn ${n} `.repeat(30) })]
        const finishReason: Model.FinishReason = n > options.calls ? "stop" : "tool-calls"
        return usage === undefined ? { content, finishReason } : { content, usage, finishReason }
      }),
    maxOutputTokens: options.cap ?? 1000
  }
  return { layer: Model.layer(shape), requests }
}

describe("Loop.run with a spend", () => {
  it.effect("stops with token_budget before the call that could pass the limit: partial history, trace events", () =>
    Effect.gen(function* () {
      const fake = model({ calls: 50 })
      const memory = yield* Trace.memory
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        maxTurns: 50,
        spend: Spend.make({ totalTokens: 12_000 })
      }).pipe(Effect.provide(fake.layer), Effect.provideService(Trace.Trace, memory.trace))
      assert.strictEqual(result.stop, "token_budget")
      assert.isAbove(fake.requests.length, 1)
      const spent = result.spend?.spent
      assert.isDefined(spent)
      if (spent === undefined) return
      assert.isAtMost(spent.inputTokens + spent.outputTokens, 12_000)
      // Every call answered: the history ends with the last turn's results.
      assert.strictEqual(result.turns.length, fake.requests.length)
      assert.strictEqual(result.messages.at(-1)?.role, "user")
      const entries = yield* memory.entries
      const settled = entries.filter((e) => e.type === "spend.settled")
      const refused = entries.filter((e) => e.type === "spend.refused")
      assert.strictEqual(settled.length, fake.requests.length)
      assert.strictEqual(refused.length, 1)
      const refusal = refused[0] as unknown as typeof Spending.Refused.Type
      assert.strictEqual(refusal.kind, "total_tokens")
      assert.isAbove(refusal.committed + refusal.requested, 12_000)
      assert.strictEqual(entries.at(-1)?.type, "run.ended")
    })
  )

  it.effect("a cost budget stops the run with cost_budget; the money spent is the reported usage priced", () =>
    Effect.gen(function* () {
      const fake = model({ calls: 50, cap: 2000 })
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        maxTurns: 50,
        spend: Spend.make({ cost: 0.05 }, { price })
      }).pipe(Effect.provide(fake.layer))
      assert.strictEqual(result.stop, "cost_budget")
      const cost = result.spend?.spent.cost ?? Number.NaN
      assert.isAtMost(cost, 0.05)
      const priced = result.turns.reduce(
        (sum, turn) => sum + ((turn.usage?.inputTokens ?? 0) * 3 + (turn.usage?.outputTokens ?? 0) * 15) / 1e6,
        0
      )
      assert.closeTo(cost, priced, 1e-12)
    })
  )

  it.effect("a call without reported usage spends its whole worst case; a spend without limits only counts", () =>
    Effect.gen(function* () {
      const silent = model({ calls: 3, usage: () => undefined })
      // The model's own fallback reports half; this one reports nothing.
      const counted = yield* Loop.run({
        toolset,
        messages: opening,
        spend: Spend.make({}, { price })
      }).pipe(Effect.provide(model({ calls: 3 }).layer))
      assert.strictEqual(counted.stop, "end")
      assert.isAbove(counted.spend?.spent.inputTokens ?? 0, 0)
      const limited = yield* Loop.run({
        toolset,
        messages: opening,
        spend: Spend.make({ totalTokens: 1_000_000 })
      }).pipe(Effect.provide(silent.layer))
      assert.strictEqual(limited.stop, "end")
      const worst = silent.requests.reduce(
        (sum, request) => sum + Spending.requestTokens(request.messages, request.toolset) + 1000,
        0
      )
      const spent = limited.spend?.spent
      assert.strictEqual((spent?.inputTokens ?? 0) + (spent?.outputTokens ?? 0), worst)
    })
  )

  it.effect("a limited spend without an output cap is an invalid option, before the model is called", () =>
    Effect.gen(function* () {
      const shape: Model.Shape = { respond: () => Effect.die("never") }
      const error = yield* Effect.flip(
        Loop.run({ toolset, messages: opening, spend: Spend.make({ outputTokens: 10 }) }).pipe(
          Effect.provide(Model.layer(shape))
        )
      )
      assert.strictEqual(error._tag, "InvalidOption")
      assert.include(error.message, "option 'maxOutputTokens' must be a whole number of at least 1")
    })
  )

  it.effect("the bound is an upper bound: bytes of the request, never fewer than its characters", () =>
    Effect.sync(() => {
      const messages = [Message.user("héllo wörld ✓ 日本語"), Message.assistant([Message.text("ok")])]
      const bound = Spending.requestTokens(messages, toolset)
      const chars = JSON.stringify(messages).length
      assert.isAtLeast(bound, chars + Spending.requestOverhead + 2 * Spending.messageOverhead)
      // A cyclic tool input does not throw.
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      assert.isAbove(Spending.requestTokens([Message.assistant([Message.toolUse("x", "echo", cyclic)])], toolset), 0)
    })
  )

  it.effect(
    "2,000 random runs: never past a limit, and stopped with the typed reason whenever a call could pass it",
    () =>
      Effect.gen(function* () {
        let seed = 7
        const random = () => {
          seed = (seed * 1103515245 + 12345) >>> 0
          return seed / 4294967296
        }
        const stops = new Map<string, number>()
        for (let i = 0; i < 2_000; i++) {
          const limits: Spend.Limits =
            random() < 0.5 ? { totalTokens: Math.floor(random() * 40_000) } : { cost: random() * 0.2 }
          const cap = 1 + Math.floor(random() * 3000)
          const fake = model({
            calls: Math.floor(random() * 12),
            cap,
            usage: (_request, bound) =>
              random() < 0.1
                ? undefined
                : { inputTokens: Math.floor(random() * bound), outputTokens: Math.floor(random() * cap) }
          })
          const result = yield* Loop.run({
            toolset,
            messages: opening,
            maxTurns: 20,
            spend: Spend.make(limits, { price })
          }).pipe(Effect.provide(fake.layer))
          stops.set(result.stop, (stops.get(result.stop) ?? 0) + 1)
          const spent = result.spend?.spent
          if (spent === undefined) return assert.fail("no spend in the result")
          if (limits.totalTokens !== undefined)
            assert.isAtMost(spent.inputTokens + spent.outputTokens, limits.totalTokens)
          if (limits.cost !== undefined) assert.isAtMost(spent.cost, limits.cost + 1e-12)
          assert.deepStrictEqual(result.spend?.reserved, Spend.zero)
        }
        assert.isAbove(stops.get("end") ?? 0, 100)
        assert.isAbove((stops.get("token_budget") ?? 0) + (stops.get("cost_budget") ?? 0), 100)
      })
  )
})
