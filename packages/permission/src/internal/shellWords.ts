/**
 * A conservative reader of POSIX shell text, written by hand for the permission gate: it reads
 * what it understands exactly as `sh` does (quotes removed, `\` escapes, line continuations,
 * comments, `;` `&&` `||` `|` `&` and newlines between simple commands, redirections dropped,
 * leading `NAME=VALUE` assignments dropped), and refuses everything else as **opaque**, naming
 * the construct: a parameter expansion, a command substitution, arithmetic, a process
 * substitution, a subshell or a group, a here-document, brace expansion, a compound command, a
 * glob in the program's place, an unclosed quote. It never guesses: what runs must be read, or
 * be decided as anything.
 */

/** One simple command: its words (quotes removed), and which of them are globs the shell expands. */
export interface Simple {
  readonly words: ReadonlyArray<string>
  /** Indices of argument words with an unquoted glob (`*.log`, `pu*`): the shell expands them to file names. */
  readonly globs: ReadonlyArray<number>
}

/** What a line reads as. */
export type Line =
  | { readonly _tag: "Commands"; readonly commands: ReadonlyArray<Simple> }
  | { readonly _tag: "Opaque"; readonly construct: string }
  | { readonly _tag: "TooLarge"; readonly limit: "words"; readonly size: number }

/** A word of a pattern: each character, and whether it was quoted. */
export type PatternWord = ReadonlyArray<readonly [char: string, quoted: boolean]>

/** Words that open or close a compound command where a program would be: the line is opaque. */
const reserved: ReadonlySet<string> = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "case",
  "esac",
  "while",
  "until",
  "for",
  "select",
  "function",
  "coproc",
  "{",
  "}",
  "[[",
  "]]"
])

const isBlank = (c: string | undefined): boolean => c === " " || c === "\t"
/** The characters that end an unquoted word. */
const isMeta = (c: string | undefined): boolean =>
  c === " " ||
  c === "\t" ||
  c === "\n" ||
  c === ";" ||
  c === "&" ||
  c === "|" ||
  c === "(" ||
  c === ")" ||
  c === "<" ||
  c === ">"
/** After `$`, the characters that make an expansion (`$X`, `$1`, `$@`, `${`, `$(`, `$'`, `$"`). */
const expands = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_@*#?$!{('"-]/.test(c)

/** A short piece of the text from `at`, for saying what could not be read. */
const snippet = (text: string, at: number, length = 24): string => {
  const piece = text.slice(at, at + length)
  return at + length < text.length ? `${piece}…` : piece
}

/** The expansion that starts at `at` (`$X`, `${X}`, `$(…)`, `` `…` ``), as written, cut when long. */
const expansion = (text: string, at: number): string => {
  const open = text[at + 1]
  let end = at + 2
  if (text[at] === "`") {
    const close = text.indexOf("`", at + 1)
    end = close === -1 ? text.length : close + 1
  } else if (open === "{" || open === "(") {
    const close = open === "{" ? "}" : ")"
    let depth = 0
    for (end = at + 1; end < text.length; end++) {
      if (text[end] === open) depth++
      else if (text[end] === close && --depth === 0) {
        end++
        break
      }
    }
  } else if (open !== undefined && /[A-Za-z_]/.test(open)) {
    while (end < text.length && /[A-Za-z0-9_]/.test(text[end] ?? "")) end++
  }
  const piece = text.slice(at, end)
  return piece.length > 24 ? `${piece.slice(0, 24)}…` : piece
}

interface RawWord {
  text: string
  /** Some character was quoted or escaped. */
  quoted: boolean
  /** An unquoted `*`, `?` or `[…]`: the shell expands it to file names. */
  glob: boolean
  /** `NAME=` or `NAME+=` written unquoted at its start: an assignment before the program. */
  assignment: boolean
}

class Opaque {
  readonly construct: string
  constructor(construct: string) {
    this.construct = construct
  }
}

/**
 * Reads one shell line as `sh -c` would. `bashRedirect`: read `&>` as bash does (a
 * redirection) rather than as POSIX does (`&`, then `>`); callers read a line with `&>` both ways.
 */
const parse = (line: string, bashRedirect: boolean, maxWords: number): Line => {
  const n = line.length
  let i = 0
  const commands: Array<Simple> = []
  let current: Array<RawWord> = []
  let words = 0

  /** Ends the simple command being read; `false` when an operator has no command before it. */
  const end = (operator: boolean): Opaque | undefined => {
    if (current.length === 0) return operator ? new Opaque(snippet(line, Math.max(0, i - 1), 8)) : undefined
    const done = finish(current)
    current = []
    if (done instanceof Opaque) return done
    if (done !== undefined) commands.push(done)
    return undefined
  }

  /** Reads a word from `i` (not at a metacharacter); leaves `i` after it. */
  const readWord = (): RawWord | Opaque => {
    const word: RawWord = { text: "", quoted: false, glob: false, assignment: false }
    // Whether the text so far is a NAME (or NAME+), kept as it grows: no regex over the word.
    let name = "empty" as "empty" | "name" | "plus" | "no"
    const grow = (c: string, quoted: boolean) => {
      if (quoted || name === "no" || name === "plus") name = "no"
      else if (/[A-Za-z_]/.test(c) || (name === "name" && /[0-9]/.test(c))) name = "name"
      else name = name === "name" && c === "+" ? "plus" : "no"
    }
    let braceOpen = false
    let braceSeparated = false
    // An unquoted `[` is a glob when a `]` follows it in the word.
    let bracket = -1
    const start = i
    while (i < n) {
      const c = line[i]
      if (isMeta(c)) break
      if (c === "\\") {
        const next = line[i + 1]
        if (next === undefined) return new Opaque("\\ at the end")
        i += 2
        if (next === "\n") continue
        word.text += next
        word.quoted = true
        name = "no"
        continue
      }
      if (c === "'") {
        const close = line.indexOf("'", i + 1)
        if (close === -1) return new Opaque(`an unclosed ' (${snippet(line, i)})`)
        word.text += line.slice(i + 1, close)
        word.quoted = true
        name = "no"
        i = close + 1
        continue
      }
      if (c === '"') {
        const opened = i
        i++
        let closed = false
        while (i < n) {
          const d = line[i]
          if (d === '"') {
            closed = true
            i++
            break
          }
          if (d === "\\") {
            const next = line[i + 1]
            if (next === "\n") {
              i += 2
              continue
            }
            if (next === "$" || next === "`" || next === '"' || next === "\\") {
              word.text += next
              i += 2
              continue
            }
            word.text += "\\"
            i++
            continue
          }
          if (d === "`") return new Opaque(expansion(line, i))
          if (d === "$" && expands(line[i + 1]) && line[i + 1] !== '"') return new Opaque(expansion(line, i))
          word.text += d
          i++
        }
        if (!closed) return new Opaque(`an unclosed " (${snippet(line, opened)})`)
        word.quoted = true
        name = "no"
        continue
      }
      if (c === "`") return new Opaque(expansion(line, i))
      if (c === "$") {
        if (expands(line[i + 1])) return new Opaque(expansion(line, i))
        word.text += c
        name = "no"
        i++
        continue
      }
      if (c === "*" || c === "?") word.glob = true
      else if (c === "[" && bracket === -1) bracket = word.text.length
      else if (c === "{") braceOpen = true
      else if (braceOpen && (c === "," || (c === "." && line[i + 1] === "."))) braceSeparated = true
      else if (c === "}" && braceOpen && braceSeparated) return new Opaque(snippet(line, start))
      else if (c === "=" && !word.assignment && (name === "name" || name === "plus")) word.assignment = true
      grow(c ?? "", false)
      word.text += c
      i++
    }
    if (bracket !== -1 && word.text.indexOf("]", bracket + 1) !== -1) word.glob = true
    return word
  }

  /** A redirection at `i` (`<`, `>`, `>>`, `2>&1`, `&>`…): its target word is read and dropped. */
  const redirection = (): Opaque | undefined => {
    const at = i
    const c = line[i]
    const next = line[i + 1]
    if (c === "&") i += line[i + 2] === ">" ? 3 : 2
    else if (c === "<") {
      if (next === "<" || next === "(") return new Opaque(snippet(line, at))
      i += next === "&" || next === ">" ? 2 : 1
    } else {
      if (next === "(") return new Opaque(snippet(line, at))
      i += next === ">" || next === "&" || next === "|" ? 2 : 1
    }
    while (isBlank(line[i])) i++
    if (i >= n || isMeta(line[i]) || line[i] === "#") return new Opaque(snippet(line, at))
    const target = readWord()
    if (target instanceof Opaque) return target
    if (target.glob) return new Opaque(snippet(line, at))
    return undefined
  }

  while (i < n) {
    const c = line[i]
    if (isBlank(c)) {
      i++
      continue
    }
    if (c === "\\" && line[i + 1] === "\n") {
      i += 2
      continue
    }
    if (c === "\n") {
      const ended = end(false)
      if (ended) return { _tag: "Opaque", construct: ended.construct }
      i++
      continue
    }
    if (c === "#") {
      while (i < n && line[i] !== "\n") i++
      continue
    }
    if (c === ";") {
      if (line[i + 1] === ";") return { _tag: "Opaque", construct: ";;" }
      const ended = end(true)
      if (ended) return { _tag: "Opaque", construct: ended.construct }
      i++
      continue
    }
    if (c === "&") {
      if (line[i + 1] === ">" && bashRedirect) {
        const redirected = redirection()
        if (redirected) return { _tag: "Opaque", construct: redirected.construct }
        continue
      }
      const ended = end(true)
      if (ended) return { _tag: "Opaque", construct: ended.construct }
      i += line[i + 1] === "&" ? 2 : 1
      continue
    }
    if (c === "|") {
      const ended = end(true)
      if (ended) return { _tag: "Opaque", construct: ended.construct }
      i += line[i + 1] === "|" || line[i + 1] === "&" ? 2 : 1
      continue
    }
    if (c === "(" || c === ")") return { _tag: "Opaque", construct: snippet(line, i) }
    if (c === "<" || c === ">") {
      const redirected = redirection()
      if (redirected) return { _tag: "Opaque", construct: redirected.construct }
      continue
    }
    const word = readWord()
    if (word instanceof Opaque) return { _tag: "Opaque", construct: word.construct }
    // `2>file`: digits written just before a redirection are its file descriptor.
    if (!word.quoted && /^[0-9]+$/.test(word.text) && (line[i] === "<" || line[i] === ">")) continue
    if (++words > maxWords) return { _tag: "TooLarge", limit: "words", size: words }
    current.push(word)
  }
  const ended = end(false)
  if (ended) return { _tag: "Opaque", construct: ended.construct }
  return { _tag: "Commands", commands }
}

/** A simple command's words: assignments and `!` dropped, checked where its program is. */
const finish = (raw: ReadonlyArray<RawWord>): Simple | Opaque | undefined => {
  let from = 0
  for (; from < raw.length; from++) {
    const word = raw[from]
    if (word === undefined) break
    if (word.assignment) continue
    if (!word.quoted && word.text === "!") continue
    break
  }
  const program = raw[from]
  if (program === undefined) return undefined
  if (!program.quoted && reserved.has(program.text)) return new Opaque(program.text)
  if (program.glob) return new Opaque(program.text)
  const words: Array<string> = []
  const globs: Array<number> = []
  for (let k = from; k < raw.length; k++) {
    const word = raw[k]
    if (word === undefined) continue
    if (word.glob) globs.push(words.length)
    words.push(word.text)
  }
  return { words, globs }
}

/**
 * A POSIX shell line as simple commands, or what makes it opaque, or too many words
 * (`maxWords`). A line with `&>` is read both as bash reads it and as POSIX does, and gives the
 * commands of both readings.
 */
export const parseLine = (line: string, maxWords: number): Line => {
  const posix = parse(line, false, maxWords)
  if (posix._tag !== "Commands" || !line.includes("&>")) return posix
  const bash = parse(line, true, maxWords)
  if (bash._tag !== "Commands") return bash
  return { _tag: "Commands", commands: [...posix.commands, ...bash.commands] }
}

/**
 * Words split as `env -S` splits its string: blanks between words, quotes and `\` escapes
 * removed; every other character is literal. A `$` that would expand, or an unclosed quote, is
 * opaque (its construct).
 */
export const splitWords = (text: string): { readonly words: ReadonlyArray<string> } | { readonly opaque: string } => {
  const split = splitQuoted(text, false)
  return "problem" in split ? { opaque: split.problem } : { words: split.words.map((w) => w.map(([c]) => c).join("")) }
}

/**
 * A command pattern's words, each character with whether it was quoted, or what is wrong: an
 * unclosed quote, an escape at the end, or an unquoted character a pattern cannot hold (`;`,
 * `|`, `&`, `<`, `>`, `(`, `)`, `$`, `` ` ``, a newline, `#` at the start of a word: a pattern is
 * one command, written out).
 */
export const splitPattern = (
  text: string
): { readonly words: ReadonlyArray<PatternWord> } | { readonly problem: string } => splitQuoted(text, true)

const patternRefuses = /[;|&<>()$`\n]/

const splitQuoted = (
  text: string,
  pattern: boolean
): { readonly words: ReadonlyArray<PatternWord> } | { readonly problem: string } => {
  const chars = Array.from(text)
  const words: Array<PatternWord> = []
  let word: Array<readonly [string, boolean]> | undefined
  const push = (c: string, quoted: boolean) => {
    word ??= []
    word.push([c, quoted])
  }
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] ?? ""
    if (c === " " || c === "\t" || (!pattern && c === "\n")) {
      if (word !== undefined) words.push(word)
      word = undefined
      continue
    }
    if (c === "\\") {
      const next = chars[i + 1]
      if (next === undefined) return { problem: "it ends with an escape '\\' that escapes nothing" }
      push(next, true)
      i++
      continue
    }
    if (c === "'") {
      const close = chars.indexOf("'", i + 1)
      if (close === -1) return { problem: "a ' is not closed" }
      word ??= []
      for (let k = i + 1; k < close; k++) push(chars[k] ?? "", true)
      i = close
      continue
    }
    if (c === '"') {
      word ??= []
      let k = i + 1
      for (; k < chars.length && chars[k] !== '"'; k++) {
        const d = chars[k] ?? ""
        if (d === "\\" && /[$`"\\]/.test(chars[k + 1] ?? "")) {
          push(chars[k + 1] ?? "", true)
          k++
          continue
        }
        if (d === "`" || (d === "$" && expands(chars[k + 1]) && chars[k + 1] !== '"')) {
          return pattern
            ? { problem: `'${d}' is not allowed in a pattern, even between double quotes (use single quotes)` }
            : { problem: expansion(chars.slice(k).join(""), 0) }
        }
        push(d, true)
      }
      if (k >= chars.length) return { problem: 'a " is not closed' }
      i = k
      continue
    }
    if (pattern && (patternRefuses.test(c) || (c === "#" && word === undefined))) {
      return {
        problem: `a pattern is one command written out: '${c === "\n" ? "\\n" : c}' is not allowed unquoted (quote it to match it literally)`
      }
    }
    if (!pattern && (c === "`" || (c === "$" && expands(chars[i + 1]))))
      return { problem: expansion(chars.slice(i).join(""), 0) }
    push(c, false)
  }
  if (word !== undefined) words.push(word)
  return { words }
}
