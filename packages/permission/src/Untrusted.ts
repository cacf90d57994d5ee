/**
 * Tool output as untrusted data. A tool's result can carry text written by anyone (a web page,
 * a file, an email): text that tries to instruct the model is prompt injection. With the gate's
 * `untrustedOutput` option, every result a tool produced is put between two markers
 * (`<untrusted_tool_output>` … `</untrusted_tool_output>`), anything inside the result that a
 * model could read as the markers' name is defused (`forged`), and the system prompt line
 * (`notice`) tells the model what the markers mean. The trace shows it: the observation holds
 * the markers, and the gate's decision event says `untrusted_output: true`.
 *
 * A result cannot forge its own end with a look-alike either. The name is looked for in a
 * folded copy of the text: NFKD compatibility forms (fullwidth `＜／＞`, mathematical letters),
 * accents and default-ignorable code points (zero-width spaces and joiners, U+2060, U+FEFF, the
 * soft hyphen) dropped, case folded, Cyrillic, Greek and Armenian letters that look like the
 * name's Latin ones folded to them (`о`, `ο`, `т`, `р`, …, and `0`, `1`, `I`, `|`), and every
 * hyphen, dash, minus, underscore or space between its words as one separator. What matches is
 * defused in the original text, the whole span (hidden characters included). The words joined
 * by spaces alone (`untrusted tool output`) count only next to a tag's bracket (`</untrusted
 * tool output >`), so prose that says them is left as it is.
 *
 * What this does not do: it does not make a model immune to injection. It gives the model a
 * reliable boundary between your instructions and tool data, which models follow better than no
 * boundary, and nothing more. The permission policy is what limits what an injected instruction
 * can get done: keep writes, deletes and open-world tools on `ask` or `deny`.
 *
 * @since 0.1.0
 */
import type { Outcome } from "@agent-harness/executor"
import { Effect } from "effect"
import * as Messages from "./Messages.ts"

/**
 * The marker before a result.
 *
 * @since 0.1.0
 */
export const open = "<untrusted_tool_output>"

/**
 * The marker after a result.
 *
 * @since 0.1.0
 */
export const close = "</untrusted_tool_output>"

/**
 * The text that replaces a copy of the markers' name inside a result, so that a result cannot
 * close its block early and write outside it (`</untrusted_tool_output>` becomes
 * `</forged_marker>`, and so does `</ｕｎｔｒｕｓｔｅｄ\u200b-tооl-output>`).
 *
 * @since 0.1.0
 */
export const defused = "forged_marker"

/** Look-alikes of the letters of the markers' name (and of `<`, `>`, `/`), by the letter they fold to. */
const lookAlikes: Readonly<Record<string, string>> = {
  u: "υսᴜʋʊ∪⋃ᑌՍ",
  n: "ոռпηɴΝ",
  t: "тτƚᴛТΤ",
  r: "гʀᴦⲅɾ",
  s: "ѕꜱƽʂЅ",
  e: "еєҽεɛ℮ЕΕ",
  d: "ԁɗᑯꓒᎠ",
  o: "0оοσօᴏⲟ〇ℴОΟՕ",
  l: "1|iıӏӀΙιǀℓƖ丨",
  p: "рρ⍴ᴘРΡ",
  "<": "‹〈⟨ᐸ˂❮〈⧼",
  ">": "›〉⟩ᐳ˃❯〉⧽",
  "/": "∕⁄⧸╱⟋"
}

const folded: ReadonlyMap<number, string> = new Map(
  Object.entries(lookAlikes).flatMap(([to, from]) =>
    Array.from(from, (char) => [char.codePointAt(0) ?? 0, to] as const)
  )
)

/** Dropped from the folded copy: accents and other marks, and what is not shown at all. */
const invisible = /^[\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}]$/u
/** A separator between the name's words: whitespace (folded to a space) … */
const space = /^[\s\p{Zs}]$/u
/** … or any hyphen, dash, minus or underscore (folded to `_`). */
const joiner = /^[\p{Pd}\p{Pc}\u2212\u2043\u02d7\u2027]$/u

/** What an ASCII character is in the folded copy: lower case, `0 1 I i |` as `o l l l l`, `-` as `_`. */
const asciiFold = (run: string): string =>
  run.toLowerCase().replace(/0/g, "o").replace(/[1i|]/g, "l").replace(/-/g, "_").replace(/\s/g, " ")

/** What one non-ASCII code point is in the folded copy ("" when it is dropped). */
const foldOne = (char: string): string => {
  let out = ""
  for (const part of char.normalize("NFKD")) {
    if (invisible.test(part)) continue
    const direct = folded.get(part.codePointAt(0) ?? 0)
    if (direct !== undefined) {
      out += direct
      continue
    }
    if (part.charCodeAt(0) < 0x80) out += asciiFold(part)
    else if (space.test(part)) out += " "
    else if (joiner.test(part)) out += "_"
    else {
      const lower = part.toLowerCase()
      out += lower === "i" ? "l" : (folded.get(lower.codePointAt(0) ?? 0) ?? lower)
    }
  }
  return out
}

/**
 * The folded copy of a text, and where each of its characters came from: runs of ASCII fold
 * one to one; each other code point is one segment (cached by code point).
 */
const foldedCopy = (content: string) => {
  const parts: Array<string> = []
  /** Per segment: where it starts in the copy, where it came from, its length there; `linear` runs map one to one. */
  const copyStart: Array<number> = []
  const origin: Array<number> = []
  const width: Array<number> = []
  const linear: Array<boolean> = []
  const cache = new Map<string, string>()
  let length = 0
  const add = (part: string, at: number, size: number, ascii: boolean) => {
    if (part === "") return
    parts.push(part)
    copyStart.push(length)
    origin.push(at)
    width.push(size)
    linear.push(ascii)
    length += part.length
  }
  // The ASCII runs folded all at once (their places kept when lower-casing keeps the length).
  const whole = asciiFold(content)
  const runOf = whole.length === content.length ? (from: number, to: number) => whole.slice(from, to) : undefined
  const others = /[\ud800-\udbff][\udc00-\udfff]|[\u0080-\uffff]/g
  let at = 0
  for (let found = others.exec(content); found !== null; found = others.exec(content)) {
    if (found.index > at) {
      add(runOf?.(at, found.index) ?? asciiFold(content.slice(at, found.index)), at, found.index - at, true)
    }
    const text = found[0]
    let part = cache.get(text)
    if (part === undefined) {
      part = foldOne(text)
      cache.set(text, part)
    }
    add(part, found.index, text.length, false)
    at = found.index + text.length
  }
  if (at < content.length)
    add(runOf?.(at, content.length) ?? asciiFold(content.slice(at)), at, content.length - at, true)
  /** The segment holding the copy's character `k`. */
  const segmentOf = (k: number): number => {
    let low = 0
    let high = copyStart.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if ((copyStart[middle] ?? 0) <= k) low = middle
      else high = middle - 1
    }
    return low
  }
  return {
    copy: parts.join(""),
    /** Where the copy's character `k` starts in the text. */
    startOf: (k: number): number => {
      const s = segmentOf(k)
      return (origin[s] ?? 0) + (linear[s] === true ? k - (copyStart[s] ?? 0) : 0)
    },
    /** Where the copy's character `k` ends in the text. */
    endOf: (k: number): number => {
      const s = segmentOf(k)
      return linear[s] === true ? (origin[s] ?? 0) + k - (copyStart[s] ?? 0) + 1 : (origin[s] ?? 0) + (width[s] ?? 0)
    }
  }
}

/** The markers' name in the folded copy: its words, any separators between them. */
const nameInCopy = /untrusted[_ ]*tool[_ ]*output/g
/** A tag's bracket right before the name (`<`, `</`, `< /`) or right after it (`>`, ` />`). */
const bracketBefore = /<[ /]*$/
const bracketAfter = /^[ /]*>/

/**
 * The spans of `content` (start, end) a model could read as the markers' name. Linear in the
 * text's length.
 */
const forgedSpans = (content: string): ReadonlyArray<readonly [number, number]> => {
  // ASCII has no look-alike of the letters of "untrusted" but their other case: a text of
  // ASCII without that word holds no copy of the name.
  if (!/untrusted/i.test(content) && !/[\u0080-\uffff]/.test(content)) return []
  const { copy, startOf, endOf } = foldedCopy(content)
  const spans: Array<readonly [number, number]> = []
  nameInCopy.lastIndex = 0
  for (let found = nameInCopy.exec(copy); found !== null; found = nameInCopy.exec(copy)) {
    const first = found.index
    const last = first + found[0].length - 1
    const prose =
      found[0].includes(" ") &&
      !bracketBefore.test(copy.slice(Math.max(0, first - 16), first)) &&
      !bracketAfter.test(copy.slice(last + 1, last + 17))
    if (!prose) spans.push([startOf(first), endOf(last)])
  }
  return spans
}

/**
 * `content` with anything a model could read as the markers' name replaced by `defused`; the
 * rest of it as it is. Linear in the text's length.
 *
 * @since 0.1.0
 */
export const forged = (content: string): string => {
  const spans = forgedSpans(content)
  if (spans.length === 0) return content
  let out = ""
  let at = 0
  for (const [start, end] of spans) {
    out += content.slice(at, start) + defused
    at = end
  }
  return out + content.slice(at)
}

/**
 * A result's text between the markers, anything in it that could be read as the markers' name
 * defused (`forged`). Linear in the text's length.
 *
 * @since 0.1.0
 */
export const wrap = (content: string): string => `${open}\n${forged(content)}\n${close}`

/**
 * Whether an outcome's text came from the tool (or the backend behind it), and so is marked: a
 * success, a tool's own failure, a thrown message, a status envelope's message, and a replayed
 * observation of one of those. Texts the harness wrote (`not executed: …`, a timeout, outcome
 * unknown) are not.
 *
 * @since 0.1.0
 */
export const fromTool = (outcome: Outcome.Outcome): boolean => {
  switch (outcome._tag) {
    case "Succeeded":
      return true
    case "Failed":
      return (
        outcome.failure._tag === "ToolError" ||
        outcome.failure._tag === "Defect" ||
        outcome.failure._tag === "StatusError"
      )
    case "Replayed":
      return outcome.original === "Succeeded" || outcome.original === "Failed"
    default:
      return false
  }
}

/**
 * An outcome with its text wrapped when it came from the tool; otherwise as it is.
 *
 * @since 0.1.0
 */
export const mark = (outcome: Outcome.Outcome): Outcome.Outcome =>
  fromTool(outcome) ? { ...outcome, content: wrap(outcome.content) } : outcome

/**
 * The system prompt line that tells the model what the markers mean, in the catalogue's
 * language (`Messages`). Add it to your system prompt when the gate marks output.
 *
 * @since 0.1.0
 */
export const notice: Effect.Effect<string> = Effect.map(Messages.current, (messages) =>
  messages.untrustedNotice(open, close)
)
