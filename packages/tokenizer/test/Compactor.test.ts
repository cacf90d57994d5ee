import { Compaction, Compactor, Estimate } from "@agent-harness/compaction"
import { Loop, Message, Model, Trace } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Tokenizer } from "../src/index.ts"

/** A tool whose every result is long and dense in tokens (digits and punctuation, ~1,500 tokens). */
const Fetch = Tool.make("fetch", {
  description: "Fetches a page",
  parameters: Schema.Struct({ page: Schema.Int }),
  run: ({ page }) =>
    Effect.succeed(
      `page ${page}: ${Array.from({ length: 300 }, (_, i) => `${(page * 7919 + i * 104729) % 99991}:`).join(",")}`
    )
})
const toolset = Toolset.make(Fetch)
const opening = [Message.system("You read pages."), Message.user("Read pages 1 to 299, one per turn, then say done.")]

describe("Compactor with OpenAI's tokenizer", () => {
  it.effect("a 300-turn conversation under a 4,000-token window: every request under the window by o200k_base", () =>
    Effect.gen(function* () {
      const window = 4_000
      const estimate = yield* Tokenizer.estimator("gpt-4o")
      if (estimate === undefined) return assert.fail("gpt-4o has no estimator")
      const seen: Array<{
        readonly tokens: number
        readonly approximation: number
        readonly problem: string | undefined
      }> = []
      const shape: Model.Shape = {
        respond: (request) =>
          Effect.sync(() => {
            const turn = seen.length + 1
            const tokens = Estimate.total(request.messages, estimate)
            seen.push({
              tokens,
              approximation: Estimate.tokens(request.messages),
              problem: Compaction.pairingProblem(request.messages)
            })
            const content =
              turn < 300 ? [Message.toolUse(`call-${turn}`, "fetch", { page: turn })] : [Message.text("done")]
            // Reported as the provider would: this tokenizer's count (calibration then keeps it).
            return { content, usage: { inputTokens: tokens, outputTokens: 10 } }
          })
      }
      const memory = yield* Trace.memory
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        maxTurns: 400,
        // No calibration: the count alone keeps every request under the window.
        compact: Compactor.make({ window, estimate, calibrate: false })
      }).pipe(Effect.provide(Model.layer(shape)), Effect.provideService(Trace.Trace, memory.trace))
      assert.strictEqual(result.stop, "end")
      assert.strictEqual(result.turns.length, 300)
      assert.strictEqual(seen.length, 300)
      for (const [i, call] of seen.entries()) {
        assert.isUndefined(call.problem, `call ${i + 1}`)
        assert.isTrue(call.tokens <= window, `call ${i + 1}: ${call.tokens} tokens > ${window}`)
      }
      // The dense results take more tokens than bytes / 4: the approximation alone (uncalibrated)
      // would have let requests past the window that this count keeps under it.
      assert.isTrue(
        seen.some((call) => call.tokens > call.approximation),
        "the tokenizer counted more than the approximation somewhere"
      )
      const entries = yield* memory.entries
      assert.isAbove(entries.filter((e) => e.type === "context.compacted").length, 10)
    })
  )
})
