/**
 * `harness agent` with the official MCP servers' tool schemas (the real `tools/list` of
 * `@modelcontextprotocol/server-everything` and `server-filesystem`, recorded in
 * packages/ai-sdk/test/fixtures) mounted from a stdio server that replays them, against the
 * loopback fake of the Anthropic API, which refuses a top-level `oneOf`/`allOf`/`anyOf` in an
 * `input_schema` as the real API does. Mounted, 22 of those 27 tools are sent with a top-level
 * `allOf`: without normalization the run dies at its first model call. With it, the run gets
 * past it, a call still goes through the tool's own schema (a call the server's schema refuses
 * is `not executed`), and what was relaxed is a warning on stderr.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { agent } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { tempFolder } from "./fixtures/scenarios.ts"

/** Two CLI runs that each mount a server, on a loaded 2-core machine. */
const SPAWNS = { timeout: 180_000 }

const fixtures = join(import.meta.dirname, "..", "..", "..", "packages", "ai-sdk", "test", "fixtures")
const everything = join(fixtures, "mcp-server-everything.tools.json")
const filesystem = join(fixtures, "mcp-server-filesystem.tools.json")
const server = join(import.meta.dirname, "fixtures", "replay-tools-server.mjs")

const temp = tempFolder("provider-schemas")
afterAll(() => temp.remove())

const start = fakeProviders()

type Json = Readonly<Record<string, unknown>>
const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const toolsOf = (request: FakeProvider.Recorded | undefined): ReadonlyArray<Json> => {
  const tools = isRecord(request?.json) ? request.json.tools : undefined
  return Array.isArray(tools) ? tools.filter(isRecord) : []
}

/** A server's union schema (what a zod union becomes): the Anthropic API refuses it at the top level. */
const unionTool = {
  tools: [
    {
      name: "pick",
      description: "Looks something up by id or by path.",
      inputSchema: {
        anyOf: [
          { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
          { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false }
        ]
      }
    }
  ]
}

describe("harness agent: tool schemas the Anthropic API refuses", () => {
  it(
    "the official servers' schemas, mounted, get past the first model call; calls are still checked against the tools' own schemas; what was relaxed is a warning",
    SPAWNS,
    async () => {
      const root = temp.path("root")
      temp.write("root/list.txt", "bread\n")
      const union = temp.path("union.tools.json")
      temp.write("union.tools.json", JSON.stringify(unionTool))
      const fake = await start({
        anthropic: [
          FakeProvider.reply([
            Message.toolUse("c1", "mcp-servers_everything__echo", { message: "hola" }),
            Message.toolUse("c2", "mcp-servers_everything__get-sum", { a: "one", b: 2 }),
            Message.toolUse("c3", "mcp-servers_everything__pick", { id: "x", path: "y" })
          ]),
          FakeProvider.reply([Message.text("Done.")])
        ]
      })
      const r = await agent({
        fake,
        args: [
          "--root",
          root,
          "--mcp",
          `node '${server}' '${everything}' '${filesystem}' '${union}'`,
          // The server is not trusted, so its read-only hints are not believed: the user allows echo.
          "--allow",
          "mcp-servers_everything__echo",
          "Echo hola."
        ],
        timeout: 120_000
      })
      assert.strictEqual(r.code, 0, r.stderr)
      // Past the first model call: both requests passed the fake's checks of the Anthropic API.
      expect(fake.requests.map((q) => q.problems)).toStrictEqual([[], []])
      const sent = toolsOf(fake.requests[0])
      // 26 of the 27 tools (one runs only as an MCP task) and the union tool, none with a top-level combinator.
      expect(sent.length).toBe(5 + 26 + 1)
      for (const tool of sent) {
        const schema = isRecord(tool.input_schema) ? tool.input_schema : {}
        expect(schema.type, String(tool.name)).toBe("object")
        for (const key of ["allOf", "anyOf", "oneOf"])
          expect(schema[key], `${String(tool.name)} ${key}`).toBeUndefined()
      }
      expect(sent.find((t) => t.name === "mcp-servers_everything__echo")?.input_schema).toMatchObject({
        type: "object",
        properties: { message: { type: "string" } },
        required: ["message"]
      })
      // The call that fits ran on the server; the others were checked against the tools' own schemas, and refused.
      expect(r.lines).toContain('  ok    c1: echo {"message":"hola"}')
      expect(r.lines.find((l) => l.startsWith("  error c2: not executed:"))).toBeDefined()
      expect(r.lines.find((l) => l.startsWith("  error c3: not executed:"))).toBeDefined()
      // What was relaxed is said once, on stderr; the exact merges of the allOf are not warnings.
      const warnings = r.stderr.split("\n").filter((l) => l.includes("schema top-level"))
      expect(warnings).toStrictEqual([
        "harness agent: warn: anthropic.messages: tool 'mcp-servers_everything__pick': schema top-level anyOf of 2 schemas sent as one object with all their properties; which combination is allowed is checked locally"
      ])
      expect(readFileSync(join(root, "list.txt"), "utf8")).toBe("bread\n")
    }
  )
})
