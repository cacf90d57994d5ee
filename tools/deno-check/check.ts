/**
 * Type-checks every workspace entry point with Deno: `packages/<name>/src/index.ts` and `apps/<name>/src/main.ts`,
 * whichever exist (but the Node-only bench), in one `deno check` run (one module graph, so shared code is
 * checked once).
 *
 *   node tools/deno-check/check.ts
 *
 * Uses the pinned Deno from `node_modules/.bin/deno`; the root `deno.json` (nodeModulesDir: manual) makes it
 * resolve everything from pnpm's node_modules without network access. Exits with Deno's status, or 1 if
 * there is nothing to check or Deno cannot be started. Runs on Node 22 type stripping: erasable TypeScript only.
 */
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../", import.meta.url))

const entryPoints = (folder: string, entry: string): Array<string> => {
  const dir = join(root, folder)
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `${folder}/${d.name}/${entry}`)
    .filter((path) => existsSync(join(root, path)))
    .sort()
}

/**
 * Apps that run on Node only and are not Deno entry points: the bench measures Node peers (the
 * AI SDK and its mock model) in one Node process.
 */
const nodeOnly = new Set(["apps/bench/src/main.ts"])

const files = [...entryPoints("packages", "src/index.ts"), ...entryPoints("apps", "src/main.ts")].filter(
  (file) => !nodeOnly.has(file)
)
if (files.length === 0) {
  console.error("deno-check: no packages/*/src/index.ts or apps/*/src/main.ts found")
  process.exit(1)
}

const deno = join(root, "node_modules", ".bin", "deno")
if (!existsSync(deno)) {
  console.error(`deno-check: ${deno} not found (run pnpm install)`)
  process.exit(1)
}

console.log(`deno-check: deno check ${files.join(" ")}`)
const result = spawnSync(deno, ["check", ...files], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" }
})
if (result.error !== undefined) {
  console.error(`deno-check: could not run deno: ${result.error.message}`)
  process.exit(1)
}
if (result.status === 0) {
  console.log(`deno-check: ${files.length} entry point(s) OK`)
} else {
  console.error(`deno-check: failed (${result.signal ?? `exit ${result.status}`})`)
}
process.exit(result.status ?? 1)
