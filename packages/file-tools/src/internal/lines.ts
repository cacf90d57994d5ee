/**
 * The lines of a file and the ones that contain a fixed text, from its text or straight from
 * its bytes: a needle that is plain UTF-8 is looked for as bytes (`Buffer.indexOf`), and only
 * the lines it is found on are decoded. Both give the same lines as `lines(text)` filtered by
 * `includes`, which is what `search` promises.
 *
 * @internal
 */
import { Buffer } from "node:buffer"

/**
 * The lines of a text, as Python's `splitlines` sees them for `\n`, `\r\n` and `\r`: no line
 * after a final line break, none at all in an empty text.
 */
export const lines = (text: string): ReadonlyArray<string> => {
  if (text === "") return []
  const parts = text.split(/\r\n|\n|\r/)
  return /[\r\n]$/.test(text) ? parts.slice(0, -1) : parts
}

/** The lines of a text that contain `pattern`, in order. */
export const matchingInText = (text: string, pattern: string): Array<string> => {
  const out: Array<string> = []
  for (const line of lines(text)) if (line.includes(pattern)) out.push(line)
  return out
}

/**
 * The UTF-8 bytes of a pattern when looking for them in a file's bytes finds exactly the lines
 * whose decoded text contains it; `undefined` when it would not: an empty pattern (every line
 * matches, empty ones too), a line break (no line holds one), U+FFFD (which decoding makes of
 * bytes that are not UTF-8) or a lone surrogate (which has no UTF-8).
 */
export const needleOf = (pattern: string): Buffer | undefined => {
  if (pattern === "" || /[\r\n\uFFFD]/.test(pattern)) return undefined
  const bytes = Buffer.from(pattern, "utf8")
  return bytes.toString("utf8") === pattern ? bytes : undefined
}

const LF = 10
const CR = 13

/**
 * The lines of `bytes` (decoded as UTF-8) that contain `needle` (from `needleOf`), in order,
 * each once. A match cannot start inside a character, as a needle of whole characters never
 * begins with a continuation byte, and the line breaks are single bytes that no other
 * character contains, so decoding only the lines found gives what decoding the whole file
 * and splitting it would.
 */
export const matchingInBytes = (bytes: Uint8Array, needle: Uint8Array): Array<string> => {
  const out: Array<string> = []
  const view = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const end = view.length
  let from = 0
  while (from < end) {
    const at = view.indexOf(needle, from)
    if (at === -1) break
    let start = at
    while (start > from) {
      const byte = view[start - 1]
      if (byte === LF || byte === CR) break
      start--
    }
    let stop = at + needle.length
    while (stop < end) {
      const byte = view[stop]
      if (byte === LF || byte === CR) break
      stop++
    }
    out.push(view.toString("utf8", start, stop))
    from = stop + 1
  }
  return out
}
