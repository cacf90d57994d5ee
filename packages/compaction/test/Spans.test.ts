import { Loop, Message, Model, Spans } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema, Tracer } from "effect"
import { Compactor } from "../src/index.ts"

const Fetch = Tool.make("fetch", {
  description: "Fetches a page",
  parameters: Schema.Struct({ page: Schema.Int }),
  run: ({ page }) => Effect.succeed(`page ${page}: ${"lorem ipsum ".repeat(166)}`)
})
const toolset = Toolset.make(Fetch)

/** A model that fetches a page a turn for `turns` turns, then says done. */
const model = (turns: number): Model.Shape => {
  let turn = 0
  return {
    respond: () =>
      Effect.sync(() => {
        turn++
        return {
          content: turn < turns ? [Message.toolUse(`call-${turn}`, "fetch", { page: turn })] : [Message.text("done")]
        }
      })
  }
}

describe("Compactor: its compactions are events of the run's span", () => {
  it.effect(
    "with no trace given, each context.compacted is an agent_harness.context.compacted event of invoke_agent",
    () =>
      Effect.gen(function* () {
        const spans: Array<Tracer.NativeSpan> = []
        const tracer = Tracer.make({
          span(options) {
            const span = new Tracer.NativeSpan(options)
            spans.push(span)
            return span
          }
        })
        const result = yield* Loop.run({
          toolset,
          messages: [Message.user("Read pages 1 to 39.")],
          maxTurns: 50,
          compact: Compactor.make({ window: 3_000 })
        }).pipe(Effect.provideService(Model.Model, model(40)), Effect.withTracer(tracer))
        assert.strictEqual(result.stop, "end")
        const agent = spans.find((span) => span.name === "invoke_agent")
        const compacted = (agent?.events ?? []).filter(([name]) => name === Spans.Event.compacted)
        assert.isAbove(compacted.length, 3)
        for (const [, , attributes] of compacted) {
          assert.isBelow(Number(attributes?.["agent_harness.after"]), Number(attributes?.["agent_harness.before"]))
          assert.strictEqual(attributes?.["agent_harness.window"], 3_000)
          assert.isNumber(attributes?.["agent_harness.turn"])
        }
      })
  )
})
