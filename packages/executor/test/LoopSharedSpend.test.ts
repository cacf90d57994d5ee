import { Spend, SpendMeter } from "@agent-harness/budgets"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { Loop, Message, Model, Spending } from "../src/index.ts"

const Echo = Tool.make("echo", {
  description: "Says it back",
  parameters: Schema.Struct({ text: Schema.String }),
  run: ({ text }) => Effect.succeed(text)
})
const echoes = Toolset.make(Echo)

/** A model that calls `tool` on every turn, reporting half its request's bound and 100 output tokens. */
const calling = (tool: string, requests: Array<Model.Request>): Model.Shape => ({
  respond: (request) =>
    Effect.sync(() => {
      requests.push(request)
      const n = requests.length
      return {
        content: [Message.toolUse(`${tool}-${n}`, tool, { text: `call ${n} `.repeat(40) })],
        usage: {
          inputTokens: Math.floor(Spending.requestTokens(request.messages, request.toolset) / 2),
          outputTokens: 100
        },
        finishReason: "tool-calls" as const
      }
    }),
  maxOutputTokens: 500
})

describe("Loop.run with a shared SpendMeter", () => {
  it.effect("a sub-agent draws from its parent's meter: together they never pass the limit, and both stop typed", () =>
    Effect.gen(function* () {
      const meter = SpendMeter.makeUnsafe(Spend.make({ totalTokens: 40_000 }))
      const parentRequests: Array<Model.Request> = []
      const childRequests: Array<Model.Request> = []
      const childStops: Array<Loop.StopReason> = []
      const Delegate = Tool.make("delegate", {
        description: "Hands the task to a sub-agent",
        parameters: Schema.Struct({ text: Schema.String }),
        run: ({ text }) =>
          Loop.run({ toolset: echoes, messages: [Message.user(text)], maxTurns: 25, spend: meter }).pipe(
            Effect.provide(Model.layer(calling("echo", childRequests))),
            Effect.map((child) => {
              childStops.push(child.stop)
              return `sub-agent stopped: ${child.stop}`
            }),
            Effect.orDie
          )
      })
      const result = yield* Loop.run({
        toolset: Toolset.make(Delegate),
        messages: [Message.user("go")],
        maxTurns: 100,
        spend: meter
      }).pipe(Effect.provide(Model.layer(calling("delegate", parentRequests))))
      const spent = (yield* meter.current).spent
      assert.isAtMost(spent.inputTokens + spent.outputTokens, 40_000)
      assert.strictEqual(result.stop, "token_budget")
      assert.deepStrictEqual(result.spend?.spent, spent)
      // Sub-agents ran, and the one the budget caught stopped with the same typed reason.
      assert.isAbove(childRequests.length, 4)
      assert.include(childStops, "token_budget")
      assert.deepStrictEqual((yield* meter.current).reserved, Spend.zero)
    })
  )

  it.effect("the compaction hook is handed the run's meter; OverBudget stops the run with its reason", () =>
    Effect.gen(function* () {
      const meter = SpendMeter.makeUnsafe(Spend.make({ totalTokens: 1_000_000 }))
      const seen: Array<SpendMeter.SpendMeter | undefined> = []
      const requests: Array<Model.Request> = []
      const result = yield* Loop.run({
        toolset: echoes,
        messages: [Message.user("go")],
        maxTurns: 10,
        spend: meter,
        compact: (request) =>
          Effect.gen(function* () {
            seen.push(request.spend)
            if (request.turn < 3) return { _tag: "Kept" } as const
            const reserved = yield* Effect.result(
              request.spend?.reserve({ inputTokens: 2_000_000, outputTokens: 0, cost: 0 }) ?? Effect.die("no meter")
            )
            if (reserved._tag === "Success") return yield* Effect.die("a reservation past the limit was accepted")
            const refused = reserved.failure
            return { _tag: "OverBudget", exhausted: refused } as const
          })
      }).pipe(Effect.provide(Model.layer(calling("echo", requests))))
      assert.strictEqual(result.stop, "token_budget")
      assert.strictEqual(requests.length, 2)
      assert.strictEqual(seen.length, 3)
      assert.isTrue(seen.every((given) => given === meter))
      // The history keeps every call with its result.
      assert.strictEqual(result.messages.at(-1)?.role, "user")
    })
  )

  it.effect("a compaction hook whose own model call fails fails the run with a ModelError at that turn", () =>
    Effect.gen(function* () {
      const requests: Array<Model.Request> = []
      const exit = yield* Effect.exit(
        Loop.run({
          toolset: echoes,
          messages: [Message.user("go")],
          maxTurns: 10,
          compact: (request) =>
            request.turn < 2
              ? Effect.succeed({ _tag: "Kept" } as const)
              : Effect.fail({ _tag: "RateLimited", message: "the summarizer's provider said 429" })
        }).pipe(Effect.provide(Model.layer(calling("echo", requests))))
      )
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isSuccess(exit)) return
      const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
      assert.isDefined(error)
      const failure = error?._tag === "Fail" ? error.error : undefined
      assert.strictEqual(failure?._tag, "ModelError")
      if (failure?._tag !== "ModelError") return
      assert.strictEqual(failure.turn, 2)
      assert.strictEqual(failure.reason.message, "the summarizer's provider said 429")
      assert.strictEqual(requests.length, 1)
    })
  )
})
