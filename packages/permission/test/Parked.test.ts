/**
 * Parked approvals through the real gate: a call a rule asks about waits in the store, for as
 * long as it takes, until someone answers from elsewhere; an approval runs it once, a denial
 * never, and `permission.decided` says who answered. The same call asked again (a run resumed)
 * is not parked twice and takes the answer given meanwhile; the same call id with other input
 * is denied. A store that fails denies, saying why; a wait that is interrupted leaves the
 * approval pending.
 */
import { Execute, Outcome, Trace } from "@agent-harness/executor"
import { Approvals, SqliteStore } from "@agent-harness/idempotency"
import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option, Schema } from "effect"
import { TestClock } from "effect/testing"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Approver, Decided, Gate, Parked } from "../src/index.ts"

const temp = mkdtempSync(join(tmpdir(), "permission-parked-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

const ran: Array<string> = []
const push = Tool.make("push", {
  description: "pushes a branch",
  parameters: Schema.Struct({ branch: Schema.String }),
  run: ({ branch }, { id }) => {
    ran.push(id)
    return `pushed ${branch}`
  }
})
const tools = Toolset.make(push)

/** Runs one call through a gate that asks about everything, with the parking approver. */
const call = (approver: Approver.Approver, id: string, branch = "main") =>
  Effect.gen(function* () {
    const gate = yield* Gate.make({
      policy: { default: { decision: "ask", reason: "pushes are checked" } },
      approvalTimeout: Infinity
    })
    return yield* Execute.execute(tools, { id, name: "push", input: { branch } }).pipe(
      Effect.provideService(Execute.Middleware, gate),
      Effect.provideService(Approver.Approver, approver)
    )
  })

/** Waits (on the test clock) until the store holds an approval for the call. */
const parkedIn = (store: Approvals.Store, session: string, id: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 100; i++) {
      const found = yield* store.get(Approvals.idOf(session, id))
      if (Option.isSome(found)) return found.value
      yield* TestClock.adjust("100 millis")
    }
    return yield* Effect.die(new Error(`call ${id} was never parked`))
  })

describe("a parked call", () => {
  it.effect("waits however long it takes; approved from elsewhere, it runs once, and the decision says who", () =>
    Effect.gen(function* () {
      ran.length = 0
      const store = yield* Approvals.memory
      const told: Array<string> = []
      const approver = Parked.approver({
        store,
        session: "s1",
        poll: "1 minute",
        onParked: (approval) => Effect.sync(() => told.push(approval.id))
      })
      const recorded = yield* Trace.memory
      const fiber = yield* Effect.forkChild(
        call(approver, "c1").pipe(Effect.provideService(Trace.Trace, recorded.trace))
      )
      const parked = yield* parkedIn(store, "s1", "c1")
      assert.strictEqual(parked.state, "pending")
      assert.strictEqual(parked.input, '{"branch":"main"}')
      assert.strictEqual(parked.reason, "pushes are checked")
      assert.deepStrictEqual(told, [parked.id])
      // Two days go by: nothing allows or denies it.
      yield* TestClock.adjust("2 days")
      assert.isUndefined(fiber.pollUnsafe())
      assert.deepStrictEqual(ran, [])
      yield* store.answer(parked.id, { approve: true, by: "ana" })
      yield* TestClock.adjust("1 minute")
      const outcome = yield* Fiber.join(fiber)
      assert.strictEqual(outcome.content, "pushed main")
      assert.deepStrictEqual(ran, ["c1"])
      const decided = (yield* recorded.entries).filter(Decided.event.is)
      assert.deepStrictEqual(
        decided.map((d) => [d.answer, d.allowed, d.by]),
        [["yes", true, "ana"]]
      )
    }).pipe(Effect.provide(TestClock.layer()))
  )

  it.effect("denied from elsewhere, it never runs and the model reads the reason (or who said no)", () =>
    Effect.gen(function* () {
      ran.length = 0
      const store = yield* Approvals.memory
      const approver = Parked.approver({ store, session: "s1" })
      const first = yield* Effect.forkChild(call(approver, "c1"))
      const parked = yield* parkedIn(store, "s1", "c1")
      yield* store.answer(parked.id, { approve: false, by: "ana", reason: "not on a Friday" })
      yield* TestClock.adjust("1 second")
      const outcome = yield* Fiber.join(first)
      assert.isTrue(Outcome.isDenied(outcome))
      assert.strictEqual(outcome.content, "not executed: denied: not on a Friday")
      const second = yield* Effect.forkChild(call(approver, "c2"))
      const other = yield* parkedIn(store, "s1", "c2")
      yield* store.answer(other.id, { approve: false, by: "bob" })
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* Fiber.join(second)).content, "not executed: denied: bob said no")
      assert.deepStrictEqual(ran, [])
    }).pipe(Effect.provide(TestClock.layer()))
  )

  it.effect("asked again (a run resumed), the same call takes the answer given meanwhile and is not parked twice", () =>
    Effect.gen(function* () {
      ran.length = 0
      const store = yield* Approvals.memory
      const told: Array<string> = []
      const approver = Parked.approver({ store, session: "s1", onParked: (a) => Effect.sync(() => told.push(a.id)) })
      // The first run waits, and is stopped while it waits: the approval stays pending.
      const first = yield* Effect.forkChild(call(approver, "c1"))
      const parked = yield* parkedIn(store, "s1", "c1")
      yield* Fiber.interrupt(first)
      assert.strictEqual(Option.getOrThrow(yield* store.get(parked.id)).state, "pending")
      // Answered while no run waits; the resumed run finds the answer at once.
      yield* store.answer(parked.id, { approve: true, by: "ana" })
      const again = yield* call(approver, "c1")
      assert.strictEqual(again.content, "pushed main")
      assert.deepStrictEqual(ran, ["c1"])
      assert.deepStrictEqual(told, [parked.id])
      assert.strictEqual((yield* store.list()).length, 1)
    }).pipe(Effect.provide(TestClock.layer()))
  )

  it.effect("the same call id with other arguments is denied: its approval is another call's", () =>
    Effect.gen(function* () {
      ran.length = 0
      const store = yield* Approvals.memory
      const approver = Parked.approver({ store, session: "s1" })
      const first = yield* Effect.forkChild(call(approver, "c1", "main"))
      const parked = yield* parkedIn(store, "s1", "c1")
      yield* store.answer(parked.id, { approve: true, by: "ana" })
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(first)
      const forced = yield* call(approver, "c1", "release")
      assert.isTrue(Outcome.isDenied(forced))
      assert.include(
        forced.content,
        "not executed: denied: its approval is another call's: call 'c1' of session 's1' was parked for another call"
      )
      assert.deepStrictEqual(ran, ["c1"])
    }).pipe(Effect.provide(TestClock.layer()))
  )

  it.effect("a store that cannot park, or that fails while the call waits, denies it saying why (in Spanish too)", () =>
    Effect.gen(function* () {
      ran.length = 0
      const broken: Approvals.Store = {
        location: "broken",
        park: () => Effect.fail(new Approvals.ApprovalError({ store: "broken", problem: "disk full" })),
        get: () => Effect.fail(new Approvals.ApprovalError({ store: "broken", problem: "gone" })),
        list: () => Effect.succeed([]),
        answer: (id) => Effect.fail(new Approvals.AnswerRefused({ id, problem: "no" }))
      }
      const notParked = yield* call(Parked.approver({ store: broken, session: "s1" }), "c1")
      assert.strictEqual(
        notParked.content,
        "not executed: denied: the call could not be parked for approval: broken: disk full"
      )
      const memory = yield* Approvals.memory
      const flaky: Approvals.Store = { ...memory, get: broken.get }
      const waiting = yield* Effect.forkChild(
        call(Parked.approver({ store: flaky, session: "s1" }), "c2").pipe(
          Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
        )
      )
      yield* TestClock.adjust("1 minute")
      const lost = yield* Fiber.join(waiting)
      assert.strictEqual(
        lost.content,
        "no se ha ejecutado: permiso denegado: no se ha podido leer la aprobación mientras esperaba: broken: gone"
      )
      assert.deepStrictEqual(ran, [])
    }).pipe(Effect.provide(TestClock.layer()))
  )
})

describe("in a journal file shared by two processes' stores", () => {
  it.live(
    "a call parked through one store is answered through another on the same file, and runs",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          ran.length = 0
          const file = join(temp, "journal.sqlite")
          const waiting = yield* SqliteStore.approvals(file)
          const answering = yield* SqliteStore.approvals(file)
          const fiber = yield* Effect.forkChild(
            call(Parked.approver({ store: waiting, session: "s1", poll: "20 millis" }), "c1")
          )
          let pending: ReadonlyArray<Approvals.Approval> = []
          while (pending.length === 0) {
            yield* Effect.sleep("20 millis")
            pending = yield* answering.list({ state: "pending" })
          }
          const [parked] = pending
          assert.isDefined(parked)
          yield* answering.answer(parked?.id ?? "", { approve: true, by: "ana", digest: parked?.digest })
          const outcome = yield* Fiber.join(fiber)
          assert.strictEqual(outcome.content, "pushed main")
          assert.deepStrictEqual(ran, ["c1"])
        })
      ),
    60_000
  )
})
