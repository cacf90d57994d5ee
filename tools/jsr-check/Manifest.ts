/**
 * The packages of the workspace as JSR sees them: each folder under `packages/` that holds a
 * `package.json`, and its `deno.json`, whose name, version, licence and entry point must be npm's.
 * Runs on Node 22 type stripping: erasable TypeScript only.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

/** A parsed JSON object. */
export type Json = { readonly [key: string]: unknown }

/** A manifest file as read: missing, not a JSON object (and why), or read. */
export type Read =
  | { readonly _tag: "Missing"; readonly file: string }
  | { readonly _tag: "Invalid"; readonly file: string; readonly problem: string }
  | { readonly _tag: "Read"; readonly file: string; readonly text: string; readonly json: Json }

/** One package: its folder under `packages/`, its `package.json` and its `deno.json`. */
export interface Package {
  /** The folder's name under `packages/` (`file-tools`). */
  readonly dir: string
  /** The folder's absolute path. */
  readonly path: string
  readonly npm: Read
  readonly deno: Read
}

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Reads a JSON manifest; never throws. */
export const read = (file: string): Read => {
  if (!existsSync(file)) return { _tag: "Missing", file }
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    return { _tag: "Invalid", file, problem: `cannot be read (${messageOf(error)})` }
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return { _tag: "Invalid", file, problem: `is not JSON (${messageOf(error)})` }
  }
  return isObject(json)
    ? { _tag: "Read", file, text, json }
    : { _tag: "Invalid", file, problem: "is not a JSON object" }
}

/** The folders under `<root>/packages` that hold a `package.json`, sorted by name. */
export const packageDirs = (root: string): ReadonlyArray<string> => {
  const dir = join(root, "packages")
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "package.json")))
    .map((entry) => entry.name)
    .sort()
}

/** Every package of the workspace at `root`, with both manifests read. */
export const packages = (root: string): ReadonlyArray<Package> =>
  packageDirs(root).map((dir) => {
    const path = join(root, "packages", dir)
    return { dir, path, npm: read(join(path, "package.json")), deno: read(join(path, "deno.json")) }
  })

/** The entry points a `deno.json` exports (`"./src/index.ts"`, or the values of an exports map). */
export const entryPoints = (deno: Json): ReadonlyArray<string> => {
  const exports = deno.exports
  if (typeof exports === "string") return [exports]
  if (isObject(exports)) return Object.values(exports).filter((value): value is string => typeof value === "string")
  return []
}

/** The `.` entry of a manifest's `exports` when it is a plain path (`"./src/index.ts"`). */
const dotEntry = (manifest: Json): string | undefined => {
  const exports = manifest.exports
  if (typeof exports === "string") return exports
  if (isObject(exports) && typeof exports["."] === "string") return exports["."]
  return undefined
}

const show = (value: unknown): string => (value === undefined ? "none" : JSON.stringify(value))

/**
 * What is wrong with a package's manifests for JSR, in words (none when nothing is): a
 * `deno.json` missing or unreadable, or whose name, version, licence or entry point is not
 * npm's.
 */
export const problems = (pkg: Package): ReadonlyArray<string> => {
  if (pkg.npm._tag !== "Read") {
    return [pkg.npm._tag === "Missing" ? "package.json is missing" : `package.json ${pkg.npm.problem}`]
  }
  if (pkg.deno._tag === "Missing") return ["no deno.json: JSR cannot publish it (packages/budgets/deno.json is one)"]
  if (pkg.deno._tag === "Invalid") return [`deno.json ${pkg.deno.problem}`]
  const npm = pkg.npm.json
  const deno = pkg.deno.json
  const found: Array<string> = []
  if (deno.name !== npm.name) found.push(`deno.json's name is ${show(deno.name)}, package.json's ${show(npm.name)}`)
  if (deno.version !== npm.version) {
    found.push(
      `deno.json's version is ${show(deno.version)}, package.json's ${show(npm.version)} (node tools/jsr-check/sync-versions.ts copies it)`
    )
  }
  if (typeof deno.license !== "string") found.push("deno.json has no license")
  else if (deno.license !== npm.license) {
    found.push(`deno.json's license is ${show(deno.license)}, package.json's ${show(npm.license)}`)
  }
  const entry = dotEntry(deno)
  if (entry === undefined) found.push('deno.json exports no "." entry point')
  else {
    const expected = dotEntry(npm)
    if (expected !== undefined && entry !== expected) {
      found.push(`deno.json exports ${show(entry)}, package.json ${show(expected)}`)
    }
  }
  return found
}
