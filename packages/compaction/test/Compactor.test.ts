import { Loop, Message, Model, Trace } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Compaction, Compactor, Estimate, Strategy } from "../src/index.ts"

/** A tool whose every result is long: 2,000 characters. */
const Fetch = Tool.make("fetch", {
  description: "Fetches a page",
  parameters: Schema.Struct({ page: Schema.Int }),
  run: ({ page }) => Effect.succeed(`page ${page}: ${"lorem ipsum ".repeat(166)}`)
})
const toolset = Toolset.make(Fetch)
const opening = [Message.system("You read pages."), Message.user("Read pages 1 to 499, one per turn, then say done.")]

/**
 * A scripted model: calls `fetch` once per turn until turn `turns`, then says done; checks what
 * it is sent on every call (the protocol holds, the history fits the window) and reports the
 * input tokens as the approximation counts them, so calibration keeps it.
 */
const scripted = (turns: number) => {
  const seen: Array<{ readonly turn: number; readonly tokens: number; readonly problem: string | undefined }> = []
  let elidedSeen = 0
  const shape: Model.Shape = {
    respond: (request) =>
      Effect.sync(() => {
        const turn = seen.length + 1
        const tokens = Estimate.tokens(request.messages)
        seen.push({ turn, tokens, problem: Compaction.pairingProblem(request.messages) })
        for (const m of request.messages) {
          if (m.role === "user" && typeof m.content !== "string") {
            for (const b of m.content) if (b.type === "tool_result" && Strategy.isElidedMarker(b.content)) elidedSeen++
          }
        }
        const content =
          turn < turns ? [Message.toolUse(`call-${turn}`, "fetch", { page: turn })] : [Message.text("done")]
        return { content, usage: { inputTokens: tokens, outputTokens: 10 } }
      })
  }
  return { layer: Model.layer(shape), seen, elided: () => elidedSeen }
}

describe("Compactor in the loop", () => {
  it.effect(
    "a 500-turn conversation under a 6,000-token window: compacted, every call answered, never over the window",
    () =>
      Effect.gen(function* () {
        const window = 6_000
        const model = scripted(500)
        const memory = yield* Trace.memory
        const result = yield* Loop.run({
          toolset,
          messages: opening,
          maxTurns: 600,
          compact: Compactor.make({ window })
        }).pipe(Effect.provide(model.layer), Effect.provideService(Trace.Trace, memory.trace))
        assert.strictEqual(result.stop, "end")
        assert.strictEqual(result.text, "done")
        assert.strictEqual(result.turns.length, 500)
        // Every call got its one result.
        for (const turn of result.turns.slice(0, 499)) assert.strictEqual(turn.outcomes.length, 1)
        assert.deepStrictEqual(
          model.seen.filter((s) => s.problem !== undefined),
          []
        )
        assert.isAtMost(Math.max(...model.seen.map((s) => s.tokens)), window)
        assert.isAbove(model.elided(), 0)
        const entries = yield* memory.entries
        const compactions = entries.filter((e) => e.type === "context.compacted") as unknown as ReadonlyArray<
          typeof Compactor.Compacted.Type
        >
        assert.isAbove(compactions.length, 10)
        assert.isTrue(compactions.some((c) => c.removed.some((r) => r.kind === "elided")))
        assert.isTrue(compactions.some((c) => c.removed.some((r) => r.kind === "dropped")))
        for (const c of compactions) assert.isBelow(c.after, c.before)
        // The system and first user messages are kept (a note of the dropped turns may follow the user's words).
        assert.deepStrictEqual(result.messages[0], opening[0])
        assert.strictEqual(result.messages[1]?.role, "user")
        assert.include(JSON.stringify(result.messages[1]?.content), "Read pages 1 to 499, one per turn, then say done.")
      })
  )

  it.effect(
    "a history that cannot fit stops the run with context_window before the call; the model is never sent it",
    () =>
      Effect.gen(function* () {
        const model = scripted(3)
        const memory = yield* Trace.memory
        const result = yield* Loop.run({
          toolset,
          messages: [Message.user(`Read this: ${"x".repeat(4_000)}`)],
          compact: Compactor.make({ window: 100 })
        }).pipe(Effect.provide(model.layer), Effect.provideService(Trace.Trace, memory.trace))
        assert.strictEqual(result.stop, "context_window")
        assert.strictEqual(model.seen.length, 0)
        const refused = (yield* memory.entries).filter((e) => e.type === "context.refused")
        assert.strictEqual(refused.length, 1)
      })
  )

  it.effect("a given estimator counts the messages; one that throws or lies is not believed for that message", () =>
    Effect.gen(function* () {
      const history = [Message.user(`Read this: ${"x".repeat(4_000)}`)]
      const counting = (estimate: (m: Message.Message) => number) =>
        Loop.run({
          toolset,
          messages: history,
          maxTurns: 1,
          compact: Compactor.make({ window: 800, estimate, calibrate: false })
        }).pipe(Effect.provide(scripted(3).layer))
      // Counted small: sent as it is (the approximation would have refused it: ~1,000 tokens).
      assert.strictEqual((yield* counting(() => 10)).stop, "turn_cap")
      // Counted huge: refused.
      assert.strictEqual((yield* counting(() => 1e9)).stop, "context_window")
      // Throwing, NaN, negative: the approximation counts it, and it is refused.
      for (const hostile of [
        () => {
          throw new Error("no vocabulary")
        },
        () => Number.NaN,
        () => -5
      ]) {
        assert.strictEqual((yield* counting(hostile)).stop, "context_window")
      }
    })
  )

  it("bad options are RangeErrors naming the option", () => {
    assert.throws(() => Compactor.make({ window: 0 }), /'window' must be a number of tokens > 0, got 0/)
    assert.throws(
      () => Compactor.make({ window: 100, threshold: 1.5 }),
      /'threshold' must be a fraction in \(0, 1\], got 1.5/
    )
    assert.throws(() => Compactor.make({ window: 100, target: 0 }), /'target'/)
  })
})
