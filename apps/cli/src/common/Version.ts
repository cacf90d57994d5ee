/**
 * The CLI's version, as `harness --version` prints it: the `version` of `apps/cli/package.json`.
 * The published bundle has no sources to read it from, so `build.ts` writes it into the bundle
 * (`__HARNESS_VERSION__`); run from its sources, the CLI reads the file next to them.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import { Result } from "effect"
import * as Package from "./Package.ts"

/** Replaced by `build.ts` with the version, as a string literal; never defined when run from sources. */
declare const __HARNESS_VERSION__: string | undefined

/**
 * The `version` field of a `package.json`, or what is wrong with it (the file named): unreadable,
 * not JSON, no `version` string.
 *
 * @since 0.1.0
 */
export const fromFile = (file: string): Result.Result<string, string> => {
  let text: string
  try {
    // A FIFO or a folder would block or fail the read: only a regular file is read.
    if (!fs.statSync(file).isFile()) return Result.fail(`${file}: is not a regular file`)
    text = fs.readFileSync(file, "utf8")
  } catch (error) {
    return Result.fail(`${file}: cannot be read (${error instanceof Error ? error.message : String(error)})`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return Result.fail(`${file}: is not JSON`)
  }
  const version =
    typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? Object.getOwnPropertyDescriptor(parsed, "version")?.value
      : undefined
  return typeof version === "string" && version.trim() !== ""
    ? Result.succeed(version)
    : Result.fail(`${file}: has no "version" string`)
}

/**
 * The version to print: the one built in, else `package.json`'s next to the sources; when that
 * cannot be read, `unknown` and why (the CLI still runs).
 *
 * @since 0.1.0
 */
export const current = (): string => {
  if (typeof __HARNESS_VERSION__ === "string") return __HARNESS_VERSION__
  return Result.getOrElse(fromFile(Package.file("package.json")), (problem) => `unknown (${problem})`)
}
