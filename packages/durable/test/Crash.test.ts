/**
 * What a SIGKILL does to a durable session or conversation, with real processes: a child runs
 * one on the engine over files on disk, holds in a call after it ran (before its result is
 * recorded) and is killed there; a second child resumes it. Calls that finished are replayed,
 * never run again; the non-idempotent call that was running is reported outcome unknown and not
 * run again (its mark is in the files once); an idempotent one runs again; model replies that
 * were recorded are not asked for again. Needs Postgres (see postgres.ts).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Children from "./fixtures/children.ts"
import { database, journal, timeout } from "./postgres.ts"

const db = database()
const child = fileURLToPath(new URL("./fixtures/crash-child.ts", import.meta.url))
const temp = fs.mkdtempSync(path.join(os.tmpdir(), "durable-crash-"))
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }))

/** Runs the child; with `hold`, kills it with SIGKILL once it says it holds. */
const runChild = async (args: ReadonlyArray<string>, hold: string | undefined) => {
  let killed = false
  const ran = await Children.start(child, [...args, ...(hold === undefined ? [] : ["--hold", hold])], {
    stuckMs: 150_000,
    onLine: (line, proc) => {
      if (typeof line.holding === "string") killed = proc.kill("SIGKILL")
    }
  }).done
  return { ...ran, killed }
}

const { outcomes } = Children

/**
 * A child runs `args` in a fresh folder (`label`) and is killed where it holds in `hold`; a
 * second child resumes it there and ends well. Both runs, and the folder.
 */
const killedAndResumed = async (url: string, label: string, args: ReadonlyArray<string>, hold: string) => {
  const envdir = fs.mkdtempSync(path.join(temp, `${label}-`))
  const first = await runChild([url, ...args, envdir], hold)
  assert.isTrue(first.killed, first.stderr)
  const second = await runChild([url, ...args, envdir], undefined)
  assert.strictEqual(second.code, 0, second.stderr)
  return { envdir, first, second }
}

const marks = (envdir: string) => fs.readFileSync(path.join(envdir, "log.txt"), "utf8")

describe("a durable run killed with SIGKILL and resumed", () => {
  it(
    "a plan session: finished steps replayed, the append that was running outcome unknown, never run twice",
    async (ctx) => {
      const url = db.url(ctx)
      const { envdir, first, second } = await killedAndResumed(url, "session", ["session", "s-kill"], "step-0-3")
      assert.deepStrictEqual(outcomes(first), ["step-0-1 Succeeded", "step-0-2 Succeeded"])
      assert.deepStrictEqual(outcomes(second), Children.resumedSession)
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
      const { envdir, second } = await killedAndResumed(url, "idempotent", ["session", "s-write"], "step-0-4")
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
    "a plan session with a spend: the resumed run counts the recorded planner calls once, and asks none again",
    async (ctx) => {
      const url = db.url(ctx)
      // Killed in w4 (revision 1), after both plans were recorded; the resumed run replays them.
      const { envdir, first, second } = await killedAndResumed(url, "spent", ["spent-session", "s-spent"], "step-1-4")
      const planned = (run: typeof first) => run.lines.filter((l) => typeof l.planned === "number").length
      assert.strictEqual(planned(first), 2)
      assert.strictEqual(planned(second), 0)
      const done = second.lines.find((l) => l.done !== undefined)?.done as {
        readonly reason: string
        readonly spent: unknown
      }
      assert.strictEqual(done.reason, "goal_met")
      // Two calls of 1,000 in and 50 out: counted once each, neither lost nor doubled by the resume.
      assert.deepStrictEqual(done.spent, { input_tokens: 2000, output_tokens: 100, cost: 0 })
      assert.strictEqual(marks(envdir), "[a1]\n[a3]\n[a5]\n")
    },
    timeout
  )

  it(
    "a conversation: recorded replies are not asked for again, finished calls replayed, the running append outcome unknown",
    async (ctx) => {
      const url = db.url(ctx)
      const { envdir, first, second } = await killedAndResumed(url, "conversation", ["conversation", "c-kill"], "a3")
      assert.deepStrictEqual(Children.asked(first), [1, 2])
      // Turns 1 and 2 were recorded: only turns 3 and 4 ask the model.
      assert.deepStrictEqual(Children.asked(second), [3, 4])
      assert.deepStrictEqual(outcomes(second), Children.resumedConversation)
      assert.strictEqual(marks(envdir), "[a1]\n[a3]\n[a5]\n")
      assert.deepStrictEqual(second.lines.find((l) => l.done !== undefined)?.done, {
        stop: "end",
        text: "done after 2 model calls in this process"
      })
      // Its spans: the two recorded replies are journal replays of their turns' chat spans; the
      // replayed calls say what they were; the append that was running is outcome unknown.
      const spans = second.lines.find((l) => l.spans !== undefined)?.spans as ReadonlyArray<{
        readonly name: string
        readonly attributes: Record<string, unknown>
        readonly events: ReadonlyArray<string>
      }>
      const chats = spans.filter((s) => s.name === "chat")
      assert.deepStrictEqual(
        chats.map((s) => [s.attributes["agent_harness.turn"], s.events]),
        [
          [1, ["agent_harness.journal.replayed"]],
          [2, ["agent_harness.journal.replayed"]],
          [3, []],
          [4, []]
        ]
      )
      const calls = spans.filter((s) => s.name.startsWith("execute_tool "))
      assert.deepStrictEqual(
        calls.map((s) => [
          s.name,
          s.attributes["gen_ai.tool.call.id"],
          s.attributes["error.type"] ?? null,
          s.attributes["agent_harness.tool.original"] ?? null,
          s.events
        ]),
        [
          ["execute_tool append", "a1", null, "Succeeded", ["agent_harness.journal.replayed"]],
          ["execute_tool write", "w2", null, "Succeeded", ["agent_harness.journal.replayed"]],
          ["execute_tool append", "a3", "outcome_unknown", null, []],
          ["execute_tool write", "w4", null, null, []],
          ["execute_tool append", "a5", null, null, []]
        ]
      )
    },
    timeout
  )
})
