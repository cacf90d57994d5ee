/**
 * Command patterns: parsed from words written like a shell command, and matched against a
 * reading of a command, exactly for `allow` and generously for `deny` and `ask`, so that a
 * spelling can only make a command treated more carefully.
 */
import { Result } from "effect"
import type { Argv, Item, Pattern } from "../Command.ts"
import * as Glob from "../Glob.ts"
import * as ShellWords from "./shellWords.ts"
import { baseName } from "./wrappers.ts"

/** The longest pattern accepted, in characters. */
export const maxLength = 4096
/** The most words one pattern may have. */
export const maxWords = 64

/** A word's characters as a glob: quoted characters, `.` and `/` escaped (literal), the rest glob syntax. */
const globSource = (word: ShellWords.PatternWord): string =>
  word
    .map(([c, quoted]) => ((quoted && /[^\p{L}\p{N}]/u.test(c)) || c === "." || c === "/" || c === "!" ? `\\${c}` : c))
    .join("")

const textOf = (word: ShellWords.PatternWord): string => word.map(([c]) => c).join("")

const wordGlob = (word: ShellWords.PatternWord): Result.Result<Glob.Glob, string> =>
  word.length === 0 ? Result.succeed(Glob.literal("")) : Glob.compile(globSource(word))

const unquotedGlob = (word: ShellWords.PatternWord): boolean =>
  word.some(([c, quoted]) => !quoted && /[*?[\]{}]/.test(c))

/** Parses a command pattern, or says what is wrong with it. */
export const parse = (source: unknown): Result.Result<Pattern, string> => {
  if (typeof source !== "string") return Result.fail("a command pattern must be a string")
  if (source.length > maxLength) return Result.fail(`a command pattern must be at most ${maxLength} characters long`)
  const split = ShellWords.splitPattern(source)
  if ("problem" in split) return Result.fail(split.problem)
  const [first, ...rest] = split.words
  if (first === undefined) return Result.fail("a command pattern must not be empty")
  if (split.words.length > maxWords) return Result.fail(`a command pattern must have at most ${maxWords} words`)
  if (first.length === 0) return Result.fail("its program must not be empty")
  const program = wordGlob(first)
  if (Result.isFailure(program)) return Result.fail(`its program '${textOf(first)}': ${program.failure}`)
  const items: Array<Item> = []
  let flagsEnded = false
  for (const word of rest) {
    const text = textOf(word)
    if (word.length === 1 && word[0]?.[0] === "*" && word[0][1] === false) {
      if (items.at(-1)?._tag !== "Rest") items.push({ _tag: "Rest" })
      continue
    }
    if (!flagsEnded && text === "--") {
      flagsEnded = true
      continue
    }
    if (!flagsEnded && text.startsWith("--")) {
      const eq = word.findIndex(([c], k) => k >= 2 && c === "=")
      const name = word.slice(2, eq === -1 ? undefined : eq)
      if (name.length === 0) return Result.fail(`the flag '${text}' has no name`)
      if (unquotedGlob(name)) return Result.fail(`the flag '${text}': a flag's name is written out, not a glob`)
      if (eq === -1) {
        items.push({ _tag: "Long", name: textOf(name), value: undefined })
        continue
      }
      const value = wordGlob(word.slice(eq + 1))
      if (Result.isFailure(value)) return Result.fail(`the value of '${text}': ${value.failure}`)
      items.push({ _tag: "Long", name: textOf(name), value: value.success })
      continue
    }
    if (!flagsEnded && text.startsWith("-") && text.length > 1) {
      const letters = word.slice(1)
      if (unquotedGlob(letters)) return Result.fail(`the flags '${text}': short flags are letters, not a glob`)
      for (const [letter] of letters) {
        if (!items.some((item) => item._tag === "Short" && item.letter === letter))
          items.push({ _tag: "Short", letter })
      }
      continue
    }
    const glob = wordGlob(word)
    if (Result.isFailure(glob)) return Result.fail(`the word '${text}': ${glob.failure}`)
    items.push({ _tag: "Word", glob: glob.success })
  }
  return Result.succeed({ source, program: program.success, items })
}

// ---------------------------------------------------------------------------------------------
// A reading of a command, analysed once for every rule.

type Run = {
  readonly _tag: "Run"
  readonly shorts: Set<string>
  readonly longs: Array<readonly [name: string, value: string | undefined]>
}
type Segment = Run | { readonly _tag: "Pos"; readonly text: string } | { readonly _tag: "Wild" }

interface Analysis {
  /** The program as `deny` and `ask` read it: as written, its last path segment, in lower case, without `.exe`. */
  readonly names: ReadonlyArray<string>
  readonly shorts: ReadonlySet<string>
  /** Each long flag, with the values it may have (`=value`, or the next word). */
  readonly longs: ReadonlyArray<readonly [name: string, values: ReadonlyArray<string>]>
  /** The words a positional word of a pattern may be: the positional words, and flags' attached values. */
  readonly positionals: ReadonlyArray<Positional>
  /** A word the shell expands from a glob starting the word, or words the gate cannot see: any flag may be there. */
  readonly anyFlag: boolean
  /** The words after the program, for `allow`: runs of flags, positional words, unknown words. */
  readonly segments: ReadonlyArray<Segment>
}

/** A word a pattern's word may match; `wild`: a glob the shell expands (`glob`, when it compiles). */
interface Positional {
  readonly text: string
  readonly wild: boolean
  readonly glob: Glob.Glob | undefined
}

const analyses = new WeakMap<Argv, Analysis>()

/** The spellings of a program a `deny` or `ask` rule is matched against. */
const namesOf = (program: string): ReadonlyArray<string> => {
  const names = new Set<string>()
  for (const name of [program, baseName(program)]) {
    for (const spelt of [name, name.toLowerCase()]) {
      names.add(spelt)
      if (/\.exe$/i.test(spelt)) names.add(spelt.slice(0, -4))
    }
  }
  return [...names]
}

/** How many attached values of a short-flag bundle are tried as words (`-n5`, `-C/tmp`, `-xvf.tar`). */
const attachedTails = 3

const analyse = (reading: Argv): Analysis => {
  const known = analyses.get(reading)
  if (known !== undefined) return known
  const { words } = reading
  const globs = new Set(reading.globs)
  const shorts = new Set<string>()
  const longs: Array<readonly [string, ReadonlyArray<string>]> = []
  const positionals: Array<Positional> = []
  const segments: Array<Segment> = []
  let anyFlag = reading.open
  let run: Run | undefined
  let flagsEnded = false
  const inRun = (): Run => {
    if (run === undefined) {
      run = { _tag: "Run", shorts: new Set(), longs: [] }
      segments.push(run)
    }
    return run
  }
  for (let i = 1; i < words.length; i++) {
    const word = words[i] ?? ""
    if (globs.has(i)) {
      run = undefined
      segments.push({ _tag: "Wild" })
      if (/^[*?[]/.test(word)) anyFlag = true
      const compiled = Glob.compile(word.replace(/[.!/]/g, "\\$&"))
      positionals.push({ text: word, wild: true, glob: Result.isSuccess(compiled) ? compiled.success : undefined })
      continue
    }
    if (!flagsEnded && word === "--") {
      flagsEnded = true
      run = undefined
      continue
    }
    if (!flagsEnded && word.startsWith("--")) {
      const eq = word.indexOf("=")
      const name = word.slice(2, eq === -1 ? undefined : eq)
      const value = eq === -1 ? undefined : word.slice(eq + 1)
      const following = words[i + 1]
      longs.push([name, value !== undefined ? [value] : following !== undefined ? [following] : []])
      if (value !== undefined) positionals.push({ text: value, wild: false, glob: undefined })
      inRun().longs.push([name, value])
      continue
    }
    if (!flagsEnded && word.startsWith("-") && word.length > 1) {
      const letters = Array.from(word.slice(1))
      const into = inRun()
      for (const letter of letters) {
        shorts.add(letter)
        into.shorts.add(letter)
      }
      for (let k = 1; k <= attachedTails && k < letters.length; k++) {
        positionals.push({ text: letters.slice(k).join(""), wild: false, glob: undefined })
      }
      continue
    }
    run = undefined
    positionals.push({ text: word, wild: false, glob: undefined })
    segments.push({ _tag: "Pos", text: word })
  }
  if (reading.open) segments.push({ _tag: "Wild" })
  const analysis: Analysis = { names: namesOf(words[0] ?? ""), shorts, longs, positionals, anyFlag, segments }
  analyses.set(reading, analysis)
  return analysis
}

// ---------------------------------------------------------------------------------------------
// Matching.

/**
 * How surely a rule matches a reading: `certain` (whatever its unknown words are), `possible`
 * (only if words the gate cannot see are the right ones), or `no`.
 */
export type Degree = "certain" | "possible" | "no"

/** A pattern word against a command word: the glob matches it, or (a glob the shell expands) it could expand to it. */
const wordMatches = (glob: Glob.Glob, word: Positional): boolean =>
  Glob.matchesWord(glob, word.text) || (word.glob !== undefined && Glob.matchesWord(word.glob, glob.source))

/** Whether the pattern's flags and words are all in the command: known words only, or the unknown ones too. */
const floorHolds = (pattern: Pattern, a: Analysis, withUnknown: boolean): boolean => {
  const anyFlag = withUnknown && a.anyFlag
  const positionals = withUnknown ? a.positionals : a.positionals.filter((p) => !p.wild)
  let at = 0
  for (const item of pattern.items) {
    switch (item._tag) {
      case "Rest":
        break
      case "Short":
        if (!anyFlag && !a.shorts.has(item.letter)) return false
        break
      case "Long": {
        if (anyFlag) break
        const found = a.longs.some(
          ([name, values]) =>
            name !== "" &&
            item.name.startsWith(name) &&
            (item.value === undefined || values.some((v) => Glob.matchesWord(item.value as Glob.Glob, v)))
        )
        if (!found) return false
        break
      }
      case "Word": {
        while (at < positionals.length && !wordMatches(item.glob, positionals[at] as Positional)) at++
        if (at >= positionals.length) return false
        at++
        break
      }
    }
  }
  return true
}

/**
 * `deny` and `ask`: a floor. The program (spelt `name`) matches, every flag of the pattern is
 * somewhere in the command (a long flag also by an abbreviation of it), and the pattern's words
 * are a subsequence of the command's; extra words never prevent a match. Certain when the words
 * the gate sees are enough; possible when words it cannot see (a glob, `xargs`'s input) could
 * complete the match.
 */
const floorDegree = (pattern: Pattern, reading: Argv, name: string): Degree => {
  if (!Glob.matchesWord(pattern.program, name)) return "no"
  const a = analyse(reading)
  if (floorHolds(pattern, a, false)) return "certain"
  if (reading.open) return "possible"
  return a.positionals.some((p) => p.wild) && floorHolds(pattern, a, true) ? "possible" : "no"
}

type PatternSegment =
  | {
      readonly _tag: "Run"
      readonly shorts: ReadonlySet<string>
      readonly longs: ReadonlyArray<readonly [string, Glob.Glob | undefined]>
    }
  | { readonly _tag: "Pos"; readonly glob: Glob.Glob }
  | { readonly _tag: "Rest" }

const patternSegments = (items: ReadonlyArray<Item>): ReadonlyArray<PatternSegment> => {
  const out: Array<PatternSegment> = []
  let run: { shorts: Set<string>; longs: Array<readonly [string, Glob.Glob | undefined]> } | undefined
  for (const item of items) {
    if (item._tag === "Short" || item._tag === "Long") {
      if (run === undefined) {
        run = { shorts: new Set(), longs: [] }
        out.push({ _tag: "Run", ...run })
      }
      if (item._tag === "Short") run.shorts.add(item.letter)
      else run.longs.push([item.name, item.value])
      continue
    }
    run = undefined
    out.push(item._tag === "Rest" ? item : { _tag: "Pos", glob: item.glob })
  }
  return out
}

/** A run of flags of a pattern against one of a command: the same flags, or (next to a `*`) at least them. */
const runMatches = (p: PatternSegment & { readonly _tag: "Run" }, c: Run, atLeast: boolean): boolean => {
  const longMatches = (
    [name, glob]: readonly [string, Glob.Glob | undefined],
    [cname, value]: readonly [string, string | undefined]
  ): boolean =>
    name === cname && (glob === undefined ? value === undefined : value !== undefined && Glob.matchesWord(glob, value))
  for (const letter of p.shorts) if (!c.shorts.has(letter)) return false
  for (const long of p.longs) if (!c.longs.some((cl) => longMatches(long, cl))) return false
  if (atLeast) return true
  for (const letter of c.shorts) if (!p.shorts.has(letter)) return false
  for (const cl of c.longs) if (!p.longs.some((long) => longMatches(long, cl))) return false
  return true
}

/**
 * `allow`: exactly. The program as written, then the pattern's words in order against the
 * command's: a run of flags matches a run with the same flags (in any order, bundled or not), a
 * word its glob, and `*` any words where it stands (flags included, and more flags in a run
 * next to it). A word the shell expands from a glob, or words the gate cannot see, only a `*`
 * takes, so a match is always certain.
 */
const matchesExactly = (pattern: Pattern, reading: Argv): boolean => {
  if (!Glob.matchesWord(pattern.program, reading.words[0] ?? "")) return false
  const p = patternSegments(pattern.items)
  const c = analyse(reading).segments
  const m = p.length
  const n = c.length
  // ok[i * (n + 1) + j]: the pattern from i matches the command from j.
  const ok = new Uint8Array((m + 1) * (n + 1))
  ok[m * (n + 1) + n] = 1
  for (let i = m - 1; i >= 0; i--) {
    const seg = p[i] as PatternSegment
    const atLeast = p[i - 1]?._tag === "Rest" || p[i + 1]?._tag === "Rest"
    for (let j = n; j >= 0; j--) {
      let yes = false
      if (seg._tag === "Rest") yes = ok[(i + 1) * (n + 1) + j] === 1 || (j < n && ok[i * (n + 1) + j + 1] === 1)
      else if (j < n && ok[(i + 1) * (n + 1) + j + 1] === 1) {
        const cs = c[j] as Segment
        if (seg._tag === "Pos") yes = cs._tag === "Pos" && Glob.matchesWord(seg.glob, cs.text)
        else yes = cs._tag === "Run" && runMatches(seg, cs, atLeast)
      }
      ok[i * (n + 1) + j] = yes ? 1 : 0
    }
  }
  return ok[0] === 1
}

/**
 * The spellings of a reading's program, each decided as a reading of its own: as written, by
 * its last path segment (`/usr/bin/rm`, `./rm`, `bin//rm` are also `rm`), in lower case (a
 * case-insensitive file system), without `.exe`.
 */
export const programNames = (reading: Argv): ReadonlyArray<string> => analyse(reading).names

/**
 * How surely a rule with `decision` and this pattern matches a readable command whose program
 * is read as `name` (one of `programNames`): `allow` matches the program as written, exactly;
 * `deny` and `ask` match `name`, as a floor.
 */
export const degree = (pattern: Pattern, reading: Argv, decision: "allow" | "ask" | "deny", name: string): Degree =>
  decision === "allow" ? (matchesExactly(pattern, reading) ? "certain" : "no") : floorDegree(pattern, reading, name)
