/**
 * Each package's `deno.json` version follows its `package.json` version: changesets bumps
 * npm's, this copies it for JSR. Runs on Node 22 type stripping: erasable TypeScript only.
 */
import { isDeepStrictEqual } from "node:util"
import type { Package } from "./Manifest.ts"

/** What one package needs: nothing, a new `deno.json` version, or a fix by hand (and why). */
export type Verdict =
  | { readonly _tag: "Same"; readonly dir: string; readonly version: string }
  | {
      readonly _tag: "Differs"
      readonly dir: string
      readonly from: unknown
      readonly to: string
      readonly text: string
    }
  | { readonly _tag: "Broken"; readonly dir: string; readonly problem: string }

/** The top-level `"version": "..."` member of a JSON object's text. */
const member = /("version"\s*:\s*)"(?:[^"\\]|\\.)*"/

/**
 * The text of a JSON object with its top-level `version` set to `version`, keeping its layout:
 * the member is replaced in place (or, when it is missing or the text is laid out otherwise,
 * the object is written again with two-space indentation).
 */
export const withVersion = (text: string, version: string): string => {
  const json = JSON.parse(text) as Record<string, unknown>
  const wanted = { ...json, version }
  const replaced = text.replace(member, (_all, key: string) => `${key}${JSON.stringify(version)}`)
  try {
    const reread: unknown = JSON.parse(replaced)
    if (isDeepStrictEqual(reread, wanted) && Object.keys(reread as object).join() === Object.keys(wanted).join()) {
      return replaced
    }
  } catch {
    // A text the replacement broke is written again below.
  }
  return `${JSON.stringify(wanted, null, 2)}\n`
}

/** Whether a package's `deno.json` version is its `package.json` version, and the text that makes it so. */
export const verdict = (pkg: Package): Verdict => {
  const { dir, npm, deno } = pkg
  if (npm._tag !== "Read") {
    return { _tag: "Broken", dir, problem: npm._tag === "Missing" ? "no package.json" : `package.json ${npm.problem}` }
  }
  const version = npm.json.version
  if (typeof version !== "string" || version === "")
    return { _tag: "Broken", dir, problem: "package.json has no version" }
  if (deno._tag === "Missing") return { _tag: "Broken", dir, problem: "no deno.json: JSR cannot publish it" }
  if (deno._tag === "Invalid") return { _tag: "Broken", dir, problem: `deno.json ${deno.problem}` }
  if (deno.json.version === version) return { _tag: "Same", dir, version }
  return { _tag: "Differs", dir, from: deno.json.version, to: version, text: withVersion(deno.text, version) }
}
