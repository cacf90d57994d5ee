/**
 * `harness run|test --engine postgres` when the database goes away in the middle of a scenario:
 * the user gets a bounded, named outcome, not a hang or a stack trace. The scenario is a plan of
 * 5,000 steps (far longer than the test lets it run); once the journal holds more than 20 calls,
 * the database goes away for real: connections to it are refused and every one it has is
 * terminated (`pg_terminate_backend`), or the whole server stops as a crash would
 * (`Cluster.halt`). Then `harness run` exits 2 with one line naming the database; `harness
 * test` reports the scenario that was cut short and the one after it INVALID ("the database
 * connection was lost"), the one before it as it passed, and exits 2 — a lost database is not
 * the scenario's fault, as an unreachable one at the start is not (exit 2 too). Needs Postgres (a
 * throwaway cluster, or DATABASE_URL): without it the tests say why and are skipped (in CI, where
 * a skip would pass unseen, they fail).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import process from "node:process"
import { Database } from "@agent-harness/durable"
import * as Postgres from "@agent-harness/postgres-tool/postgres"
import * as Testing from "@agent-harness/postgres-tool/testing"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { harnessAsync, type Run } from "./fixtures/harness.ts"
import { scenariosDir } from "./fixtures/scenarios.ts"

const timeout = 240_000
/** How long the CLI may run in all: it is cut within seconds of starting. */
const spawnMs = 150_000
/**
 * How long after the cut the CLI must have ended: the engine gives the database 15 s
 * (`Database.defaultLostAfter`), its shutdown at most 5 s more, the CLI 2 s; the issue calls a
 * run hung at 60 s. Generous for a loaded 2-core machine.
 */
const endsWithinMs = 50_000

let db: Testing.TestDatabase | Testing.Unavailable | undefined
const temp = fs.mkdtempSync(path.join(os.tmpdir(), "harness-pg-lost-"))
beforeAll(async () => {
  db = await Testing.database()
  if ("reason" in db) console.warn(Testing.unavailableNote(db.reason))
}, timeout)
afterAll(async () => {
  fs.rmSync(temp, { recursive: true, force: true })
  if (db !== undefined && !("reason" in db)) await db.close()
}, timeout)

/** The environment without DATABASE_URL (and without colour). */
const bare = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" }
  delete env.DATABASE_URL
  return env
}

/** A plan scenario of `steps` writes: long enough to be cut in the middle. */
const longPlan = (steps: number): string =>
  JSON.stringify({
    format: 1,
    kind: "plan",
    name: "plan: many steps",
    goal: "Log every step",
    tools: {},
    planner: [
      {
        when: null,
        plan: Array.from({ length: steps }, (_, i) => ({
          id: i + 1,
          tool: "write",
          args: { path: "log.txt", content: `step ${i + 1}` },
          expected_outcome: "log.txt written"
        }))
      }
    ],
    budgets: { maxSteps: steps, maxReplans: 0 },
    expect: { status: "completed", reason: "goal_met" }
  })

/** A folder of scenarios: `a-first` (passes, 4 steps), `b-long` (5,000 steps), `c-after` (as a-first). */
const suite = (): { readonly dir: string; readonly long: string } => {
  const dir = fs.mkdtempSync(path.join(temp, "suite-"))
  const short = fs.readFileSync(path.join(scenariosDir, "plan/linear-success.json"), "utf8")
  fs.writeFileSync(path.join(dir, "a-first.json"), short)
  fs.writeFileSync(path.join(dir, "b-long.json"), longPlan(5000))
  fs.writeFileSync(path.join(dir, "c-after.json"), short)
  return { dir, long: path.join(dir, "b-long.json") }
}

const nameOf = (url: string) => new URL(url).pathname.slice(1)

/** Runs statements on the server's `postgres` database (not the one being cut). */
const admin = (url: string, statements: ReadonlyArray<string>): Promise<void> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      for (const statement of statements) yield* sql.unsafe(statement)
    }).pipe(Effect.provide(Database.layer(Testing.withDatabase(url, "postgres"), { maxConnections: 1 })))
  )

/** The database goes away: no new connection is accepted, and every one it has is terminated. */
const cut = (url: string) =>
  admin(url, [
    `ALTER DATABASE ${nameOf(url)} WITH ALLOW_CONNECTIONS false`,
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${nameOf(url)}' AND pid <> pg_backend_pid()`
  ])

const restore = (url: string) => admin(url, [`ALTER DATABASE ${nameOf(url)} WITH ALLOW_CONNECTIONS true`])

/** How many calls the journal holds (0 before its table is made). */
const journalRows = (url: string): Promise<number> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql.unsafe<{ readonly n: string }>("SELECT count(*)::text AS n FROM agent_harness_journal")
      return Number(rows[0]?.n ?? 0)
    }).pipe(
      Effect.provide(Database.layer(url, { maxConnections: 1 })),
      Effect.orElseSucceed(() => 0)
    )
  )

/**
 * Runs `harness ARGS` and, once the journal (as `calls` counts it) holds more than `rows` calls
 * more than it did (the long scenario is running), makes the database go away with `goAway`. The run, when the cut was done, and how
 * long after it the CLI ended.
 */
const runCut = async (
  url: string,
  args: ReadonlyArray<string>,
  goAway: () => Promise<void>,
  rows = 20,
  calls: (url: string) => Promise<number> = journalRows
): Promise<{ readonly ran: Run; readonly cutAt: number | undefined; readonly endedIn: number }> => {
  let done = false
  let cutAt: number | undefined
  // Calls an earlier test left in the journal do not count.
  const before = await calls(url)
  const running = harnessAsync(args, bare(), { timeout: spawnMs }).finally(() => {
    done = true
  })
  const watching = (async () => {
    const until = Date.now() + 90_000
    while (!done && Date.now() < until) {
      if ((await calls(url)) > before + rows) {
        await goAway()
        cutAt = Date.now()
        return
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  })()
  const ran = await running
  const endedAt = Date.now()
  await watching
  return { ran, cutAt, endedIn: cutAt === undefined ? Number.NaN : endedAt - cutAt }
}

/** Nothing on either stream looks like a stack trace or a defect. */
const noStack = (ran: Run) => {
  for (const text of [ran.stdout, ran.stderr]) {
    assert.notMatch(text, /^\s+at /m, `a stack trace:\n${text.slice(0, 3000)}`)
    assert.notInclude(text, "ERROR (#", `a logged defect or engine error:\n${text.slice(0, 3000)}`)
  }
}

/** What `harness` says of the lost database: its URL (as the server gives it), then what it last said. */
const lostLine = (command: string, url: string, what: string): RegExp =>
  new RegExp(
    `^harness ${command}: database postgres://[^ ]*/${nameOf(url)}: connection lost: no answer for \\d+(\\.\\d)? s \\(.+\\); ${what}\\n$`
  )

/**
 * Runs `harness ARGS` and `cutNow` once the scenario is under way: the run, checked to have got
 * under way, to print no stack, and to exit 2 within `endsWithinMs` of the cut (`what`: the cut,
 * in the log line).
 */
const lostRun = async (url: string, args: ReadonlyArray<string>, cutNow: () => Promise<void>, what = "cut") => {
  const { ran, cutAt, endedIn } = await runCut(url, args, cutNow)
  assert.isDefined(cutAt, `the scenario never got under way: exit ${ran.code}\n${ran.stderr.slice(-2000)}`)
  const command = args.filter((arg) => arg === args[0] || arg === "--json").join(" ")
  console.log(`harness ${command}: ended ${endedIn} ms after the ${what}`)
  noStack(ran)
  assert.strictEqual(ran.code, 2, ran.stderr.slice(-3000))
  assert.isBelow(endedIn, endsWithinMs, `harness ${args[0]} took too long to end`)
  return ran
}

describe("a database that goes away while harness runs a scenario on it", () => {
  it(
    "harness run: exit 2 within bounded time, one line on stderr naming the database, nothing on stdout",
    async (ctx) => {
      const url = Testing.urlOrSkip(db, ctx)
      const { long } = suite()
      try {
        const ran = await lostRun(url, ["run", long, "--engine", "postgres", "--database-url", url], () => cut(url))
        assert.strictEqual(ran.stdout, "")
        assert.match(ran.stderr, lostLine("run", url, `${long} was not run to the end, nothing of it was judged`))
      } finally {
        await restore(url)
      }
    },
    timeout
  )

  it(
    "harness test: the scenario cut short and the one after it INVALID, naming the lost connection; the one before as it passed; exit 2",
    async (ctx) => {
      // A database of its own: the one the test before cut still holds that test's unfinished
      // run, which a new engine resumes (its journal rows would count towards this cut, and land
      // it while a-first still runs).
      const own = await Testing.database()
      const url = Testing.urlOrSkip(own, ctx)
      const { dir } = suite()
      try {
        const ran = await lostRun(url, ["test", dir, "--engine", "postgres", "--database-url", url], () => cut(url))
        assert.deepStrictEqual(ran.lines, [
          "PASS plan: linear success (completed/goal_met, 4 steps, 0 replans)",
          `INVALID ${dir}/b-long.json: the database connection was lost while it ran: it was not run to the end, nothing of it was judged`,
          `INVALID ${dir}/c-after.json: not run: the database connection was lost before it started`,
          "2 not run to the end: the database connection was lost (counted as failed)",
          "1 passed, 2 failed"
        ])
        assert.match(
          ran.stderr,
          lostLine("test", url, "2 scenarios were not run to the end, nothing of them was judged")
        )
      } finally {
        await restore(url)
        if (!("reason" in own)) await own.close()
      }
    },
    timeout
  )

  it(
    "harness test --json, the server stopping as a crash would: the same outcome, as invalid lines at (database); exit 2",
    async (ctx) => {
      const started = await Postgres.start()
      if ("reason" in started) Testing.urlOrSkip(started, ctx)
      const cluster = started as Postgres.Cluster
      try {
        const url = cluster.url
        const { dir } = suite()
        const ran = await lostRun(
          url,
          ["test", dir, "--json", "--engine", "postgres", "--database-url", url],
          () => Promise.resolve(cluster.halt()),
          "halt"
        )
        const lines = ran.lines.map((line) => JSON.parse(line) as Record<string, unknown>)
        assert.deepStrictEqual(
          lines.map((line) => [line.file, line.passed, line.valid]),
          [
            [`${dir}/a-first.json`, true, undefined],
            [`${dir}/b-long.json`, false, false],
            [`${dir}/c-after.json`, false, false]
          ]
        )
        const failures = lines.slice(1).map((line) => (line.failures as ReadonlyArray<Record<string, unknown>>)[0])
        assert.deepStrictEqual(
          failures.map((f) => [f?.kind, f?.path, f?.message]),
          [
            [
              "invalid",
              "(database)",
              `${dir}/b-long.json: the database connection was lost while it ran: it was not run to the end, nothing of it was judged`
            ],
            [
              "invalid",
              "(database)",
              `${dir}/c-after.json: not run: the database connection was lost before it started`
            ]
          ]
        )
        for (const f of failures) assert.include(String(f?.seen), `(database ${url}: connection lost: no answer for `)
        assert.match(
          ran.stderr,
          lostLine("test", url, "2 scenarios were not run to the end, nothing of them was judged")
        )
      } finally {
        cluster.stop()
      }
    },
    timeout
  )
})
