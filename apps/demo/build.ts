/**
 * Builds the published `harness` command: `src/main.ts` (and the soak's child) bundled with
 * rolldown into `dist/`, effect and every workspace package included, so the installed CLI has
 * no dependencies to resolve at start; subcommands load lazily from their own chunks.
 * `bin/harness.js` turns on Node's compile cache and imports `dist/main.js`.
 *
 *   node build.ts
 *
 * Runs on Node 22 type stripping (erasable TypeScript only), like the CLI's sources.
 */
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { rolldown } from "rolldown"

const here = fileURLToPath(new URL("./", import.meta.url))
const dist = `${here}dist`
fs.rmSync(dist, { recursive: true, force: true })
const build = await rolldown({
  input: { main: `${here}src/main.ts`, SoakChild: `${here}src/SoakChild.ts` },
  platform: "node",
  external: [/^node:/, "rolldown"],
  logLevel: "warn"
})
try {
  await build.write({
    dir: dist,
    format: "esm",
    minify: true,
    chunkFileNames: "[name]-[hash].js",
    // Everything a command shares (effect, the packages) in one chunk: one file to load, not twenty.
    codeSplitting: { groups: [{ name: "shared", test: /node_modules|packages/ }] }
  })
} finally {
  await build.close()
}
const files = fs.readdirSync(dist)
const bytes = files.reduce((sum, file) => sum + fs.statSync(`${dist}/${file}`).size, 0)
console.log(`dist/: ${files.length} files, ${(bytes / 1024).toFixed(0)} KiB`)
