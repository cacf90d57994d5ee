import { Execute } from "@agent-harness/executor"
import { Journal, MemoryStore } from "@agent-harness/idempotency"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { Compose, Gate, type Policy } from "../src/index.ts"

const runs: Array<string> = []
const append = Tool.make("append", {
  description: "Appends to a file.",
  parameters: Schema.Struct({ path: Schema.String, text: Schema.String }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: ({ path, text }, { id }) => {
    runs.push(id)
    return `appended ${text.length} characters to ${path}`
  }
})
const tools = Toolset.make(append)
const policy: Policy.Policy = {
  rules: [
    { tool: "append", args: { path: "secrets/**" }, decision: "deny", reason: "secrets stay secret" },
    { tool: "append", decision: "allow" }
  ]
}
const calls: ReadonlyArray<Toolset.RawCall> = [
  { id: "c1", name: "append", input: { path: "secrets/k", text: "x" } },
  { id: "c2", name: "append", input: { path: "notes/a", text: "xy" } }
]

/** Runs the calls with `provide` around them; what the gate and the journal each did. */
const both = (
  provide: (store: Journal.Store) => <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E | unknown>
) =>
  Effect.gen(function* () {
    runs.length = 0
    const store = yield* MemoryStore.make
    const outcomes = yield* provide(store)(Effect.forEach(calls, (c) => Execute.execute(tools, c)))
    const entries = yield* store.entries
    return { tags: outcomes.map((o) => o._tag), journaled: entries.map((e) => [e.id, e.state]), ran: [...runs] }
  })

/** Both acted: the gate denied c1 (never journaled, never run), the journal recorded c2. */
const bothActed = {
  tags: ["Refused", "Succeeded"],
  journaled: [["c2", "done"]],
  ran: ["c2"]
}

describe("the gate's and the journal's layers add, they do not replace", () => {
  it.effect("Journal.layer inside Gate.layer: both act, the gate in front", () =>
    Effect.gen(function* () {
      const seen = yield* both(
        // @effect-diagnostics-next-line multipleEffectProvide:off -- one layer around the other is the point
        (store) => (effect) => effect.pipe(Effect.provide(Journal.layer(store)), Effect.provide(Gate.layer({ policy })))
      )
      assert.deepStrictEqual(seen, bothActed)
    })
  )

  it.effect("Gate.layer inside Journal.layer: both act, the gate still in front", () =>
    Effect.gen(function* () {
      const seen = yield* both(
        // @effect-diagnostics-next-line multipleEffectProvide:off -- one layer around the other is the point
        (store) => (effect) => effect.pipe(Effect.provide(Gate.layer({ policy })), Effect.provide(Journal.layer(store)))
      )
      assert.deepStrictEqual(seen, bothActed)
    })
  )

  it.effect("one layer of both (Layer.provideMerge): both act", () =>
    Effect.gen(function* () {
      const seen = yield* both(
        (store) => (effect) => Effect.provide(effect, Layer.provideMerge(Gate.layer({ policy }), Journal.layer(store)))
      )
      assert.deepStrictEqual(seen, bothActed)
    })
  )

  it.effect("Compose.middlewares (deprecated) is Execute.compose", () =>
    Effect.gen(function* () {
      assert.strictEqual(Compose.middlewares, Execute.compose)
      const seen = yield* both(
        (store) => (effect) =>
          Effect.gen(function* () {
            const gate = yield* Gate.make({ policy })
            return yield* Effect.provideService(
              effect,
              Execute.Middleware,
              Compose.middlewares(gate, Journal.middleware(store))
            )
          })
      )
      assert.deepStrictEqual(seen, bothActed)
    })
  )
})
