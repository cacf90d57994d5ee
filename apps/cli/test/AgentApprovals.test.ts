/**
 * Approvals that survive, end to end on one machine: `harness agent --journal FILE --park`
 * against the loopback fake provider parks each call the policy asks about in the journal file
 * and waits, with no timeout; a person answers from another process (`harness approvals list`,
 * `harness approve ID`, `harness deny ID --reason …`); the approved call runs once, the denied
 * one never (the model reads the reason); a second answer is refused (exit 1); bad usage is
 * exit 2 before anything is sent.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { agentArgs, anthropicEnv, freshRoots } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { collect, harnessAsync, spawnHarness } from "./fixtures/harness.ts"
import { tempFolder } from "./fixtures/scenarios.ts"

/** Several CLI runs per test, on a loaded 2-core machine. */
const SPAWNS = { timeout: 240_000 }

const temp = tempFolder("agent-approvals")
afterAll(() => temp.remove())
const start = fakeProviders()
const rootWith = freshRoots(temp, "bread, milk\n")

const policyFile = () =>
  temp.write(`policy-${Math.random().toString(36).slice(2)}.json`, {
    rules: [
      { tool: "read", decision: "allow" },
      { tool: "append", decision: "ask", reason: "the list is shared" }
    ],
    default: "deny"
  })

/** `harness ARGS` to its end, with the fakes' environment. */
const cli = (args: ReadonlyArray<string>) => harnessAsync(args, anthropicEnv(), { timeout: 60_000 })

/** Waits until `harness approvals list --journal FILE --all --json` shows `count` approvals; gives them. */
const pending = async (journal: string, count: number) => {
  for (let i = 0; i < 400; i++) {
    if (existsSync(journal)) {
      const r = await cli(["approvals", "list", "--journal", journal, "--all", "--json"])
      assert.strictEqual(r.code, 0, r.stderr)
      const found = r.stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, string>)
      if (found.length >= count) return found
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`no ${count} approvals in ${journal}`)
}

describe("harness agent --park", () => {
  it(
    "asked calls wait in the journal; approved from another process one runs once, denied one never; answers once",
    SPAWNS,
    async () => {
      const fake = await start({
        anthropic: [
          FakeProvider.reply([Message.toolUse("toolu_1", "append", { path: "list.txt", content: "eggs\n" })]),
          FakeProvider.reply([Message.toolUse("toolu_2", "append", { path: "list.txt", content: "caviar\n" })]),
          FakeProvider.reply([Message.text("Eggs added; no caviar.")])
        ]
      })
      const root = rootWith()
      const journal = temp.path(`journal-${Math.random().toString(36).slice(2)}.sqlite`)
      const child = spawnHarness(
        [
          ...agentArgs(fake),
          "--root",
          root,
          "--policy",
          policyFile(),
          "--journal",
          journal,
          "--park",
          "--session",
          "shopping",
          "--no-stream",
          "Add eggs and caviar"
        ],
        anthropicEnv()
      )
      const running = collect(child, 180_000, "harness agent --park")
      const [first] = await pending(journal, 1)
      assert.strictEqual(first?.state, "pending")
      assert.strictEqual(first?.session, "shopping")
      assert.strictEqual(first?.tool_use_id, "toolu_1")
      assert.strictEqual(first?.input, '{"content":"eggs\\n","path":"list.txt"}')
      assert.strictEqual(first?.reason, "the list is shared")
      // Not yet: nothing ran, and the text list says how to answer.
      assert.strictEqual(readFileSync(join(root, "list.txt"), "utf8"), "bread, milk\n")
      const shown = await cli(["approvals", "list", "--journal", journal])
      expect(shown.lines[0]).toBe(`${first?.id}  pending   append {"content":"eggs\\n","path":"list.txt"}`)
      expect(shown.lines[1]).toContain("session shopping, call toolu_1")
      expect(shown.lines[1]).toContain("because: the list is shared")
      const approved = await cli(["approve", (first?.id ?? "").slice(0, 6), "--journal", journal, "--by", "ana"])
      assert.strictEqual(approved.code, 0, approved.stderr)
      expect(approved.lines[0]).toBe(`approved ${first?.id}: append {"content":"eggs\\n","path":"list.txt"} (by ana)`)
      const all = await pending(journal, 2)
      const second = all.find((a) => a.tool_use_id === "toolu_2" && a.state === "pending")
      assert.isDefined(second)
      const denied = await cli([
        "deny",
        second?.id ?? "",
        "--journal",
        journal,
        "--by",
        "bob",
        "--reason",
        "caviar is not on the budget",
        "--digest",
        (second?.digest ?? "").slice(0, 10)
      ])
      assert.strictEqual(denied.code, 0, denied.stderr)
      const ended = await running
      assert.strictEqual(ended.code, 0, ended.stderr)
      assert.strictEqual(readFileSync(join(root, "list.txt"), "utf8"), "bread, milk\neggs\n")
      expect(ended.stderr).toContain(`waits for approval ${first?.id}: harness approve ${first?.id} --journal`)
      expect(ended.stdout).toContain("toolu_2: not executed: denied: caviar is not on the budget")
      expect(ended.stdout).toContain("final answer: Eggs added; no caviar.")
      // The model read the denial's reason, under its call's id.
      const third = fake.requestsTo("anthropic")[2]?.json as { messages: Array<{ content: unknown }> }
      expect(JSON.stringify(third.messages.at(-1)?.content)).toContain(
        "not executed: denied: caviar is not on the budget"
      )
      // Answered once: a second answer is refused, exit 1, nothing changed.
      const again = await cli(["approve", second?.id ?? "", "--journal", journal])
      assert.strictEqual(again.code, 1)
      expect(again.stderr).toContain("it was denied already, by bob")
      const every = await cli(["approvals", "list", "--journal", journal, "--all", "--json"])
      const states = every.stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, string>)
        .map((a) => [a.tool_use_id, a.state, a.by, a.answer_reason ?? null])
      assert.deepStrictEqual(states, [
        ["toolu_1", "approved", "ana", null],
        ["toolu_2", "denied", "bob", "caviar is not on the budget"]
      ])
    }
  )

  it(
    "bad usage is exit 2 before anything is sent: --park without --journal, --session without --park, a malformed id, nowhere to look",
    SPAWNS,
    async () => {
      const fake = await start({ anthropic: [FakeProvider.reply([Message.text("never asked")])] })
      const root = rootWith()
      const noJournal = await cli([...agentArgs(fake), "--root", root, "--park", "hi"])
      assert.strictEqual(noJournal.code, 2)
      expect(noJournal.stderr).toContain("--park parks asked calls in the journal file")
      const noPark = await cli([...agentArgs(fake), "--root", root, "--session", "s", "hi"])
      assert.strictEqual(noPark.code, 2)
      expect(noPark.stderr).toContain("--session names the session of parked calls: add --park")
      assert.strictEqual(fake.requestsTo("anthropic").length, 0)
      const malformed = await cli(["approve", "xyz!", "--journal", temp.path("j.sqlite")])
      assert.strictEqual(malformed.code, 2)
      expect(malformed.stderr).toContain('"xyz!" is not an approval id')
      const nowhere = await harnessAsync(["approvals", "list"], { ...anthropicEnv(), DATABASE_URL: "" })
      assert.strictEqual(nowhere.code, 2)
      expect(nowhere.stderr).toContain("say where the approvals are")
      const missing = await cli(["approve", "abcdef", "--journal", temp.path("j2.sqlite")])
      assert.strictEqual(missing.code, 1)
      expect(missing.stderr).toContain("there is no such approval")
    }
  )
})
