import { Budget } from "@agent-harness/budgets"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Loop, Message } from "../src/index.ts"
import { scripted } from "./scripted.ts"

const Slow = Tool.make("slow", {
  description: "Takes a second",
  parameters: Schema.Struct({}),
  run: () => Effect.as(Effect.sleep("1 second"), "done")
})
const toolset = Toolset.make(Slow)
const opening = [Message.user("go")]
const call = (id: string) => [Message.toolUse(id, "slow", {})]

describe("Loop.run budgets", () => {
  it.effect("the turn cap is a turns budget: exactly maxTurns model calls", () =>
    Effect.gen(function* () {
      const model = scripted([call("a"), call("b"), call("c")])
      const fiber = yield* Effect.forkChild(
        Loop.run({ toolset, messages: opening, maxTurns: 2 }).pipe(Effect.provide(model.layer))
      )
      yield* TestClock.adjust("10 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result.stop).toBe("turn_cap")
      expect(result.budget).toStrictEqual({ kind: "turns", limit: 2, used: 2 })
      expect(model.requests).toHaveLength(2)
    })
  )

  it.effect("a partly used turns budget continues where it was", () =>
    Effect.gen(function* () {
      const model = scripted([call("a"), call("b")])
      const fiber = yield* Effect.forkChild(
        Loop.run({ toolset, messages: opening, turns: { ...Budget.turns(3), used: 2 } }).pipe(
          Effect.provide(model.layer)
        )
      )
      yield* TestClock.adjust("10 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result.stop).toBe("turn_cap")
      expect(model.requests).toHaveLength(1)
    })
  )

  it.effect("a zero turns budget calls the model never", () =>
    Effect.gen(function* () {
      const model = scripted([])
      const result = yield* Loop.run({ toolset, messages: opening, turns: Budget.turns(0) }).pipe(
        Effect.provide(model.layer)
      )
      expect(result.stop).toBe("turn_cap")
      expect(model.requests).toHaveLength(0)
    })
  )

  it.effect("the wall-clock budget stops the loop before the next model call", () =>
    Effect.gen(function* () {
      const model = scripted([call("a"), call("b"), call("c"), call("d")])
      const fiber = yield* Effect.forkChild(
        Loop.run({ toolset, messages: opening, maxTurns: 10, timeLimit: "2500 millis" }).pipe(
          Effect.provide(model.layer)
        )
      )
      yield* TestClock.adjust("10 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result.stop).toBe("time_budget")
      // Calls at 0 s, 1 s, 2 s; at 3 s the 2.5 s budget is spent.
      expect(model.requests).toHaveLength(3)
      expect(result.messages[result.messages.length - 1]).toStrictEqual(
        Message.user([Message.toolResult("c", "done", false)])
      )
    })
  )
})
