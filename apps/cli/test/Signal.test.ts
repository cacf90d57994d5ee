/**
 * `Signal.untilSignal` in-process: the signal it waits for ends it with its name, the runtime's
 * handlers (here a stand-in) are set aside meanwhile and put back after, and SIGINT and SIGTERM
 * never go without a listener while it takes them over — with none, even for an instant, Node
 * closes its signal watcher and a signal arriving then is lost (the server never stopped: half
 * of `harness mcp serve --http` runs signalled right after start hung).
 */
import process from "node:process"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as Signal from "../src/common/Signal.ts"

const signals = ["SIGINT", "SIGTERM"] as const

describe("Signal.untilSignal", () => {
  it.effect("takes SIGINT and SIGTERM over without a gap, ends with the signal, and gives them back", () =>
    Effect.gen(function* () {
      const runtime: Array<string> = []
      const standIn = (signal: NodeJS.Signals) => void runtime.push(signal)
      const gaps: Array<string> = []
      const watch = (event: string | symbol) => {
        if ((event === "SIGINT" || event === "SIGTERM") && process.listenerCount(event) === 0) gaps.push(event)
      }
      for (const signal of signals) process.on(signal, standIn)
      process.on("removeListener", watch)
      try {
        const waiting = yield* Effect.forkChild(Signal.untilSignal)
        yield* Effect.yieldNow
        assert.deepStrictEqual(
          signals.map((signal) => process.listeners(signal).includes(standIn)),
          [false, false]
        )
        process.emit("SIGTERM", "SIGTERM")
        assert.strictEqual(yield* Fiber.join(waiting), "SIGTERM")
        assert.deepStrictEqual(runtime, [])
        assert.deepStrictEqual(gaps, [])
        assert.deepStrictEqual(
          signals.map((signal) => process.listeners(signal).filter((l) => l === standIn).length),
          [1, 1]
        )
      } finally {
        process.off("removeListener", watch)
        for (const signal of signals) process.off(signal, standIn)
      }
    })
  )
})
