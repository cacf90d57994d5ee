/**
 * The packages as a user meets them: packs every package under `packages/` (their `prepack`
 * builds `dist/`), installs the tarballs with npm into a fresh project in a temporary folder
 * (with `effect` as the app's own dependency), and runs a user's program on the machine's own
 * Node, on the pinned Node 22, under Deno and under Bun, comparing each output with the expected
 * one. It also runs the README's quick start as written, checks that the install holds exactly
 * one copy of effect, and that an app on an incompatible effect is refused at install time.
 *
 *   node tools/consumer-check/check.ts [--keep]
 *
 * Needs the npm registry (for effect and Bun). Exits 1 when any check fails. Runs on Node 22 type
 * stripping: erasable TypeScript only.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../", import.meta.url))
const here = fileURLToPath(new URL("./", import.meta.url))
const keep = process.argv.includes("--keep")
const bunVersion = "1.4.5"
/** The effect the app depends on, and one the packages must refuse (their peer range is ^4.1.0). */
const appEffect = "4.1.0"
const incompatibleEffect = "4.0.6"
/** The packages the user's program imports; the others come in as their dependencies. */
const direct = ["@agent-harness/executor", "@agent-harness/scripted-model", "@agent-harness/tool-schema"]

const failures: Array<string> = []
const check = (ok: boolean, what: string): void => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`)
  if (!ok) failures.push(what)
}

interface Ran {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
  readonly error: string | undefined
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeoutMs = 300_000): Ran => {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" }
  })
  return {
    status: result.status,
    stdout: result.stdout ?? "",
    stderr: result.stderr ?? "",
    error: result.error?.message
  }
}

const describe = (ran: Ran): string =>
  ran.error !== undefined ? `could not run: ${ran.error}` : `exit ${ran.status}\n${ran.stdout}${ran.stderr}`.trimEnd()

/** Runs a command that must succeed; stops the check with its output when it does not. */
const must = (what: string, command: string, args: ReadonlyArray<string>, cwd: string): Ran => {
  const ran = run(command, args, cwd)
  if (ran.error !== undefined || ran.status !== 0) {
    console.error(`consumer-check: ${what} failed: ${describe(ran)}`)
    process.exit(1)
  }
  return ran
}

/** The machine's own Node: the first `node` on PATH outside this repository's node_modules. */
const machineNode = (): string | undefined => {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir === "" || dir.includes(`${path.sep}node_modules${path.sep}`) || dir.endsWith(`${path.sep}node_modules`)) {
      continue
    }
    const candidate = path.join(dir, "node")
    if (fs.existsSync(candidate) && path.resolve(candidate) !== path.resolve(process.execPath)) return candidate
  }
  return undefined
}

/** Every installed copy of a package under a node_modules tree (nested copies included). */
const copiesOf = (name: string, nodeModules: string): Array<string> => {
  const found: Array<string> = []
  const visit = (dir: string, depth: number): void => {
    if (depth > 12 || !fs.existsSync(dir)) return
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === ".bin") continue
      const full = path.join(dir, entry.name)
      if (entry.name.startsWith("@")) {
        visit(full, depth + 1)
        continue
      }
      const manifest = path.join(full, "package.json")
      if (fs.existsSync(manifest)) {
        const parsed: unknown = JSON.parse(fs.readFileSync(manifest, "utf8"))
        if (typeof parsed === "object" && parsed !== null && "name" in parsed && parsed.name === name) found.push(full)
      }
      visit(path.join(full, "node_modules"), depth + 1)
    }
  }
  visit(nodeModules, 0)
  return found
}

/** The README's quick start: the first ```ts block under "## Quick start". */
const quickStart = (): string => {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
  const section = readme.split(/^## Quick start$/m)[1]
  const block = section?.match(/```ts\n([\s\S]*?)```/)?.[1]
  if (block === undefined) {
    console.error("consumer-check: README.md has no ```ts block under '## Quick start'")
    process.exit(1)
  }
  return block
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "agent-harness-consumer-"))
const tarballs = path.join(work, "tarballs")
const app = path.join(work, "app")
fs.mkdirSync(app)
console.log(`consumer-check: working in ${work}`)

// 1. Tarballs, as `pnpm pack` makes them for npm (prepack builds dist/).
must("pack", "pnpm", ["-r", "--filter", "./packages/**", "pack", "--pack-destination", tarballs], root)
const packed = new Map<string, string>()
for (const file of fs.readdirSync(tarballs).sort()) {
  const manifest = run("tar", ["-xzOf", path.join(tarballs, file), "package/package.json"], work)
  const parsed: unknown = JSON.parse(manifest.stdout)
  if (typeof parsed === "object" && parsed !== null && "name" in parsed && typeof parsed.name === "string") {
    packed.set(parsed.name, `file:${path.join(tarballs, file)}`)
    const text = manifest.stdout
    check(!text.includes("workspace:"), `${parsed.name}: no workspace: ranges in the packed manifest`)
    check(!/"private"\s*:\s*true/.test(text), `${parsed.name}: not private`)
    check(/"types":\s*"\.\/dist\/index\.d\.ts"/.test(text), `${parsed.name}: exports types from dist`)
    const listing = run("tar", ["-tzf", path.join(tarballs, file)], work).stdout
    check(listing.includes("package/dist/index.js"), `${parsed.name}: ships dist/index.js`)
    check(listing.includes("package/LICENSE"), `${parsed.name}: ships its LICENSE`)
    const targets = [...text.matchAll(/"(?:types|default)":\s*"\.\/([^"]+)"/g)].map((m) => m[1])
    const missing = targets.filter((target) => !listing.includes(`package/${target}`))
    check(
      missing.length === 0,
      `${parsed.name}: every export target is in the tarball${missing.length === 0 ? "" : ` (missing: ${missing.join(", ")})`}`
    )
  }
}
console.log(`packed ${packed.size} packages`)

// 2. A user's project: effect is the app's; the internal dependencies resolve to the tarballs,
// as they would from the registry.
const manifest = (effect: string) => ({
  name: "consumer",
  private: true,
  type: "module",
  dependencies: {
    effect,
    ...Object.fromEntries(direct.map((name) => [name, packed.get(name) ?? `missing ${name}`]))
  },
  overrides: Object.fromEntries(packed)
})
fs.writeFileSync(path.join(app, "package.json"), `${JSON.stringify(manifest(appEffect), null, 2)}\n`)
must("npm install", "npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], app)
const effects = copiesOf("effect", path.join(app, "node_modules"))
check(effects.length === 1, `one copy of effect in the install (found ${effects.length}: ${effects.join(", ")})`)

// 3. The programs: the fixture and the README's quick start, type-checked against the installed
// declarations (and compiled for Node 20, which cannot strip types).
for (const file of ["main.ts", "tsconfig.json"]) fs.copyFileSync(path.join(here, "fixture", file), path.join(app, file))
fs.writeFileSync(path.join(app, "quickstart.ts"), quickStart())
const tsc = run(path.join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], app)
check(
  tsc.status === 0,
  `the programs type-check against the installed .d.ts files${tsc.status === 0 ? "" : `\n${describe(tsc)}`}`
)

const expected = fs.readFileSync(path.join(here, "fixture", "expected.txt"), "utf8")
const expectedQuickStart = "end Sunny, 31 °C.\n"
const bunDir = path.join(work, "bun")
const bunInstall = run(
  "npm",
  ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", bunDir, `bun@${bunVersion}`],
  work
)
const bun = path.join(bunDir, "node_modules", ".bin", "bun")
const node20 = machineNode()
const runtimes: Array<{
  readonly name: string
  readonly command: string | undefined
  readonly args: (file: string) => Array<string>
}> = [
  {
    name: `the machine's Node (${node20 === undefined ? "none found" : run(node20, ["-v"], work).stdout.trim()})`,
    command: node20,
    args: (file) => [path.join("out", file.replace(/\.ts$/, ".js"))]
  },
  { name: `the pinned Node (${process.version})`, command: process.execPath, args: (file) => [file] },
  {
    name: "Deno",
    command: path.join(root, "node_modules", ".bin", "deno"),
    args: (file) => ["run", "--allow-read", "--allow-env", file]
  },
  { name: `Bun ${bunVersion}`, command: bunInstall.status === 0 ? bun : undefined, args: (file) => [file] }
]
for (const runtime of runtimes) {
  if (runtime.command === undefined) {
    check(false, `${runtime.name}: not available${runtime.name.startsWith("Bun") ? `\n${describe(bunInstall)}` : ""}`)
    continue
  }
  for (const [file, want] of [
    ["main.ts", expected],
    ["quickstart.ts", expectedQuickStart]
  ] as const) {
    const ran = run(runtime.command, runtime.args(file), app, 120_000)
    const ok = ran.status === 0 && ran.stdout === want
    check(ok, `${runtime.name}: ${file}${ok ? "" : `\nexpected:\n${want}got: ${describe(ran)}`}`)
  }
}

// 4. An app on an effect outside the packages' peer range is refused when it installs.
const old = path.join(work, "old-effect")
fs.mkdirSync(old)
fs.writeFileSync(path.join(old, "package.json"), `${JSON.stringify(manifest(incompatibleEffect), null, 2)}\n`)
const refused = run("npm", ["install", "--dry-run", "--no-audit", "--no-fund"], old)
check(
  refused.status !== 0 && refused.stderr.includes("ERESOLVE") && refused.stderr.includes(`peer effect@"^4.1.0"`),
  `effect ${incompatibleEffect} in the app is refused at install time (ERESOLVE naming the peer range)`
)

// 5. The CLI as a command: its tarball installs with nothing else (the CLI is bundled) and runs a
// scenario it ships, from built JavaScript.
const cliTarballs = path.join(work, "cli-tarball")
must("pack the CLI", "pnpm", ["--filter", "@agent-harness/cli", "pack", "--pack-destination", cliTarballs], root)
const cliTarball = fs.readdirSync(cliTarballs).find((file) => file.endsWith(".tgz"))
const cliApp = path.join(work, "cli")
fs.mkdirSync(cliApp)
fs.writeFileSync(
  path.join(cliApp, "package.json"),
  `${JSON.stringify({ name: "cli-user", private: true, dependencies: { "@agent-harness/cli": `file:${path.join(cliTarballs, cliTarball ?? "missing.tgz")}` } }, null, 2)}\n`
)
must("npm install of the CLI", "npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], cliApp)
const installedCli = path.join(cliApp, "node_modules", "@agent-harness", "cli")
const cliManifest: unknown = JSON.parse(fs.readFileSync(path.join(installedCli, "package.json"), "utf8"))
check(
  typeof cliManifest === "object" && cliManifest !== null && !("dependencies" in cliManifest),
  "the CLI package has no runtime dependencies (bundled)"
)
check(copiesOf("effect", path.join(cliApp, "node_modules")).length === 0, "the CLI install holds no separate effect")
const harnessBin = path.join(cliApp, "node_modules", ".bin", "harness")
const scenario = path.join(installedCli, "scenarios", "es", "salmorejo.json")
const cliRun = run(process.execPath, [harnessBin, "run", scenario], cliApp, 120_000)
check(
  cliRun.status === 0 && cliRun.stdout.includes("PASS salmorejo (es)") && cliRun.stderr === "",
  `the installed harness runs a shipped scenario: exit 0, PASS, nothing on stderr${cliRun.status === 0 ? "" : `\n${describe(cliRun)}`}`
)
const cliHelp = run(process.execPath, [harnessBin, "--version"], cliApp, 60_000)
check(cliHelp.status === 0 && cliHelp.stdout.includes("0.1.0"), "harness --version")

if (keep) console.log(`consumer-check: kept ${work}`)
else fs.rmSync(work, { recursive: true, force: true })
console.log(
  failures.length === 0 ? "consumer-check: all checks passed" : `consumer-check: ${failures.length} check(s) failed`
)
process.exit(failures.length === 0 ? 0 : 1)
