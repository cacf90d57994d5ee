/**
 * Conversations on the engine (one process, Postgres): the history `Loop.run` gives
 * in-process; a conversation id run again answers from the record (the model is not asked, no
 * tool runs); two conversations may use the same call ids (the journal keeps them apart); a
 * model that fails ends the conversation with `ConversationFailed` naming the turn. Needs
 * Postgres (see postgres.ts).
 */
import { Loop, Message, Model } from "@agent-harness/executor"
import { Files, FileTools } from "@agent-harness/file-tools"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { DurableJournal, DurableLoop, Engine } from "../src/index.ts"
import { database, timeout } from "./postgres.ts"

const db = database()

const opening = [Message.system("You keep notes."), Message.user("Note it down.")]

/** A model that counts its calls: two turns of calls (the same ids in every conversation), then a text. */
const countingModel = () => {
  const asked = { count: 0 }
  const model: Model.Shape = Model.fromReply(({ messages }) =>
    Effect.sync(() => {
      asked.count++
      const turn = messages.filter((m) => m.role === "assistant").length
      if (turn === 0) {
        return [
          Message.toolUse("c1", "append", { path: "notes.txt", content: "[c1]\n" }),
          Message.toolUse("c2", "write", { path: "state.txt", content: "first\n" })
        ]
      }
      if (turn === 1) return [Message.toolUse("c3", "append", { path: "notes.txt", content: "[c3]\n" })]
      return [Message.text("Noted.")]
    })
  )
  return { model, asked }
}

const engine = <Name extends string>(
  url: string,
  kind: DurableLoop.DurableLoop<Name, never>,
  model: Model.Shape,
  files: Files.MemoryShape
) =>
  kind.layer.pipe(
    Layer.provideMerge(DurableJournal.layerPg()),
    Layer.provideMerge(Engine.single({ url })),
    Layer.provide(Layer.succeed(Files.Files, files)),
    Layer.provide(Model.layer(model))
  )

describe("DurableLoop on one process", () => {
  it(
    "gives Loop.run's history; the id run again is answered from the record; another id reusing call ids runs",
    async (ctx) => {
      const url = db.url(ctx)
      const local = countingModel()
      const localFiles = Files.makeFiles()
      const expected = await Effect.runPromise(
        Loop.run({ toolset: FileTools.english, messages: opening, maxTurns: 5 }).pipe(
          Effect.provideService(Files.Files, localFiles),
          Effect.provideService(Model.Model, local.model)
        )
      )
      const durable = countingModel()
      const files = Files.makeFiles()
      const kind = DurableLoop.make("test/notes", { toolset: FileTools.english, maxTurns: 5 })
      const { first, again, other } = await Effect.runPromise(
        Effect.gen(function* () {
          const first = yield* kind.run({ conversation_id: "n1", messages: opening })
          const asked = durable.asked.count
          const again = yield* kind.run({ conversation_id: "n1", messages: opening })
          assert.strictEqual(durable.asked.count, asked)
          const other = yield* kind.run({ conversation_id: "n2", messages: opening })
          return { first, again, other }
        }).pipe(Effect.provide(engine(url, kind, durable.model, files)))
      )
      assert.deepStrictEqual(first, {
        stop: expected.stop,
        text: expected.text ?? null,
        messages: expected.messages,
        turns: expected.turns.length
      })
      assert.deepStrictEqual(again, first)
      // n2 ran its own c1, c2, c3: each append once per conversation.
      assert.deepStrictEqual(other, first)
      assert.strictEqual(durable.asked.count, 2 * local.asked.count)
      const notes = Effect.runSync(files.snapshot)["notes.txt"]
      assert.strictEqual(notes, "[c1]\n[c3]\n[c1]\n[c3]\n")
    },
    timeout
  )

  it(
    "a model that fails ends the conversation with ConversationFailed naming the turn",
    async (ctx) => {
      const url = db.url(ctx)
      const failing: Model.Shape = Model.fromReply(() => Effect.fail({ _tag: "RateLimited", message: "slow down" }))
      const kind = DurableLoop.make("test/failing", { toolset: FileTools.english })
      const exit = await Effect.runPromise(
        Effect.exit(kind.run({ conversation_id: "f1", messages: opening })).pipe(
          Effect.provide(engine(url, kind, failing, Files.makeFiles()))
        )
      )
      const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      assert.instanceOf(error, DurableLoop.ConversationFailed)
      assert.deepStrictEqual(error instanceof DurableLoop.ConversationFailed ? [error.kind, error.message] : [], [
        "model",
        "model call 1: slow down"
      ])
    },
    timeout
  )

  it(
    "with a spend: stops before the call that could pass it, and the same id gives the same spent, the model not asked again",
    async (ctx) => {
      const url = db.url(ctx)
      const asked = { count: 0 }
      // Reads forever, each reply reporting 1,000 tokens in and 50 out.
      const reading: Model.Shape = {
        respond: () =>
          Effect.sync(() => {
            asked.count++
            return {
              content: [Message.toolUse(`r${asked.count}`, "read", { path: "notes.txt" })],
              usage: { inputTokens: 1000, outputTokens: 50 },
              finishReason: "tool-calls" as const
            }
          })
      }
      const kind = DurableLoop.make("test/spend", {
        toolset: FileTools.english,
        maxTurns: 50,
        spend: { limits: { totalTokens: 20_000 }, maxOutputTokens: 500 }
      })
      const files = Files.makeFiles({ "notes.txt": "hello\n" })
      const { first, again, calls } = await Effect.runPromise(
        Effect.gen(function* () {
          const first = yield* kind.run({ conversation_id: "s1", messages: opening })
          const calls = asked.count
          const again = yield* kind.run({ conversation_id: "s1", messages: opening })
          return { first, again, calls }
        }).pipe(Effect.provide(engine(url, kind, reading, files)))
      )
      assert.strictEqual(first.stop, "token_budget")
      assert.strictEqual(first.turns, calls)
      assert.deepStrictEqual(first.spent, { input_tokens: 1000 * calls, output_tokens: 50 * calls, cost: 0 })
      assert.isAtMost(1050 * calls, 20_000)
      assert.deepStrictEqual(again, first)
      assert.strictEqual(asked.count, calls)
    },
    timeout
  )
})
