/**
 * `harness agent --engine postgres` end to end, against the loopback fake provider and a real
 * Postgres: the conversation parks each call the policy asks about in the database and waits;
 * `harness approvals list --database-url`, `harness approve ID`, `harness deny ID --reason`
 * from other processes answer it and the agent goes on. Killed with SIGKILL while a call waits,
 * answered while nothing runs, the same command with the same `--session` resumes: the recorded
 * replies are not asked again, the approved call runs once, nothing is parked twice. Flags the
 * engine does not take are exit 2 before anything is sent.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as Testing from "@agent-harness/postgres-tool/testing"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, beforeAll, describe, expect, it } from "@effect/vitest"
import { agentArgs, anthropicEnv, freshRoots } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { collect, harnessAsync, spawnHarness } from "./fixtures/harness.ts"
import { tempFolder } from "./fixtures/scenarios.ts"

const timeout = 300_000
let db: Testing.TestDatabase | Testing.Unavailable | undefined
beforeAll(async () => {
  db = await Testing.database()
  if ("reason" in db) console.warn(Testing.unavailableNote(db.reason))
}, timeout)
afterAll(async () => {
  if (db !== undefined && !("reason" in db)) await db.close()
}, timeout)
const urlOr = (ctx: Testing.Skippable): string => Testing.urlOrSkip(db, ctx)

const temp = tempFolder("agent-durable")
afterAll(() => temp.remove())
const start = fakeProviders()
const rootWith = freshRoots(temp, "bread, milk\n")

/** The fakes' environment, without the machine's DATABASE_URL. */
const env = (): NodeJS.ProcessEnv => {
  const e = anthropicEnv()
  delete e.DATABASE_URL
  return e
}

const policy = () =>
  temp.write(`policy-${Math.random().toString(36).slice(2)}.json`, {
    rules: [
      { tool: "read", decision: "allow" },
      { tool: "append", decision: "ask", reason: "the list is shared" }
    ],
    default: "deny"
  })

const cli = (args: ReadonlyArray<string>) => harnessAsync(args, env(), { timeout: 90_000 })

/** The approvals `list --all --json` shows, once there are `count` of them for `session`. */
const approvalsOf = async (url: string, session: string, count: number) => {
  for (let i = 0; i < 600; i++) {
    const r = await cli(["approvals", "list", "--database-url", url, "--all", "--session", session, "--json"])
    assert.strictEqual(r.code, 0, r.stderr)
    const found = r.stdout
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, string>)
    if (found.length >= count) return found
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`no ${count} approvals for ${session}`)
}

const agentLine = (fake: FakeProvider.Fake, url: string, root: string, session: string, policyFile: string) => [
  ...agentArgs(fake),
  "--engine",
  "postgres",
  "--database-url",
  url,
  "--session",
  session,
  "--root",
  root,
  "--policy",
  policyFile,
  "Add eggs and caviar"
]

const script = () => [
  FakeProvider.reply([Message.toolUse("toolu_1", "append", { path: "list.txt", content: "eggs\n" })]),
  FakeProvider.reply([Message.toolUse("toolu_2", "append", { path: "list.txt", content: "caviar\n" })]),
  FakeProvider.reply([Message.text("Eggs added; no caviar.")])
]

describe("harness agent --engine postgres", () => {
  it(
    "parks asked calls in the database; approve and deny from other processes; the run goes on and ends",
    async (ctx) => {
      const url = urlOr(ctx)
      const fake = await start({ anthropic: script() })
      const root = rootWith()
      const running = collect(
        spawnHarness(agentLine(fake, url, root, "s-answered", policy()), env()),
        240_000,
        "harness agent --engine postgres"
      )
      const [first] = await approvalsOf(url, "s-answered", 1)
      assert.strictEqual(first?.tool_use_id, "toolu_1")
      assert.strictEqual(readFileSync(join(root, "list.txt"), "utf8"), "bread, milk\n")
      const approved = await cli(["approve", first?.id ?? "", "--database-url", url, "--by", "ana"])
      assert.strictEqual(approved.code, 0, approved.stderr)
      expect(approved.stdout).toContain("its conversation (session s-answered) was told")
      const both = await approvalsOf(url, "s-answered", 2)
      const second = both.find((a) => a.tool_use_id === "toolu_2")
      const denied = await cli([
        "deny",
        second?.id ?? "",
        "--database-url",
        url,
        "--by",
        "bob",
        "--reason",
        "caviar is not on the budget"
      ])
      assert.strictEqual(denied.code, 0, denied.stderr)
      const ended = await running
      assert.strictEqual(ended.code, 0, ended.stderr)
      assert.strictEqual(readFileSync(join(root, "list.txt"), "utf8"), "bread, milk\neggs\n")
      expect(ended.stdout).toContain("final answer: Eggs added; no caviar.")
      expect(ended.stderr).toContain(`waits for approval ${first?.id}: harness approve ${first?.id} --database-url`)
      const third = fake.requestsTo("anthropic")[2]?.json as { messages: Array<{ content: unknown }> }
      expect(JSON.stringify(third.messages.at(-1)?.content)).toContain(
        "not executed: denied: caviar is not on the budget"
      )
      const again = await cli(["deny", first?.id ?? "", "--database-url", url])
      assert.strictEqual(again.code, 1)
      expect(again.stderr).toContain("it was approved already, by ana")
    },
    timeout
  )

  it(
    "killed while a call waits, approved while nothing runs, resumed with the same --session: no reply asked twice, the call runs once",
    async (ctx) => {
      const url = urlOr(ctx)
      const fake = await start({ anthropic: script() })
      const root = rootWith()
      const policyFile = policy()
      const child = spawnHarness(agentLine(fake, url, root, "s-killed", policyFile), env())
      const first = collect(child, 240_000, "harness agent (killed)")
      const [parked] = await approvalsOf(url, "s-killed", 1)
      child.kill("SIGKILL")
      await first.catch(() => undefined)
      assert.strictEqual(fake.requestsTo("anthropic").length, 1)
      const approved = await cli(["approve", parked?.id ?? "", "--database-url", url, "--by", "ana"])
      assert.strictEqual(approved.code, 0, approved.stderr)
      const resumed = collect(
        spawnHarness(agentLine(fake, url, root, "s-killed", policyFile), env()),
        240_000,
        "harness agent (resumed)"
      )
      const both = await approvalsOf(url, "s-killed", 2)
      const second = both.find((a) => a.tool_use_id === "toolu_2")
      const denied = await cli(["deny", second?.id ?? "", "--database-url", url, "--reason", "no"])
      assert.strictEqual(denied.code, 0, denied.stderr)
      const ended = await resumed
      assert.strictEqual(ended.code, 0, ended.stderr)
      // The first reply was recorded: three requests in all, not four.
      assert.strictEqual(fake.requestsTo("anthropic").length, 3)
      assert.strictEqual(readFileSync(join(root, "list.txt"), "utf8"), "bread, milk\neggs\n")
      const all = await approvalsOf(url, "s-killed", 2)
      assert.deepStrictEqual(
        all.map((a) => [a.tool_use_id, a.state]),
        [
          ["toolu_1", "approved"],
          ["toolu_2", "denied"]
        ]
      )
    },
    timeout
  )

  it(
    "flags the engine does not take are exit 2, nothing sent",
    async () => {
      const fake = await start({ anthropic: script() })
      const root = rootWith()
      const base = [
        ...agentArgs(fake),
        "--engine",
        "postgres",
        "--database-url",
        "postgres://u@127.0.0.1:1/x",
        "--root",
        root
      ]
      for (const [flags, said] of [
        [
          ["--journal", temp.path("j.sqlite")],
          "--journal (the engine journals every call in its database) is not taken"
        ],
        [["--mcp", "node x.js"], "--mcp, --mcp-url and --mcp-config is not taken"],
        [["--context-window", "1000"], "--context-window and --summarize is not taken"]
      ] as const) {
        const r = await cli([...base, ...flags, "hi"])
        assert.strictEqual(r.code, 2, r.stderr)
        expect(r.stderr).toContain(said)
      }
      const noDb = await harnessAsync([...agentArgs(fake), "--engine", "postgres", "--root", root, "hi"], env())
      assert.strictEqual(noDb.code, 2)
      expect(noDb.stderr).toContain("needs a database")
      const local = await cli([
        ...agentArgs(fake),
        "--database-url",
        "postgres://u@127.0.0.1:1/x",
        "--root",
        root,
        "hi"
      ])
      assert.strictEqual(local.code, 2)
      expect(local.stderr).toContain("--database-url is for --engine postgres")
      assert.strictEqual(fake.requestsTo("anthropic").length, 0)
    },
    timeout
  )
})
