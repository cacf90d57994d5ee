/**
 * Asking is bounded: an approver that never answers is denied after the gate's
 * `approvalTimeout` (10 minutes by default, `Infinity` allowed), with a reason that says no
 * answer came in time; an approver that interrupts itself denies that call instead of
 * interrupting `execute`; the caller's own interruption still passes through.
 */
import { Execute, Outcome } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import { type Approver, Approver as Approvers, Gate } from "../src/index.ts"

const ran: Array<string> = []
const append = Tool.make("append", {
  description: "append",
  parameters: Schema.Struct({ path: Schema.String }),
  run: (_input, { id }) => {
    ran.push(id)
    return "appended"
  }
})
const tools = Toolset.make(append)
const never: Approver.Approver = { ask: () => Effect.never }

const asking = (approver: Approver.Approver, options: Partial<Gate.Options> = {}) =>
  Effect.gen(function* () {
    ran.length = 0
    const gate = yield* Gate.make({ policy: { default: "ask" }, ...options })
    return yield* Effect.forkChild(
      Execute.execute(tools, { id: "c1", name: "append", input: { path: "a" } }).pipe(
        Effect.provideService(Execute.Middleware, gate),
        Effect.provideService(Approvers.Approver, approver)
      )
    )
  })

describe("the approval timeout", () => {
  it.effect("an approver that never answers is denied after 10 minutes by default", () =>
    Effect.gen(function* () {
      const fiber = yield* asking(never)
      yield* TestClock.adjust("9 minutes")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 minute")
      const outcome = yield* Fiber.join(fiber)
      assert.isTrue(Outcome.isDenied(outcome))
      assert.strictEqual(
        outcome.content,
        "not executed: denied: no answer came in time (the approval waited 10 minutes)"
      )
      assert.deepStrictEqual(ran, [])
    }).pipe(Effect.provide(TestClock.layer()))
  )

  it.effect("a timeout of its own, and Infinity waits for ever", () =>
    Effect.gen(function* () {
      const short = yield* asking(never, { approvalTimeout: "90 seconds" })
      yield* TestClock.adjust("90 seconds")
      assert.strictEqual(
        (yield* Fiber.join(short)).content,
        "not executed: denied: no answer came in time (the approval waited 90 seconds)"
      )
      const forever = yield* asking(never, { approvalTimeout: Infinity })
      yield* TestClock.adjust("3650 days")
      assert.isUndefined(forever.pollUnsafe())
      yield* Fiber.interrupt(forever)
    }).pipe(Effect.provide(TestClock.layer()))
  )

  it.effect("an approver that answers in time is not cut", () =>
    Effect.gen(function* () {
      const slow: Approver.Approver = { ask: () => Effect.as(Effect.sleep("5 minutes"), { answer: "yes" }) }
      const fiber = yield* asking(slow)
      yield* TestClock.adjust("5 minutes")
      assert.strictEqual((yield* Fiber.join(fiber)).content, "appended")
      assert.deepStrictEqual(ran, ["c1"])
    }).pipe(Effect.provide(TestClock.layer()))
  )

  it.effect("an invalid timeout is refused by make, naming it", () =>
    Effect.gen(function* () {
      for (const bad of [0, -1, Number.NaN, "soon"]) {
        const error = yield* Effect.flip(Gate.make({ policy: {}, approvalTimeout: bad as never }))
        assert.strictEqual(error.path, "(approvalTimeout)")
      }
    })
  )
})

describe("interruption while asking", () => {
  it.effect("an approver that interrupts itself denies that call; execute goes on", () =>
    Effect.gen(function* () {
      const fiber = yield* asking({ ask: () => Effect.interrupt })
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.isSuccess(exit))
      if (Exit.isSuccess(exit)) {
        assert.strictEqual(exit.value.content, "not executed: denied: the approval was interrupted before an answer")
      }
      assert.deepStrictEqual(ran, [])
    })
  )

  it.effect("the caller's interruption passes through", () =>
    Effect.gen(function* () {
      const fiber = yield* asking(never)
      yield* Effect.yieldNow
      const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
      assert.isTrue(Exit.isFailure(exit) && Exit.hasInterrupts(exit))
      assert.deepStrictEqual(ran, [])
    }).pipe(Effect.provide(TestClock.layer()))
  )
})
