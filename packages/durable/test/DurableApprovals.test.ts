/**
 * Approvals on the durable engine, with real processes and Postgres: a conversation whose policy
 * asks about `append` parks each append in the approvals table and suspends; this process, a
 * client of the engine, answers (approve, deny) and the runner's conversation goes on. Killed
 * with SIGKILL while a call waits, answered while no runner is up, and resumed by a new process:
 * the answer is taken, the approved call runs once, the denied one never, nothing is parked
 * twice. A second answer, or an answer for other arguments, is refused. Needs Postgres (see
 * postgres.ts).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Approvals } from "@agent-harness/idempotency"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Database, DurableApprovals, Engine, PgApprovals } from "../src/index.ts"
import * as Children from "./fixtures/children.ts"
import { database, timeout } from "./postgres.ts"

const db = database()
const child = fileURLToPath(new URL("./fixtures/approval-child.ts", import.meta.url))
const temp = fs.mkdtempSync(path.join(os.tmpdir(), "durable-approvals-"))
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }))

/** Answers approval `id` from this process: a client of the engine (it runs no workflow). */
const answer = (url: string, id: string, given: Approvals.Answer) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const store = yield* DurableApprovals.DurableApprovals
      return yield* Effect.result(DurableApprovals.answer(store, id, given))
    }).pipe(Effect.provide(DurableApprovals.layerPg().pipe(Layer.provideMerge(Engine.client({ url })))))
  )

/** Every approval in the database. */
const approvals = (url: string) =>
  Effect.runPromise(
    Effect.flatMap(PgApprovals.make(), (store) => store.list()).pipe(Effect.provide(Database.layer(url)))
  )

const marks = (envdir: string) => {
  const file = path.join(envdir, "log.txt")
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""
}

/** Starts the child on conversation `id` over `envdir`; `onParked` acts on each parked line. */
const start = (
  url: string,
  id: string,
  envdir: string,
  onParked: (
    parked: { readonly id: string; readonly call: string },
    proc: import("node:child_process").ChildProcess
  ) => void,
  flags: ReadonlyArray<string> = []
) =>
  Children.start(child, [url, id, envdir, ...flags], {
    stuckMs: 150_000,
    onLine: (line, proc) => {
      const parked = line.parked as { readonly id: string; readonly call: string } | undefined
      if (parked !== undefined) onParked(parked, proc)
    }
  }).done

/** The calls that ran (the journal's outcomes, a replay of a recorded one left out). */
const ranCalls = (ran: Children.Ran) =>
  ran.lines
    .filter((l) => typeof l.id === "string" && l.outcome !== "Replayed")
    .map((l) => `${String(l.id).replace(/^.*\//, "")} ${l.outcome}`)

/** What the model read, at the end. */
const results = (ran: Children.Ran) =>
  (ran.lines.at(-1)?.done as { results?: ReadonlyArray<string> } | undefined)?.results

const read = ["a1 appended 5 characters to log.txt", "w2 wrote 8 characters to state.txt"]

/** Answers approval `id` in the store only, waking nothing: an answering process that died before its wake-up. */
const answerOnly = (url: string, id: string, given: Approvals.Answer) =>
  Effect.runPromise(
    Effect.flatMap(PgApprovals.make(), (store) => Effect.result(store.answer(id, given))).pipe(
      Effect.provide(Database.layer(url))
    )
  )

describe("approvals on the durable engine", () => {
  it(
    "an answer whose wake-up was lost (written, nothing woken) is taken at the conversation's next look at the store",
    async (ctx) => {
      const url = db.url(ctx)
      const envdir = fs.mkdtempSync(path.join(temp, "lost-wake-"))
      const answered: Array<Promise<unknown>> = []
      const ran = await start(
        url,
        "c-lost-wake",
        envdir,
        (parked) => {
          answered.push(
            answerOnly(
              url,
              parked.id,
              parked.call === "a1" ? { approve: true, by: "ana" } : { approve: false, by: "bob" }
            )
          )
        },
        ["--recheck-ms", "1500"]
      )
      assert.strictEqual(ran.code, 0, ran.stderr)
      assert.deepStrictEqual(
        (await Promise.all(answered)).map((a) => (a as { _tag: string })._tag),
        ["Success", "Success"]
      )
      assert.deepStrictEqual(ranCalls(ran), ["a1 Succeeded", "w2 Succeeded"])
      assert.deepStrictEqual(results(ran), [...read, "a3 not executed: denied: bob said no"])
      assert.strictEqual(marks(envdir), "[a1]\n")
    },
    timeout
  )

  it(
    "the conversation suspends on each asked call; answered from another process, it goes on: approved once, denied never",
    async (ctx) => {
      const url = db.url(ctx)
      const envdir = fs.mkdtempSync(path.join(temp, "answered-"))
      const answers: Array<Promise<unknown>> = []
      const ran = await start(url, "c-answered", envdir, (parked) => {
        answers.push(
          answer(
            url,
            parked.id,
            parked.call === "a1" ? { approve: true, by: "ana" } : { approve: false, by: "bob", reason: "enough logs" }
          )
        )
      })
      assert.strictEqual(ran.code, 0, ran.stderr)
      const given = await Promise.all(answers)
      assert.deepStrictEqual(
        given.map((g) => (g as { _tag: string })._tag),
        ["Success", "Success"]
      )
      assert.deepStrictEqual(ranCalls(ran), ["a1 Succeeded", "w2 Succeeded"])
      assert.deepStrictEqual(results(ran), [...read, "a3 not executed: denied: enough logs"])
      assert.strictEqual(marks(envdir), "[a1]\n")
      const kept = (await approvals(url)).filter((a) => a.session === "c-answered")
      assert.deepStrictEqual(
        kept.map((a) => [a.toolUseId, a.state, a.by]),
        [
          ["a1", "approved", "ana"],
          ["a3", "denied", "bob"]
        ]
      )
      // A second answer is refused, and so is one for other arguments.
      const again = await answer(url, kept[0]?.id ?? "", { approve: false, by: "eve" })
      assert.strictEqual(again._tag, "Failure")
      assert.include(again._tag === "Failure" ? again.failure.message : "", "it was approved already, by ana")
    },
    timeout
  )

  it(
    "killed while a call waits, answered with no runner up, resumed elsewhere: the answer is taken, the call runs once",
    async (ctx) => {
      const url = db.url(ctx)
      const envdir = fs.mkdtempSync(path.join(temp, "killed-"))
      const seen: Array<string> = []
      // First runner: killed as soon as a1 waits.
      const first = await start(url, "c-killed", envdir, (parked, proc) => {
        seen.push(parked.id)
        proc.kill("SIGKILL")
      })
      assert.strictEqual(first.signal, "SIGKILL")
      assert.strictEqual(marks(envdir), "")
      const pending = (await approvals(url)).filter((a) => a.session === "c-killed")
      assert.deepStrictEqual(
        pending.map((a) => [a.toolUseId, a.state]),
        [["a1", "pending"]]
      )
      // Answered while no runner is up: the answer is in the store, the wake-up waits for a runner.
      const wrong = await answer(url, pending[0]?.id ?? "", {
        approve: true,
        by: "ana",
        digest: Approvals.digestOf('{"content":"[a9]\\n","path":"log.txt"}')
      })
      assert.strictEqual(wrong._tag, "Failure")
      const approved = await answer(url, pending[0]?.id ?? "", { approve: true, by: "ana", digest: pending[0]?.digest })
      assert.strictEqual(approved._tag, "Success")
      // Second runner: resumes; a1 runs (once), then a3 waits and is denied from here.
      const second = await start(url, "c-killed", envdir, (parked) => {
        seen.push(parked.id)
        if (parked.call === "a3") void answer(url, parked.id, { approve: false, by: "bob" })
      })
      assert.strictEqual(second.code, 0, second.stderr)
      assert.deepStrictEqual(ranCalls(second), ["a1 Succeeded", "w2 Succeeded"])
      assert.deepStrictEqual(results(second), [...read, "a3 not executed: denied: bob said no"])
      assert.strictEqual(marks(envdir), "[a1]\n")
      const after = (await approvals(url)).filter((a) => a.session === "c-killed")
      assert.deepStrictEqual(
        after.map((a) => [a.toolUseId, a.state, a.by]),
        [
          ["a1", "approved", "ana"],
          ["a3", "denied", "bob"]
        ]
      )
      // a1 was parked once and never waited again once answered.
      assert.strictEqual(seen.filter((id) => id === pending[0]?.id).length, 1)
    },
    timeout
  )
})
