/**
 * One output stream of a command, kept within a cap: the first bytes are kept, the rest only
 * counted (and still read, so the command never blocks on a full pipe), and at the end the kept
 * bytes become a text cut on a UTF-8 boundary, or are judged binary (a NUL byte, or bytes that
 * are not UTF-8) and shown as a marker instead.
 */
import type { Output } from "../Sandbox.ts"

const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** How many bytes of `bytes` end on a character boundary (an incomplete last character left out). */
const boundary = (bytes: Uint8Array): number => {
  let start = bytes.length
  // Back over at most 3 continuation bytes to the start of the last character.
  for (let back = 1; back <= 4 && start > 0; back++) {
    const byte = bytes[bytes.length - back] ?? 0
    if ((byte & 0xc0) !== 0x80) {
      start = bytes.length - back
      const lead = byte
      const length =
        lead < 0x80 ? 1 : (lead & 0xe0) === 0xc0 ? 2 : (lead & 0xf0) === 0xe0 ? 3 : (lead & 0xf8) === 0xf0 ? 4 : 1
      return back >= length ? bytes.length : start
    }
  }
  return bytes.length
}

/** A stream being read: `add` each chunk, `result` at the end. */
export class Capture {
  private readonly kept: Array<Uint8Array> = []
  private size = 0
  private total = 0

  private readonly cap: number

  constructor(cap: number) {
    this.cap = cap
  }

  /** Keeps a copy of what fits under the cap, and counts the rest. */
  add(chunk: Uint8Array): void {
    this.total += chunk.length
    const room = this.cap - this.size
    if (room <= 0) return
    const part = chunk.slice(0, Math.min(room, chunk.length))
    this.kept.push(part)
    this.size += part.length
  }

  /** The stream's output. */
  result(): Output {
    const truncated = this.total > this.size
    const bytes = new Uint8Array(this.size)
    let at = 0
    for (const part of this.kept) {
      bytes.set(part, at)
      at += part.length
    }
    const shown = truncated ? bytes.subarray(0, boundary(bytes)) : bytes
    if (shown.includes(0)) return { text: "", bytes: this.total, truncated, binary: true }
    try {
      return { text: fatal.decode(shown), bytes: this.total, truncated, binary: false }
    } catch {
      return { text: "", bytes: this.total, truncated, binary: true }
    }
  }
}

/** The bytes of a text in UTF-8. */
export const byteLength = (text: string): number => new TextEncoder().encode(text).length
