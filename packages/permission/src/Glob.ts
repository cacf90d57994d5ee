/**
 * Globs for permission rules: `*`, `?`, `[a-z]`, `[!a]`, `**` segments, `{a,b}` alternatives, `\`
 * escapes and a leading `!` that negates, with picomatch's meaning (`dot: true`: wildcards match
 * names that start with a dot, but never a `.` or `..` segment).
 *
 * Matching never uses a regular expression. The text matched comes from the model, and glob
 * libraries (picomatch, minimatch) compile to backtracking RegExps: `*a*a*a*a*a*a*a*a*b` against
 * 60 `a`s did not finish in 20 s under picomatch 4.0.7, and a synchronous RegExp cannot be
 * interrupted, so one hostile argument would freeze the process at its only safety check. Here a
 * glob is matched by the classic wildcard algorithm, segment by segment: time at most
 * proportional to the pattern's length times the text's, whatever either holds. A differential
 * test checks the result against picomatch.
 *
 * @since 0.1.0
 */
import { Result } from "effect"

/**
 * A compiled glob.
 *
 * @since 0.1.0
 */
export interface Glob {
  /** The glob as written. */
  readonly source: string
  /** A leading `!`: the glob matches what its pattern does not. */
  readonly negated: boolean
  /** One pattern per alternative of its `{a,b}` groups. */
  readonly alternatives: ReadonlyArray<ReadonlyArray<Segment>>
}

/** A segment of a pattern: `**`, or a part matched against one text segment. */
type Segment = { readonly _tag: "Globstar" } | { readonly _tag: "Part"; readonly tokens: ReadonlyArray<Token> }

type Token =
  | { readonly _tag: "Char"; readonly char: string }
  | { readonly _tag: "One" }
  | { readonly _tag: "Star" }
  | { readonly _tag: "Class"; readonly negated: boolean; readonly ranges: ReadonlyArray<readonly [number, number]> }

/**
 * The longest glob accepted, in characters.
 *
 * @since 0.1.0
 */
export const maxLength = 1024

/**
 * The most patterns one glob may expand to through its `{a,b}` groups.
 *
 * @since 0.1.0
 */
export const maxAlternatives = 256

const globstar: Segment = { _tag: "Globstar" }

/** `{a,b}c{d,e}` as its alternatives (`acd`, `ace`, `bcd`, `bce`), escapes kept as they are. */
const expandBraces = (source: string): Result.Result<ReadonlyArray<string>, string> => {
  // Find the first top-level group; expand it, then expand each result again.
  let depth = 0
  let open = -1
  const commas: Array<number> = []
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === "\\") {
      i++
      continue
    }
    if (c === "[") {
      // A brace inside a character class is a plain character.
      const end = classEnd(source, i)
      if (end !== -1) i = end
      continue
    }
    if (c === "{") {
      if (depth === 0) open = i
      depth++
    } else if (c === "}") {
      if (depth === 0) return Result.fail("missing opening '{' (use '\\}' for a literal '}')")
      depth--
      if (depth === 0) {
        if (commas.length === 0) {
          return Result.fail(
            `the group '${source.slice(open, i + 1)}' has no ',' (write '{a,b}', or '\\{' for a literal '{')`
          )
        }
        const head = source.slice(0, open)
        const tail = source.slice(i + 1)
        const bounds = [open, ...commas, i]
        const out: Array<string> = []
        for (let k = 0; k + 1 < bounds.length; k++) {
          const from = (bounds[k] ?? 0) + 1
          const expanded = expandBraces(`${head}${source.slice(from, bounds[k + 1])}${tail}`)
          if (Result.isFailure(expanded)) return expanded
          out.push(...expanded.success)
          if (out.length > maxAlternatives) {
            return Result.fail(`it expands to more than ${maxAlternatives} patterns through its '{a,b}' groups`)
          }
        }
        return Result.succeed(out)
      }
    } else if (c === "," && depth === 1) commas.push(i)
  }
  if (depth > 0) return Result.fail("missing closing '}' (use '\\{' for a literal '{')")
  return Result.succeed([source])
}

/** The index of the `]` that closes the class opened at `start`, or -1. */
const classEnd = (source: string, start: number): number => {
  let i = start + 1
  if (source[i] === "!" || source[i] === "^") i++
  // A `]` right after `[` or `[!` is a member, not the end.
  if (source[i] === "]") i++
  for (; i < source.length; i++) {
    const c = source[i]
    if (c === "\\") i++
    else if (c === "]") return i
  }
  return -1
}

const codePoint = (s: string): number => s.codePointAt(0) ?? 0

/** One class `[...]` (from `start`, the `[`, to `end`, its `]`): members and `a-z` ranges. */
const parseClass = (chars: ReadonlyArray<string>, start: number, end: number): Result.Result<Token, string> => {
  let i = start + 1
  let negated = false
  if (chars[i] === "!" || chars[i] === "^") {
    negated = true
    i++
  }
  const ranges: Array<readonly [number, number]> = []
  while (i < end) {
    let c = chars[i] ?? ""
    if (c === "[" && chars[i + 1] === ":") {
      return Result.fail("POSIX classes like '[[:alpha:]]' are not supported (write '[a-zA-Z]')")
    }
    if (c === "\\") c = chars[++i] ?? ""
    i++
    const lo = codePoint(c)
    // `a-z`: a dash between two members (a dash first or last is itself a member).
    if (chars[i] === "-" && i + 1 < end) {
      let h = chars[i + 1] ?? ""
      let next = i + 2
      if (h === "\\") {
        h = chars[i + 2] ?? ""
        next = i + 3
      }
      const hi = codePoint(h)
      if (hi < lo) return Result.fail(`the range '${c}-${h}' is backwards`)
      ranges.push([lo, hi])
      i = next
    } else ranges.push([lo, lo])
  }
  return Result.succeed({ _tag: "Class", negated, ranges })
}

const extglob = /[@+!*?]\(/

/** One segment of an alternative (between slashes), as tokens. */
const parsePart = (part: string): Result.Result<Segment, string> => {
  if (part === "**") return Result.succeed(globstar)
  const chars = Array.from(part)
  const tokens: Array<Token> = []
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] ?? ""
    if (c === "\\") {
      const next = chars[i + 1]
      if (next === undefined) return Result.fail("it ends with an escape '\\' that escapes nothing")
      tokens.push({ _tag: "Char", char: next })
      i++
    } else if (c === "*") {
      // `a**` is `a*`: a globstar is a whole segment.
      if (tokens.at(-1)?._tag !== "Star") tokens.push({ _tag: "Star" })
    } else if (c === "?") tokens.push({ _tag: "One" })
    else if (c === "[") {
      const end = classEndOf(chars, i)
      if (end === -1) return Result.fail("missing closing ']' (use '\\[' for a literal '[')")
      const parsed = parseClass(chars, i, end)
      if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
      tokens.push(parsed.success)
      i = end
    } else if (c === "]") return Result.fail("missing opening '[' (use '\\]' for a literal ']')")
    else tokens.push({ _tag: "Char", char: c })
  }
  return Result.succeed({ _tag: "Part", tokens })
}

const classEndOf = (chars: ReadonlyArray<string>, start: number): number => {
  let i = start + 1
  if (chars[i] === "!" || chars[i] === "^") i++
  if (chars[i] === "]") i++
  for (; i < chars.length; i++) {
    if (chars[i] === "\\") i++
    else if (chars[i] === "]") return i
  }
  return -1
}

/** Splits on unescaped slashes that are not inside a class. */
const splitSegments = (pattern: string): Array<string> => {
  const out: Array<string> = []
  let from = 0
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === "\\") i++
    else if (c === "[") {
      const end = classEnd(pattern, i)
      if (end !== -1) i = end
    } else if (c === "/") {
      out.push(pattern.slice(from, i))
      from = i + 1
    }
  }
  out.push(pattern.slice(from))
  return out
}

/**
 * Compiles a glob, or says what is wrong with it: not a string, empty, longer than
 * {@link maxLength}, an unbalanced `[`, `]`, `{` or `}`, a backwards range (`[z-a]`), a `{…}`
 * without a comma, an escape at the end, more than {@link maxAlternatives} alternatives, and
 * extglobs (`+(a|b)`) and POSIX classes, which are not supported.
 *
 * @example
 * ```ts
 * import { Glob } from "@agent-harness/permission"
 *
 * Glob.compile("secrets/**") // Result.succeed(glob)
 * Glob.compile("notes/[z-a]") // Result.fail("the range 'z-a' is backwards")
 * ```
 *
 * @since 0.1.0
 */
export const compile = (source: unknown): Result.Result<Glob, string> => {
  if (typeof source !== "string") return Result.fail("a glob must be a string")
  if (source === "") return Result.fail("a glob must not be empty")
  if (source.length > maxLength) return Result.fail(`a glob must be at most ${maxLength} characters long`)
  let negated = false
  let body = source
  while (body.startsWith("!")) {
    negated = !negated
    body = body.slice(1)
  }
  if (body === "") return Result.fail("a glob must have a pattern after its '!'")
  const found = extglob.exec(unescaped(body))
  if (found !== null) {
    return Result.fail(`extglob patterns like '${found[0]}…)' are not supported (use '{a,b}' alternatives)`)
  }
  const expanded = expandBraces(body)
  if (Result.isFailure(expanded)) return Result.fail(expanded.failure)
  const alternatives: Array<ReadonlyArray<Segment>> = []
  for (const expandedPattern of expanded.success) {
    // `./notes/*` is `notes/*`, as in picomatch.
    let pattern = expandedPattern
    while (pattern.startsWith("./") && pattern.length > 2) pattern = pattern.slice(2)
    const segments: Array<Segment> = []
    for (const part of splitSegments(pattern)) {
      const parsed = parsePart(part)
      if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
      // `a/**/**/b` is `a/**/b`.
      if (parsed.success._tag === "Globstar" && segments.at(-1)?._tag === "Globstar") continue
      segments.push(parsed.success)
    }
    alternatives.push(segments)
  }
  return Result.succeed({ source, negated, alternatives })
}

/** The pattern with every escaped character replaced by a letter, to look for syntax. */
const unescaped = (s: string): string => s.replace(/\\[\s\S]/g, "x")

const isDotSegment = (s: string): boolean => s === "." || s === ".."

const matchesOne = (token: Token, char: string): boolean => {
  switch (token._tag) {
    case "Char":
      return token.char === char
    case "One":
      return true
    case "Star":
      return false
    case "Class": {
      const code = codePoint(char)
      let inside = false
      for (const [lo, hi] of token.ranges) {
        if (code >= lo && code <= hi) {
          inside = true
          break
        }
      }
      return inside !== token.negated
    }
  }
}

/** One text segment against one part: the classic wildcard algorithm, O(tokens × characters). */
const partMatches = (tokens: ReadonlyArray<Token>, text: string): boolean => {
  if (isDotSegment(text)) {
    // Only the literal `.` or `..` matches a dot segment: no wildcard does.
    return tokens.length === text.length && tokens.every((t) => t._tag === "Char" && t.char === ".")
  }
  const chars = Array.from(text)
  let t = 0
  let c = 0
  let star = -1
  let resume = 0
  while (c < chars.length) {
    const token = tokens[t]
    if (token?._tag === "Star") {
      star = t++
      resume = c
    } else if (token !== undefined && matchesOne(token, chars[c] ?? "")) {
      t++
      c++
    } else if (star >= 0) {
      t = star + 1
      c = ++resume
    } else return false
  }
  while (tokens[t]?._tag === "Star") t++
  return t === tokens.length
}

/** Text segments against pattern segments: the same algorithm, with `**` as the star. */
const segmentsMatch = (pattern: ReadonlyArray<Segment>, text: ReadonlyArray<string>): boolean => {
  let p = 0
  let s = 0
  let star = -1
  let resume = 0
  while (s < text.length) {
    const segment = pattern[p]
    if (segment?._tag === "Globstar") {
      star = p++
      resume = s
    } else if (segment !== undefined && partMatches(segment.tokens, text[s] ?? "")) {
      p++
      s++
    } else if (star >= 0 && !isDotSegment(text[resume] ?? "")) {
      // `**` takes one more segment; it never takes `.` or `..`.
      p = star + 1
      s = ++resume
    } else return false
  }
  while (pattern[p]?._tag === "Globstar") p++
  return p === pattern.length
}

/**
 * Whether one of several texts matches the glob's pattern (a tool's name or its provider-safe
 * alias), negation applied once: `!añadir` matches neither `añadir` nor its alias `anadir`.
 * Never throws; time at most proportional to the glob's length times the texts'.
 *
 * @since 0.1.0
 */
export const matchesSome = (glob: Glob, texts: ReadonlyArray<string>): boolean => {
  let found = false
  for (const text of texts) {
    const segments = text.split("/")
    for (const alternative of glob.alternatives) {
      if (segmentsMatch(alternative, segments)) {
        found = true
        break
      }
    }
    if (found) break
  }
  return found !== glob.negated
}

/**
 * Whether a text matches the glob. Never throws; time at most proportional to the glob's length
 * times the text's.
 *
 * @since 0.1.0
 */
export const matches = (glob: Glob, text: string): boolean => {
  const segments = text.split("/")
  let found = false
  for (const alternative of glob.alternatives) {
    if (segmentsMatch(alternative, segments)) {
      found = true
      break
    }
  }
  return found !== glob.negated
}

const slash: Token = { _tag: "Char", char: "/" }
const star: Token = { _tag: "Star" }

/** An alternative as one run of tokens: its segments joined by `/`, a `**` segment as `*`. */
const flatten = (alternative: ReadonlyArray<Segment>): ReadonlyArray<Token> => {
  const tokens: Array<Token> = []
  for (const [i, segment] of alternative.entries()) {
    if (i > 0) tokens.push(slash)
    if (segment._tag === "Globstar") tokens.push(star)
    else tokens.push(...segment.tokens)
  }
  return tokens
}

/** The classic wildcard algorithm over characters, with no segment rule. */
const tokensMatch = (tokens: ReadonlyArray<Token>, chars: ReadonlyArray<string>): boolean => {
  let t = 0
  let c = 0
  let starAt = -1
  let resume = 0
  while (c < chars.length) {
    const token = tokens[t]
    if (token?._tag === "Star") {
      starAt = t++
      resume = c
    } else if (token !== undefined && matchesOne(token, chars[c] ?? "")) {
      t++
      c++
    } else if (starAt >= 0) {
      t = starAt + 1
      c = ++resume
    } else return false
  }
  while (tokens[t]?._tag === "Star") t++
  return t === tokens.length
}

/**
 * Whether a text matches the glob as one word of a command, not as a path: `/` is an ordinary
 * character that `*` and `?` match too, and `.` and `..` are words like any other
 * (`git*` matches `git-lfs`, `*rm` matches `/bin/rm`). Negation applies as in {@link matches}.
 * Never throws; time at most proportional to the glob's length times the text's.
 *
 * @since 0.1.0
 */
export const matchesWord = (glob: Glob, text: string): boolean => {
  const chars = Array.from(text)
  let found = false
  for (const alternative of glob.alternatives) {
    if (tokensMatch(flatten(alternative), chars)) {
      found = true
      break
    }
  }
  return found !== glob.negated
}

/**
 * A glob that matches exactly `text`, nothing else (the empty text included: the empty word
 * `''` of a command pattern). Every character is literal.
 *
 * @since 0.1.0
 */
export const literal = (text: string): Glob => ({
  source: text.replace(/[\\*?[\]{}!]/g, "\\$&"),
  negated: false,
  alternatives: [
    text
      .split("/")
      .map((part): Segment => ({ _tag: "Part", tokens: Array.from(part, (char): Token => ({ _tag: "Char", char })) }))
  ]
})
