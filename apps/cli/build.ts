/**
 * Builds the published `harness` command: `src/main.ts` (and the test workers' thread) bundled with
 * rolldown into `dist/`, effect and every workspace package included, so the installed CLI has
 * no dependencies to resolve at start; subcommands load lazily from their own chunks.
 * `bin/harness.js` turns on Node's compile cache and imports `dist/main.js`. What only some
 * commands use stays out of the shared chunk, in a chunk of its own that only they load: the MCP
 * package, the MCP SDK and its dependencies (the MCP commands, a scenario that mounts a server),
 * the viewer (`harness view`), and the durable engine with effect/cluster and the Postgres driver
 * (`--engine postgres`), the AI SDK's providers (`harness agent`, `harness test --trials`,
 * `harness runner`), and the permission package
 * (`harness agent`, a scenario that declares a policy), and OpenAI's tokenizer with each of its
 * encodings (`harness agent --context-window` with an OpenAI model), and OpenTelemetry (a command run
 * with an `OTEL_*` endpoint set). `harness run` never loads any of them.
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
/** The version `harness --version` prints: the published bundle has no package.json of its sources to read. */
const version: unknown = (JSON.parse(fs.readFileSync(`${here}package.json`, "utf8")) as { readonly version?: unknown })
  .version
if (typeof version !== "string") throw new Error(`${here}package.json has no "version" string`)
const dist = path.resolve(process.argv[2] ?? `${here}dist`)
fs.rmSync(dist, { recursive: true, force: true })

/**
 * The libraries kept apart, each with the modules that load it: the MCP package (the MCP
 * commands, and the scenarios' mounter's import of it), the viewer (the view command), the
 * durable engine, the agent (its command and the AI SDK adapter, which bring the providers) and
 * the permission package (the agent, and the scenarios' permissions' import of it).
 */
const apart: ReadonlyArray<{ readonly name: string; readonly root: RegExp }> = [
  { name: "mcp", root: /[\\/]packages[\\/]mcp[\\/]src[\\/]index\.ts$|[\\/]src[\\/]commands[\\/]Mcp\.ts$/ },
  { name: "viewer", root: /[\\/]packages[\\/]viewer[\\/]src[\\/]index\.ts$|[\\/]src[\\/]commands[\\/]View\.ts$/ },
  // effect/cluster and effect/workflow too: the platform's barrel re-exports its cluster runners, so
  // `harness run`'s imports reach them without using them.
  {
    name: "durable",
    root: /[\\/]packages[\\/]durable[\\/]src[\\/]index\.ts$|[\\/]src[\\/]engine[\\/]Postgres\.ts$|[\\/]effect[\\/]dist[\\/](cluster|workflow|sql)[\\/]|[\\/]platform-node(-shared)?[\\/]dist[\\/]NodeCluster/
  },
  // `harness test --trials` and `harness runner` too: they run a real model through the same providers.
  {
    name: "agent",
    root: /[\\/]packages[\\/]ai-sdk[\\/]src[\\/]index\.ts$|[\\/]src[\\/]commands[\\/](Agent|Trials|Runner)\.ts$/
  },
  { name: "permission", root: /[\\/]packages[\\/]permission[\\/]src[\\/]index\.ts$/ },
  // `harness agent --context-window` with an OpenAI model: the tokenizer, and each encoding's rank
  // table (1–2.4 MB) in a chunk of its own, loaded only when that encoding counts.
  { name: "tokenizer", root: /[\\/]packages[\\/]tokenizer[\\/]src[\\/]index\.ts$/ },
  { name: "o200k", root: /[\\/]gpt-tokenizer[\\/]esm[\\/]bpeRanks[\\/]o200k_base\.js$/ },
  { name: "cl100k", root: /[\\/]gpt-tokenizer[\\/]esm[\\/]bpeRanks[\\/]cl100k_base\.js$/ },
  // `harness agent --commands` and a scenario that declares commands: the sandboxed command tool.
  { name: "command", root: /[\\/]packages[\\/]command[\\/]src[\\/]index\.ts$/ },
  // OpenTelemetry (the telemetry package, its SDK and exporters): loaded only when an OTEL_* endpoint is set.
  { name: "telemetry", root: /[\\/]packages[\\/]telemetry[\\/]src[\\/]index\.ts$/ }
]

/**
 * Which chunk each module kept apart goes to: the modules the entries do not reach without going
 * through a root, by the groups whose roots reach them (a group's walk stops at the modules the
 * entries reach and at the other groups' roots, whose chunks it loads). A module one group
 * reaches goes to that group's chunk; one several groups reach (zod: the MCP SDK's and the AI
 * SDK's) to the chunk `apart`, which only they load. Known once the graph is built, before
 * chunks are made (the groups' tests below read it then).
 */
const only = new Map<string, string>()
const several = "apart"
const keepApart: Plugin = {
  name: "keep-apart",
  buildEnd() {
    const walk = (from: ReadonlyArray<string>, stop: (id: string) => boolean): Set<string> => {
      const reached = new Set<string>()
      const pending = [...from]
      for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
        if (reached.has(id) || stop(id)) continue
        reached.add(id)
        const info = this.getModuleInfo(id)
        pending.push(...(info?.importedIds ?? []), ...(info?.dynamicallyImportedIds ?? []))
      }
      return reached
    }
    const ids = [...this.getModuleIds()]
    const entries = ids.filter((id) => this.getModuleInfo(id)?.isEntry === true)
    const common = walk(entries, (id) => apart.some((group) => group.root.test(id)))
    const owners = new Map<string, Array<string>>()
    for (const group of apart) {
      const roots = ids.filter((id) => group.root.test(id))
      const otherRoot = (id: string) => apart.some((other) => other !== group && other.root.test(id))
      for (const id of walk(roots, (id) => common.has(id) || otherRoot(id))) {
        owners.set(id, [...(owners.get(id) ?? []), group.name])
      }
    }
    for (const [id, names] of owners) only.set(id, names.length === 1 && names[0] !== undefined ? names[0] : several)
  }
}

/** Code from a dependency or a workspace package, not the CLI's own modules. */
const library = /node_modules|packages/

const build = await rolldown({
  input: {
    main: `${here}src/main.ts`,
    // harness test's worker thread, which TestWorkers starts as `TestWorker.js` next to its chunk.
    TestWorker: `${here}src/workers/TestWorker.ts`
  },
  platform: "node",
  transform: { define: { __HARNESS_VERSION__: JSON.stringify(version) } },
  external: [/^node:/, "rolldown"],
  logLevel: "warn",
  plugins: [keepApart]
})
try {
  await build.write({
    dir: dist,
    format: "esm",
    minify: true,
    chunkFileNames: "[name]-[hash].js",
    // Everything a command shares (effect, the packages) in one chunk: one file to load, not twenty.
    // The libraries only some commands use in chunks of their own (mcp, viewer, durable, agent,
    // permission, and `apart` for those several of them use), loaded when one of them runs. Library code only:
    // a group takes its modules' dependencies too, and the CLI's own modules such a command
    // imports (ExitCode) must not be pulled out of reach of the others.
    codeSplitting: {
      groups: [
        { name: "shared", test: (id) => library.test(id) && !only.has(id) },
        ...[several, ...apart.map((group) => group.name)].map((name) => ({
          name,
          test: (id: string) => library.test(id) && only.get(id) === name
        }))
      ]
    }
  })
} finally {
  await build.close()
}
const files = fs.readdirSync(dist)
const bytes = files.reduce((sum, file) => sum + fs.statSync(`${dist}/${file}`).size, 0)
console.log(`${path.relative(process.cwd(), dist) || "."}/: ${files.length} files, ${(bytes / 1024).toFixed(0)} KiB`)
