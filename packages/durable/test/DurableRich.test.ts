/**
 * A durable conversation whose tool answers an image and structured content: the history the
 * engine records (Postgres, JSON) keeps the result's parts, and the conversation run again is
 * answered from the record with them. Needs Postgres (see postgres.ts).
 */
import { Message, Model } from "@agent-harness/executor"
import { Files } from "@agent-harness/file-tools"
import { Tool, ToolContent, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { DurableJournal, DurableLoop, Engine } from "../src/index.ts"
import { database, timeout } from "./postgres.ts"

const db = database()
const png = "iVBORw0KGgo="

let runs = 0
const Shot = Tool.make("shot", {
  description: "Takes a screenshot",
  parameters: Schema.Struct({ page: Schema.String }),
  run: ({ page }) => {
    runs++
    return ToolContent.make({
      text: `page ${page}`,
      parts: [{ type: "image", mediaType: "image/png", data: png }],
      structured: { page }
    })
  }
})

const model: Model.Shape = Model.fromReply(({ messages }) =>
  Effect.succeed(
    messages.some((m) => m.role === "assistant")
      ? [Message.text("Seen.")]
      : [Message.toolUse("c1", "shot", { page: "home" })]
  )
)

describe("DurableLoop with rich results", () => {
  it(
    "records the result's parts and answers the conversation run again with them",
    async (ctx) => {
      const url = db.url(ctx)
      const kind = DurableLoop.make("test/rich", { toolset: Toolset.make(Shot), maxTurns: 3 })
      const layer = kind.layer.pipe(
        Layer.provideMerge(DurableJournal.layerPg()),
        Layer.provideMerge(Engine.single({ url })),
        Layer.provide(Layer.succeed(Files.Files, Files.makeFiles())),
        Layer.provide(Model.layer(model))
      )
      const opening = [Message.user("Look at the home page.")]
      const { first, again } = await Effect.runPromise(
        Effect.gen(function* () {
          const first = yield* kind.run({ conversation_id: "r1", messages: opening })
          const again = yield* kind.run({ conversation_id: "r1", messages: opening })
          return { first, again }
        }).pipe(Effect.provide(layer))
      )
      assert.strictEqual(runs, 1)
      const results = first.messages.flatMap((m) =>
        m.role === "user" && typeof m.content !== "string" ? m.content.filter((b) => b.type === "tool_result") : []
      )
      assert.deepStrictEqual(results, [
        {
          type: "tool_result",
          tool_use_id: "c1",
          content: "page home\n[image image/png, 8 bytes]",
          is_error: false,
          parts: [{ type: "image", mediaType: "image/png", data: png }],
          structured: { page: "home" }
        }
      ])
      assert.deepStrictEqual(again, first)
    },
    timeout
  )
})
