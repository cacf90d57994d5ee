// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is kept as written in declarations, not a template literal.
/**
 * The `mcpServers` fields a scenario's `mcp` declaration takes (the shape every MCP client
 * writes): `type`, `headers`, `timeout`, `trust`, `${VAR}` kept as written (expanded by the
 * `Mounter` when it mounts); and each bad one named by its JSON path.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { ScenarioFile } from "../src/index.ts"
import type { Json } from "./fixtures/files.ts"

const FILE = "cases/mcp.json"

const conversation = (mcp: unknown): Json => ({
  format: 1,
  kind: "conversation",
  mcp,
  turns: [{ reply: [{ type: "text", text: "done" }] }],
  outcome: { stop: "end", text: "done" }
})

const decoded = (mcp: unknown): unknown => {
  const result = ScenarioFile.decode(FILE, conversation(mcp))
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success.kind === "conversation" ? result.success.file.mcp : undefined
}

const invalid = (mcp: unknown): string => {
  const result = ScenarioFile.decode(FILE, conversation(mcp))
  if (Result.isSuccess(result)) throw new Error("the file should be invalid")
  return `${result.failure.path}: ${result.failure.problem}`
}

describe("mcp declarations: the mcpServers fields", () => {
  it("type, headers, timeout and trust decode; ${VAR} is kept as written", () => {
    const mcp = [
      {
        type: "stdio",
        command: "npx",
        args: ["-y", "${PKG}"],
        env: { T: "${T:-x}" },
        prefix: "fx",
        timeout: 5000,
        trust: true
      },
      {
        type: "http",
        url: "${BASE_URL}/mcp",
        headers: { Authorization: "Bearer ${TOKEN}" },
        prefix: "web",
        trust: false
      }
    ]
    assert.deepStrictEqual(decoded(mcp), mcp)
  })

  it("each bad one is named by its JSON path", () => {
    assert.strictEqual(
      invalid([{ type: "sse", url: "http://127.0.0.1:1/sse", prefix: "w" }]),
      `mcp[0].type: the HTTP+SSE transport (deprecated since MCP 2025-03-26) is not supported: mount the server's Streamable HTTP endpoint, "type": "http"`
    )
    assert.strictEqual(
      invalid([{ type: "http", command: "node", prefix: "w" }]),
      `mcp[0].type: "http" is a server to reach, with "url"; this one has "command": use "stdio"`
    )
    assert.strictEqual(
      invalid([{ command: "node", headers: { A: "b" }, prefix: "w" }]),
      `mcp[0].headers: only a server that is reached ("url") takes "headers"`
    )
    assert.strictEqual(
      invalid([{ command: "node", prefix: "w", timeout: 2 ** 31 }]),
      "mcp[0].timeout: expected a value less than or equal to 2147483647, got 2147483648"
    )
    assert.strictEqual(
      invalid([{ command: "node", prefix: "w", trust: "yes" }]),
      `mcp[0].trust: expected boolean, got "yes"`
    )
    assert.strictEqual(
      invalid([{ url: "ftp://x/mcp", prefix: "w" }]),
      `mcp[0].url: expected an http:// or https:// URL, got "ftp://x/mcp"`
    )
  })
})
