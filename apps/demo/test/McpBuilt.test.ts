/**
 * The built CLI (`build.ts`, as published) and MCP: `harness run` of a scenario without MCP never
 * loads the MCP chunk (the SDK and its dependencies), a scenario that mounts a server loads it,
 * and `harness mcp serve` answers over stdio. A module-loading hook preloaded into the child
 * lists every file it loads.
 */
import { spawn, spawnSync } from "node:child_process"
import { basename, join } from "node:path"
import process from "node:process"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { demoDir, salmorejoEs, scenariosDir, tempFolder } from "./fixtures/scenarios.ts"

const SPAWNS = { timeout: 180_000 }
const temp = tempFolder("mcp-built")
afterAll(() => temp.remove())
const dist = temp.path("dist")

beforeAll(() => {
  const built = spawnSync(process.execPath, [join(demoDir, "build.ts"), dist], {
    encoding: "utf8",
    timeout: 170_000,
    killSignal: "SIGKILL"
  })
  assert.strictEqual(built.status, 0, `build.ts: ${built.error?.message ?? ""} ${built.stderr}`)
}, 180_000)

/** Reports each file the child loads on stderr, as `LOADED <url>`. */
const hook = `data:text/javascript,${encodeURIComponent(
  `import{registerHooks}from"node:module";registerHooks({load(u,c,n){if(u.startsWith("file:"))process.stderr.write("LOADED "+u+"\\n");return n(u,c)}})`
)}`

/** Runs the built CLI with the hook: its output, and the names of the files it loaded. */
const built = (args: ReadonlyArray<string>) => {
  const r = spawnSync(
    process.execPath,
    ["--disable-warning=ExperimentalWarning", "--import", hook, join(dist, "main.js"), ...args],
    { encoding: "utf8", timeout: 120_000, killSignal: "SIGKILL", env: { ...process.env, NO_COLOR: "1" } }
  )
  assert.isUndefined(r.error, `${args.join(" ")}: ${r.error?.message ?? ""}`)
  const loaded = [...r.stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => basename(m[1] ?? ""))
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.replace(/^LOADED \S+\n/gm, ""), loaded }
}

const isMcpChunk = (file: string): boolean => /^mcp-[\w-]+\.js$/.test(file)

describe("the built CLI and MCP", () => {
  it("harness run of a scenario without MCP never loads the MCP chunk", SPAWNS, () => {
    const r = built(["run", salmorejoEs])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(r.stdout, "PASS salmorejo (es) (end, 4 model calls)\n")
    assert.include(r.loaded, "main.js")
    assert.deepStrictEqual(r.loaded.filter(isMcpChunk), [])
  })

  it("a scenario that mounts a server loads it, and passes", SPAWNS, () => {
    const r = built(["run", join(scenariosDir, "mcp", "calculator.json")])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(r.stdout, "PASS a mounted MCP server (calculator) (end, 4 model calls)\n")
    assert.strictEqual(r.loaded.filter(isMcpChunk).length, 1)
  })

  it("harness mcp serve answers over stdio and exits 0 when stdin ends", SPAWNS, async () => {
    const root = temp.path("root")
    temp.write("root/a.txt", "hello")
    const child = spawn(
      process.execPath,
      [join(dist, "main.js"), "mcp", "serve", "--tools", "files", "--root", root, "--lang", "es"],
      { stdio: ["pipe", "pipe", "pipe"] }
    )
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    const requests = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } }
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "leer", arguments: { ruta: "a.txt" } } },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "leer", arguments: {} } }
    ]
    child.stdin.end(requests.map((r) => `${JSON.stringify(r)}\n`).join(""))
    assert.strictEqual(await exited, 0)
    const results = stdout
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as { result?: unknown }).result)
    assert.deepStrictEqual(results.slice(1), [
      { content: [{ type: "text", text: "hello" }], isError: false },
      { content: [{ type: "text", text: "no se ha ejecutado: falta el campo 'ruta'" }], isError: true }
    ])
  })
})
