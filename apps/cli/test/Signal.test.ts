/**
 * `Signal` in-process. `untilSignal`: the signal it waits for ends it with its name, the
 * runtime's handlers (here a stand-in) are set aside meanwhile and put back after, and SIGINT and
 * SIGTERM never go without a listener while it takes them over — with none, even for an instant,
 * Node closes its signal watcher and a signal arriving then is lost (the server never stopped:
 * half of `harness mcp serve --http` runs signalled right after start hung). `interruptOnSigint`:
 * the first SIGINT requests the stop (the stand-in hears nothing), a second ends the process at
 * once with 130 (here a stand-in `exit`), and the stand-in is given back after.
 */
import process from "node:process"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as Signal from "../src/common/Signal.ts"

const signals = ["SIGINT", "SIGTERM"] as const

/**
 * `body` with a stand-in for the runtime's handlers of SIGINT and SIGTERM listening (what it
 * heard, and the listener itself), taken off after.
 */
const withRuntimeStandIn = <A, E>(
  body: (runtime: {
    readonly heard: ReadonlyArray<string>
    readonly listener: (signal: NodeJS.Signals) => void
  }) => Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  Effect.suspend(() => {
    const heard: Array<string> = []
    const listener = (signal: NodeJS.Signals) => void heard.push(signal)
    for (const signal of signals) process.on(signal, listener)
    return Effect.ensuring(
      body({ heard, listener }),
      Effect.sync(() => {
        for (const signal of signals) process.off(signal, listener)
      })
    )
  })

describe("Signal.untilSignal", () => {
  it.effect("takes SIGINT and SIGTERM over without a gap, ends with the signal, and gives them back", () =>
    withRuntimeStandIn((runtime) =>
      Effect.gen(function* () {
        const gaps: Array<string> = []
        const watch = (event: string | symbol) => {
          if ((event === "SIGINT" || event === "SIGTERM") && process.listenerCount(event) === 0) gaps.push(event)
        }
        process.on("removeListener", watch)
        try {
          const waiting = yield* Effect.forkChild(Signal.untilSignal)
          yield* Effect.yieldNow
          assert.deepStrictEqual(
            signals.map((signal) => process.listeners(signal).includes(runtime.listener)),
            [false, false]
          )
          process.emit("SIGTERM", "SIGTERM")
          assert.strictEqual(yield* Fiber.join(waiting), "SIGTERM")
          assert.deepStrictEqual(runtime.heard, [])
          assert.deepStrictEqual(gaps, [])
          assert.deepStrictEqual(
            signals.map((signal) => process.listeners(signal).filter((l) => l === runtime.listener).length),
            [1, 1]
          )
        } finally {
          process.off("removeListener", watch)
        }
      })
    )
  )
})

describe("Signal.interruptOnSigint", () => {
  it.effect("first Ctrl-C requests the stop, a second exits 130 at once; the runtime's handler is given back", () =>
    withRuntimeStandIn((runtime) =>
      Effect.gen(function* () {
        const exits: Array<number> = []
        const before = process.listenerCount("SIGINT")
        yield* Effect.scoped(
          Effect.gen(function* () {
            const ctrlC = yield* Signal.interruptOnSigint((code) => void exits.push(code))
            assert.isFalse(process.listeners("SIGINT").includes(runtime.listener))
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
        assert.deepStrictEqual(runtime.heard, [])
        assert.isTrue(process.listeners("SIGINT").includes(runtime.listener))
        assert.strictEqual(process.listenerCount("SIGINT"), before)
      })
    )
  )
})
