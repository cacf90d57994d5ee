/**
 * The durable middleware without an engine: each call goes through the journal over the
 * `DurableJournal` store (its row is its record), runs uninterruptibly from its mark to its
 * outcome (a workflow interrupted or suspended while a call runs waits for the call to be
 * recorded, instead of leaving it started and unknown), and reports each outcome to `onOutcome`.
 * No database needed.
 */
import { Execute, type Outcome } from "@agent-harness/executor"
import { MemoryStore } from "@agent-harness/idempotency"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Schema } from "effect"
import { DurableJournal } from "../src/index.ts"

const appended: Array<string> = []
const Append = Tool.make("append", {
  description: "Appends a line",
  parameters: Schema.Struct({ line: Schema.String }),
  run: ({ line }) =>
    Effect.andThen(
      Effect.sleep("100 millis"),
      Effect.sync(() => {
        appended.push(line)
        return `appended ${line}`
      })
    )
})
const tools = Toolset.make(Append)

describe("DurableJournal.middleware", () => {
  it.live("records each call in the journal, once; a call run again is replayed from it", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore.make
      const seen: Array<Outcome.Outcome> = []
      const middleware = yield* DurableJournal.middleware({
        scope: "conversation-1",
        onOutcome: (outcome) => Effect.sync(() => seen.push(outcome))
      }).pipe(Effect.provideService(DurableJournal.DurableJournal, store))
      const execute = Execute.execute(tools, { id: "a1", name: "append", input: { line: "one" } }).pipe(
        Effect.provideService(Execute.Middleware, middleware)
      )
      const before = appended.length
      assert.strictEqual((yield* execute)._tag, "Succeeded")
      assert.strictEqual((yield* execute)._tag, "Replayed")
      assert.strictEqual(appended.length - before, 1)
      assert.deepStrictEqual(
        (yield* store.entries).map((e) => `${e.id} ${e.state}`),
        ["conversation-1/a1 done"]
      )
      assert.deepStrictEqual(
        seen.map((o) => o._tag),
        ["Succeeded", "Replayed"]
      )
    })
  )

  it.live("a call interrupted while it runs still ends and is recorded (nothing left started)", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore.make
      const middleware = yield* DurableJournal.middleware().pipe(
        Effect.provideService(DurableJournal.DurableJournal, store)
      )
      const before = appended.length
      const running = yield* Execute.execute(tools, { id: "s/a2", name: "append", input: { line: "two" } }).pipe(
        Effect.provideService(Execute.Middleware, middleware),
        Effect.forkChild
      )
      yield* Effect.sleep("20 millis")
      yield* Fiber.interrupt(running)
      assert.strictEqual(appended.length - before, 1)
      assert.deepStrictEqual(
        (yield* store.entries).map((e) => `${e.id} ${e.state} ${e.observation?.content ?? ""}`),
        ["s/a2 done appended two"]
      )
    })
  )
})
