/**
 * A command line given as one text (`--mcp "node server.js --root 'my notes'"`) split into the
 * program and its arguments the way a POSIX shell splits words, and nothing more: no variables,
 * globs, pipes or redirections are expanded (the command is started directly, never through a
 * shell). Blanks separate words; `'…'` keeps everything inside as it is; `"…"` keeps everything
 * but `\"`, `\\`, `` \` `` and `\$`, which it unescapes; a `\` outside quotes keeps the next
 * character as it is.
 *
 * @since 0.1.0
 */
import { Result } from "effect"

const blank = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "\r"

/**
 * The words of a command line, or what is wrong with it: an unterminated quote (saying where it
 * opened), a `\` at the very end, no words at all.
 *
 * @since 0.1.0
 */
export const split = (text: string): Result.Result<ReadonlyArray<string>, string> => {
  const words: Array<string> = []
  let word: string | undefined
  let i = 0
  while (i < text.length) {
    const c = text[i] ?? ""
    if (blank(c)) {
      if (word !== undefined) words.push(word)
      word = undefined
      i++
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1)
      if (end < 0) return Result.fail(`a ' opened at character ${i + 1} is never closed`)
      word = (word ?? "") + text.slice(i + 1, end)
      i = end + 1
    } else if (c === '"') {
      let inside = ""
      let j = i + 1
      for (; j < text.length && text[j] !== '"'; j++) {
        const next = text[j + 1]
        if (text[j] === "\\" && next !== undefined && '"\\$`'.includes(next)) {
          inside += next
          j++
        } else inside += text[j]
      }
      if (j >= text.length) return Result.fail(`a " opened at character ${i + 1} is never closed`)
      word = (word ?? "") + inside
      i = j + 1
    } else if (c === "\\") {
      const next = text[i + 1]
      if (next === undefined) return Result.fail("it ends with a \\ that escapes nothing")
      word = (word ?? "") + next
      i += 2
    } else {
      word = (word ?? "") + c
      i++
    }
  }
  if (word !== undefined) words.push(word)
  return words.length === 0 ? Result.fail("it is empty: give a command to start") : Result.succeed(words)
}
