/**
 * A text printed piece by piece as a model streams it, escaped exactly as `Transcript.printable`
 * escapes the whole text: what the pieces print, joined, is what the whole would print. A piece
 * may end inside a character (half of a surrogate pair) or between a zero-width joiner and the
 * pictograph after it (kept only between two pictographs): such a tail waits for the next piece,
 * or for `end`. Whether a joiner or a variation selector is kept depends on the character before
 * it, so the last character printed is kept to judge the next piece by.
 *
 * @since 0.2.0
 */
import * as Transcript from "./Transcript.ts"

/**
 * One text as it streams: `push` each piece and print what it gives, `end` when the text ends.
 *
 * @since 0.2.0
 */
export interface Deltas {
  /** The printable form of what of `piece` can be judged now (possibly nothing yet). */
  readonly push: (piece: string) => string
  /** The printable form of whatever was held back; the next `push` starts a new text. */
  readonly end: () => string
}

const zwj = "\u200d"

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff

/** How much of `text` can be printed now: all of it but a trailing high surrogate or joiner. */
const decidable = (text: string): number => {
  let cut = text.length
  if (cut > 0 && isHighSurrogate(text.charCodeAt(cut - 1))) cut--
  if (cut > 0 && text[cut - 1] === zwj) cut--
  return cut
}

/** The last code point of a non-empty text (a pair whole), as a string. */
const lastCharacter = (text: string): string => {
  const low = text.charCodeAt(text.length - 1)
  if (low >= 0xdc00 && low <= 0xdfff && text.length >= 2 && isHighSurrogate(text.charCodeAt(text.length - 2))) {
    return text.slice(-2)
  }
  return text.slice(-1)
}

/**
 * `text` printed after `before` (the last character already printed), without `before` itself.
 * At the start of a text a character's escaping does not depend on what follows it (a joiner
 * with nothing before it is escaped whatever comes next), so `before` alone prints as it
 * printed at the front of `before + text`.
 */
const after = (before: string, text: string): string =>
  before === ""
    ? Transcript.printable(text)
    : Transcript.printable(before + text).slice(Transcript.printable(before).length)

/**
 * A new streamed text.
 *
 * @example
 * ```ts
 * const text = Deltas.make()
 * text.push("a\u001b") + text.push("[31mb\ud83d") + text.push("\ude00") + text.end()
 * // === Transcript.printable("a\u001b[31mb\ud83d\ude00"): "a\\u001b[31mb😀"
 * ```
 *
 * @since 0.2.0
 */
export const make = (): Deltas => {
  let pending = ""
  let before = ""
  const print = (text: string): string => {
    if (text === "") return ""
    const out = after(before, text)
    before = lastCharacter(text)
    return out
  }
  return {
    push: (piece) => {
      const text = pending + piece
      const cut = decidable(text)
      pending = text.slice(cut)
      return print(text.slice(0, cut))
    },
    end: () => {
      const out = print(pending)
      pending = ""
      before = ""
      return out
    }
  }
}
