/**
 * What a SIGKILL does to a durable session or conversation, with real processes: a child runs
 * one on the engine over files on disk, holds in a call after it ran (before its result is
 * recorded) and is killed there; a second child resumes it. Calls that finished are replayed,
 * never run again; the non-idempotent call that was running is reported outcome unknown and not
 * run again (its mark is in the files once); an idempotent one runs again; model replies that
 * were recorded are not asked for again. Needs Postgres (see postgres.ts).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Database, PgStore } from "../src/index.ts"
import { database, timeout } from "./postgres.ts"

const db = database()
const child = fileURLToPath(new URL("./fixtures/crash-child.ts", import.meta.url))
const temp = fs.mkdtempSync(path.join(os.tmpdir(), "durable-crash-"))
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }))

interface Ran {
  readonly lines: ReadonlyArray<Record<string, unknown>>
  readonly killed: boolean
  readonly code: number | null
  readonly stderr: string
}

/** Runs the child; with `hold`, kills it with SIGKILL once it says it holds. */
const runChild = (args: ReadonlyArray<string>, hold: string | undefined): Promise<Ran> =>
  new Promise((resolve) => {
    const proc = spawn(process.execPath, [child, ...args, ...(hold === undefined ? [] : ["--hold", hold])], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    const lines: Array<Record<string, unknown>> = []
    let buffer = ""
    let stderr = ""
    let killed = false
    const stuck = setTimeout(() => proc.kill("SIGKILL"), 150_000)
    proc.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const text = buffer.slice(0, end)
        buffer = buffer.slice(end + 1)
        let line: Record<string, unknown>
        try {
          line = JSON.parse(text) as Record<string, unknown>
        } catch {
          // Not one of the JSON lines (a log line the engine wrote there): kept as text.
          line = { notJson: text }
        }
        lines.push(line)
        if (typeof line.holding === "string") killed = proc.kill("SIGKILL")
      }
    })
    proc.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    proc.on("close", (code) => {
      clearTimeout(stuck)
      resolve({ lines, killed, code, stderr })
    })
  })

const outcomes = (ran: Ran) =>
  ran.lines
    .filter((l) => typeof l.id === "string")
    .map((l) => `${String(l.id).replace(/^.*\//, "")} ${l.outcome}${l.failure === undefined ? "" : `/${l.failure}`}`)

const marks = (envdir: string) => fs.readFileSync(path.join(envdir, "log.txt"), "utf8")

const journal = (url: string) =>
  Effect.runPromise(Effect.flatMap(PgStore.make(), (store) => store.entries).pipe(Effect.provide(Database.layer(url))))

describe("a durable run killed with SIGKILL and resumed", () => {
  it(
    "a plan session: finished steps replayed, the append that was running outcome unknown, never run twice",
    async (ctx) => {
      const url = db.url(ctx)
      const envdir = fs.mkdtempSync(path.join(temp, "session-"))
      const first = await runChild([url, "session", "s-kill", envdir], "step-0-3")
      assert.isTrue(first.killed, first.stderr)
      assert.deepStrictEqual(outcomes(first), ["step-0-1 Succeeded", "step-0-2 Succeeded"])
      const second = await runChild([url, "session", "s-kill", envdir], undefined)
      assert.strictEqual(second.code, 0, second.stderr)
      assert.deepStrictEqual(outcomes(second), [
        "step-0-1 Replayed",
        "step-0-2 Replayed",
        "step-0-3 Failed/OutcomeUnknown",
        "step-0-4 Succeeded",
        "step-0-5 Succeeded"
      ])
      // a3 ran once (in the first child), and was not run again.
      assert.strictEqual(marks(envdir), "[a1]\n[a3]\n[a5]\n")
      const done = second.lines.find((l) => l.done !== undefined)?.done as { reason: string; history: unknown }
      assert.strictEqual(done.reason, "partial")
      const entries = await journal(url)
      assert.deepStrictEqual(
        entries.filter((e) => e.id.startsWith("s-kill/")).map((e) => `${e.id} ${e.state}`),
        [
          "s-kill/step-0-1 done",
          "s-kill/step-0-2 done",
          "s-kill/step-0-3 started",
          "s-kill/step-0-4 done",
          "s-kill/step-0-5 done"
        ]
      )
      // A third start finds the session finished: its recorded result, nothing runs.
      const third = await runChild([url, "session", "s-kill", envdir], undefined)
      assert.deepStrictEqual(outcomes(third), [])
      assert.deepStrictEqual(third.lines.find((l) => l.done !== undefined)?.done, done)
    },
    timeout
  )

  it(
    "a plan session: an idempotent step that was running runs again (at least once)",
    async (ctx) => {
      const url = db.url(ctx)
      const envdir = fs.mkdtempSync(path.join(temp, "idempotent-"))
      const first = await runChild([url, "session", "s-write", envdir], "step-0-4")
      assert.isTrue(first.killed, first.stderr)
      const second = await runChild([url, "session", "s-write", envdir], undefined)
      assert.strictEqual(second.code, 0, second.stderr)
      assert.deepStrictEqual(outcomes(second), [
        "step-0-1 Replayed",
        "step-0-2 Replayed",
        "step-0-3 Replayed",
        "step-0-4 Succeeded",
        "step-0-5 Succeeded"
      ])
      assert.strictEqual(marks(envdir), "[a1]\n[a3]\n[a5]\n")
      assert.strictEqual(fs.readFileSync(path.join(envdir, "state.txt"), "utf8"), "after 4\n")
    },
    timeout
  )

  it(
    "a conversation: recorded replies are not asked for again, finished calls replayed, the running append outcome unknown",
    async (ctx) => {
      const url = db.url(ctx)
      const envdir = fs.mkdtempSync(path.join(temp, "conversation-"))
      const first = await runChild([url, "conversation", "c-kill", envdir], "a3")
      assert.isTrue(first.killed, first.stderr)
      assert.deepStrictEqual(
        first.lines.filter((l) => l.asked !== undefined).map((l) => l.asked),
        [1, 2]
      )
      const second = await runChild([url, "conversation", "c-kill", envdir], undefined)
      assert.strictEqual(second.code, 0, second.stderr)
      // Turns 1 and 2 were recorded: only turns 3 and 4 ask the model.
      assert.deepStrictEqual(
        second.lines.filter((l) => l.asked !== undefined).map((l) => l.asked),
        [3, 4]
      )
      assert.deepStrictEqual(outcomes(second), [
        "a1 Replayed",
        "w2 Replayed",
        "a3 Failed/OutcomeUnknown",
        "w4 Succeeded",
        "a5 Succeeded"
      ])
      assert.strictEqual(marks(envdir), "[a1]\n[a3]\n[a5]\n")
      assert.deepStrictEqual(second.lines.find((l) => l.done !== undefined)?.done, {
        stop: "end",
        text: "done after 2 model calls in this process"
      })
    },
    timeout
  )
})
