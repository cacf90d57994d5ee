/**
 * Plan sessions on the engine (one process, Postgres): the result `Session.run` gives
 * in-process, events and history included, on a plan that succeeds, one that replans and one
 * with a concurrent group; a session id run again answers from the record (no tool runs, the
 * planner is not asked); a planner that fails ends the session with `PlannerFailed`; an empty
 * session id is refused before anything is sent. Needs Postgres (see postgres.ts).
 */
import { Files, FileTools } from "@agent-harness/file-tools"
import { type Planner, RulePlanner, Session, Step } from "@agent-harness/planner"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Data, Effect, Exit, Layer } from "effect"
import { DurableJournal, DurableSession, Engine } from "../src/index.ts"
import { database, timeout } from "./postgres.ts"

const db = database()

class ProviderDown extends Data.TaggedError("ProviderDown")<{ readonly message: string }> {}

const plan = [
  Step.make(1, "write", { path: "a.txt", content: "one\n" }, "a.txt holds one"),
  Step.make(2, "append", { path: "a.txt", content: "two\n" }, "a.txt holds two more", "g"),
  Step.make(3, "append", { path: "b.txt", content: "three\n" }, "b.txt holds three", "g"),
  Step.make(4, "read", { path: "missing.txt" }, "the report is there")
]
const fixed = [
  Step.make(4, "write", { path: "missing.txt", content: "report\n" }, "the report is written"),
  Step.make(5, "read", { path: "missing.txt" }, "the report is there")
]

/** A rule planner that counts how often it is asked. */
const counted = () => {
  const asked = { count: 0 }
  const rules = RulePlanner.make([
    { when: null, plan },
    { when: "does not exist", plan: fixed }
  ])
  const planner: Planner.Planner = (request) =>
    Effect.suspend(() => {
      asked.count++
      return rules(request)
    })
  return { planner, asked }
}

const definition = <E>(planner: Planner.Planner<E>) => ({
  toolset: FileTools.english,
  planner,
  maxSteps: 10,
  maxReplans: 2
})

/** The engine in this process with a kind of session registered, over in-memory files. */
const engine = <Name extends string>(
  url: string,
  session: DurableSession.DurableSession<Name, never, never>,
  files: Files.MemoryShape
) =>
  session.layer.pipe(
    Layer.provideMerge(DurableJournal.layerPg()),
    Layer.provideMerge(Engine.single({ url })),
    Layer.provide(Layer.succeed(Files.Files, files))
  )

describe("DurableSession on one process", () => {
  it(
    "gives the SessionResult Session.run gives in-process (replan, concurrent group), and a second run of the id answers from the record",
    async (ctx) => {
      const url = db.url(ctx)
      const local = counted()
      const localFiles = Files.makeFiles()
      const expected = await Effect.runPromise(
        Session.run({ ...definition(local.planner), goal: "write the report", sessionId: "s1" }).pipe(
          Effect.provideService(Files.Files, localFiles)
        )
      )
      assert.strictEqual(expected.reason, "goal_met")
      assert.strictEqual(expected.revisions.length, 1)

      const durable = counted()
      const files = Files.makeFiles()
      const kind = DurableSession.make("test/report", definition(durable.planner))
      const [first, again] = await Effect.runPromise(
        Effect.gen(function* () {
          const first = yield* kind.run({ session_id: "s1", goal: "write the report" })
          const again = yield* kind.run({ session_id: "s1", goal: "write the report" })
          return [first, again] as const
        }).pipe(Effect.provide(engine(url, kind, files)))
      )
      assert.deepStrictEqual(first, expected)
      assert.deepStrictEqual(again, expected)
      assert.deepStrictEqual(yield_(files.snapshot), yield_(localFiles.snapshot))
      // Asked once for the first plan and once for the replan, and not again by the second run.
      assert.strictEqual(durable.asked.count, 2)
    },
    timeout
  )

  it(
    "a planner that fails ends the session with PlannerFailed; an empty session id is refused before anything is sent",
    async (ctx) => {
      const url = db.url(ctx)
      const failing: Planner.Planner<ProviderDown> = () =>
        Effect.fail(new ProviderDown({ message: "the provider is down" }))
      const kind = DurableSession.make("test/failing", definition(failing))
      const files = Files.makeFiles()
      const exits = await Effect.runPromise(
        Effect.gen(function* () {
          const failed = yield* Effect.exit(kind.run({ session_id: "f1", goal: "anything" }))
          const empty = yield* Effect.exit(kind.run({ session_id: " ", goal: "anything" }))
          return { failed, empty }
        }).pipe(Effect.provide(engine(url, kind, files)))
      )
      assert.isTrue(Exit.isFailure(exits.failed))
      const error = Exit.isFailure(exits.failed) ? Cause.squash(exits.failed.cause) : undefined
      assert.instanceOf(error, DurableSession.PlannerFailed)
      assert.strictEqual(error instanceof DurableSession.PlannerFailed ? error.message : "", "the provider is down")
      const empty = Exit.isFailure(exits.empty) ? Cause.squash(exits.empty.cause) : undefined
      assert.instanceOf(empty, RangeError)
      assert.strictEqual(
        empty instanceof RangeError ? empty.message : "",
        'a durable session needs a session id, a non-empty string, got " "'
      )
    },
    timeout
  )
})

/** The value of an effect that cannot fail, now. */
const yield_ = <A>(effect: Effect.Effect<A>): A => Effect.runSync(effect)
