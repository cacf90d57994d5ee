/**
 * Copies each package's `package.json` version into its `deno.json`, for JSR, after
 * `changeset version` bumped npm's (`pnpm run version` runs both). With `--check` it changes
 * nothing and fails when a `deno.json` version differs, naming the package and both versions.
 *
 *   node tools/jsr-check/sync-versions.ts [--check] [--root DIR]
 *
 * A package is a folder under `packages/` with a `package.json`; one without a `deno.json`, or
 * with a manifest that is not a JSON object, is reported and fails the run (its version cannot be
 * kept). Exits 0 when every version agrees (or was made to), 1 when one differs (`--check`) or
 * cannot be kept, 2 on a usage error. Runs on Node 22 type stripping: erasable TypeScript only.
 */
import { writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import * as Manifest from "./Manifest.ts"
import * as Versions from "./Versions.ts"

const usage = "usage: node tools/jsr-check/sync-versions.ts [--check] [--root DIR]"

const parse = (
  args: ReadonlyArray<string>
): { readonly check: boolean; readonly root: string } | { readonly error: string } => {
  let check = false
  let root = fileURLToPath(new URL("../../", import.meta.url))
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === "--check") check = true
    else if (arg === "--root") {
      const dir = args[++i]
      if (dir === undefined || dir === "") return { error: "--root needs a folder" }
      root = resolve(dir)
    } else return { error: `unknown argument ${JSON.stringify(arg)}` }
  }
  return { check, root }
}

const options = parse(process.argv.slice(2))
if ("error" in options) {
  console.error(`sync-versions: ${options.error}\n${usage}`)
  process.exit(2)
}

const packages = Manifest.packages(options.root)
if (packages.length === 0) {
  console.error(`sync-versions: no package (a folder with a package.json) under ${join(options.root, "packages")}`)
  process.exit(1)
}

let differing = 0
let broken = 0
for (const pkg of packages) {
  const verdict = Versions.verdict(pkg)
  const where = `packages/${pkg.dir}/deno.json`
  switch (verdict._tag) {
    case "Same":
      break
    case "Broken":
      broken++
      console.error(`sync-versions: packages/${pkg.dir}: ${verdict.problem}`)
      break
    case "Differs":
      if (options.check) {
        differing++
        console.error(
          `sync-versions: ${where} has version ${JSON.stringify(verdict.from)}, package.json ${JSON.stringify(verdict.to)}`
        )
      } else {
        try {
          writeFileSync(join(pkg.path, "deno.json"), verdict.text)
          console.log(`sync-versions: ${where}: ${JSON.stringify(verdict.from)} -> ${JSON.stringify(verdict.to)}`)
        } catch (error) {
          broken++
          console.error(`sync-versions: ${where} cannot be written (${error instanceof Error ? error.message : error})`)
        }
      }
      break
  }
}

if (differing > 0) {
  console.error(
    `sync-versions: ${differing} deno.json version(s) differ from package.json (node tools/jsr-check/sync-versions.ts copies them)`
  )
}
if (broken > 0) console.error(`sync-versions: ${broken} package(s) cannot have their version kept`)
if (differing > 0 || broken > 0) process.exit(1)
console.log(`sync-versions: ${packages.length} deno.json version(s) match their package.json`)
