/**
 * An answer whose wake-up is lost: `DurableApprovals.answer` writes the answer (`store.answer`:
 * the UPDATE, committed) and then wakes the conversation (`wakeUp`: its durable deferred
 * completed through the engine). The answering process is killed between the two (`harness
 * approve` interrupted, a machine lost): the answer is in the table, the conversation suspended
 * on its deferred, and no one wakes it — answering again is refused ("approved already") and
 * wakes nothing. The conversation must take the answer on its own, when it looks at the store
 * again (`DurableApprovals.defaultRecheck`: a durable clock, 15 s for the first look), and the
 * approved call run, once.
 *
 * Needs Postgres (a throwaway cluster, or DATABASE_URL): without it the test says why and is
 * skipped (in CI, where a skip would pass unseen, it fails).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { DurableApprovals, Engine, PgApprovals } from "@agent-harness/durable"
import * as Testing from "@agent-harness/postgres-tool/testing"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Option } from "effect"
import * as Soak from "../src/local/Soak.ts"
import * as PgSoak from "../src/postgres/PgSoak.ts"
import * as PgSoakApprovals from "../src/postgres/PgSoakApprovals.ts"
import * as PgSoakProcess from "../src/postgres/PgSoakProcess.ts"
import * as PgSoakWorkflows from "../src/postgres/PgSoakWorkflows.ts"

const timeout = 300_000
const urlOr = Testing.suiteDatabase({ beforeAll, afterAll }, timeout).url

/** How long the approved call is given to run after its wake-up was lost (the first look comes at 15 s). */
const graceMillis = 60_000

describe("an answer whose wake-up is lost (the answering process killed between its write and its wake)", () => {
  it(
    "no one wakes the conversation, answering again is refused; it takes the answer on its own, the call runs",
    async (ctx) => {
      const url = urlOr(ctx)
      const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "agent-harness-wake-lost-"))
      const run = PgSoakWorkflows.runOf(2, 42)
      const payload = { conversation_id: run.id, messages: PgSoakWorkflows.opening(run) }
      const problems: Array<string> = []
      try {
        await Effect.runPromise(
          Effect.scoped(
            Effect.gen(function* () {
              const firstParked = yield* Deferred.make<PgSoakApprovals.ParkedLine>()
              const held = yield* Deferred.make<void>()
              const ran = yield* Deferred.make<void>()
              let waiting: string | undefined
              const parkedRunner = (line: { readonly [key: string]: unknown }) => {
                const parked = PgSoakApprovals.readParked(line)
                if (parked !== undefined && waiting === undefined) {
                  waiting = parked.call
                  Deferred.doneUnsafe(firstParked, Effect.succeed(parked))
                } else if (line.id === waiting && line.outcome === "Succeeded") Deferred.doneUnsafe(ran, Effect.void)
              }
              const port = yield* PgSoakProcess.freePort
              yield* PgSoakProcess.start(
                PgSoak.runnerSource,
                [url, root, String(port), "--approvals"],
                "runner",
                parkedRunner,
                problems
              )
              const client = yield* Layer.build(
                DurableApprovals.layerPg().pipe(
                  Layer.provideMerge(Engine.client({ url, sharding: PgSoakWorkflows.sharding }))
                )
              )
              const conversations = PgSoakWorkflows.conversations()
              yield* Effect.provideContext(conversations.start(payload), client)
              const parked = yield* Deferred.await(firstParked).pipe(Effect.timeout("120 seconds"))
              // Wait until the conversation is suspended on its deferred, as a waiting call is.
              for (let i = 0; i < 120; i++) {
                const now = yield* Effect.provideContext(conversations.poll(run.id), client)
                if (Option.isSome(now) && now.value._tag === "Suspended") break
                yield* Effect.sleep("500 millis")
              }
              // The answering child writes the answer and is killed before its wake.
              const answerer = yield* PgSoakProcess.start(
                PgSoak.answererSource,
                [url],
                "answerer",
                (line) => {
                  if (line.held === parked.id) Deferred.doneUnsafe(held, Effect.void)
                },
                problems
              )
              yield* PgSoakProcess.write(answerer, JSON.stringify({ answer: parked.id, approve: true, hold: true }))
              yield* Deferred.await(held).pipe(Effect.timeout("60 seconds"))
              yield* PgSoakProcess.kill(answerer)
              const store = yield* Effect.provideContext(DurableApprovals.DurableApprovals, client)
              const row = yield* store.get(parked.id)
              assert.strictEqual(Option.getOrUndefined(row)?.state, "approved")
              // Answering again is refused (one answer is taken), and wakes nothing.
              const again = yield* Effect.result(
                Effect.provideContext(DurableApprovals.answer(store, parked.id, { approve: true, by: "ana" }), client)
              )
              assert.strictEqual(again._tag, "Failure")
              // The approved call runs (its outcome line) once the conversation looks at the store again.
              const done = yield* Deferred.await(ran).pipe(Effect.timeoutOption(graceMillis))
              assert.isTrue(
                Option.isSome(done),
                `approval ${parked.id} (${parked.call}) is approved in ${PgApprovals.defaultTable}, and ${graceMillis / 1000} s later the call has not run: the conversation is still suspended, its wake-up lost`
              )
              // Once: its mark is in the run's folder once.
              const marks = yield* Effect.orDie(Soak.countMarks(nodePath.join(root, PgSoakWorkflows.folderOf(run.run))))
              assert.strictEqual(marks.get(parked.call), 1)
            })
          )
        )
      } finally {
        fs.rmSync(root, { recursive: true, force: true })
      }
      assert.deepStrictEqual(problems, [])
    },
    timeout
  )
})
