/**
 * `harness test --trials N --model P:M --engine postgres` against real Postgres and a fake
 * provider on loopback (the Anthropic wire): each trial a workflow on the durable engine.
 *
 * - In this process (`Engine.single`): the numbers of the local engine; a trial the engine
 *   finished but the journal lost (kill -9 between the two) is read back from the database, not
 *   sent to the model again.
 * - `--cluster`: two `harness runner` processes share the trials (the journal names both), the
 *   client needs no API key of its own; a runner without a key refuses (exit 2 naming it) and
 *   the same command, once a runner with a key is up, runs that trial anew.
 * - Refused before anything runs: `--cluster` with no runner up, no `--cluster` with runners up.
 * - Priced (`--price`): each trial's cost is kept in its journal line, in this process and on a
 *   runner (the price travels with the trial).
 *
 * Needs Postgres (a throwaway cluster, or DATABASE_URL): without it the tests say why and are
 * skipped (in CI, where a skip would pass unseen, they fail).
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import process from "node:process"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Database } from "@agent-harness/durable"
import { Message } from "@agent-harness/executor"
import * as Testing from "@agent-harness/postgres-tool/testing"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { apiKey, fakeProviders } from "./fixtures/fakes.ts"
import { collect, harnessAsync, spawnHarness } from "./fixtures/harness.ts"
import { type Json, tempFolder } from "./fixtures/scenarios.ts"

const timeout = 300_000
let db: Testing.TestDatabase | Testing.Unavailable | undefined
beforeAll(async () => {
  db = await Testing.database()
  if ("reason" in db) console.warn(Testing.unavailableNote(db.reason))
}, timeout)
const temp = tempFolder("pg-trials")
const runners: Array<ChildProcessWithoutNullStreams> = []
afterAll(async () => {
  for (const child of runners) child.kill("SIGKILL")
  temp.remove()
  if (db !== undefined && !("reason" in db)) await db.close()
}, timeout)

const start = fakeProviders()

/** The environment of a spawned command: no colour, no database or key unless given. */
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const out: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ...extra }
  delete out.DATABASE_URL
  delete out.ANTHROPIC_BASE_URL
  if (extra.ANTHROPIC_API_KEY === undefined) delete out.ANTHROPIC_API_KEY
  return out
}

const spawnLimits = { timeout: 240_000 }

/** A live case: the final text must be `done`. */
const liveCase = (name: string, extra: Json = {}): Json => ({
  format: 1,
  kind: "live",
  name,
  user: "Say done.",
  maxTurns: 1,
  pass: [{ text: "done" }],
  threshold: { minPassRate: 0.5 },
  ...extra
})

let folders = 0
/** A fresh folder holding cases and a report folder path beside it. */
const caseFolder = (names: ReadonlyArray<string>) => {
  const dir = `case-${++folders}`
  for (const name of names) temp.write(`${dir}/cases/${name}.json`, liveCase(name))
  return { cases: temp.path(`${dir}/cases`), report: temp.path(`${dir}/report`) }
}

const replies = (texts: ReadonlyArray<string>) => texts.map((text) => FakeProvider.reply([Message.text(text)]))

const trialArgs = (fake: FakeProvider.Fake, n: number, url: string, rest: ReadonlyArray<string>) => [
  "test",
  "--trials",
  String(n),
  "--model",
  "anthropic:test-model",
  "--base-url",
  `${fake.url}/v1`,
  "--engine",
  "postgres",
  "--database-url",
  url,
  ...rest
]

interface JournalLine {
  readonly type: string
  readonly passed?: boolean
  readonly runner?: string
  readonly index?: number
  readonly trace?: string
  readonly scenario?: string
  readonly cost?: number
}

/** `--price` for these runs, and what one trial (one model call, the fake's 10 tokens in, 5 out) costs at it. */
const price = ["--price", "input=3,output=15"]
const perTrial = (10 * 3 + 5 * 15) / 1_000_000

const journal = (report: string): ReadonlyArray<JournalLine> =>
  readFileSync(join(report, "journal.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as JournalLine)

/** A port free on loopback now. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()))
    })
  })

/** Runs one query on the database. */
const query = <A extends object>(url: string, text: string): Promise<ReadonlyArray<A>> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return yield* sql.unsafe<A>(text)
    }).pipe(Effect.provide(Database.layer(url)), Effect.orDie, Effect.scoped)
  )

/** `harness runner` on a free port, once it says it is ready; killed after the suite. */
const runner = async (
  url: string,
  withKey: boolean
): Promise<{ child: ChildProcessWithoutNullStreams; address: string }> => {
  const port = await freePort()
  const child = spawnHarness(
    ["runner", "--database-url", url, "--port", String(port)],
    env(withKey ? { ANTHROPIC_API_KEY: apiKey } : {})
  )
  runners.push(child)
  let said = ""
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`runner on ${port} not ready after 120 s: ${said}`)), 120_000)
    child.stderr.on("data", (chunk: Buffer) => {
      said += chunk.toString()
      if (said.includes(" ready on ")) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`runner on ${port} exited ${code}: ${said}`))
    })
  })
  return { child, address: `127.0.0.1:${port}` }
}

/**
 * Waits until every runner named is registered on the database, then long enough for
 * effect/cluster to spread the shards over them (at worst four of its 3 s assignment rounds).
 */
const holdShards = async (url: string, addresses: ReadonlyArray<string>): Promise<void> => {
  const deadline = Date.now() + 120_000
  for (;;) {
    const rows = await query<{ address: string }>(url, "SELECT address FROM cluster_runners WHERE healthy")
    const up = new Set(rows.map((row) => row.address))
    if (addresses.every((address) => up.has(address))) break
    if (Date.now() > deadline) throw new Error(`runners not registered after 120 s: ${[...up].join(", ")}`)
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  await new Promise((resolve) => setTimeout(resolve, 15_000))
}

/** Stops a runner with SIGTERM and waits for it. */
const stop = async (child: ChildProcessWithoutNullStreams): Promise<number | null> => {
  const ended = collect(child, 60_000, "harness runner")
  child.kill("SIGTERM")
  return (await ended).code
}

describe("harness test --trials --engine postgres", () => {
  it(
    "in this process: the local engine's numbers; a trial finished on the engine is never sent twice",
    async (ctx) => {
      const url = Testing.urlOrSkip(db, ctx)
      const fake = await start({ anthropic: replies(["done", "not done", "done", "done"]) })
      const where = caseFolder(["says-done"])
      const first = await harnessAsync(
        trialArgs(fake, 4, url, [...price, "--concurrency", "2", "--report", where.report, "--json", where.cases]),
        env({ ANTHROPIC_API_KEY: apiKey }),
        spawnLimits
      )
      assert.strictEqual(first.code, 0, `${first.stdout}\n${first.stderr}`)
      // Nothing of the engine's own on stderr: only the provider's warning about the fake model,
      // and (on a starved machine: every package testing at once on 2 cores) effect/cluster's
      // warning that the runner's health check was late, which it then passes.
      assert.deepStrictEqual(
        first.stderr
          .split("\n")
          .filter(
            (line) =>
              line !== "" &&
              !line.startsWith("harness test: warn: anthropic.") &&
              line !== "harness test: warn: No healthy runners available"
          ),
        []
      )
      const caseLine = first.lines.map((line) => JSON.parse(line)).find((o) => o.type === "trials.case")
      assert.strictEqual(caseLine?.passes, 3)
      assert.strictEqual(caseLine?.trials, 4)
      const lines = journal(where.report)
      const trials = lines.filter((line) => line.type === "trial")
      assert.strictEqual(trials.length, 4)
      assert.deepStrictEqual(
        trials.map((line) => line.cost),
        [perTrial, perTrial, perTrial, perTrial]
      )
      // In this process: no runner named; the failing trial's trace written and captured.
      assert.isTrue(trials.every((line) => line.runner === undefined))
      const failing = trials.filter((line) => line.passed === false)
      assert.strictEqual(failing.length, 1)
      assert.match(failing[0]?.trace ?? "", /^traces\/says-done\.fixed\.\d\.jsonl$/)
      assert.include(readFileSync(join(where.report, failing[0]?.trace ?? ""), "utf8"), "not done")
      assert.match(failing[0]?.scenario ?? "", /^captured\//)
      assert.strictEqual(fake.requestsTo("anthropic").length, 4)
      // kill -9 after the engine finished two trials but before the journal had them: the same
      // command reads them back from the database, and sends nothing.
      writeFileSync(
        join(where.report, "journal.jsonl"),
        `${readFileSync(join(where.report, "journal.jsonl"), "utf8").split("\n").slice(0, 3).join("\n")}\n`
      )
      const again = await harnessAsync(
        trialArgs(fake, 4, url, [...price, "--concurrency", "2", "--report", where.report, where.cases]),
        env({ ANTHROPIC_API_KEY: apiKey }),
        spawnLimits
      )
      assert.strictEqual(again.code, 0, `${again.stdout}\n${again.stderr}`)
      assert.include(again.stdout, "3/4 passed")
      assert.include(again.stdout, "2 resumed")
      assert.strictEqual(fake.requestsTo("anthropic").length, 4)
    },
    timeout
  )

  it(
    "--cluster: the trials spread over two runners; a runner without a key refuses, and the same command resumes",
    async (ctx) => {
      const url = Testing.urlOrSkip(db, ctx)
      const where = caseFolder(["one", "two"])
      const noRunner = await harnessAsync(
        trialArgs(await start({ anthropic: [] }), 2, url, ["--cluster", "--report", where.report, where.cases]),
        env(),
        spawnLimits
      )
      assert.strictEqual(noRunner.code, 2, noRunner.stderr)
      assert.include(noRunner.stderr, "--cluster: no runner is up on")
      assert.include(noRunner.stderr, "harness runner --database-url URL --port PORT")

      // A runner without an API key: the trial it takes is refused, naming it.
      const keyless = await runner(url, false)
      await holdShards(url, [keyless.address])
      const fake = await start({
        anthropic: replies(Array.from({ length: 16 }, (_, i) => (i % 4 === 3 ? "no" : "done")))
      })
      const refused = await harnessAsync(
        trialArgs(fake, 8, url, ["--cluster", "--report", where.report, "--concurrency", "1", where.cases]),
        env(),
        spawnLimits
      )
      assert.strictEqual(refused.code, 2, `${refused.stdout}\n${refused.stderr}`)
      assert.include(refused.stderr, `runner ${keyless.address} cannot run the trial: no API key for anthropic`)
      assert.include(refused.stderr, "set it there and run the same command again")
      assert.strictEqual(fake.requestsTo("anthropic").length, 0)
      // Without --cluster, runners up are not run over.
      const over = await harnessAsync(
        trialArgs(fake, 8, url, ["--report", temp.path("elsewhere"), where.cases]),
        env({ ANTHROPIC_API_KEY: apiKey }),
        spawnLimits
      )
      assert.strictEqual(over.code, 2, over.stderr)
      assert.include(over.stderr, `runners are up on`)
      assert.include(over.stderr, "add --cluster")
      assert.strictEqual(await stop(keyless.child), 0)

      // Two runners with the key: the same command runs every trial, spread over both.
      const a = await runner(url, true)
      const b = await runner(url, true)
      await holdShards(url, [a.address, b.address])
      const ran = await harnessAsync(
        trialArgs(fake, 8, url, [...price, "--cluster", "--report", where.report, "--concurrency", "4", where.cases]),
        env(),
        spawnLimits
      )
      assert.strictEqual(ran.code, 0, `${ran.stdout}\n${ran.stderr}`)
      assert.notInclude(ran.stderr, "harness test:")
      assert.strictEqual(fake.requestsTo("anthropic").length, 16)
      const trials = journal(where.report).filter((line) => line.type === "trial")
      assert.strictEqual(trials.length, 16)
      assert.sameMembers([...new Set(trials.map((line) => line.runner))], [a.address, b.address])
      // Priced on the runners, at the price this command sent.
      assert.deepStrictEqual(
        trials.map((line) => line.cost),
        Array.from({ length: 16 }, () => perTrial)
      )
      assert.strictEqual(trials.filter((line) => line.passed === false).length, 4)
      assert.strictEqual(await stop(a.child), 0)
      assert.strictEqual(await stop(b.child), 0)
    },
    timeout
  )
})

describe("harness runner refuses, exit 2, naming why", () => {
  it(
    "no database, a URL that is not Postgres, a port out of range",
    async () => {
      const none = await harnessAsync(["runner"], env(), spawnLimits)
      assert.strictEqual(none.code, 2, none.stderr)
      assert.include(none.stderr, "harness runner needs a database: --database-url postgres://")
      const mysql = await harnessAsync(["runner", "--database-url", "mysql://u@127.0.0.1/db"], env(), spawnLimits)
      assert.strictEqual(mysql.code, 2, mysql.stderr)
      assert.include(mysql.stderr, "--database-url mysql://u@127.0.0.1/db")
      const port = await harnessAsync(
        ["runner", "--database-url", "postgres://u@127.0.0.1:1/db", "--port", "70000"],
        env(),
        spawnLimits
      )
      assert.strictEqual(port.code, 2, port.stderr)
      assert.include(port.stderr, "--port must be a whole number from 1 to 65535, got 70000")
    },
    timeout
  )
})
