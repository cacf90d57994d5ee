/**
 * Counting text: UTF-8 bytes and characters (code points) of a string, and JSON that never
 * throws (cyclic values, BigInts and throwing getters give what they can).
 */

const nonAscii = /[\u0080-\uffff]/
const surrogate = /[\ud800-\udfff]/
const encoder = new TextEncoder()
let scratch = new Uint8Array(1 << 16)

/** The UTF-8 length by hand: for strings too long to encode into the scratch buffer. */
const utf8Loop = (value: string): number => {
  let bytes = 0
  const n = value.length
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = value.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}

/**
 * The number of bytes `value` takes in UTF-8 (a lone surrogate counts as U+FFFD, 3 bytes).
 * ASCII is its length; other text is encoded into a reused buffer (native code, much faster
 * than a loop in JavaScript), or counted by hand past 1M code units.
 */
export const utf8Length = (value: string): number => {
  if (!nonAscii.test(value)) return value.length
  if (value.length > 1 << 20) return utf8Loop(value)
  if (scratch.length < value.length * 3) scratch = new Uint8Array(value.length * 3)
  return encoder.encodeInto(value, scratch).written
}

/** The number of characters (code points) of `value`: its length less its surrogate pairs. */
export const characters = (value: string): number => {
  if (!surrogate.test(value)) return value.length
  let count = 0
  const n = value.length
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = value.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
    count++
  }
  return count
}

/** `JSON.stringify(value)`, or `String(value)` when that throws, or `""` when both do. */
export const safeJson = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? ""
  } catch {
    try {
      return String(value)
    } catch {
      return ""
    }
  }
}
