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
 * with an `OTEL_*` endpoint set). `harness run` never loads any of them. Node's built-in modules
 * are read with `process.getBuiltinModule` rather than imported (`builtinsAtUse`), and once bundled
 * the CLI runs `harness run` and `harness mcp serve` once under V8's coverage so that the functions
 * they run at start are written in the form V8 compiles with their chunk, which Node's compile
 * cache then keeps (`compileHints.ts`).
 *
 *   node build.ts [OUT]     (OUT: the output folder, `dist/` by default)
 *
 * Runs on Node 22 type stripping (erasable TypeScript only), like the CLI's sources.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import { fileURLToPath } from "node:url"
import * as path from "node:path"
import { type Plugin, rolldown } from "rolldown"
import * as CompileHints from "./compileHints.ts"

const here = fileURLToPath(new URL("./", import.meta.url))
/** The version `harness --version` prints: the published bundle has no package.json of its sources to read. */
const version: unknown = (JSON.parse(fs.readFileSync(`${here}package.json`, "utf8")) as { readonly version?: unknown })
  .version
if (typeof version !== "string") throw new Error(`${here}package.json has no "version" string`)
const dist = path.resolve(process.argv[2] ?? `${here}dist`)
fs.rmSync(dist, { recursive: true, force: true })

/**
 * The libraries and the ways in kept apart, each with the modules that load it. The libraries:
 * the MCP package with the SDK (a scenario's mounter, `harness mcp serve --http`, `harness agent
 * --mcp`), the viewer (the view command), the durable engine, the agent (its command and the AI
 * SDK adapter, which bring the providers), the permission package, the tokenizer, the command
 * package and OpenTelemetry. The ways in (`main.ts` picks one): the command tree (`MainFull`),
 * `harness run` read without it (`MainRun`, and `harness test`'s worker thread) and `harness mcp
 * serve` read without it (`MainServe`).
 */
const apart: ReadonlyArray<{ readonly name: string; readonly root: RegExp }> = [
  { name: "mcp", root: /[\\/]packages[\\/]mcp[\\/]src[\\/]index\.ts$/ },
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
  { name: "telemetry", root: /[\\/]packages[\\/]telemetry[\\/]src[\\/]index\.ts$/ },
  // The ways in: the command tree, and the two commands read without it.
  { name: "cli", root: /[\\/]src[\\/]common[\\/]MainFull\.ts$/ },
  { name: "run", root: /[\\/]src[\\/]common[\\/]MainRun\.ts$|[\\/]src[\\/]workers[\\/]TestWorker\.ts$/ },
  { name: "serve", root: /[\\/]src[\\/]common[\\/]MainServe\.ts$/ }
]

/**
 * Which chunk each library module goes to, by the static imports that reach it: `shared` for
 * those the entries reach without going through a root (what `main.ts` itself needs), otherwise
 * the groups whose roots reach them (a group's walk stops at the shared modules and at the other
 * groups' roots, whose chunks it loads), one chunk per set of groups (`cli_run`: what the command
 * tree and `harness run` both load; `agent_mcp`: zod, for the two SDKs). A module reached only
 * through a dynamic import from outside every root is left to rolldown, which puts it in a
 * chunk loaded with that import. Known once the graph is built, before chunks are made.
 */
const owner = new Map<string, string>()
const shared = "shared"
/** A set of groups' chunk name: the names joined (`cli_run`), or `lib-` and a digest when there are more than three. */
const chunkName = (names: ReadonlyArray<string>): string => {
  const sorted = [...names].sort()
  return sorted.length <= 3
    ? sorted.join("_")
    : `lib-${createHash("sha256").update(sorted.join(",")).digest("hex").slice(0, 8)}`
}
const keepApart: Plugin = {
  name: "keep-apart",
  buildEnd() {
    const walk = (from: ReadonlyArray<string>, stop: (id: string) => boolean): Set<string> => {
      const reached = new Set<string>()
      const pending = [...from]
      for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
        if (reached.has(id) || stop(id)) continue
        reached.add(id)
        pending.push(...(this.getModuleInfo(id)?.importedIds ?? []))
      }
      return reached
    }
    const ids = [...this.getModuleIds()]
    const isRoot = (id: string) => apart.some((group) => group.root.test(id))
    const entries = ids.filter((id) => this.getModuleInfo(id)?.isEntry === true)
    const common = walk(entries, isRoot)
    for (const id of common) owner.set(id, shared)
    const owners = new Map<string, Array<string>>()
    for (const group of apart) {
      const roots = ids.filter((id) => group.root.test(id))
      const otherRoot = (id: string) => apart.some((other) => other !== group && other.root.test(id))
      for (const id of walk(roots, (id) => common.has(id) || otherRoot(id))) {
        owners.set(id, [...(owners.get(id) ?? []), group.name])
      }
    }
    for (const [id, names] of owners) owner.set(id, chunkName(names))
  }
}

/** Code from a dependency or a workspace package, not the CLI's own modules. */
const library = /node_modules|packages/

/**
 * Fails the build when a library module is not in the chunk `owner` gave it: a chunk that
 * carried another's modules would load them all (as the durable chunk once carried the
 * permission package into `harness mcp serve`).
 */
const checkPlaced: Plugin = {
  name: "check-placed",
  generateBundle(_options, bundle) {
    const misplaced: Array<string> = []
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== "chunk") continue
      for (const id of chunk.moduleIds) {
        const wanted = library.test(id) ? owner.get(id) : undefined
        if (wanted !== undefined && wanted !== chunk.name) misplaced.push(`${id}: in ${chunk.name}, not ${wanted}`)
      }
    }
    if (misplaced.length > 0) this.error(`modules outside their chunk:\n${misplaced.slice(0, 20).join("\n")}`)
  }
}

/**
 * Node's built-in modules read with `process.getBuiltinModule` where a chunk imported them: an
 * `import` of `node:process` makes Node build the module's ESM namespace, which reads every
 * export, `stdin`, `stdout` and `stderr` among them (opening all three streams), and `node:fs`'s
 * reads its streams and `fs/promises`; `getBuiltinModule` hands the module as it is. Each
 * `import … from "node:x"` at the top of a chunk becomes a constant read in its place (a named
 * import is the module's property, read there once). The modules of `loadedOnUse` (not loaded by
 * Node's own start, and costly: `node:crypto` takes about 4 ms, for the file system's temporary
 * names) are bound to a namespace that loads them at their first use.
 */
const loadedOnUse: ReadonlySet<string> = new Set(["node:crypto"])
const lazyBuiltin =
  "const __lazyBuiltin=(id)=>{let m;const load=()=>m??=globalThis.process.getBuiltinModule(id);" +
  "return new Proxy({},{get:(_,k)=>load()[k],has:(_,k)=>k in load(),ownKeys:()=>Reflect.ownKeys(load())," +
  "getOwnPropertyDescriptor:(_,k)=>{const d=Reflect.getOwnPropertyDescriptor(load(),k);" +
  "return d===undefined?undefined:{...d,configurable:true}}})};"
const builtinsAtUse: Plugin = {
  name: "builtins-at-use",
  renderChunk(code) {
    const edits: Array<{ readonly start: number; readonly end: number; readonly text: string }> = []
    let lazy = false
    for (const node of this.parse(code).body) {
      if (node.type !== "ImportDeclaration") continue
      const source = node.source.value
      if (!source.startsWith("node:")) continue
      const read = `globalThis.process.getBuiltinModule(${JSON.stringify(source)})`
      const named: Array<string> = []
      const parts: Array<string> = []
      for (const specifier of node.specifiers) {
        if (specifier.type === "ImportSpecifier") {
          const imported =
            specifier.imported.type === "Identifier"
              ? specifier.imported.name
              : JSON.stringify(specifier.imported.value)
          named.push(imported === specifier.local.name ? imported : `${imported}:${specifier.local.name}`)
        } else if (loadedOnUse.has(source)) {
          lazy = true
          parts.push(`const ${specifier.local.name}=__lazyBuiltin(${JSON.stringify(source)});`)
        } else {
          parts.push(`const ${specifier.local.name}=${read};`)
        }
      }
      if (named.length > 0) parts.push(`const {${named.join(",")}}=${read};`)
      if (node.specifiers.length === 0) parts.push(`${read};`)
      edits.push({ start: node.start, end: node.end, text: parts.join("") })
    }
    if (edits.length === 0) return null
    let text = code
    for (const edit of edits.reverse()) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end)
    // The helper goes where the chunk's first built-in import stood: before any use (a `#!` line stays first).
    if (lazy) {
      const at = edits.at(-1)?.start ?? 0
      text = text.slice(0, at) + lazyBuiltin + text.slice(at)
    }
    return { code: text }
  },
  generateBundle(_options, bundle) {
    // A constant read where an import stood is not there before its chunk runs: only a chunk in
    // an import cycle could be called earlier, so none may be.
    const imports = new Map<string, ReadonlyArray<string>>()
    const reading: Array<string> = []
    for (const output of Object.values(bundle)) {
      if (output.type !== "chunk") continue
      imports.set(output.fileName, output.imports)
      if (output.code.includes("process.getBuiltinModule(")) reading.push(output.fileName)
    }
    const reaches = (from: string, to: string): boolean => {
      const seen = new Set<string>()
      const pending = [...(imports.get(from) ?? [])]
      for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
        if (next === to) return true
        if (seen.has(next)) continue
        seen.add(next)
        pending.push(...(imports.get(next) ?? []))
      }
      return false
    }
    const cyclic = reading.filter((file) => reaches(file, file))
    if (cyclic.length > 0) this.error(`chunks in an import cycle read built-in modules: ${cyclic.join(", ")}`)
  }
}

const build = await rolldown({
  input: {
    main: `${here}src/main.ts`,
    // harness test's worker thread, which TestWorkers starts as `TestWorker.js` next to its chunk.
    TestWorker: `${here}src/workers/TestWorker.ts`
  },
  platform: "node",
  // The groups below take modules without their dependencies: entry chunks may gain exports.
  preserveEntrySignatures: "allow-extension",
  transform: { define: { __HARNESS_VERSION__: JSON.stringify(version) } },
  external: [/^node:/, "rolldown"],
  logLevel: "warn",
  plugins: [keepApart, checkPlaced, builtinsAtUse]
})
try {
  await build.write({
    dir: dist,
    format: "esm",
    minify: true,
    // Non-ASCII characters escaped: a chunk of ASCII is a one-byte string for V8 (a single `ñ`
    // made the whole chunk a two-byte one, twice the memory and slower to decode and scan).
    charset: "ascii",
    chunkFileNames: "[name]-[hash].js",
    // Everything `main.ts` needs in one chunk, and what each way in and each library needs apart
    // from the others in one chunk per set of groups that load it (mcp, viewer, durable, agent,
    // permission, …, cli, run, serve, cli_run…): `harness mcp serve` loads no command tree and no
    // scenario package, `harness run` no MCP server. Library code only: the CLI's own modules are
    // split by rolldown along its dynamic imports. Each group takes exactly the modules `owner`
    // gives it (not their dependencies too, which `owner` already placed).
    codeSplitting: {
      groups: [
        {
          debugName: "owners",
          name: (id: string) => (library.test(id) ? (owner.get(id) ?? null) : null),
          includeDependenciesRecursively: false
        }
      ]
    }
  })
} finally {
  await build.close()
}

// The functions `harness run` and `harness mcp serve` run at start, compiled with their chunks
// (see compileHints.ts): profiled on a shipped conversation and on a server answering a
// handshake, its listing and a read, over a folder of one file.
const root = fs.mkdtempSync(path.join(os.tmpdir(), "harness-hints-root-"))
try {
  fs.writeFileSync(path.join(root, "notes.md"), "hello\n")
  const messages = [
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "build", version: "0.0.0" } }
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 1, method: "tools/list" },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "read", arguments: { path: "notes.md" } } }
  ]
  const hinted = CompileHints.apply(dist, [
    { args: ["run", `${here}scenarios/es/salmorejo.json`] },
    {
      args: ["mcp", "serve", "--tools", "files", "--root", root],
      input: messages.map((message) => `${JSON.stringify(message)}\n`).join("")
    }
  ])
  console.log(
    `compile hints: ${hinted.arrows} arrow functions, ${hinted.expressions} function expressions, ${hinted.declarations} declarations and ${hinted.methods} methods compiled with their chunks (${hinted.kept} left to compile when they run)`
  )
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}
const files = fs.readdirSync(dist)
const bytes = files.reduce((sum, file) => sum + fs.statSync(`${dist}/${file}`).size, 0)
console.log(`${path.relative(process.cwd(), dist) || "."}/: ${files.length} files, ${(bytes / 1024).toFixed(0)} KiB`)
