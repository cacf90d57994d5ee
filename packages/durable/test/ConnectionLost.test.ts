/**
 * A database that goes away in the middle of a durable run: the run fails, within a bounded
 * time, with `ConnectionLost` naming the database, instead of waiting for it forever; nothing runs
 * twice, and once the database is back, the run resumed reports the call that was running when
 * it went away as outcome unknown (its start is in the journal, its end is not) and does not run
 * it again. The database "goes away" for real, two ways: connections to it are refused and every
 * connection it had is terminated (`pg_terminate_backend`), or the whole server stops as a crash
 * would (`pg_ctl stop -m immediate`, on a cluster of its own) and is started again. Needs
 * Postgres (see postgres.ts).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Postgres from "@agent-harness/postgres-tool/postgres"
import * as Testing from "@agent-harness/postgres-tool/testing"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Database } from "../src/index.ts"
import * as Children from "./fixtures/children.ts"
import { database, journal, timeout } from "./postgres.ts"

const db = database()
const child = fileURLToPath(new URL("./fixtures/crash-child.ts", import.meta.url))
const temp = fs.mkdtempSync(path.join(os.tmpdir(), "durable-lost-"))
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }))

/** How long the child's engine waits for a database that stopped answering. */
const lostAfterMs = 3000
/** How long after the cut the child must have failed, and exited: generous, on a loaded 2-core machine. */
const failsWithinMs = 30_000
const exitsWithinMs = 45_000

/** Runs statements on the server's `postgres` database (not the one being cut). */
const admin = (url: string, statements: ReadonlyArray<string>): Promise<void> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      for (const statement of statements) yield* sql.unsafe(statement)
    }).pipe(Effect.provide(Database.layer(Testing.withDatabase(url, "postgres"), { maxConnections: 1 })))
  )

const nameOf = (url: string) => new URL(url).pathname.slice(1)

/** The database goes away: no new connection is accepted, and every one it has is terminated. */
const cut = (url: string) =>
  admin(url, [
    `ALTER DATABASE ${nameOf(url)} WITH ALLOW_CONNECTIONS false`,
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${nameOf(url)}' AND pid <> pg_backend_pid()`
  ])

const restore = (url: string) => admin(url, [`ALTER DATABASE ${nameOf(url)} WITH ALLOW_CONNECTIONS true`])

/** Runs the child; when it says it holds in a call, cuts the database. When the cut was done. */
const runCut = async (url: string, args: ReadonlyArray<string>, cutting: (url: string) => Promise<void> = cut) => {
  let cutAt: Promise<number> | undefined
  const running = Children.start(child, [url, ...args, "--lost-after", String(lostAfterMs)], {
    stuckMs: 120_000,
    onLine: (line) => {
      if (typeof line.holding === "string" && cutAt === undefined) cutAt = cutting(url).then(() => Date.now())
    }
  })
  const ran = await running.done
  const at = cutAt === undefined ? undefined : await cutAt
  return { ran, cutAt: at }
}

/**
 * The child, held in `held` when the database went away (`what`: the cut or the halt), failed
 * with ConnectionLost, in bounded time, and exited in bounded time: the failure's message.
 */
const lostInTime = (
  label: string,
  held: string,
  what: string,
  { ran, cutAt }: { readonly ran: Children.Ran; readonly cutAt: number | undefined }
): string => {
  assert.isDefined(cutAt, `the child never held in ${held}: ${ran.stderr.slice(-2000)}`)
  assert.strictEqual(ran.code, 1, `exit ${ran.code} ${ran.signal}: ${ran.stderr.slice(-2000)}`)
  const at = ran.lines.findIndex((l) => l.failed !== undefined)
  const failed = ran.lines[at]?.failed as { tag: string; message: string }
  assert.strictEqual(failed.tag, "ConnectionLost")
  const failedIn = (ran.receivedAt[at] ?? 0) - (cutAt ?? 0)
  console.log(`${label}: failed ${failedIn} ms after the ${what}, ended ${ran.endedAt - (cutAt ?? 0)} ms after`)
  assert.isBelow(failedIn, failsWithinMs, "the run took too long to fail")
  assert.isBelow(ran.endedAt - (cutAt ?? 0), exitsWithinMs, "the child took too long to end")
  return failed.message
}

/**
 * What the cut child reported: `before`, then at most the held call answered as not recorded
 * (it ran; its end could not be written) and later calls refused (the journal could not be read,
 * so they never ran). The run goes on without its database until the engine ends it: nothing it
 * does after the cut is recorded, and nothing runs.
 */
const cutShort = (ran: Children.Ran, before: ReadonlyArray<string>, held: string) => {
  const outcomes = Children.outcomes(ran)
  assert.deepStrictEqual(outcomes.slice(0, before.length), before)
  for (const [i, outcome] of outcomes.slice(before.length).entries()) {
    if (i === 0 && outcome.startsWith(`${held} `)) assert.strictEqual(outcome, `${held} Failed/Defect`)
    else assert.match(outcome, / Refused$/)
  }
}

/** Starts the child again on the database at `url`, once it is back; it must end well. */
const resume = async (url: string, args: ReadonlyArray<string>): Promise<Children.Ran> => {
  const again = await Children.start(child, [url, ...args], { stuckMs: 120_000 }).done
  assert.strictEqual(again.code, 0, again.stderr.slice(-2000))
  return again
}

describe("Database.ConnectionLost", () => {
  it("names the database, and lostAsFailure makes it (and only it) a typed failure", async () => {
    const lost = new Database.ConnectionLost({ url: "postgres://u:***@h:5432/d", problem: "no answer for 15 s (x)" })
    assert.strictEqual(lost.message, "database postgres://u:***@h:5432/d: connection lost: no answer for 15 s (x)")
    const caught = await Effect.runPromise(Effect.flip(Database.lostAsFailure(Effect.die(lost))))
    assert.strictEqual(caught, lost)
    const other = await Effect.runPromiseExit(Database.lostAsFailure(Effect.die(new Error("boom"))))
    assert.isTrue(other._tag === "Failure" && other.cause.reasons.every((r) => r._tag === "Die"))
  })
})

describe("a durable run whose database goes away", () => {
  it(
    "a plan session fails with ConnectionLost in bounded time; resumed, the running append is outcome unknown, never run twice",
    async (ctx) => {
      const url = db.url(ctx)
      const envdir = fs.mkdtempSync(path.join(temp, "session-"))
      const cut = await runCut(url, ["session", "s-lost", envdir, "--pause", "step-0-3", "1000"])
      try {
        assert.match(
          lostInTime("session", "step-0-3", "cut", cut),
          new RegExp(`^database postgres://[^ ]*/${nameOf(url)}: connection lost: no answer for \\d+(\\.\\d)? s \\(`)
        )
        cutShort(cut.ran, ["step-0-1 Succeeded", "step-0-2 Succeeded"], "step-0-3")
      } finally {
        await restore(url)
      }
      const entries = await journal(url)
      assert.deepStrictEqual(
        entries.filter((e) => e.id.startsWith("s-lost/")).map((e) => `${e.id} ${e.state}`),
        ["s-lost/step-0-1 done", "s-lost/step-0-2 done", "s-lost/step-0-3 started"]
      )
      const again = await resume(url, ["session", "s-lost", envdir])
      assert.deepStrictEqual(Children.outcomes(again), Children.resumedSession)
      // Each append ran once: a3 in the first child, and not again.
      assert.strictEqual(fs.readFileSync(path.join(envdir, "log.txt"), "utf8"), "[a1]\n[a3]\n[a5]\n")
    },
    timeout
  )

  it(
    "a conversation fails with ConnectionLost in bounded time; resumed, recorded replies are not asked again and the running append is outcome unknown",
    async (ctx) => {
      const url = db.url(ctx)
      const envdir = fs.mkdtempSync(path.join(temp, "conversation-"))
      const cut = await runCut(url, ["conversation", "c-lost", envdir, "--pause", "a3", "1000"])
      try {
        assert.include(lostInTime("conversation", "a3", "cut", cut), `/${nameOf(url)}: connection lost: no answer for `)
        cutShort(cut.ran, ["a1 Succeeded", "w2 Succeeded"], "a3")
      } finally {
        await restore(url)
      }
      const again = await resume(url, ["conversation", "c-lost", envdir])
      assert.deepStrictEqual(Children.asked(again), [3, 4])
      assert.deepStrictEqual(Children.outcomes(again), Children.resumedConversation)
      assert.strictEqual(fs.readFileSync(path.join(envdir, "log.txt"), "utf8"), "[a1]\n[a3]\n[a5]\n")
    },
    timeout
  )

  it(
    "the server stops as a crash would: the run fails with ConnectionLost; started again, the session resumes, nothing runs twice",
    async (ctx) => {
      const started = await Postgres.start()
      if ("reason" in started) Testing.urlOrSkip(started, ctx)
      const cluster = started as Postgres.Cluster
      try {
        const url = cluster.url
        const envdir = fs.mkdtempSync(path.join(temp, "server-"))
        const halted = await runCut(url, ["session", "s-crash", envdir, "--pause", "step-0-3", "1000"], () =>
          Promise.resolve(cluster.halt())
        )
        try {
          assert.include(
            lostInTime("server", "step-0-3", "halt", halted),
            `database ${url}: connection lost: no answer for `
          )
        } finally {
          assert.strictEqual(cluster.restart(), undefined)
        }
        const again = await resume(url, ["session", "s-crash", envdir])
        assert.deepStrictEqual(Children.outcomes(again), Children.resumedSession)
        assert.strictEqual(fs.readFileSync(path.join(envdir, "log.txt"), "utf8"), "[a1]\n[a3]\n[a5]\n")
      } finally {
        cluster.stop()
      }
    },
    timeout
  )
})
