// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the syntax under test, not a template literal.
/**
 * `harness agent --mcp-config FILE` end to end, against the loopback fake provider: a stdio
 * server started through an `npx`-like launcher (a shell script that needs `PATH` to find node,
 * `HOME` and npm's cache, and refuses to run when it is given the API key), the same launcher
 * through `--mcp`, a Streamable HTTP server (the official SDK's) that requires a bearer token
 * written as `${WEB_TOKEN}` (the trace keeps the variable, not the token), and bad input: a
 * variable that is not set, a file inside --root, a file that does not exist (exit 2, nothing
 * sent).
 */
import { chmodSync, readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { dirname, join } from "node:path"
import process from "node:process"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, afterEach, assert, describe, expect, it } from "@effect/vitest"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { answerStateless } from "../../../packages/mcp/test/fixtures/sdk-http.ts"
import { freshRoots, providerEnv, agent as runAgent } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { scenariosDir, tempFolder } from "./fixtures/scenarios.ts"

/** A few CLI runs per test, each spawning servers, on a loaded 2-core machine. */
const SPAWNS = { timeout: 180_000 }

const temp = tempFolder("mcp-config")
afterAll(() => temp.remove())

const start = fakeProviders()
const listeners: Array<Server> = []
afterEach(async () => {
  for (const listener of listeners.splice(0)) {
    await new Promise<void>((resolve) => {
      listener.close(() => resolve())
      listener.closeAllConnections()
    })
  }
})

/** An `npx` that needs what the real one needs: PATH (to find node), HOME, npm's cache; never the API key. */
const bin = temp.write(
  "bin/npx",
  [
    "#!/bin/sh",
    `[ -n "$HOME" ] || { echo "npx: HOME is not set" >&2; exit 1; }`,
    `[ -n "$npm_config_cache" ] || { echo "npx: npm_config_cache is not set" >&2; exit 1; }`,
    `[ -z "$ANTHROPIC_API_KEY" ] || { echo "npx: it was given the API key" >&2; exit 1; }`,
    `[ "$1" = "-y" ] || { echo "npx: expected -y" >&2; exit 1; }`,
    `exec node "\${CALC_DIR:-.}/$2"`,
    ""
  ].join("\n")
)
chmodSync(bin, 0o755)

/** The harness's environment: a key, the launcher and node on PATH, npm's cache, no base URLs of the machine's. */
const envWith = (vars: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv => {
  const env = providerEnv()
  for (const name of Object.keys(env)) if (/^npm_config_/i.test(name)) delete env[name]
  return {
    ...env,
    ANTHROPIC_API_KEY: "test-key",
    PATH: [dirname(bin), dirname(process.execPath), process.env.PATH ?? ""].join(":"),
    HOME: temp.path("home"),
    npm_config_cache: temp.path("npm-cache"),
    ...vars
  }
}

const root = freshRoots(temp, "bread\n")

const agent = (fake: FakeProvider.Fake, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = envWith()) =>
  runAgent({ fake, args, env })

const divide = () =>
  start({
    anthropic: [
      FakeProvider.reply([Message.toolUse("m1", "calc__divide", { a: 6, b: 3 })]),
      FakeProvider.reply([Message.text("6 / 3 = 2.")])
    ]
  })

/** The official SDK's server over Streamable HTTP, answering only requests with `Authorization: Bearer <token>`. */
const serveWithToken = async (token: string): Promise<{ readonly url: string; readonly seen: Array<string> }> => {
  const seen: Array<string> = []
  const listener = createServer((req, res) => {
    seen.push(req.headers.authorization ?? "(none)")
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }))
      return
    }
    answerStateless(() => {
      const server = new McpServer({ name: "web", version: "1.0.0" })
      server.registerTool(
        "whoami",
        { description: "Says who the caller is", annotations: { readOnlyHint: true } },
        async () => ({ content: [{ type: "text" as const, text: "an authorized caller" }] })
      )
      return server
    })(req, res)
  })
  listeners.push(listener)
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve))
  const address = listener.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return { url: `http://127.0.0.1:${port}/mcp`, seen }
}

describe("harness agent --mcp-config", () => {
  it(
    "mounts a stdio server launched through npx (PATH, HOME, npm's cache given; the API key not), ${VAR} in env",
    SPAWNS,
    async () => {
      const config = temp.write("configs/stdio.json", {
        mcpServers: {
          calc: { command: "npx", args: ["-y", "calculator.mjs"], env: { CALC_DIR: "${CALC_DIR}" }, timeout: 60000 }
        }
      })
      const fake = await divide()
      const r = await agent(
        fake,
        ["--root", root(), "--mcp-config", config, "--allow", "calc__*", "What is 6 / 3?"],
        envWith({ CALC_DIR: join(scenariosDir, "mcp") })
      )
      assert.strictEqual(r.code, 0, r.stderr)
      expect(r.lines).toContain("  ok    m1: 2")
    }
  )

  it("--mcp children get the same environment: npx -y runs", SPAWNS, async () => {
    const fake = await start({
      anthropic: [
        FakeProvider.reply([Message.toolUse("m1", "calculator__divide", { a: 6, b: 3 })]),
        FakeProvider.reply([Message.text("6 / 3 = 2.")])
      ]
    })
    const r = await agent(fake, [
      "--root",
      root(),
      "--mcp",
      "npx -y scenarios/mcp/calculator.mjs",
      "--allow",
      "calculator__*",
      "What is 6 / 3?"
    ])
    assert.strictEqual(r.code, 0, r.stderr)
    expect(r.lines).toContain("  ok    m1: 2")
  })

  it(
    "mounts a Streamable HTTP server behind a bearer token from ${WEB_TOKEN}; the trace keeps the variable",
    SPAWNS,
    async () => {
      const web = await serveWithToken("s3cret")
      const config = temp.write("configs/http.json", {
        mcpServers: {
          web: { type: "http", url: web.url, headers: { Authorization: "Bearer ${WEB_TOKEN}" }, timeout: 60000 }
        }
      })
      const fake = await start({
        anthropic: [
          FakeProvider.reply([Message.toolUse("w1", "web__whoami", {})]),
          FakeProvider.reply([Message.text("You are authorized.")])
        ]
      })
      const trace = temp.path("http.jsonl")
      const r = await agent(
        fake,
        ["--root", root(), "--mcp-config", config, "--allow", "web__*", "--trace", trace, "Who am I?"],
        envWith({ WEB_TOKEN: "s3cret" })
      )
      assert.strictEqual(r.code, 0, r.stderr)
      expect(r.lines).toContain("  ok    w1: an authorized caller")
      expect(web.seen.length).toBeGreaterThan(0)
      expect(web.seen.every((h) => h === "Bearer s3cret")).toBe(true)
      const traced = readFileSync(trace, "utf8")
      expect(traced).toContain("Bearer ${WEB_TOKEN}")
      expect(traced).not.toContain("s3cret")

      // The wrong token: the server refuses, the mount fails, exit 2, nothing sent.
      const refused = await start({ anthropic: [FakeProvider.reply([Message.text("unused")])] })
      const wrong = await agent(
        refused,
        ["--root", root(), "--mcp-config", config, "Who am I?"],
        envWith({ WEB_TOKEN: "nope" })
      )
      assert.strictEqual(wrong.code, 2, wrong.stderr)
      expect(wrong.stderr).toContain(`MCP server '${web.url}'`)
      assert.strictEqual(refused.requests.length, 0)
    }
  )

  it("bad input exits 2 naming the file and the JSON path, before anything is sent", SPAWNS, async () => {
    const fake = await start({ anthropic: [FakeProvider.reply([Message.text("unused")])] })
    const unset = temp.write("configs/unset.json", {
      mcpServers: {
        web: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${HARNESS_NO_SUCH_TOKEN}" } }
      }
    })
    const bad = temp.write("configs/bad.json", { mcpServers: { fs: { command: "npx", args: ["-y", 3] } } })
    const folder = root()
    const inside = temp.write(`${folder.slice(temp.root.length + 1)}/mcp.json`, {
      mcpServers: { fs: { command: "x" } }
    })
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string | RegExp]> = [
      [
        ["--mcp-config", unset],
        `harness agent: --mcp-config ${unset}: mcpServers.web.headers.Authorization: \${HARNESS_NO_SUCH_TOKEN}: the environment variable HARNESS_NO_SUCH_TOKEN is not set (write \${HARNESS_NO_SUCH_TOKEN:-default} for a default)`
      ],
      [["--mcp-config", bad], `harness agent: --mcp-config ${bad}: mcpServers.fs.args[1]: expected a string, got 3`],
      [
        ["--mcp-config", inside],
        new RegExp(`^harness agent: --mcp-config ${inside.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: `)
      ],
      [["--mcp-config", temp.path("configs/none.json")], /^harness agent: --mcp-config .*none\.json: /]
    ]
    for (const [args, expected] of cases) {
      const r = await agent(fake, ["--root", folder, ...args, "Hello"])
      assert.strictEqual(r.code, 2, `${args.join(" ")}: ${r.stderr}`)
      const line = r.stderr.split("\n").find((l) => l.startsWith("harness agent: --mcp-config")) ?? r.stderr
      if (typeof expected === "string") assert.strictEqual(line, expected)
      else expect(line).toMatch(expected)
    }
    assert.strictEqual(fake.requests.length, 0)
  })
})
