/**
 * `--root` is the user's real project folder (`TreeFiles`), for `harness agent` (driven by the
 * loopback fake provider) and for `harness mcp serve` (driven by the official MCP SDK's client
 * over stdio): in a tree with nested folders, a `.gitignore`, `node_modules` and `.git`,
 * `read src/app/main.ts` reads that file, `list ""` shows the nested files but nothing of
 * `node_modules` or `.git`, and `write notes/new.txt` creates `notes/new.txt` (never a flat
 * `notes%2Fnew.txt`). `.git` cannot be read.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import process from "node:process"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { agent } from "./fixtures/agent.ts"
import { demoDir, type Json, tempFolder } from "./fixtures/scenarios.ts"

/** A test that spawns the CLI (and talks to it), on a loaded 2-core machine. */
const SPAWNS = { timeout: 240_000 }
/** Each MCP request, and the handshake. */
const request = { timeout: 60_000 }

const temp = tempFolder("root-tree")
afterAll(() => temp.remove())

const main = 'export const main = (): string => "hello"\n'

let trees = 0
/** A small repository: nested sources, a `.gitignore`, an installed package, a `.git` folder. */
const project = (): string => {
  const name = `project-${++trees}`
  temp.write(`${name}/src/app/main.ts`, main)
  temp.write(`${name}/README.md`, "# project\n")
  temp.write(`${name}/.gitignore`, "node_modules/\n*.log\n")
  temp.write(`${name}/node_modules/left-pad/index.js`, "module.exports = () => 'hello'\n")
  temp.write(`${name}/debug.log`, "hello\n")
  temp.write(`${name}/.git/HEAD`, "ref: refs/heads/main\n")
  temp.write(`${name}/.git/config`, "[core]\n")
  return temp.path(name)
}

/** What `list ""` must show of that tree (a write adds to it). */
const listed = [".gitignore", "README.md", "src/app/main.ts"]

/** The files under a folder, recursively, as `a/b` paths (what is really on disk). */
const onDisk = (root: string): ReadonlyArray<string> =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
    .sort()

const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const list = (u: unknown): ReadonlyArray<unknown> => (Array.isArray(u) ? u : [])

/** The tool results of an Anthropic request, by call id (their text). */
const resultsOf = (json: unknown): Record<string, { readonly text: string; readonly isError: boolean }> => {
  const out: Record<string, { readonly text: string; readonly isError: boolean }> = {}
  for (const message of list(isRecord(json) ? json.messages : undefined).filter(isRecord)) {
    for (const block of list(message.content).filter(isRecord)) {
      if (block.type !== "tool_result" || typeof block.tool_use_id !== "string") continue
      const text =
        typeof block.content === "string"
          ? block.content
          : list(block.content)
              .filter(isRecord)
              .map((part) => String(part.text ?? ""))
              .join("")
      out[block.tool_use_id] = { text, isError: block.is_error === true }
    }
  }
  return out
}

describe("harness agent --root: the user's real folder", () => {
  it("reads a nested file, lists the tree without node_modules or .git, writes notes/new.txt", SPAWNS, async () => {
    const fake = await FakeProvider.start({
      apiKey: "test-key",
      anthropic: [
        FakeProvider.reply([
          Message.toolUse("t1", "read", { path: "src/app/main.ts" }),
          Message.toolUse("t2", "list", { folder: "" }),
          Message.toolUse("t3", "write", { path: "notes/new.txt", content: "hola\n" }),
          Message.toolUse("t4", "read", { path: ".git/HEAD" }),
          Message.toolUse("t5", "search", { pattern: "hello" })
        ]),
        FakeProvider.reply([Message.text("Done.")])
      ]
    })
    try {
      const root = project()
      const r = await agent({ fake, args: ["--root", root, "--allow", "write", "Take a look"] })
      assert.strictEqual(r.code, 0, r.stderr)
      const results = resultsOf(fake.requestsTo("anthropic")[1]?.json)
      assert.deepStrictEqual(results.t1, { text: main, isError: false })
      assert.deepStrictEqual(results.t2, { text: listed.join("\n"), isError: false })
      assert.deepStrictEqual(results.t3, { text: "wrote 5 characters to notes/new.txt", isError: false })
      assert.isTrue(results.t4?.isError, JSON.stringify(results.t4))
      expect(results.t4?.text).toContain(".git")
      // node_modules and debug.log are ignored, .git is never searched: only the source says hello.
      assert.deepStrictEqual(results.t5, { text: `src/app/main.ts: ${main.trimEnd()}`, isError: false })
      assert.strictEqual(readFileSync(join(root, "notes", "new.txt"), "utf8"), "hola\n")
      assert.isFalse(existsSync(join(root, "notes%2Fnew.txt")))
      assert.deepStrictEqual(onDisk(root), [
        ".git/HEAD",
        ".git/config",
        ".gitignore",
        "README.md",
        "debug.log",
        "node_modules/left-pad/index.js",
        "notes/new.txt",
        "src/app/main.ts"
      ])
      assert.strictEqual(readFileSync(join(root, ".git", "HEAD"), "utf8"), "ref: refs/heads/main\n")
    } finally {
      await fake.close()
    }
  })
})

describe("harness mcp serve --root: the user's real folder", () => {
  it("over stdio with the official client: read, list, write in the tree", SPAWNS, async () => {
    const root = project()
    const client = new Client({ name: "test", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          "--disable-warning=ExperimentalWarning",
          `${demoDir}src/main.ts`,
          "mcp",
          "serve",
          "--tools",
          "files",
          "--root",
          root
        ],
        stderr: "pipe"
      }),
      request
    )
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args }, undefined, request)) as CallToolResult
        return {
          isError: result.isError === true,
          text: result.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("")
        }
      }
      assert.deepStrictEqual(await call("read", { path: "src/app/main.ts" }), { isError: false, text: main })
      assert.deepStrictEqual(await call("list", { folder: "" }), { isError: false, text: listed.join("\n") })
      assert.deepStrictEqual(await call("list", { folder: "src/" }), { isError: false, text: "src/app/main.ts" })
      assert.deepStrictEqual(await call("write", { path: "notes/new.txt", content: "hola\n" }), {
        isError: false,
        text: "wrote 5 characters to notes/new.txt"
      })
      assert.deepStrictEqual(await call("list", { folder: "" }), {
        isError: false,
        text: [".gitignore", "README.md", "notes/new.txt", "src/app/main.ts"].join("\n")
      })
      const git = await call("read", { path: ".git/config" })
      assert.isTrue(git.isError, git.text)
      assert.strictEqual(readFileSync(join(root, "notes", "new.txt"), "utf8"), "hola\n")
      assert.isFalse(existsSync(join(root, "notes%2Fnew.txt")))
    } finally {
      await client.close()
    }
  })
})
