/**
 * Reading an input file (a scenario file, a trace) without hanging or guessing: only a regular
 * file is read (a folder, a FIFO, a device or a socket is refused before it is opened, so
 * nothing waits on a pipe), at most `maxBytes` of it, and its bytes must be UTF-8 (a leading
 * byte order mark is dropped). Every refusal is an `InvalidScenario` at `(file)`.
 *
 * @since 0.1.0
 */
import { ByteSize, Effect, FileSystem } from "effect"
import { InvalidScenario } from "./ScenarioFile.ts"

/**
 * The largest input file read: 64 MiB.
 *
 * @since 0.1.0
 */
export const maxBytes = 64 * 1024 * 1024

/**
 * A path that cannot be read, or is not what can be read.
 *
 * @since 0.1.0
 */
export const unreadable = (file: string, reason: string): InvalidScenario =>
  new InvalidScenario({ file, path: "(file)", problem: `cannot be read: ${reason}` })

/**
 * What a file system entry is, in words (`a folder`, `a FIFO (named pipe)`).
 *
 * @since 0.1.0
 */
export const typeText = (type: FileSystem.File.Type): string => {
  switch (type) {
    case "File":
      return "a regular file"
    case "Directory":
      return "a folder"
    case "SymbolicLink":
      return "a symbolic link"
    case "BlockDevice":
      return "a block device"
    case "CharacterDevice":
      return "a character device"
    case "FIFO":
      return "a FIFO (named pipe)"
    case "Socket":
      return "a socket"
    case "Unknown":
      return "of an unknown type"
  }
}

/**
 * Why an entry of this type is not read, or `undefined` for a regular file.
 *
 * @since 0.1.0
 */
export const notRegular = (type: FileSystem.File.Type): string | undefined =>
  type === "File" ? undefined : `it is ${typeText(type)}, not a regular file`

/** The offset of the first byte that does not start a well-formed UTF-8 sequence, or -1. */
const firstInvalidUtf8 = (bytes: Uint8Array): number => {
  let i = 0
  while (i < bytes.length) {
    const b = bytes[i] ?? 0
    const more =
      b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1
    if (more < 0) return i
    const low = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80
    const high = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf
    for (let k = 1; k <= more; k++) {
      const c = bytes[i + k]
      if (c === undefined || c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) return i
    }
    i += more + 1
  }
  return -1
}

const strict = new TextDecoder("utf-8", { fatal: true })

/**
 * Bytes as UTF-8 text (a leading byte order mark dropped), or why they are not UTF-8: the
 * offset and line of the first bad byte.
 *
 * @since 0.1.0
 */
export const decodeUtf8 = (bytes: Uint8Array): { readonly text: string } | { readonly problem: string } => {
  try {
    return { text: strict.decode(bytes) }
  } catch {
    const at = firstInvalidUtf8(bytes)
    let line = 1
    for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) line++
    const byte = (bytes[at] ?? 0).toString(16).padStart(2, "0")
    return { problem: `not UTF-8 text: byte ${at} (line ${line}) is 0x${byte}, which does not start a valid sequence` }
  }
}

const tooBig = (file: string, size: bigint): InvalidScenario =>
  new InvalidScenario({
    file,
    path: "(file)",
    problem: `it has ${size} bytes, more than the ${maxBytes / (1024 * 1024)} MiB an input file may have`
  })

/**
 * Reads an input file as text: a regular file (links followed) of at most `maxBytes`, in UTF-8.
 *
 * @since 0.1.0
 */
export const read = (file: string): Effect.Effect<string, InvalidScenario, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const info = yield* Effect.mapError(fs.stat(file), (error) => unreadable(file, error.message))
    const refused = notRegular(info.type)
    if (refused !== undefined) return yield* unreadable(file, refused)
    const size = ByteSize.toBigInt(info.size)
    if (size > BigInt(maxBytes)) return yield* tooBig(file, size)
    const bytes = yield* Effect.mapError(fs.readFile(file), (error) => unreadable(file, error.message))
    // The file may have grown since it was measured.
    if (bytes.length > maxBytes) return yield* tooBig(file, BigInt(bytes.length))
    const decoded = decodeUtf8(bytes)
    if ("problem" in decoded) return yield* new InvalidScenario({ file, path: "(file)", problem: decoded.problem })
    return decoded.text
  })
