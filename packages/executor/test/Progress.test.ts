import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { Progress } from "../src/index.ts"

const collect = () => {
  const seen: Array<[string, Progress.Update]> = []
  const reporter: Progress.Reporter = (id, update) => Effect.sync(() => void seen.push([id, update]))
  return { seen, reporter }
}

describe("Progress", () => {
  it.effect("reports to the reporter in use, checked", () =>
    Effect.gen(function* () {
      const { seen, reporter } = collect()
      yield* Effect.provideService(
        Effect.gen(function* () {
          yield* Progress.report("call-1", { progress: 1, total: 3, message: "one" })
          yield* Progress.report("call-1", { progress: Number.NaN })
          yield* Progress.report("call-1", { progress: 2, total: Infinity })
          yield* Progress.report("call-1", { progress: 3, message: "x".repeat(500) })
        }),
        Progress.Reporter,
        reporter
      )
      expect(seen.map(([id, update]) => [id, update.progress, update.total])).toEqual([
        ["call-1", 1, 3],
        ["call-1", 3, undefined]
      ])
      expect(seen[1]?.[1].message?.length).toBe(200)
    })
  )

  it.effect("drops everything when nobody listens", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Progress.report("call-1", { progress: 1 }))
      expect(Exit.isSuccess(exit)).toBe(true)
    })
  )

  it.effect("a reporter that throws, or an update whose getters throw, changes nothing", () =>
    Effect.gen(function* () {
      const hostile = Object.defineProperty({}, "progress", {
        get() {
          throw new Error("boom")
        }
      }) as Progress.Update
      const exit = yield* Effect.exit(
        Effect.provideService(
          Effect.andThen(Progress.report("a", hostile), Progress.report("a", { progress: 1 })),
          Progress.Reporter,
          () => {
            throw new Error("reporter broke")
          }
        )
      )
      expect(Exit.isSuccess(exit)).toBe(true)
    })
  )

  it.effect("an interruption of the caller passes through a reporter", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(
        Effect.provideService(Progress.report("a", { progress: 1 }), Progress.Reporter, () => Effect.never)
      )
      yield* Effect.yieldNow
      yield* Fiber.interrupt(fiber)
      const exit = yield* Fiber.await(fiber)
      expect(Exit.hasInterrupts(exit)).toBe(true)
    })
  )
})
