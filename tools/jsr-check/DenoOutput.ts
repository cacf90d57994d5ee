/**
 * Reads what `deno publish --dry-run` and `deno doc --lint` print: the problems (JSR's slow-type
 * and manifest diagnostics, doc lint, TypeScript errors of the type check) with where they are,
 * and the files a publish would upload. Runs on Node 22 type stripping: erasable TypeScript only.
 */
import { isAbsolute, relative } from "node:path"
import { fileURLToPath } from "node:url"

/** One problem Deno reported. */
export interface Problem {
  /** `error` fails the command; a `warning` does not. */
  readonly severity: "error" | "warning"
  /** The diagnostic's code: `missing-explicit-type`, `missing-jsdoc`, `TS2339`, or `error` for a bare message. */
  readonly code: string
  readonly message: string
  /** `path:line:column` relative to the root, when Deno gave a place. */
  readonly at: string | undefined
}

/** Terminal colour codes, in case a Deno ignores `NO_COLOR`. */
const colour = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g")

/** Deno's output without colour codes, as lines. */
const linesOf = (output: string): ReadonlyArray<string> => output.replace(colour, "").split(/\r?\n/)

/** A `file:` URL or an absolute path (with `:line:column`) relative to `root`; other specifiers as they are. */
const place = (specifier: string, root: string): string => {
  const match = /^(.*?)((?::\d+){0,2})$/.exec(specifier)
  const target = match?.[1] ?? specifier
  const position = match?.[2] ?? ""
  try {
    const path = target.startsWith("file://") ? fileURLToPath(target) : target
    return isAbsolute(path) ? `${relative(root, path)}${position}` : specifier
  } catch {
    return specifier
  }
}

const diagnostic = /^(error|warning)\[([\w-]+)\]: (.*)$/
const arrow = /^\s*-->\s+(\S+)\s*$/
const typeError = /^(TS\d+) \[(ERROR|WARN\w*)\]: (.*)$/
const typeErrorAt = /^\s+at (\S+)\s*$/
/** Summaries that repeat what the problems above them say. */
const summary = /^error: (Found \d+ (problems?|documentation lint errors?)\.?|Type checking failed\.?)$/

/**
 * The problems in Deno's output, in order. A `deno.json`, a type check or the network that fails
 * before any diagnostic is a problem of code `error` with Deno's message.
 */
export const problems = (output: string, root: string): ReadonlyArray<Problem> => {
  const lines = linesOf(output)
  const found: Array<Problem> = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ""
    const lint = diagnostic.exec(line)
    if (lint !== null) {
      let at: string | undefined
      for (let j = i + 1; j < Math.min(lines.length, i + 4) && at === undefined; j++) {
        const where = arrow.exec(lines[j] ?? "")
        if (where?.[1] !== undefined) at = place(where[1], root)
      }
      found.push({
        severity: lint[1] === "warning" ? "warning" : "error",
        code: lint[2] ?? "error",
        message: lint[3] ?? "",
        at
      })
      continue
    }
    const ts = typeError.exec(line)
    if (ts !== null) {
      let at: string | undefined
      for (let j = i + 1; j < lines.length && at === undefined; j++) {
        const next = lines[j] ?? ""
        if (typeError.test(next) || diagnostic.test(next)) break
        const where = typeErrorAt.exec(next)
        if (where?.[1] !== undefined) at = place(where[1], root)
      }
      found.push({
        severity: ts[2] === "ERROR" ? "error" : "warning",
        code: ts[1] ?? "TS",
        message: ts[3] ?? "",
        at
      })
      continue
    }
    if (line.startsWith("error: ") && !summary.test(line)) {
      found.push({ severity: "error", code: "error", message: line.slice("error: ".length), at: undefined })
    }
  }
  return found
}

const listed = /^\s+(file:\/\/\S+) \(/

/** The files a `deno publish --dry-run` would upload, relative to `root`. */
export const publishedFiles = (output: string, root: string): ReadonlyArray<string> => {
  const lines = linesOf(output)
  const start = lines.findIndex((line) => line.includes("Simulating publish of"))
  if (start === -1) return []
  const files: Array<string> = []
  for (const line of lines.slice(start + 1)) {
    const file = listed.exec(line)?.[1]
    if (file === undefined) break
    files.push(place(file, root))
  }
  return files
}

/** Tests, fixtures and artifacts: nothing a user of the package needs. */
const unwanted = /(^|\/)(test|tests|__tests__|fixtures?|artifacts)\/|\.(test|spec)\.[cm]?[jt]sx?$/

/** The published files (relative to the package's folder) that should not be published. */
export const unwantedFiles = (files: ReadonlyArray<string>): ReadonlyArray<string> =>
  files.filter((file) => unwanted.test(file))
