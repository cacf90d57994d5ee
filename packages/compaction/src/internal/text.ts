/**
 * Counting text: UTF-8 bytes and characters (code points) of a string without encoding it, and
 * JSON that never throws (cyclic values, BigInts and throwing getters give what they can).
 */

/** The number of bytes `value` takes in UTF-8 (a lone surrogate counts as U+FFFD, 3 bytes). */
export const utf8Length = (value: string): number => {
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

/** The number of characters (code points) of `value`. */
export const characters = (value: string): number => {
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
