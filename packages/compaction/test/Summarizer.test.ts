import { Spend, SpendMeter } from "@agent-harness/budgets"
import { Loop, Message, Model, Spending, Trace } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { Compaction, Compactor, Estimate, Strategy, Summarizer } from "../src/index.ts"

const Fetch = Tool.make("fetch", {
  description: "Fetches a page",
  parameters: Schema.Struct({ page: Schema.Int }),
  run: ({ page }) => Effect.succeed(`page ${page}: ${"lorem ipsum ".repeat(166)}`)
})
const toolset = Toolset.make(Fetch)
const opening = [Message.system("You read pages."), Message.user("Read pages 1 to 39, one per turn, then say done.")]

/** The agent's model: one `fetch` per turn until `turns`, then done; reports what it was sent. */
const agent = (turns: number) => {
  const seen: Array<ReadonlyArray<Message.Message>> = []
  const shape: Model.Shape = {
    respond: (request) =>
      Effect.sync(() => {
        seen.push(request.messages)
        const turn = seen.length
        const content =
          turn < turns ? [Message.toolUse(`call-${turn}`, "fetch", { page: turn })] : [Message.text("done")]
        return { content, usage: { inputTokens: Estimate.tokens(request.messages), outputTokens: 10 } }
      }),
    maxOutputTokens: 200
  }
  return { layer: Model.layer(shape), seen }
}

/** The summarizer's model: answers a summary naming how many messages it read; or fails. */
const summarizerModel = (options: { readonly fails?: boolean; readonly text?: string } = {}) => {
  const seen: Array<Model.Request> = []
  const model: Model.Shape = {
    respond: (request) =>
      Effect.suspend(() => {
        seen.push(request)
        if (options.fails === true) return Effect.fail({ _tag: "Overloaded", message: "the summarizer is overloaded" })
        return Effect.succeed({
          content: [Message.text(options.text ?? `summary #${seen.length}: pages were read`)],
          usage: { inputTokens: 1_000, outputTokens: 50 }
        })
      }),
    maxOutputTokens: 300
  }
  return { model, seen }
}

const summarizing = (model: Model.Shape) =>
  Compactor.make({
    window: 8_000,
    strategy: Strategy.summarize({ summarize: Summarizer.make({ model }), keepLast: 1 })
  })

describe("Summarizer in the loop", () => {
  it.effect(
    "the summary's call is drawn from the run's spend and settled as `summary`; the summary replaces the turns",
    () =>
      Effect.gen(function* () {
        const run = agent(40)
        const writer = summarizerModel()
        const memory = yield* Trace.memory
        const result = yield* Loop.run({
          toolset,
          messages: opening,
          maxTurns: 50,
          spend: Spend.make({ totalTokens: 2_000_000 }),
          compact: summarizing(writer.model)
        }).pipe(Effect.provide(run.layer), Effect.provideService(Trace.Trace, memory.trace))
        assert.strictEqual(result.stop, "end")
        assert.isAbove(writer.seen.length, 0)
        // The writer was offered no tools and sent the turns as text.
        assert.deepStrictEqual(writer.seen[0]?.toolset.tools, [])
        assert.include(JSON.stringify(writer.seen[0]?.messages), "[called fetch")
        const entries = yield* memory.entries
        const settled = entries.filter(Spending.settled.is)
        const summaries = settled.filter((e) => e.purpose === "summary")
        assert.strictEqual(summaries.length, writer.seen.length)
        for (const s of summaries) assert.deepStrictEqual(s.spent, { input_tokens: 1_000, output_tokens: 50, cost: 0 })
        // The run's total counts the summaries and the turns.
        const turnsSpent = result.turns.reduce(
          (sum, t) => sum + (t.usage?.inputTokens ?? 0) + (t.usage?.outputTokens ?? 0),
          0
        )
        const spent = result.spend?.spent
        assert.strictEqual(
          (spent?.inputTokens ?? 0) + (spent?.outputTokens ?? 0),
          turnsSpent + 1_050 * summaries.length
        )
        assert.include(JSON.stringify(run.seen.at(-1)), "summary #")
        for (const sent of run.seen) assert.isUndefined(Compaction.pairingProblem(sent))
      })
  )

  it.effect("a summary that does not fit the spend is not asked for: the run stops with token_budget", () =>
    Effect.gen(function* () {
      const run = agent(40)
      const writer = summarizerModel()
      const memory = yield* Trace.memory
      // The turns' worst cases fit; a summary's (60,000 output tokens) does not.
      const meter = SpendMeter.makeUnsafe(Spend.make({ totalTokens: 100_000 }))
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        maxTurns: 50,
        spend: meter,
        compact: Compactor.make({
          window: 8_000,
          strategy: Strategy.summarize({
            summarize: Summarizer.make({ model: writer.model, maxOutputTokens: 60_000 }),
            keepLast: 1
          })
        })
      }).pipe(Effect.provide(run.layer), Effect.provideService(Trace.Trace, memory.trace))
      assert.strictEqual(result.stop, "token_budget")
      assert.strictEqual(writer.seen.length, 0)
      assert.isAbove(run.seen.length, 5)
      const spent = (yield* meter.current).spent
      assert.isAtMost(spent.inputTokens + spent.outputTokens, 100_000)
      const entries = yield* memory.entries
      const refused = entries.filter(Spending.refused.is)
      assert.strictEqual(refused.length, 1)
      assert.isAbove(refused[0]?.requested ?? 0, 60_000)
      assert.strictEqual(refused[0]?.turn, run.seen.length + 1)
      assert.strictEqual(entries.filter((e) => e.type === "context.compacted").length, 0)
      // Every call made got its result; the history is whole.
      assert.strictEqual(result.messages.at(-1)?.role, "user")
      assert.isUndefined(Compaction.pairingProblem(result.messages))
    })
  )

  it.effect("a summarizer whose model fails fails the run with a ModelError; an empty summary too", () =>
    Effect.gen(function* () {
      for (const writer of [summarizerModel({ fails: true }), summarizerModel({ text: "  " })]) {
        const exit = yield* Effect.exit(
          Loop.run({ toolset, messages: opening, maxTurns: 50, compact: summarizing(writer.model) }).pipe(
            Effect.provide(agent(40).layer)
          )
        )
        assert.isTrue(Exit.isFailure(exit))
        const reason = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
        const error = reason?._tag === "Fail" ? reason.error : undefined
        assert.strictEqual(error?._tag, "ModelError")
        if (error?._tag !== "ModelError") continue
        assert.include(error.reason.message, "summarizer")
      }
    })
  )

  it("make refuses a summarizer with no output cap, naming the option", () => {
    const { model } = summarizerModel()
    const { maxOutputTokens: _, ...uncapped } = model
    assert.throws(() => Summarizer.make({ model: uncapped }), /maxOutputTokens/)
    assert.throws(() => Summarizer.make({ model, maxOutputTokens: 0 }), /got 0/)
  })

  it("transcript: roles and blocks as text, reasoning left out", () => {
    const text = Summarizer.transcript([
      Message.user("hello"),
      Message.assistant([
        { type: "reasoning", text: "secret thoughts" },
        Message.text("I will read"),
        Message.toolUse("c1", "read", { path: "a.txt" })
      ]),
      Message.user([Message.toolResult("c1", "no such file", true)])
    ])
    assert.strictEqual(
      text,
      'user: hello\n\nassistant: I will read\n[called read {"path":"a.txt"}]\n\nuser: [result (failed): no such file]'
    )
  })
})
