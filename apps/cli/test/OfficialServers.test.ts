/**
 * The "done when": `harness agent` with the official `@modelcontextprotocol/server-everything`
 * and `@modelcontextprotocol/server-filesystem` (started from node_modules, no network) mounted
 * from an `mcpServers` file, against the loopback fake of the Anthropic API (which enforces its
 * schema rules), every call answered with the right words: a success, a tool error (a file that
 * is not there), a call the tool's schema refuses (never sent), a path outside the allowed
 * folders (the server refuses it: it ran and failed), a long-running call whose progress is shown
 * on stderr (never to the model). And a server of the file that cannot be mounted is named by the
 * file and its name there.
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import process from "node:process"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { agent } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { tempFolder } from "./fixtures/scenarios.ts"

/** Two official servers started per run, on a loaded 2-core machine. */
const SPAWNS = { timeout: 120_000 }

const bin = (name: string) =>
  join(realpathSync(join(import.meta.dirname, "..", "node_modules", name)), "dist", "index.js")
const everything = bin("@modelcontextprotocol/server-everything")
const filesystem = bin("@modelcontextprotocol/server-filesystem")

const temp = tempFolder("official-servers")
afterAll(() => temp.remove())

const start = fakeProviders()

/** The tool_result blocks the model was sent in the request of turn 2. */
const resultsOf = (request: FakeProvider.Recorded | undefined): ReadonlyArray<Record<string, unknown>> => {
  const json = request?.json as { messages?: ReadonlyArray<{ role: string; content: unknown }> } | undefined
  const last = json?.messages?.at(-1)
  return Array.isArray(last?.content)
    ? (last.content as ReadonlyArray<Record<string, unknown>>).filter((b) => b.type === "tool_result")
    : []
}

describe("harness agent with the official server-everything and server-filesystem from an mcpServers file", () => {
  it("every call is answered with the right words; progress on stderr only", SPAWNS, async () => {
    const root = temp.path("root")
    temp.write("root/list.txt", "bread\n")
    const shared = realpathSync(temp.path("root"))
    mkdirSync(join(shared, "docs"), { recursive: true })
    writeFileSync(join(shared, "docs", "note.txt"), "remember the milk\n")
    const outside = realpathSync(temp.write("outside/secret.txt", "do not read\n"))
    const config = temp.write("mcp.json", {
      mcpServers: {
        everything: { command: process.execPath, args: [everything], timeout: 60000 },
        fs: { command: process.execPath, args: [filesystem, join(shared, "docs")], timeout: 60000 }
      }
    })
    const trace = temp.path("official.jsonl")
    const fake = await start({
      anthropic: [
        FakeProvider.reply([
          Message.toolUse("e1", "everything__echo", { message: "hola" }),
          Message.toolUse("e2", "everything__get-sum", { a: "one", b: 2 }),
          Message.toolUse("e3", "everything__trigger-long-running-operation", { duration: 0.6, steps: 3 }),
          Message.toolUse("f1", "fs__read_text_file", { path: join(shared, "docs", "note.txt") }),
          Message.toolUse("f2", "fs__read_text_file", { path: join(shared, "docs", "missing.txt") }),
          Message.toolUse("f3", "fs__read_text_file", { path: outside })
        ]),
        FakeProvider.reply([Message.text("Done.")])
      ]
    })
    const r = await agent({
      fake,
      args: [
        "--root",
        root,
        "--mcp-config",
        config,
        // The servers are not trusted: their read-only hints are not believed, so the user allows them.
        "--allow",
        "everything__*",
        "--allow",
        "fs__*",
        "--trace",
        trace,
        "Try their tools."
      ],
      timeout: 100_000
    })
    assert.strictEqual(r.code, 0, r.stderr)
    // Both requests passed the fake's checks of the Anthropic API (schemas included).
    expect(fake.requests.map((q) => q.problems)).toStrictEqual([[], []])
    const line = (id: string) => r.lines.find((l) => l.startsWith(`  ok    ${id}:`) || l.startsWith(`  error ${id}:`))
    // A success.
    expect(line("e1")).toBe("  ok    e1: Echo: hola")
    // A call the tool's schema refuses: not executed, never sent.
    expect(line("e2")).toMatch(/^ {2}error e2: not executed: /)
    // A long call: its result, and its progress on stderr as it came (never to the model).
    expect(line("e3")).toBe("  ok    e3: Long running operation completed. Duration: 0.6 seconds, Steps: 3.")
    const progress = r.stderr.split("\n").filter((l) => l.startsWith("  … "))
    expect(progress).toStrictEqual([
      "  … everything__trigger-long-running-operation 1/3",
      "  … everything__trigger-long-running-operation 2/3",
      "  … everything__trigger-long-running-operation 3/3"
    ])
    expect(r.stdout).not.toContain("1/3")
    // A success of the other server, called side by side.
    expect(line("f1")).toBe("  ok    f1: remember the milk")
    // A tool error: it ran and failed, in the server's words, once, bounded.
    expect(line("f2")).toMatch(/^ {2}error f2: .*ENOENT/)
    expect(line("f2")).not.toMatch(/refused|never reached|not executed/)
    // A path outside the allowed folders: the server ran the call and refused the path.
    expect(line("f3")).toMatch(/^ {2}error f3: .*(?:outside allowed directories|Access denied)/i)
    expect(line("f3")).not.toMatch(/never reached|not executed/)
    // The model was sent one result per call, in call order, and no progress.
    const results = resultsOf(fake.requests[1])
    expect(results.map((b) => b.tool_use_id)).toStrictEqual(["e1", "e2", "e3", "f1", "f2", "f3"])
    expect(results.map((b) => b.is_error === true)).toStrictEqual([false, true, false, false, true, true])
    expect(JSON.stringify(fake.requests[1]?.json)).not.toContain("1/3")
    // The trace has each update as a tool.progress event of the call.
    const events = readFileSync(trace, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { readonly type: string })
    expect(events.filter((e) => e.type === "call.progressed")).toStrictEqual(
      [1, 2, 3].map((progress) => ({
        type: "call.progressed",
        turn: 1,
        tool_use_id: "e3",
        name: "everything__trigger-long-running-operation",
        progress,
        total: 3
      }))
    )
  })

  it("a server of the file that cannot be mounted is named by the file and its name there", SPAWNS, async () => {
    const root = temp.path("root2")
    temp.write("root2/list.txt", "bread\n")
    const config = temp.write("broken.json", {
      mcpServers: {
        fs: { command: process.execPath, args: [filesystem, root], timeout: 60000 },
        broken: { command: "no-such-command-anywhere-at-all", timeout: 60000 }
      }
    })
    const fake = await start({ anthropic: [FakeProvider.reply([Message.text("unused")])] })
    const r = await agent({ fake, args: ["--root", root, "--mcp-config", config, "Hi"], timeout: 100_000 })
    assert.strictEqual(r.code, 2, r.stderr)
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("harness agent: --mcp"))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      new RegExp(
        `^harness agent: --mcp-config ${config.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: mcpServers\\.broken: MCP server 'no-such-command-anywhere-at-all': `
      )
    )
    assert.strictEqual(fake.requests.length, 0)
  })
})
