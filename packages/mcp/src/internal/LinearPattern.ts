/**
 * A server's schema `pattern`s matched in linear time. The model's input is checked against
 * them, and a JavaScript `RegExp` backtracks (`^(a+)+$` on 28 characters took 8 s), so they
 * run on RE2 (the `re2js` port, as scenario patterns do), never on `RegExp`. The syntax is
 * JSON Schema's (ECMA-262 with the `u` flag), less what needs backtracking: a backreference or
 * lookaround is refused with the reason, and the caller leaves that pattern unchecked.
 *
 * The JSON Schema validator is given each pattern as a `format` of its own (a name registered
 * in `@cfworker/json-schema`'s format table, whose check runs RE2), so the validator itself
 * never compiles a server's pattern.
 *
 * @internal
 */
import { format } from "@cfworker/json-schema"
import { Result } from "effect"
import { RE2JS } from "re2js"

/** The largest compiled pattern accepted, in RE2 instructions. */
export const maxProgramSize = 10_000

/** The longest pattern source accepted, in characters. */
export const maxSourceLength = 10_000

/** JavaScript's `\s`, as the inside of an RE2 character class. */
const space =
  "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}"

/** JavaScript's `.` without the `s` flag: anything but a line terminator. */
const dot = "[^\\n\\r\\x{2028}\\x{2029}]"

/** Refuses what needs backtracking or RE2 reads otherwise; rewrites `.`, `\s`, `\S` to JavaScript's meaning. */
const translate = (source: string): Result.Result<string, string> => {
  let out = ""
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === "\\") {
      const next = source[i + 1] ?? ""
      if (/[1-9]/.test(next) && !inClass) return Result.fail(`a backreference (\\${next}) needs backtracking`)
      if (next === "k" && source[i + 2] === "<") return Result.fail("a named backreference (\\k<…>) needs backtracking")
      if (next === "s") out += inClass ? space : `[${space}]`
      else if (next === "S") {
        if (inClass) return Result.fail("\\S inside a character class is not supported")
        out += `[^${space}]`
      } else out += c + next
      i++
    } else if (inClass) {
      if (c === "[" && source[i + 1] === ":") return Result.fail("'[:' inside a character class reads as a POSIX class")
      if (c === "]") inClass = false
      out += c
    } else if (c === "[") {
      if (source.startsWith("[^]", i)) {
        out += "[\\x{0}-\\x{10ffff}]"
        i += 2
        continue
      }
      if (source[i + 1] === "]") return Result.fail("an empty character class ([]) is not supported")
      inClass = true
      out += c
      if (source[i + 1] === "^") {
        out += "^"
        i++
      }
    } else if (c === "(" && source[i + 1] === "?") {
      const kind = source.slice(i + 2, i + 4)
      if (kind.startsWith("=") || kind.startsWith("!") || kind === "<=" || kind === "<!") {
        return Result.fail(`lookaround ((?${kind.startsWith("<") ? kind : kind[0]}…) needs backtracking`)
      }
      out += c
    } else if (c === ".") {
      out += dot
    } else {
      out += c
    }
  }
  return Result.succeed(out)
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Whether a string matches somewhere (JSON Schema patterns are not anchored). */
export type Test = (text: string) => boolean

const compiled = new Map<string, Result.Result<Test, string>>()

/** At most this many compiled patterns are kept (a server that lists thousands). */
const maxCached = 4096

const compileNew = (source: string): Result.Result<Test, string> => {
  if (source.length > maxSourceLength) return Result.fail(`it is longer than ${maxSourceLength} characters`)
  try {
    // Compiling (never running) it tells whether it is a valid JSON Schema pattern at all.
    new RegExp(source, "u")
  } catch (error) {
    return Result.fail(`it does not compile (${messageOf(error)})`)
  }
  const translated = translate(source)
  if (Result.isFailure(translated)) return Result.fail(`it cannot be matched in linear time: ${translated.failure}`)
  let re2: RE2JS
  try {
    re2 = RE2JS.compile(RE2JS.translateRegExp(translated.success))
  } catch (error) {
    return Result.fail(`it cannot be matched in linear time (${messageOf(error)})`)
  }
  if (re2.programSize() > maxProgramSize) return Result.fail(`it is larger than ${maxProgramSize} RE2 instructions`)
  return Result.succeed((text: string) => re2.test(text))
}

/**
 * Compiles a pattern for RE2, or says why it cannot be checked locally (in words that follow
 * "the pattern '…' is not checked:"). Compiled patterns are kept.
 */
export const compile = (source: string): Result.Result<Test, string> => {
  const known = compiled.get(source)
  if (known !== undefined) return known
  const made = compileNew(source)
  if (compiled.size >= maxCached) compiled.clear()
  compiled.set(source, made)
  return made
}

/** The prefix of the format names that stand for a pattern in place (`pattern` → `format`). */
export const inPlace = "agent-harness/re2:"

/** The prefix of the format names that stand for a pattern moved into an `allOf` (its node had a format already). */
export const sibling = "agent-harness/re2-sibling:"

/**
 * The format name that stands for a compiled pattern, registered in the validator's format
 * table; a string that is not a string (the validator checks formats on strings only) passes.
 */
export const formatName = (prefix: string, source: string, test: Test): string => {
  const name = `${prefix}${source}`
  const table = format as Record<string, (value: string) => boolean>
  if (!Object.hasOwn(table, name)) table[name] = (value: string) => typeof value !== "string" || test(value)
  return name
}

/** The pattern a format name stands for, and how it was placed; `undefined` for any other format. */
export const patternOf = (
  name: unknown
): { readonly source: string; readonly placed: "inPlace" | "sibling" } | undefined => {
  if (typeof name !== "string") return undefined
  if (name.startsWith(inPlace)) return { source: name.slice(inPlace.length), placed: "inPlace" }
  if (name.startsWith(sibling)) return { source: name.slice(sibling.length), placed: "sibling" }
  return undefined
}
