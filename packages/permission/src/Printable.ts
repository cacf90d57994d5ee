/**
 * Text safe to show a person on a terminal. What a model or a tool wrote may hold characters
 * that drive the terminal or hide what the person reads: control characters (a colour, a cursor
 * move, a clear, a forged line), bidi controls that reverse what follows (U+202E), and invisible
 * format characters (zero-width spaces and joiners, a soft hyphen, a byte order mark, tag
 * characters). Each is shown escaped as `\u202e` (`\u{e0041}` beyond U+FFFF), so what the person
 * reads is what is there. Used by the terminal approver and the `harness agent` transcript.
 *
 * Escaped: C0 and C1 controls and DEL, format characters (Unicode category Cf: the bidi
 * controls U+200E/U+200F, U+202A–U+202E, U+2066–U+2069 and U+061C among them), the line and
 * paragraph separators, every default-ignorable code point (variation selectors, Hangul fillers,
 * …) and lone surrogates. Kept, so emoji still read as emoji: a zero-width joiner between two
 * pictographs and a variation selector after one.
 *
 * @since 0.1.0
 */

const hidden = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|[\ud800-\udfff]/u
const pictograph = /[\p{Extended_Pictographic}\p{Emoji_Modifier}]/u
const zwj = 0x200d
const emojiSelector = 0xfe0f

/** The code point that starts at `i`, or a lone surrogate as it is. */
const codeAt = (text: string, i: number): number => text.codePointAt(i) ?? 0

/** The code point that ends just before `i` (a pair read whole), or -1 at the start. */
const codeBefore = (text: string, i: number): number => {
  if (i <= 0) return -1
  const low = text.charCodeAt(i - 1)
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2)
    if (high >= 0xd800 && high <= 0xdbff) return codeAt(text, i - 2)
  }
  return low
}

const isPictograph = (code: number): boolean => code >= 0 && pictograph.test(String.fromCodePoint(code))

/** Whether the code point at `i` (`code`) is part of an emoji sequence, and so is kept. */
const inEmoji = (text: string, i: number, code: number): boolean => {
  if (code === emojiSelector) return isPictograph(codeBefore(text, i))
  if (code === zwj) return isPictograph(codeBefore(text, i)) && isPictograph(codeAt(text, i + 1))
  return false
}

const escaped = (code: number): string =>
  code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`

const escapeHidden = (text: string, keepNewlines: boolean): string => {
  // Most texts have nothing to escape: one scan, no copy.
  if (!hidden.test(text)) return text
  let out = ""
  let from = 0
  const each = new RegExp(hidden.source, "gu")
  for (let found = each.exec(text); found !== null; found = each.exec(text)) {
    const i = found.index
    const code = codeAt(text, i)
    if ((keepNewlines && code === 0x0a) || inEmoji(text, i, code)) continue
    out += `${text.slice(from, i)}${escaped(code)}`
    from = i + found[0].length
  }
  return from === 0 ? text : out + text.slice(from)
}

/**
 * A text as it may be printed on one line: every control, bidi, invisible or format character
 * escaped (`\u001b`, `\u202e`, `\u200b`), line breaks included.
 *
 * @example
 * ```ts
 * import { Printable } from "@agent-harness/permission"
 *
 * Printable.line("notes\u202Etxt.exe\n") // "notes\\u202etxt.exe\\u000a"
 * ```
 *
 * @since 0.1.0
 */
export const line = (text: string): string => escapeHidden(text, false)

/**
 * A text of several lines as it may be printed: its line breaks (`\n`) kept, everything `line`
 * escapes escaped.
 *
 * @since 0.1.0
 */
export const lines = (text: string): string => escapeHidden(text, true)
