/**
 * A server's schema `pattern`s matched in linear time. The model's input is checked against
 * them, and a JavaScript `RegExp` backtracks (`^(a+)+$` on 28 characters took 8 s), so they
 * run on RE2 (the `re2js` port), never on `RegExp`, compiled by the scenario package's
 * `Pattern.compile` in its `unicode` dialect (JSON Schema's syntax: ECMA-262 with the `u` flag),
 * which refuses what needs backtracking: a backreference or lookaround is refused with the
 * reason, and the caller leaves that pattern unchecked.
 *
 * The JSON Schema validator is given each pattern as a `format` of its own (a name registered
 * in `@cfworker/json-schema`'s format table, whose check runs RE2), so the validator itself
 * never compiles a server's pattern.
 *
 * @internal
 */
import { format } from "@cfworker/json-schema"
import { Pattern } from "@agent-harness/scenario"
import { Result } from "effect"

/** The longest pattern source accepted, in characters. */
export const maxSourceLength = 10_000

/** Whether a string matches somewhere (JSON Schema patterns are not anchored). */
export type Test = (text: string) => boolean

const compiled = new Map<string, Result.Result<Test, string>>()

/** At most this many compiled patterns are kept (a server that lists thousands). */
const maxCached = 4096

/** A refusal in words that follow "the pattern '…' is not checked:". */
const explain = (refusal: Pattern.Refusal): string => {
  switch (refusal._tag) {
    case "Invalid":
      return `it does not compile (${refusal.message})`
    case "Unsupported":
      return `it cannot be matched in linear time: ${refusal.reason}`
    case "NotCompiled":
      return `it cannot be matched in linear time (${refusal.message})`
    case "TooLarge":
      return `it is larger than ${Pattern.maxProgramSize} RE2 instructions`
  }
}

const compileNew = (source: string): Result.Result<Test, string> =>
  source.length > maxSourceLength
    ? Result.fail(`it is longer than ${maxSourceLength} characters`)
    : Result.mapBoth(Pattern.compile(source, "unicode"), {
        onFailure: explain,
        onSuccess: (re2) => (text: string) => re2.test(text)
      })

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
