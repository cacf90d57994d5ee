/**
 * Scenario patterns (`{ "pattern": regex }`) matched in linear time. A JavaScript `RegExp`
 * backtracks: `(a+)+$` against `"aaaa…b"` takes longer than the age of the universe, and a
 * scenario file is input. `make` compiles a pattern with RE2 (the `re2js` port: time linear in
 * the text for a given pattern) into a `RegExp` whose `exec`, `test` and `search` go through
 * RE2, so the scripted model and the rule planner match it as any `RegExp`.
 *
 * The syntax is JavaScript's (no flags), less what needs backtracking: backreferences (`\1`,
 * `\k<name>`) and lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`) are refused, as is `\p{…}` (without
 * the `u` flag JavaScript reads it as the letters `p{…}`, RE2 as a Unicode class). `.` and `\s`
 * mean what they mean in JavaScript. Patterns are matched by code point, and at most
 * `maxProgramSize` RE2 instructions long.
 *
 * `compile` is the step beneath `make`, for both dialects a JavaScript pattern comes in: a
 * scenario's (no flags) and JSON Schema's `pattern` (the `u` flag, which the MCP edge checks a
 * server's input schemas with).
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import { RE2JS } from "re2js"

/**
 * The largest compiled pattern accepted, in RE2 instructions (`a{1000}` is 1,002).
 *
 * @since 0.1.0
 */
export const maxProgramSize = 10_000

/** JavaScript's `\s`, as the inside of an RE2 character class. */
const space =
  "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}"

/** JavaScript's `.` without the `s` flag: anything but a line terminator. */
const dot = "[^\\n\\r\\x{2028}\\x{2029}]"

/**
 * How a pattern's source is read: as a JavaScript `RegExp` without flags (a scenario's
 * pattern), or with the `u` flag (JSON Schema's `pattern`).
 *
 * @since 0.1.0
 */
export type Dialect = "plain" | "unicode"

/**
 * Why a pattern cannot run on RE2: it is not a pattern at all (`Invalid`, JavaScript's
 * message), it uses what needs backtracking or what RE2 reads otherwise (`Unsupported`, the
 * reason), RE2 refuses it (`NotCompiled`, RE2's message), or it is too large (`TooLarge`).
 *
 * @since 0.1.0
 */
export type Refusal =
  | { readonly _tag: "Invalid"; readonly message: string }
  | { readonly _tag: "Unsupported"; readonly reason: string }
  | { readonly _tag: "NotCompiled"; readonly message: string }
  | { readonly _tag: "TooLarge"; readonly size: number }

/**
 * Refuses what JavaScript and RE2 read differently, or RE2 cannot run, and rewrites `.`, `\s`
 * and `\S` to JavaScript's meaning; the rest is RE2JS's own translation of JavaScript syntax.
 */
const translate = (source: string, dialect: Dialect): Result.Result<string, string> => {
  let out = ""
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === "\\") {
      const next = source[i + 1] ?? ""
      if (/[1-9]/.test(next) && !inClass) return Result.fail(`a backreference (\\${next}) needs backtracking`)
      if (next === "k" && source[i + 2] === "<") return Result.fail("a named backreference (\\k<…>) needs backtracking")
      if (dialect === "plain" && (next === "p" || next === "P" || next === "u") && source[i + 2] === "{") {
        return Result.fail(`\\${next}{…} is ambiguous (JavaScript without the u flag reads it as letters)`)
      }
      if (next === "s") out += inClass ? space : `[${space}]`
      else if (next === "S") {
        if (inClass) return Result.fail("\\S inside a character class is not supported")
        out += `[^${space}]`
      } else out += c + next
      i++
    } else if (inClass) {
      if (c === "[" && source[i + 1] === ":")
        return Result.fail("[: inside a character class is read by RE2 as a POSIX class")
      if (c === "]") inClass = false
      out += c
    } else if (c === "[") {
      if (source.startsWith("[^]", i)) {
        // JavaScript's "any character at all".
        out += "[\\x{0}-\\x{10ffff}]"
        i += 2
        continue
      }
      // A `]` right after `[` or `[^` closes nothing in RE2 but closes the class in JavaScript.
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

/**
 * A `RegExp` whose matching runs on RE2: `exec`, `test`, `search` (and so `match`) are linear in
 * the text. Built by `make`; it has no flags.
 *
 * @since 0.1.0
 */
export class LinearRegExp extends RegExp {
  readonly #re2: RE2JS

  /** @internal Use `make`, which checks the pattern first. */
  constructor(source: string, re2: RE2JS) {
    super(source)
    this.#re2 = re2
  }

  /** Operations that build a new RegExp from this one (split, matchAll) get a plain one refused. */
  static override get [Symbol.species](): RegExpConstructor {
    throw new TypeError("a LinearRegExp supports exec, test, search and match only")
  }

  /** The first match in `input`, as `RegExp.exec` gives it, or `null`; in linear time. */
  override exec(input: string): RegExpExecArray | null {
    const text = String(input)
    if (!this.#re2.test(text)) return null
    const found: unknown = this.#re2.exec(text)
    return Array.isArray(found) ? (found as RegExpExecArray) : null
  }

  /** Whether the pattern matches somewhere in `input`; in linear time. */
  override test(input: string): boolean {
    return this.#re2.test(String(input))
  }

  /** The index of the first match in `input`, or -1 (what `String.prototype.search` calls). */
  override [Symbol.search](input: string): number {
    const text = String(input)
    if (!this.#re2.test(text)) return -1
    const matcher = this.#re2.matcher(text)
    return matcher.find() ? matcher.start() : -1
  }
}

/**
 * Compiles a JavaScript pattern of a dialect for RE2, so that it matches in linear time, or
 * says why it cannot be (`Refusal`). The compiled program is at most `maxProgramSize`
 * instructions.
 *
 * @since 0.1.0
 */
export const compile = (source: string, dialect: Dialect): Result.Result<RE2JS, Refusal> => {
  try {
    new RegExp(source, dialect === "unicode" ? "u" : "")
  } catch (error) {
    return Result.fail({ _tag: "Invalid", message: messageOf(error) })
  }
  const translated = translate(source, dialect)
  if (Result.isFailure(translated)) return Result.fail({ _tag: "Unsupported", reason: translated.failure })
  let re2: RE2JS
  try {
    re2 = RE2JS.compile(RE2JS.translateRegExp(translated.success))
  } catch (error) {
    return Result.fail({ _tag: "NotCompiled", message: messageOf(error) })
  }
  const size = re2.programSize()
  return size > maxProgramSize ? Result.fail({ _tag: "TooLarge", size }) : Result.succeed(re2)
}

/** A refusal in words for a scenario file's author. */
const explain = (refusal: Refusal): string => {
  switch (refusal._tag) {
    case "Invalid":
      return refusal.message === ""
        ? "invalid regular expression"
        : refusal.message[0]?.toLowerCase() + refusal.message.slice(1)
    case "Unsupported":
      return `not supported: ${refusal.reason}; patterns are matched in linear time (RE2)`
    case "NotCompiled":
      return `not supported: ${refusal.message}; patterns are matched in linear time (RE2)`
    case "TooLarge":
      return `too large: ${refusal.size} RE2 instructions, more than ${maxProgramSize}`
  }
}

/**
 * Compiles a scenario pattern, or says why it is refused (in words for a scenario file's
 * author: invalid, or what it uses that cannot run in linear time).
 *
 * @since 0.1.0
 */
export const make = (source: string): Result.Result<LinearRegExp, string> =>
  Result.mapBoth(compile(source, "plain"), {
    onFailure: explain,
    onSuccess: (re2) => new LinearRegExp(source, re2)
  })

/**
 * Compiles a pattern that `make` accepts (a decoded scenario's); throws like `new RegExp` on
 * one it refuses.
 *
 * @since 0.1.0
 */
export const unsafeMake = (source: string): LinearRegExp => {
  const made = make(source)
  if (Result.isFailure(made)) throw new SyntaxError(`pattern /${source}/: ${made.failure}`)
  return made.success
}
