/**
 * Builds the published `harness` command: `src/main.ts` (and the soak's child) bundled with
 * rolldown into `dist/`, effect and every workspace package included, so the installed CLI has
 * no dependencies to resolve at start; subcommands load lazily from their own chunks.
 * `bin/harness.js` turns on Node's compile cache and imports `dist/main.js`. What only the MCP
 * commands use (`@agent-harness/mcp`, the MCP SDK and its dependencies) stays out of the shared
 * chunk, in chunks of its own that only they load: `harness run` never loads the SDK.
 *
 *   node build.ts [OUT]     (OUT: the output folder, `dist/` by default)
 *
 * Runs on Node 22 type stripping (erasable TypeScript only), like the CLI's sources.
 */
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import * as path from "node:path"
import { type Plugin, rolldown } from "rolldown"

const here = fileURLToPath(new URL("./", import.meta.url))
const dist = path.resolve(process.argv[2] ?? `${here}dist`)
fs.rmSync(dist, { recursive: true, force: true })

/** The modules that load the MCP package: the MCP commands, and the scenarios' mounter's import of it. */
const mcpRoot = (id: string): boolean =>
  /[\\/]packages[\\/]mcp[\\/]src[\\/]index\.ts$|[\\/]src[\\/]McpCommand\.ts$/.test(id)

/**
 * The modules only the MCP roots reach: everything the graph holds minus what the entries reach
 * without going through an MCP root. Known once the graph is built, before chunks are made.
 */
const mcpOnly = new Set<string>()
const mcpApart: Plugin = {
  name: "mcp-apart",
  buildEnd() {
    const reached = new Set<string>()
    const pending = [...this.getModuleIds()].filter((id) => this.getModuleInfo(id)?.isEntry === true)
    for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
      if (reached.has(id) || mcpRoot(id)) continue
      reached.add(id)
      const info = this.getModuleInfo(id)
      pending.push(...(info?.importedIds ?? []), ...(info?.dynamicallyImportedIds ?? []))
    }
    for (const id of this.getModuleIds()) if (!reached.has(id)) mcpOnly.add(id)
  }
}

/** Code from a dependency or a workspace package, not the CLI's own modules. */
const library = /node_modules|packages/

const build = await rolldown({
  input: { main: `${here}src/main.ts`, SoakChild: `${here}src/SoakChild.ts` },
  platform: "node",
  external: [/^node:/, "rolldown"],
  logLevel: "warn",
  plugins: [mcpApart]
})
try {
  await build.write({
    dir: dist,
    format: "esm",
    minify: true,
    chunkFileNames: "[name]-[hash].js",
    // Everything a command shares (effect, the packages) in one chunk: one file to load, not twenty.
    // The libraries only the MCP commands use in one chunk of its own, loaded when one of them
    // runs. Library code only: a group takes its modules' dependencies too, and the CLI's own
    // modules an MCP command imports (ExitCode) must not be pulled out of reach of the others.
    codeSplitting: {
      groups: [
        { name: "shared", test: (id) => library.test(id) && !mcpOnly.has(id) },
        { name: "mcp", test: (id) => library.test(id) && mcpOnly.has(id) }
      ]
    }
  })
} finally {
  await build.close()
}
const files = fs.readdirSync(dist)
const bytes = files.reduce((sum, file) => sum + fs.statSync(`${dist}/${file}`).size, 0)
console.log(`${path.relative(process.cwd(), dist) || "."}/: ${files.length} files, ${(bytes / 1024).toFixed(0)} KiB`)
