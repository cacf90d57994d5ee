/**
 * The built CLI (`build.ts`, as published) and MCP: `harness run` of a scenario without MCP never
 * loads the MCP chunk (the SDK and its dependencies), a scenario that mounts a server loads it,
 * and `harness mcp serve` answers over stdio. A module-loading hook preloaded into the child
 * lists every file it loads.
 */
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { builtCli, runBuilt } from "./fixtures/built.ts"
import { assertPrintsVersion } from "./fixtures/harness.ts"
import { salmorejoEs, scenariosDir } from "./fixtures/scenarios.ts"
import { serveOnce } from "./fixtures/stdio.ts"

const SPAWNS = { timeout: 180_000 }
const { temp, dist } = builtCli("mcp-built")

/** Runs the built CLI: its output, and the names of the files it loaded. */
const built = (args: ReadonlyArray<string>) => runBuilt(dist, args)

const isMcpChunk = (file: string): boolean => /^mcp-[\w-]+\.js$/.test(file)

describe("the built CLI's version", () => {
  it("--version prints package.json's version, written in at build time", SPAWNS, () => {
    assertPrintsVersion(built(["--version"]))
  })
})

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
    const { code, messages } = await serveOnce({
      args: [join(dist, "main.js"), "mcp", "serve", "--tools", "files", "--root", root, "--lang", "es"],
      calls: [
        { name: "leer", arguments: { ruta: "a.txt" } },
        { name: "leer", arguments: {} }
      ]
    })
    assert.strictEqual(code, 0)
    const results = messages.map((message) => message.result)
    assert.deepStrictEqual(results.slice(1), [
      { content: [{ type: "text", text: "hello" }], isError: false },
      { content: [{ type: "text", text: "no se ha ejecutado: falta el campo 'ruta'" }], isError: true }
    ])
  })
})
