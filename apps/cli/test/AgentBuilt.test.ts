/**
 * The built CLI (`build.ts`, as published) and `harness agent`'s heavy dependencies: `harness
 * run` loads neither the AI SDK's providers nor the permission package; a scenario that declares
 * a policy loads the permission chunk only; `harness agent` loads the agent chunk (and, without
 * `--mcp`, not the MCP SDK, and without `--context-window` not the tokenizer); `--context-window`
 * with an OpenAI model loads the tokenizer and the model's one encoding.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import process from "node:process"
import { assert, describe, expect, it } from "@effect/vitest"
import { builtCli, runBuilt } from "./fixtures/built.ts"
import { salmorejoEs, scenariosDir } from "./fixtures/scenarios.ts"

const SPAWNS = { timeout: 180_000 }
const { temp, dist } = builtCli("agent-built")

/** The loaded files holding a text (a marker of a library's code), wherever it was bundled. */
const holding = (loaded: ReadonlyArray<string>, marker: string): ReadonlyArray<string> =>
  loaded.filter((file) => readFileSync(join(dist, file), "utf8").includes(marker))

/** Markers: the Anthropic provider's header, the permission package's marker, the MCP SDK's method. */
const aiSdk = "anthropic-version"
const permission = "untrusted_tool_output"
const mcpSdk = "notifications/initialized"
/** The tokenizer's chunks: the package, and each encoding's rank table. */
const tokenizerChunk = (file: string): boolean => /^(tokenizer|o200k|cl100k)-[\w-]+\.js$/.test(file)

describe("the built CLI and harness agent", () => {
  it("harness run loads no AI SDK and no permission code", SPAWNS, () => {
    const r = runBuilt(dist, ["run", salmorejoEs])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.include(r.loaded, "main.js")
    assert.deepStrictEqual(holding(r.loaded, aiSdk), [])
    assert.deepStrictEqual(holding(r.loaded, permission), [])
    assert.deepStrictEqual(holding(r.loaded, mcpSdk), [])
  })

  it("a scenario with a policy loads the permission chunk, and no AI SDK", SPAWNS, () => {
    const r = runBuilt(dist, ["run", join(scenariosDir, "permission", "append-denied.json")])
    assert.strictEqual(r.code, 0, r.stderr)
    expect(holding(r.loaded, permission).filter((file) => /^permission-[\w-]+\.js$/.test(file))).toHaveLength(1)
    assert.deepStrictEqual(holding(r.loaded, aiSdk), [])
  })

  it("harness agent loads the agent chunk, not the MCP SDK without --mcp", SPAWNS, () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" }
    delete env.ANTHROPIC_API_KEY
    const r = runBuilt(dist, ["agent", "--model", "anthropic:claude-test", "--root", temp.root, "hi"], env)
    assert.strictEqual(r.code, 2)
    assert.strictEqual(r.stderr, "harness agent: no API key for anthropic: set ANTHROPIC_API_KEY; nothing was sent\n")
    expect(holding(r.loaded, aiSdk).filter((file) => /^agent-[\w-]+\.js$/.test(file))).toHaveLength(1)
    assert.deepStrictEqual(holding(r.loaded, mcpSdk), [])
    assert.deepStrictEqual(r.loaded.filter(tokenizerChunk), [])
  })

  it(
    "harness agent --context-window with an OpenAI model loads OpenAI's tokenizer and its one encoding",
    SPAWNS,
    () => {
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", OPENAI_API_KEY: "test-key" }
      // Port 9 is one fetch refuses to connect to: no request leaves the process.
      const args = [
        "agent",
        "--model",
        "openai:gpt-4o",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--context-window",
        "1000"
      ]
      const r = runBuilt(dist, [...args, "--root", temp.root, "hi"], env)
      assert.strictEqual(r.code, 1, r.stderr)
      assert.deepStrictEqual(
        r.loaded
          .filter(tokenizerChunk)
          .map((file) => file.split("-")[0])
          .sort(),
        ["o200k", "tokenizer"]
      )
    }
  )
})
