/**
 * A runner killed for good, its sessions finished by another: two runner processes of one
 * cluster over one database. Runner A starts the sessions and holds in the third step (an
 * append) of each, after it ran; it is killed there with SIGKILL and never started again.
 * Runner B, on another port, joins the cluster, takes A's shards, resumes A's sessions and
 * finishes them. Every session ends; every append ran at most once (the files hold each line
 * once); the append A was running when it was killed is reported outcome unknown by B, and not
 * run again; the finished steps are replayed. Needs Postgres (see postgres.ts).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Postgres from "@agent-harness/postgres-tool/postgres"
import * as Children from "./fixtures/children.ts"
import { database, journal, timeout } from "./postgres.ts"

const db = database()
const runnerChild = fileURLToPath(new URL("./fixtures/runner-child.ts", import.meta.url))
const temp = fs.mkdtempSync(path.join(os.tmpdir(), "durable-takeover-"))
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }))

const sessions = ["t1", "t2", "t3", "t4"]

describe("a runner killed for good", () => {
  it(
    "another runner finishes its sessions: every session ends, no append runs twice, the interrupted ones are outcome unknown",
    async (ctx) => {
      const url = db.url(ctx)
      const root = fs.mkdtempSync(path.join(temp, "root-"))
      const [portA, portB] = [await Postgres.freePort(), await Postgres.freePort()]
      const held = new Set<string>()
      const a = Children.start(
        runnerChild,
        [url, root, String(portA), "A", "--hold", "step-0-3", "--start", sessions.join(",")],
        {
          stuckMs: 150_000,
          onLine: (line, proc) => {
            const holding = line.holding as { session: string } | undefined
            if (holding !== undefined) held.add(holding.session)
            // Killed once every session holds in its append on A: never to come back.
            if (held.size === sessions.length) proc.kill("SIGKILL")
          }
        }
      )
      const ranA = await a.done
      assert.strictEqual(ranA.signal, "SIGKILL", `A was not killed: exit ${ranA.code}: ${ranA.stderr.slice(-2000)}`)
      assert.deepStrictEqual([...held].sort(), sessions)
      // On A: steps 1 and 2 of every session, and nothing else reported (step 3 ran and held).
      const onA = Children.outcomes(ranA)
      assert.strictEqual(onA.length, sessions.length * 2, onA.join("\n"))
      for (const line of onA) assert.match(line, /^step-0-[12] Succeeded$/)
      // A is gone for good. B, on another port, finishes A's sessions.
      const b = Children.start(runnerChild, [url, root, String(portB), "B", "--finish", sessions.join(",")], {
        stuckMs: 150_000
      })
      const ranB = await b.done
      assert.strictEqual(
        ranB.code,
        0,
        `B did not finish: exit ${ranB.code} ${ranB.signal}: ${ranB.stderr.slice(-3000)}`
      )
      const done = ranB.lines.flatMap((l) =>
        l.done === undefined ? [] : [l.done as { session: string; reason: string }]
      )
      assert.deepStrictEqual(done.map((d) => d.session).sort(), sessions)
      for (const d of done) assert.strictEqual(d.reason, "partial", JSON.stringify(d))
      for (const id of sessions) {
        const mine = ranB.lines.filter((l) => l.session === id && typeof l.id === "string")
        assert.deepStrictEqual(
          mine.map((l) => `${l.runner} ${l.id} ${l.outcome}${l.failure === undefined ? "" : `/${l.failure}`}`),
          [
            "B step-0-1 Replayed",
            "B step-0-2 Replayed",
            "B step-0-3 Failed/OutcomeUnknown",
            "B step-0-4 Succeeded",
            "B step-0-5 Succeeded"
          ],
          id
        )
        // The side effects, counted: each append once (a3 by A, before it was killed), the write's last value.
        assert.strictEqual(fs.readFileSync(path.join(root, `${id}.log`), "utf8"), "a1\na3\na5\n", id)
        assert.strictEqual(fs.readFileSync(path.join(root, `${id}.state`), "utf8"), "after 4\n", id)
      }
      const entries = await journal(url)
      for (const id of sessions) {
        assert.deepStrictEqual(
          entries.filter((e) => e.id.startsWith(`${id}/`)).map((e) => `${e.id} ${e.state}`),
          [
            `${id}/step-0-1 done`,
            `${id}/step-0-2 done`,
            `${id}/step-0-3 started`,
            `${id}/step-0-4 done`,
            `${id}/step-0-5 done`
          ],
          id
        )
      }
    },
    timeout
  )
})
