/**
 * `Signal.interruptOnSigint` in-process: the first SIGINT completes `requested` (the runtime's
 * handler, here a stand-in, set aside: it hears nothing), a second ends the process at once
 * with 130 (here a stand-in `exit`), and once the scope closes the runtime's handler is back and
 * ours is gone.
 */
import process from "node:process"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as Signal from "../src/common/Signal.ts"

describe("Signal.interruptOnSigint", () => {
  it.effect("first Ctrl-C requests the stop, a second exits 130 at once; the runtime's handler is given back", () =>
    Effect.gen(function* () {
      const runtime: Array<string> = []
      const standIn = (signal: NodeJS.Signals) => void runtime.push(signal)
      const exits: Array<number> = []
      process.on("SIGINT", standIn)
      const before = process.listenerCount("SIGINT")
      try {
        yield* Effect.scoped(
          Effect.gen(function* () {
            const ctrlC = yield* Signal.interruptOnSigint((code) => void exits.push(code))
            assert.isFalse(process.listeners("SIGINT").includes(standIn))
            const waiting = yield* Effect.forkChild(ctrlC.requested)
            yield* Effect.yieldNow
            assert.isUndefined(waiting.pollUnsafe())
            process.emit("SIGINT", "SIGINT")
            yield* Fiber.join(waiting)
            assert.deepStrictEqual(exits, [])
            process.emit("SIGINT", "SIGINT")
            assert.deepStrictEqual(exits, [130])
          })
        )
        assert.deepStrictEqual(runtime, [])
        assert.isTrue(process.listeners("SIGINT").includes(standIn))
        assert.strictEqual(process.listenerCount("SIGINT"), before)
      } finally {
        process.off("SIGINT", standIn)
      }
    })
  )
})
