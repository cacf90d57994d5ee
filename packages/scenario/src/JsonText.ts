/**
 * JSON text as scenario files (and trace lines) are read: strictly. `JSON.parse` silently keeps
 * the last of two equal keys and accepts any depth; here a duplicate key is refused with the
 * JSON path of the second one and the line of the first, nesting past `maxDepth` is refused
 * (deeper values would overflow the stack of whatever prints or compares them later), and a
 * leading byte order mark is dropped. One pass over the text after `JSON.parse`, without
 * recursion: linear time, safe on huge or deep input.
 *
 * @since 0.1.0
 */
import { Result } from "effect"

/**
 * How deep values may nest (objects and arrays, the root counting as 1).
 *
 * @since 0.1.0
 */
export const maxDepth = 128

/**
 * Why a text is not accepted: where (a JSON path as keys and indexes; empty for the whole text)
 * and what is wrong.
 *
 * @since 0.1.0
 */
export interface Problem {
  /** Where: keys and array indexes from the root (empty for the whole text). */
  readonly path: ReadonlyArray<string | number>
  /** What is wrong there. */
  readonly problem: string
}

/** The line and column (from 1) of an offset. */
const lineColumn = (text: string, offset: number): { readonly line: number; readonly column: number } => {
  let line = 1
  let start = 0
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++
    start = i + 1
  }
  return { line, column: offset - start + 1 }
}

const lineColumnText = (text: string, offset: number): string => {
  const { line, column } = lineColumn(text, offset)
  return ` (line ${line}, column ${column})`
}

/**
 * `text` without a leading byte order mark (U+FEFF), which some editors write.
 *
 * @since 0.1.0
 */
export const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)

/** One open object or array. */
interface Frame {
  readonly object: boolean
  /** The object's keys so far, with the offset of each. */
  readonly keys: Map<string, number> | undefined
  /** The array's current index, or the object's current key (set when a key is read). */
  at: string | number
  /** In an object: the next string is a key. */
  expectKey: boolean
}

const QUOTE = 0x22
const BACKSLASH = 0x5c

/** The end (exclusive) of the string token that starts at `start` (a quote). */
const stringEnd = (text: string, start: number): number => {
  let i = start + 1
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === BACKSLASH) i += 2
    else if (c === QUOTE) return i + 1
    else i++
  }
  return i
}

/**
 * Checks valid JSON text for duplicate keys and depth, in one pass.
 *
 * @since 0.1.0
 */
export const check = (text: string): Problem | undefined => {
  const frames: Array<Frame> = []
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = stringEnd(text, i)
      const top = frames[frames.length - 1]
      if (top?.keys !== undefined && top.expectKey) {
        const raw = text.slice(i + 1, end - 1)
        const key = raw.includes("\\") ? (JSON.parse(text.slice(i, end)) as string) : raw
        const first = top.keys.get(key)
        top.at = key
        top.expectKey = false
        if (first !== undefined) {
          const { line } = lineColumn(text, first)
          return {
            path: frames.map((f) => f.at),
            problem: `duplicate key ${JSON.stringify(key)}: it is already on line ${line} of this object (JSON keeps only the last)`
          }
        }
        top.keys.set(key, i)
      }
      i = end - 1
    } else if (c === 0x7b || c === 0x5b) {
      // { or [
      if (frames.length >= maxDepth) {
        return {
          path: frames.slice(0, 8).map((f) => f.at),
          problem: `nested more than ${maxDepth} levels deep (below this path)`
        }
      }
      const object = c === 0x7b
      frames.push({ object, keys: object ? new Map() : undefined, at: 0, expectKey: object })
    } else if (c === 0x7d || c === 0x5d) {
      frames.pop()
    } else if (c === 0x2c) {
      const top = frames[frames.length - 1]
      if (top !== undefined) {
        if (top.object) top.expectKey = true
        else if (typeof top.at === "number") top.at += 1
      }
    }
  }
  return undefined
}

/**
 * Parses JSON text strictly: a leading byte order mark is dropped; invalid JSON is refused with
 * its line and column; then `check`.
 *
 * @since 0.1.0
 */
export const parse = (input: string): Result.Result<unknown, Problem> => {
  const text = withoutBom(input)
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const at = /at position (\d+)/.exec(message)
    const where = at?.[1] === undefined ? "" : lineColumnText(text, Number(at[1]))
    return Result.fail({ path: [], problem: `invalid JSON${where}: ${message}` })
  }
  const problem = check(text)
  return problem === undefined ? Result.succeed(json) : Result.fail(problem)
}
