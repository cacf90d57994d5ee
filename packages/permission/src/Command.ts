/**
 * Commands, as the permission gate reads them. A tool has a command when its input has a field
 * meaning `program` (with one meaning `arguments`, a list of texts) or `shell` (a POSIX shell
 * line), by `Tool.fields` (a field not listed means its own name). `readingsOf` gives every
 * reading of one call's command: the program and its arguments as given; what a wrapper runs
 * (`env`, `nice`, `timeout`, `sudo`, `xargs`, `busybox`, …), recursively; each simple command of
 * a shell line (`sh -c LINE`, `bash -lc LINE`, the `shell` field), quotes removed as `sh`
 * removes them. What cannot be read fully (`$CMD`, `$(…)`, `eval`, a subshell, an unclosed
 * quote) is an `Opaque` reading, which a policy decides as any command its `deny` and `ask`
 * rules name.
 *
 * A rule's `command` patterns are written like a shell command (`git push *`, `rm -rf *`):
 * `parsePattern` reads them and `matches` matches them, exactly for an `allow` rule and as a
 * floor for `deny` and `ask` (the program, the pattern's flags somewhere, its words in order,
 * extra words never preventing a match), so that a spelling can only make a command treated more
 * carefully, never less.
 *
 * @since 0.1.0
 */
import { Render, type Tool } from "@agent-harness/tool-schema"
import { Result } from "effect"
import type * as Glob from "./Glob.ts"
import * as Patterns from "./internal/commandPattern.ts"
import * as Meanings from "./internal/meanings.ts"
import * as ShellWords from "./internal/shellWords.ts"
import * as Wrappers from "./internal/wrappers.ts"

/**
 * The meaning of the field that holds the program to run (`command { program }`,
 * `comando { programa }`).
 *
 * @since 0.1.0
 */
export const programMeaning = "program"

/**
 * The meaning of the field that holds the program's arguments: a list of texts.
 *
 * @since 0.1.0
 */
export const argumentsMeaning = "arguments"

/**
 * The meaning of the field that holds a POSIX shell line, run as `sh -c line`
 * (`shell { line }`, `consola { línea }`).
 *
 * @since 0.1.0
 */
export const shellMeaning = "shell"

/**
 * A command read in full: its words (the program first), quotes removed.
 *
 * @since 0.1.0
 */
export interface Argv {
  /** A command read in full. */
  readonly _tag: "Argv"
  /** The program, then its arguments. */
  readonly words: ReadonlyArray<string>
  /**
   * The indices of words the shell expands as globs (`*.log`, `pu*`): they become file names,
   * which may be any words, flags included (a file named `-rf`).
   */
  readonly globs: ReadonlyArray<number>
  /** More words follow that the gate cannot see (`xargs` adds words of its input). */
  readonly open: boolean
}

/**
 * A command the gate cannot read fully, and the construct that hides it (`$CMD`, `$(…)`, `eval`).
 *
 * @since 0.1.0
 */
export interface Opaque {
  /** A command not read in full. */
  readonly _tag: "Opaque"
  /** What could not be read, as written (cut when long). */
  readonly construct: string
}

/**
 * One reading of a call's command.
 *
 * @since 0.1.0
 */
export type Reading = Argv | Opaque

/**
 * A short flag of a pattern (`-rf` is `r` and `f`).
 *
 * @since 0.1.0
 */
export interface Short {
  /** A short flag. */
  readonly _tag: "Short"
  /** The letter. */
  readonly letter: string
}

/**
 * A long flag of a pattern: `--force`, or `--output=glob` with a glob on its value.
 *
 * @since 0.1.0
 */
export interface Long {
  /** A long flag. */
  readonly _tag: "Long"
  /** The name, without `--`. */
  readonly name: string
  /** The glob its value must match (`--name=glob`); `undefined`: written without a value. */
  readonly value: Glob.Glob | undefined
}

/**
 * A word of a pattern other than a flag: a glob on one word of the command.
 *
 * @since 0.1.0
 */
export interface Word {
  /** A word. */
  readonly _tag: "Word"
  /** The glob (`*` and `?` match `/` too: a word is not a path). */
  readonly glob: Glob.Glob
}

/**
 * `*` alone in a pattern: any words (none included).
 *
 * @since 0.1.0
 */
export interface Rest {
  /** Any words. */
  readonly _tag: "Rest"
}

/**
 * A part of a pattern after its program.
 *
 * @since 0.1.0
 */
export type Item = Short | Long | Word | Rest

/**
 * A command pattern, parsed.
 *
 * @since 0.1.0
 */
export interface Pattern {
  /** The pattern as written (`git push *`). */
  readonly source: string
  /** The glob on the program's name. */
  readonly program: Glob.Glob
  /** The rest, in order. */
  readonly items: ReadonlyArray<Item>
}

/**
 * A command too large to decide: too many words, characters, or wrappers and shells inside each
 * other. The call is denied.
 *
 * @since 0.1.0
 */
export interface TooLarge {
  /** A command past a bound. */
  readonly _tag: "CommandTooLarge"
  /** Which bound. */
  readonly limit: "words" | "characters" | "depth"
  /** How much it had (at least). */
  readonly size: number
  /** The bound. */
  readonly max: number
}

/**
 * Why a call's command could not be read: a field threw when read, it has too many readings,
 * or it is too large.
 *
 * @since 0.1.0
 */
export type Problem =
  | { readonly _tag: "Unreadable"; readonly field: string; readonly message: string }
  | { readonly _tag: "TooManyReadings"; readonly readings: number }
  | TooLarge

/**
 * The most words of one command (a program's arguments, a line's words).
 *
 * @since 0.1.0
 */
export const maxWords = 1024

/**
 * The most characters of one command (its program and arguments, or its line).
 *
 * @since 0.1.0
 */
export const maxLength = 65_536

/**
 * The most characters of all the readings of one call together.
 *
 * @since 0.1.0
 */
export const maxCharacters = 262_144

/**
 * How deep wrappers and shells may sit inside each other (`sh -c "env sh -c '…'"`).
 *
 * @since 0.1.0
 */
export const maxDepth = 8

/**
 * The most readings of one call's command.
 *
 * @since 0.1.0
 */
export const maxReadings = 1024

/**
 * Parses a command pattern: words written like a shell command (quotes allowed; `;`, `|`, `&`,
 * `$`, redirections refused: a pattern is one command). The first word is a glob on the
 * program; `*` alone is any words; `-rf` is the short flags `r` and `f`; `--name` and
 * `--name=glob` are long flags; `--` ends the flags; any other word is a glob on one word.
 * Fails saying what is wrong (`it ends with an escape '\' that escapes nothing`).
 *
 * @example
 * ```ts
 * import { Command } from "@agent-harness/permission"
 *
 * Command.parsePattern("git push *") // Result.succeed(pattern)
 * Command.parsePattern("git status; rm") // Result.fail("a pattern is one command written out: ';' …")
 * ```
 *
 * @since 0.1.0
 */
export const parsePattern: (source: unknown) => Result.Result<Pattern, string> = Patterns.parse

/**
 * Whether a rule with `decision` and `pattern` matches a reading of a command. `allow` matches
 * exactly: the program as written, the same flags (in any order, bundled or not), the words in
 * order, `*` any words where it stands. `deny` and `ask` match generously: the program as
 * written or by its last path segment (`/bin/rm`, `./rm`), every flag of the pattern somewhere,
 * the pattern's words in order among the command's (`ask git push *` matches
 * `git -C /tmp push`); words the gate cannot see (a glob the shell expands, `xargs`'s input)
 * may be any words, so they may complete such a match. An opaque reading matches every `deny`
 * and `ask` pattern and no `allow` one. (A policy decides each spelling of the program as a
 * reading of its own, and a match that needs unseen words as only possible: see `Policy.decide`.)
 *
 * @since 0.1.0
 */
export const matches = (pattern: Pattern, reading: Reading, decision: "allow" | "ask" | "deny"): boolean =>
  reading._tag === "Opaque"
    ? decision !== "allow"
    : Patterns.programNames(reading).some((name) => Patterns.degree(pattern, reading, decision, name) !== "no")

/** The readings of one call, gathered within the bounds. */
class Collector {
  readonly readings: Array<Reading> = []
  private readonly keys = new Set<string>()
  private characters = 0
  private opaque = false
  problem: Problem | undefined

  add(reading: Argv): void {
    const key = `${reading.open ? "+" : "-"}${reading.globs.join(",")}\u0000${reading.words.join("\u0000")}`
    if (this.keys.has(key)) return
    this.characters += key.length
    if (this.characters > maxCharacters) {
      this.problem ??= { _tag: "CommandTooLarge", limit: "characters", size: this.characters, max: maxCharacters }
      return
    }
    this.keys.add(key)
    this.push(reading)
  }

  addOpaque(construct: string): void {
    if (this.opaque) return
    this.opaque = true
    this.push({ _tag: "Opaque", construct })
  }

  private push(reading: Reading): void {
    this.readings.push(reading)
    if (this.readings.length > maxReadings) this.problem ??= { _tag: "TooManyReadings", readings: this.readings.length }
  }
}

const tooLarge = (limit: TooLarge["limit"], size: number, max: number): TooLarge => ({
  _tag: "CommandTooLarge",
  limit,
  size,
  max
})

const expandArgv = (into: Collector, argv: Argv, depth: number): void => {
  if (into.problem !== undefined || argv.words.length === 0) return
  if (depth > maxDepth) {
    into.problem ??= tooLarge("depth", depth, maxDepth)
    return
  }
  if (argv.globs.includes(0)) {
    into.addOpaque(argv.words[0] ?? "")
    return
  }
  into.add(argv)
  for (const next of Wrappers.next(argv.words, argv.globs, argv.open)) {
    if (into.problem !== undefined) return
    if (next._tag === "Argv") expandArgv(into, next, depth + 1)
    else if (next._tag === "Line") expandLine(into, next.line, depth + 1)
    else into.addOpaque(next.construct)
  }
}

const expandLine = (into: Collector, line: string, depth: number): void => {
  if (into.problem !== undefined) return
  if (depth > maxDepth) {
    into.problem ??= tooLarge("depth", depth, maxDepth)
    return
  }
  if (line.length > maxLength) {
    into.problem ??= tooLarge("characters", line.length, maxLength)
    return
  }
  const parsed = ShellWords.parseLine(line, maxWords)
  if (parsed._tag === "TooLarge") into.problem ??= tooLarge("words", parsed.size, maxWords)
  else if (parsed._tag === "Opaque") into.addOpaque(parsed.construct)
  else for (const simple of parsed.commands) expandArgv(into, { _tag: "Argv", ...simple, open: false }, depth)
}

/** What one call's fields hold, read once: the programs, their argument lists, the lines. */
interface Fields {
  readonly programs: ReadonlyArray<string>
  readonly arguments: ReadonlyArray<ReadonlyArray<string>>
  readonly lines: ReadonlyArray<string>
  /** A field that holds something the gate cannot read as text. */
  readonly opaque: string | undefined
}

const readFields = (input: unknown, meanings: Tool.FieldMeanings | undefined): Result.Result<Fields, Problem> => {
  const sources = Meanings.sourcesOf(meanings, [programMeaning, argumentsMeaning, shellMeaning])
  const programs: Array<string> = []
  const argumentLists: Array<ReadonlyArray<string>> = []
  const lines: Array<string> = []
  let opaque: string | undefined
  let field = "(input)"
  try {
    for (const source of sources.get(programMeaning) ?? []) {
      field = source
      const value = Meanings.fieldOf(input, source)
      if (typeof value === "string") programs.push(value)
      else if (value !== undefined) opaque ??= `its field '${source}' is not text`
    }
    for (const source of sources.get(argumentsMeaning) ?? []) {
      field = source
      const value = Meanings.fieldOf(input, source)
      if (value === undefined) continue
      if (!Array.isArray(value)) {
        opaque ??= `its field '${source}' is not a list of texts`
        continue
      }
      const length: unknown = value.length
      if (typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) {
        opaque ??= `its field '${source}' is not a list of texts`
        continue
      }
      if (length >= maxWords) return Result.fail(tooLarge("words", length + 1, maxWords))
      const texts: Array<string> = []
      for (let i = 0; i < length; i++) {
        const element: unknown = value[i]
        if (typeof element === "string") texts.push(element)
        else opaque ??= `its field '${source}' is not a list of texts`
      }
      argumentLists.push(texts)
    }
    for (const source of sources.get(shellMeaning) ?? []) {
      field = source
      const value = Meanings.fieldOf(input, source)
      if (typeof value === "string") lines.push(value)
      else if (value !== undefined) opaque ??= `its field '${source}' is not text`
    }
  } catch (thrown) {
    return Result.fail({ _tag: "Unreadable", field, message: Render.thrown(thrown) })
  }
  return Result.succeed({ programs, arguments: argumentLists, lines, opaque })
}

/**
 * Every reading of a call's command, from its decoded input and its tool's field meanings: the
 * program and its arguments as given, what each wrapper runs, each simple command of each shell
 * line, recursively, and at most one `Opaque` reading for what cannot be read. Empty when the
 * tool has no command (no field means `program` or `shell`, or the input has none). Never
 * throws: a field that throws when read, or a command past a bound ({@link maxWords},
 * {@link maxLength}, {@link maxDepth}, {@link maxReadings}, {@link maxCharacters}), is a
 * `Problem`.
 *
 * @example
 * ```ts
 * import { Command } from "@agent-harness/permission"
 *
 * Command.readingsOf({ programa: "env", argumentos: ["rm", "-rf", "x"] }, { programa: "program", argumentos: "arguments" })
 * // Result.succeed([{ words: ["env", "rm", "-rf", "x"], … }, { words: ["rm", "-rf", "x"], … }])
 * ```
 *
 * @since 0.1.0
 */
export const readingsOf = (
  input: unknown,
  meanings: Tool.FieldMeanings | undefined
): Result.Result<ReadonlyArray<Reading>, Problem> => {
  const fields = readFields(input, meanings)
  if (Result.isFailure(fields)) return Result.fail(fields.failure)
  const { programs, arguments: argumentLists, lines, opaque } = fields.success
  const into = new Collector()
  if (opaque !== undefined) into.addOpaque(opaque)
  for (const program of programs) {
    for (const args of argumentLists.length === 0 ? [[]] : argumentLists) {
      const words = [program, ...args]
      const length = words.reduce((sum, w) => sum + w.length + 1, 0)
      if (length > maxLength) return Result.fail(tooLarge("characters", length, maxLength))
      expandArgv(into, { _tag: "Argv", words, globs: [], open: false }, 0)
    }
  }
  for (const line of lines) expandLine(into, line, 0)
  if (into.problem !== undefined) return Result.fail(into.problem)
  return Result.succeed(into.readings)
}

/**
 * A word as a POSIX shell needs it written: as it is when it holds only safe characters, else
 * between single quotes (`'my file'`, `''`, `'it'\''s'`).
 *
 * @since 0.1.0
 */
export const quote = (word: string): string =>
  word === "" ? "''" : /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`

/**
 * A call's command as one line a person reads: the program and its arguments, each quoted as a
 * shell would need it, or the shell line as written; `undefined` when the tool has none or it
 * cannot be read. Not escaped for a terminal (see `Printable`).
 *
 * @since 0.1.0
 */
export const display = (input: unknown, meanings: Tool.FieldMeanings | undefined): string | undefined => {
  const fields = readFields(input, meanings)
  if (Result.isFailure(fields)) return undefined
  const { programs, arguments: argumentLists, lines } = fields.success
  const program = programs[0]
  if (program !== undefined) return [program, ...(argumentLists[0] ?? [])].map(quote).join(" ")
  return lines[0]
}
