/**
 * `harness agent --commands` end to end: the CLI spawned against the loopback fake provider,
 * the model's commands run in the real bubblewrap sandbox over `--root`: a command that writes
 * in the root and exits non-zero (the model reads the exit code, stdout and stderr, as an
 * error), one that tries to write outside the root (read-only), the shell tool with `--shell`,
 * `--command-memory` bounding each process (recorded on the trace), the default policy asking
 * about a command with no one to ask (denied, nothing ran), and the sandbox flags refused without `--commands` (exit 2, nothing sent).
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { agentArgs, anthropicEnv, freshRoots } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { harnessAsync } from "./fixtures/harness.ts"
import { tempFolder } from "./fixtures/scenarios.ts"

const SPAWNS = { timeout: 240_000 }

const temp = tempFolder("agent-commands")
afterAll(() => temp.remove())
const start = fakeProviders()
const rootWith = freshRoots(temp, "bread, milk\n")

const allowCommands = () =>
  temp.write(`policy-${Math.random().toString(36).slice(2)}.json`, {
    rules: [{ tool: ["command", "shell", "read"], decision: "allow" }],
    default: "deny"
  })

/** What the model was shown for each call of the n-th request: `[id, is_error, content]`. */
const resultsOf = (fake: FakeProvider.Fake, n: number): ReadonlyArray<readonly [string, boolean, string]> => {
  const json = fake.requestsTo("anthropic")[n]?.json as { messages: Array<{ content: unknown }> } | undefined
  const last = json?.messages.at(-1)?.content
  if (!Array.isArray(last)) return []
  return last
    .filter(
      (b): b is { type: string; tool_use_id: string; is_error?: boolean; content: unknown } => b?.type === "tool_result"
    )
    .map((b) => [
      b.tool_use_id,
      b.is_error === true,
      typeof b.content === "string"
        ? b.content
        : Array.isArray(b.content)
          ? b.content.map((p: { text?: string }) => p.text ?? "").join("")
          : ""
    ])
}

describe("harness agent --commands", () => {
  it(
    "runs the model's commands in the sandbox over --root: exit code, stdout and stderr read; the root writable, the system not",
    SPAWNS,
    async () => {
      const fake = await start({
        anthropic: [
          FakeProvider.reply([
            Message.toolUse("toolu_1", "command", {
              program: "sh",
              args: ["-c", "echo made > made.txt; echo out; echo err >&2; exit 3"]
            }),
            Message.toolUse("toolu_2", "command", { program: "touch", args: ["/usr/escape"] })
          ]),
          FakeProvider.reply([Message.toolUse("toolu_3", "shell", { line: "cat made.txt list.txt | wc -l" })]),
          FakeProvider.reply([Message.text("Done.")])
        ]
      })
      const root = rootWith()
      const r = await harnessAsync(
        [
          ...agentArgs(fake),
          "--root",
          root,
          "--policy",
          allowCommands(),
          "--commands",
          "--shell",
          "--no-stream",
          "Make a file"
        ],
        anthropicEnv(),
        { timeout: 180_000 }
      )
      assert.strictEqual(r.code, 0, r.stderr)
      assert.strictEqual(readFileSync(join(root, "made.txt"), "utf8"), "made\n")
      assert.isFalse(existsSync("/usr/escape"))
      const first = resultsOf(fake, 1)
      assert.deepStrictEqual(first[0], ["toolu_1", true, "exit code 3\nstdout:\nout\nstderr:\nerr"])
      assert.strictEqual(first[1]?.[0], "toolu_2")
      assert.isTrue(first[1]?.[1])
      expect(first[1]?.[2]).toMatch(/^exit code 1\n/)
      expect(first[1]?.[2]).toContain("Read-only file system")
      assert.deepStrictEqual(resultsOf(fake, 2), [["toolu_3", false, "exit code 0\nstdout:\n2\nstderr: (empty)"]])
      // The model was told what it may run, and the tools' schemas went over the wire.
      const request = fake.requestsTo("anthropic")[0]?.json as { system?: unknown; tools?: Array<{ name: string }> }
      expect(JSON.stringify(request.system)).toContain("with the command tool, inside a sandbox")
      expect(request.tools?.map((t) => t.name)).toEqual([
        "read",
        "list",
        "search",
        "write",
        "append",
        "command",
        "shell"
      ])
    }
  )

  it(
    "--command-memory bounds each process: a shell holding 64 MB under 32M fails; the trace records it",
    SPAWNS,
    async () => {
      const fake = await start({
        anthropic: [
          FakeProvider.reply([
            Message.toolUse("toolu_1", "command", {
              program: "sh",
              args: ["-c", "x=$(head -c 64000000 /dev/zero | tr '\\0' a); echo held"]
            })
          ]),
          FakeProvider.reply([Message.text("It ran out of memory.")])
        ]
      })
      const root = rootWith()
      const trace = temp.path(`memory-${Math.random().toString(36).slice(2)}.jsonl`)
      const r = await harnessAsync(
        [
          ...agentArgs(fake),
          "--root",
          root,
          "--policy",
          allowCommands(),
          "--commands",
          "--command-memory",
          "32M",
          "--trace",
          trace,
          "--no-stream",
          "Hold it"
        ],
        anthropicEnv(),
        { timeout: 180_000 }
      )
      assert.strictEqual(r.code, 0, r.stderr)
      // The shell dies of SIGSEGV when its allocation is refused: 128 + 11.
      assert.deepStrictEqual(resultsOf(fake, 1), [["toolu_1", true, "exit code 139\nstdout: (empty)\nstderr: (empty)"]])
      const annotated = readFileSync(trace, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as { type?: string; key?: string; value?: { memory_bytes?: unknown } })
        .find((event) => event.type === "trace.annotated" && event.key === "commands")
      assert.strictEqual(annotated?.value?.memory_bytes, 32 * 1024 * 1024)
    }
  )

  it("the default policy asks about a command; with no one to ask it is denied and nothing runs", SPAWNS, async () => {
    const fake = await start({
      anthropic: [
        FakeProvider.reply([Message.toolUse("toolu_1", "command", { program: "touch", args: ["ran.txt"] })]),
        FakeProvider.reply([Message.text("Could not.")])
      ]
    })
    const root = rootWith()
    const r = await harnessAsync(
      [...agentArgs(fake), "--root", root, "--commands", "--no-stream", "Touch"],
      anthropicEnv(),
      {
        timeout: 180_000
      }
    )
    assert.strictEqual(r.code, 0, r.stderr)
    assert.isFalse(existsSync(join(root, "ran.txt")))
    assert.deepStrictEqual(resultsOf(fake, 1), [
      ["toolu_1", true, "not executed: denied: this call needs someone's approval, and no one could be asked"]
    ])
  })

  it(
    "--allow-command and --deny-command: an exact allow-list, and a deny that no spelling dodges",
    SPAWNS,
    async () => {
      const fake = await start({
        anthropic: [
          FakeProvider.reply([
            Message.toolUse("toolu_1", "command", { program: "cat", args: ["list.txt"] }),
            Message.toolUse("toolu_2", "command", { program: "env", args: ["/bin/rm", "-r", "-f", "list.txt"] }),
            Message.toolUse("toolu_3", "shell", { line: "cat list.txt; touch x.txt" })
          ]),
          FakeProvider.reply([Message.text("Read it.")])
        ]
      })
      const root = rootWith()
      const r = await harnessAsync(
        [
          ...agentArgs(fake),
          "--root",
          root,
          "--commands",
          "--shell",
          "--allow-command",
          "cat list.txt",
          "--deny-command",
          "rm -rf *",
          "--no-stream",
          "Read the list"
        ],
        anthropicEnv(),
        { timeout: 180_000 }
      )
      assert.strictEqual(r.code, 0, r.stderr)
      assert.strictEqual(readFileSync(join(root, "list.txt"), "utf8"), "bread, milk\n")
      assert.isFalse(existsSync(join(root, "x.txt")))
      const results = resultsOf(fake, 1)
      assert.deepStrictEqual(results[0], ["toolu_1", false, "exit code 0\nstdout:\nbread, milk\nstderr: (empty)"])
      assert.deepStrictEqual(results[1], ["toolu_2", true, 'not executed: denied: --deny-command "rm -rf *"'])
      // Allowed exactly: the line's second command is not on the list, and no one can be asked.
      assert.strictEqual(results[2]?.[0], "toolu_3")
      expect(results[2]?.[2]).toMatch(/^not executed: denied: /)
    }
  )

  it(
    "sandbox flags without --commands, a bad --command-env, --command-timeout or --command-memory: exit 2, nothing sent",
    SPAWNS,
    async () => {
      const fake = await start({ anthropic: [FakeProvider.reply([Message.text("never")])] })
      const root = rootWith()
      for (const [flags, said] of [
        [["--shell"], "--shell goes with --commands"],
        [["--network"], "--network goes with --commands"],
        [["--command-env", "A=1"], "--command-env goes with --commands"],
        [["--commands", "--command-env", "1A=x"], '--command-env "1A=x": a variable\'s name'],
        [
          ["--commands", "--command-env", "SURELY_NOT_SET_HERE"],
          "--command-env SURELY_NOT_SET_HERE: this process has no"
        ],
        [["--commands", "--command-timeout", "soon"], '--command-timeout "soon": expected a duration'],
        [["--command-memory", "1G"], "--command-memory goes with --commands"],
        [["--commands", "--command-memory", "1K"], '--command-memory "1K": expected a size of at least 16M'],
        [["--commands", "--command-memory", "lots"], '--command-memory "lots": expected a size'],
        [["--deny-command", "rm -rf; x"], '--deny-command "rm -rf; x": ']
      ] as const) {
        const r = await harnessAsync([...agentArgs(fake), "--root", root, ...flags, "hi"], anthropicEnv())
        assert.strictEqual(r.code, 2, `${flags.join(" ")}: ${r.stderr}`)
        expect(r.stderr).toContain(said)
      }
      assert.strictEqual(fake.requestsTo("anthropic").length, 0)
    }
  )
})
