/**
 * How a compiled policy decides a call: the readings of the call's input (each field's texts and
 * normalized paths, by what the field means), the rules matched against each reading, and the
 * strictest verdict over them all.
 */
import { Render, type Tool, ToolName } from "@agent-harness/tool-schema"
import { Result } from "effect"
import * as Glob from "../Glob.ts"
import type { Compiled, Decision, Meanings, Verdict } from "../Policy.ts"

/**
 * The most readings of one call the policy decides (the product, over the fields rules name,
 * of each field's texts: a text and its normalized path, each text of a list). A call with more
 * is denied.
 *
 * @since 0.1.0
 */
export const maxReadings = 1024

/**
 * A text as a path: backslashes as slashes, `.` segments and repeated slashes dropped, `..`
 * segments resolved, a trailing slash dropped (`./notes//a/../b/` is `notes/b`). A URL's
 * `scheme://` is kept as it is. Percent-encoded dots are not decoded.
 *
 * @since 0.1.0
 */
export const normalizePath = (text: string): string => {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(text)
  const prefix = scheme === null ? "" : scheme[0]
  const rest = text.slice(prefix.length).replaceAll("\\", "/")
  const absolute = rest.startsWith("/")
  const out: Array<string> = []
  for (const segment of rest.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop()
      else if (!absolute) out.push("..")
      continue
    }
    out.push(segment)
  }
  const path = `${absolute ? "/" : ""}${out.join("/")}`
  return prefix + (path === "" && prefix === "" ? "." : path)
}

/** The texts a field gives: `undefined` when it has none (missing, not text). */
export const textsOf = (value: unknown): Result.Result<ReadonlyArray<string | undefined>, number> => {
  const texts = new Set<string>()
  const add = (text: string) => {
    texts.add(text)
    texts.add(normalizePath(text))
  }
  if (typeof value === "string") add(value)
  else if (Array.isArray(value)) {
    const length = value.length
    if (length > maxReadings) return Result.fail(length)
    for (let i = 0; i < length; i++) {
      const element: unknown = value[i]
      if (typeof element === "string") add(element)
    }
  }
  return Result.succeed(texts.size === 0 ? [undefined] : [...texts])
}

export const strictness: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 }

export const ruleMatches = (
  rule: Compiled["rules"][number],
  names: ReadonlyArray<string>,
  annotations: Tool.Annotations,
  reading: ReadonlyMap<string, string | undefined>
): boolean => {
  if (rule.tool !== undefined && !rule.tool.some((glob) => Glob.matchesSome(glob, names))) return false
  const wanted = rule.annotations
  if (wanted !== undefined) {
    if (wanted.readOnly !== undefined && wanted.readOnly !== annotations.readOnly) return false
    if (wanted.destructive !== undefined && wanted.destructive !== annotations.destructive) return false
    if (wanted.idempotent !== undefined && wanted.idempotent !== annotations.idempotent) return false
    if (wanted.openWorld !== undefined && wanted.openWorld !== annotations.openWorld) return false
  }
  for (const [field, globs] of rule.args) {
    const text = reading.get(field)
    if (text === undefined || !globs.some((glob) => Glob.matches(glob, text))) return false
  }
  return true
}

export const decideReading = (
  compiled: Compiled,
  names: ReadonlyArray<string>,
  annotations: Tool.Annotations,
  reading: ReadonlyMap<string, string | undefined>
): Verdict => {
  for (const [index, rule] of compiled.rules.entries()) {
    if (ruleMatches(rule, names, annotations, reading)) {
      return { decision: rule.decision, rule: index, reason: rule.reason }
    }
  }
  return { decision: compiled.default.decision, rule: undefined, reason: compiled.default.reason }
}

/** The input fields that mean each meaning: `{ ruta: "path" }` gives `path → [ruta]`. */
export const sourcesOf = (
  meanings: Meanings,
  wanted: ReadonlyArray<string>
): ReadonlyMap<string, ReadonlyArray<string>> => {
  const listed = new Map<string, string>()
  try {
    if (typeof meanings === "object" && meanings !== null) {
      for (const field of Object.keys(meanings)) {
        const meaning: unknown = (meanings as Record<string, unknown>)[field]
        listed.set(field, typeof meaning === "string" && meaning !== "" ? meaning : field)
      }
    }
  } catch {
    // Unreadable meanings: every field means its name.
    listed.clear()
  }
  const out = new Map<string, ReadonlyArray<string>>()
  for (const meaning of wanted) {
    const fields: Array<string> = []
    // The field spelt as the meaning means it, unless the tool gives it another meaning.
    if ((listed.get(meaning) ?? meaning) === meaning) fields.push(meaning)
    for (const [field, m] of listed) if (m === meaning && field !== meaning) fields.push(field)
    out.set(meaning, fields)
  }
  return out
}

/** The names a tool's globs are matched against: its name, and its provider-safe alias. */
export const namesOf = (name: string): ReadonlyArray<string> => {
  const alias = ToolName.alias(name)
  return alias._tag === "Alias" && alias.alias !== name ? [name, alias.alias] : [name]
}

export type Options = Array<readonly [string, ReadonlyArray<string | undefined>]>

/** Every meaning's texts in a call's input, or the verdict that denies it (unreadable, too many). */
export const optionsOf = (compiled: Compiled, input: unknown, meanings: Meanings): Options | Verdict => {
  const sources = sourcesOf(meanings, compiled.fields)
  const options: Options = []
  let readings = 1
  for (const meaning of compiled.fields) {
    const texts: Array<string> = []
    let field = meaning
    try {
      for (const source of sources.get(meaning) ?? []) {
        field = source
        const value: unknown =
          typeof input === "object" && input !== null && Object.hasOwn(input, source)
            ? (input as { readonly [key: string]: unknown })[source]
            : undefined
        const found = textsOf(value)
        if (Result.isFailure(found)) return tooMany(found.failure)
        for (const text of found.success) if (text !== undefined && !texts.includes(text)) texts.push(text)
      }
    } catch (thrown) {
      return {
        decision: "deny",
        rule: undefined,
        reason: undefined,
        problem: { _tag: "Unreadable", field, message: Render.thrown(thrown) }
      }
    }
    const all: ReadonlyArray<string | undefined> = texts.length === 0 ? [undefined] : texts
    readings *= all.length
    if (readings > maxReadings) return tooMany(readings)
    options.push([meaning, all])
  }
  return options
}

export const tooMany = (readings: number): Verdict => ({
  decision: "deny",
  rule: undefined,
  reason: undefined,
  problem: { _tag: "TooManyReadings", readings }
})

/** Every combination of the options, odometer-style, the strictest verdict; a deny ends the search. */
export const decideOptions = (
  compiled: Compiled,
  names: ReadonlyArray<string>,
  annotations: Tool.Annotations,
  options: Options
): Verdict => {
  const positions = options.map(() => 0)
  let strictest: Verdict | undefined
  while (true) {
    const reading = new Map(options.map(([field, texts], i) => [field, texts[positions[i] ?? 0]]))
    const verdict = decideReading(compiled, names, annotations, reading)
    if (strictest === undefined || strictness[verdict.decision] > strictness[strictest.decision]) strictest = verdict
    if (strictest.decision === "deny") return strictest
    let i = 0
    for (; i < options.length; i++) {
      const at = (positions[i] ?? 0) + 1
      if (at < (options[i]?.[1].length ?? 0)) {
        positions[i] = at
        break
      }
      positions[i] = 0
    }
    if (i === options.length) return strictest
  }
}

export const isVerdict = (u: Options | Verdict): u is Verdict => !Array.isArray(u)
