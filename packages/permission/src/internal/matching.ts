/**
 * How a compiled policy decides a call: the readings of the call's input (each field's texts and
 * normalized paths, by what the field means, and each reading of its command), the rules matched
 * against each reading, and the strictest verdict over them all.
 */
import { Render, type Tool, ToolName } from "@agent-harness/tool-schema"
import { Result } from "effect"
import * as Command from "../Command.ts"
import * as Glob from "../Glob.ts"
import type { Compiled, Decision, Meanings, Verdict } from "../Policy.ts"
import * as Patterns from "./commandPattern.ts"
import { fieldOf, sourcesOf } from "./meanings.ts"

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

/** One reading of a call: a text (or none) for each meaning the rules name, and a reading of its command (or none). */
export interface Reading {
  readonly texts: ReadonlyMap<string, string | undefined>
  readonly command: Command.Reading | undefined
}

/** Every condition of a rule but its `command`. */
const othersHold = (
  rule: Compiled["rules"][number],
  names: ReadonlyArray<string>,
  annotations: Tool.Annotations,
  texts: ReadonlyMap<string, string | undefined>
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
    const text = texts.get(field)
    if (text === undefined || !globs.some((glob) => Glob.matches(glob, text))) return false
  }
  return true
}

const stricter = (a: Verdict | undefined, b: Verdict): Verdict =>
  a === undefined || strictness[b.decision] > strictness[a.decision] ? b : a

/**
 * The stricter of two verdicts. Of two denials, the one whose reason says more: a rule's over
 * the default's (`no rm -rf` rather than `not on the list`), then one on a command that could
 * not be read (it says so); else the first.
 */
const preferred = (a: Verdict | undefined, b: Verdict): Verdict => {
  if (a === undefined || strictness[b.decision] > strictness[a.decision]) return b
  if (a.decision !== "deny" || b.decision !== "deny") return a
  if ((a.rule === undefined) !== (b.rule === undefined)) return b.rule === undefined ? a : b
  return a.opaque === undefined && b.opaque !== undefined ? b : a
}

/**
 * One reading with its program spelt `name`, decided: the first rule that certainly matches,
 * else the default. A command's words may hide what it is (an opaque command could be any
 * command; a glob or `xargs`'s input may be any words), so a rule it only possibly matches (an
 * opaque command: every `deny` and `ask` rule with a `command`, never an `allow` one's) is an
 * answer it may get, and the search goes on: the verdict is the worst of the answers it may get.
 */
const decideSpelling = (
  compiled: Compiled,
  names: ReadonlyArray<string>,
  annotations: Tool.Annotations,
  reading: Reading,
  name: string
): Verdict => {
  const { command } = reading
  const opaque = command?._tag === "Opaque" ? { opaque: command.construct } : {}
  let strictest: Verdict | undefined
  for (const [index, rule] of compiled.rules.entries()) {
    if (!othersHold(rule, names, annotations, reading.texts)) continue
    const verdict: Verdict = { decision: rule.decision, rule: index, reason: rule.reason, ...opaque }
    if (rule.command !== undefined) {
      if (command === undefined) continue
      let degree: Patterns.Degree = "no"
      if (command._tag === "Opaque") degree = rule.decision === "allow" ? "no" : "possible"
      else {
        for (const pattern of rule.command) {
          const found = Patterns.degree(pattern, command, rule.decision, name)
          if (found === "certain" || (found === "possible" && degree === "no")) degree = found
          if (degree === "certain") break
        }
      }
      if (degree === "no") continue
      if (degree === "possible") {
        strictest = stricter(strictest, verdict)
        if (strictest.decision === "deny") return strictest
        continue
      }
    }
    return stricter(strictest, verdict)
  }
  return stricter(strictest, {
    decision: compiled.default.decision,
    rule: undefined,
    reason: compiled.default.reason,
    ...opaque
  })
}

/** One reading, decided: each spelling of its program (see `Patterns.programNames`), the strictest. */
export const decideReading = (
  compiled: Compiled,
  names: ReadonlyArray<string>,
  annotations: Tool.Annotations,
  reading: Reading
): Verdict => {
  const { command } = reading
  if (command?._tag !== "Argv") return decideSpelling(compiled, names, annotations, reading, "")
  let strictest: Verdict | undefined
  for (const name of Patterns.programNames(command)) {
    strictest = preferred(strictest, decideSpelling(compiled, names, annotations, reading, name))
    if (strictest.decision === "deny" && strictest.rule !== undefined) return strictest
  }
  return strictest ?? decideSpelling(compiled, names, annotations, reading, "")
}

export { sourcesOf }

/** The names a tool's globs are matched against: its name, and its provider-safe alias. */
export const namesOf = (name: string): ReadonlyArray<string> => {
  const alias = ToolName.alias(name)
  return alias._tag === "Alias" && alias.alias !== name ? [name, alias.alias] : [name]
}

/** What a call can be read as: each meaning's texts, and its command's readings. */
export interface Options {
  readonly fields: ReadonlyArray<readonly [string, ReadonlyArray<string | undefined>]>
  /** `[undefined]`: no command (the tool has none, or no rule has a `command`). */
  readonly commands: ReadonlyArray<Command.Reading | undefined>
}

const unreadable = (field: string, message: string): Verdict => ({
  decision: "deny",
  rule: undefined,
  reason: undefined,
  problem: { _tag: "Unreadable", field, message }
})

const noCommand: ReadonlyArray<Command.Reading | undefined> = [undefined]

/**
 * Every meaning's texts in a call's input, and (when `compiled.commands`) its command's
 * readings, or the verdict that denies it (unreadable, too many readings, a command too large).
 */
export const optionsOf = (compiled: Compiled, input: unknown, meanings: Meanings): Options | Verdict => {
  const sources = sourcesOf(meanings, compiled.fields)
  const fields: Array<readonly [string, ReadonlyArray<string | undefined>]> = []
  let readings = 1
  for (const meaning of compiled.fields) {
    const texts: Array<string> = []
    let field = meaning
    try {
      for (const source of sources.get(meaning) ?? []) {
        field = source
        const found = textsOf(fieldOf(input, source))
        if (Result.isFailure(found)) return tooMany(found.failure)
        for (const text of found.success) if (text !== undefined && !texts.includes(text)) texts.push(text)
      }
    } catch (thrown) {
      return unreadable(field, Render.thrown(thrown))
    }
    const all: ReadonlyArray<string | undefined> = texts.length === 0 ? [undefined] : texts
    readings *= all.length
    if (readings > maxReadings) return tooMany(readings)
    fields.push([meaning, all])
  }
  if (!compiled.commands) return { fields, commands: noCommand }
  const commands = Command.readingsOf(input, meanings)
  if (Result.isFailure(commands)) {
    return { decision: "deny", rule: undefined, reason: undefined, problem: commands.failure }
  }
  const found = commands.success
  readings *= Math.max(1, found.length)
  if (readings > maxReadings) return tooMany(readings)
  return { fields, commands: found.length === 0 ? noCommand : found }
}

export const tooMany = (readings: number): Verdict => ({
  decision: "deny",
  rule: undefined,
  reason: undefined,
  problem: { _tag: "TooManyReadings", readings }
})

/**
 * Every combination of the options, odometer-style, the strictest verdict (on a tie the first
 * reading's, but a rule's denial over the default's); a rule's denial ends the search.
 */
export const decideOptions = (
  compiled: Compiled,
  names: ReadonlyArray<string>,
  annotations: Tool.Annotations,
  options: Options
): Verdict => {
  const { fields, commands } = options
  const sizes = [...fields.map(([, texts]) => texts.length), commands.length]
  const positions = sizes.map(() => 0)
  let strictest: Verdict | undefined
  while (true) {
    const texts = new Map(fields.map(([field, all], i) => [field, all[positions[i] ?? 0]]))
    const command = commands[positions[fields.length] ?? 0]
    const verdict = decideReading(compiled, names, annotations, { texts, command })
    strictest = preferred(strictest, verdict)
    if (strictest.decision === "deny" && strictest.rule !== undefined) return strictest
    let i = 0
    for (; i < sizes.length; i++) {
      const at = (positions[i] ?? 0) + 1
      if (at < (sizes[i] ?? 0)) {
        positions[i] = at
        break
      }
      positions[i] = 0
    }
    if (i === sizes.length) return strictest
  }
}

export const isVerdict = (u: Options | Verdict): u is Verdict => "decision" in u
