/**
 * A durable file environment: the `Files` service over a real directory, for runs that must
 * survive a crash (the journal's SIGKILL soak counts side effects here). Each path is one file
 * directly under the directory, its name the path encoded with `encodeURIComponent` (so `/`,
 * `..` and friends never leave the directory; a leading `.` is encoded too, and the empty path
 * is the file `%`). Every change is on disk before it returns:
 *
 * - `append` opens the file for appending, writes, `fsync`s and closes it (and `fsync`s the
 *   directory when it created the file);
 * - `write` writes a temporary file, `fsync`s it, renames it over the old one and `fsync`s the
 *   directory, so a crash leaves either the old content or the new, never a mix.
 *
 * `read`, `list`, `entries` and `snapshot` read the disk each time. Temporary files start with
 * `.` (no encoded name does) and are ignored by `list`; `make` removes the ones a crash left.
 * One process uses a directory at a time.
 *
 * The `Files` operations have no error channel: an I/O failure (a full disk, a name too long
 * for the file system, a path with a lone surrogate) is a defect carrying a `DiskFilesError`.
 * Contents are UTF-8. On a case-insensitive file system `A.txt` and `a.txt` are one file.
 *
 * @since 0.1.0
 */
import { Buffer } from "node:buffer"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import process from "node:process"
import { Effect, Layer, Option, Schema } from "effect"
import { Files, type FilesShape } from "./Files.ts"

/**
 * A file operation failed: which, on what, and why.
 *
 * @since 0.1.0
 */
export class DiskFilesError extends Schema.TaggedError<DiskFilesError>()("DiskFilesError", {
  operation: Schema.String,
  path: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return `${this.operation} ${this.path}: ${this.problem}`
  }
}

const problemOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

/** The prefix of temporary files: no encoded name starts with it. */
const tempPrefix = ".tmp-"

/**
 * The file name of a path: `encodeURIComponent`, with a leading `.` encoded (`.`, `..` and
 * hidden names stay inside and never clash with temporary files) and the empty path as `%`.
 *
 * @since 0.1.0
 */
export const encodeName = (path: string): string => (path === "" ? "%" : encodeURIComponent(path).replace(/^\./, "%2E"))

/**
 * The path of a file name written by `encodeName`; `undefined` for a name it never writes.
 *
 * @since 0.1.0
 */
export const decodeName = (name: string): string | undefined => {
  if (name === "%") return ""
  if (name.startsWith(".")) return undefined
  try {
    const path = decodeURIComponent(name)
    return encodeName(path) === name ? path : undefined
  } catch {
    return undefined
  }
}

const writeAll = (fd: number, data: Uint8Array): void => {
  let offset = 0
  while (offset < data.length) offset += fs.writeSync(fd, data, offset, data.length - offset)
}

/** Writes `content` to a file opened with `flag`, and flushes it to disk before returning. */
const writeSynced = (file: string, flag: "w" | "a", content: string): void => {
  const fd = fs.openSync(file, flag)
  try {
    writeAll(fd, Buffer.from(content, "utf8"))
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

const fsyncDirectory = (dir: string): void => {
  let fd: number
  try {
    fd = fs.openSync(dir, "r")
  } catch (error) {
    // Windows cannot open a directory as a file; its renames are durable without this.
    if (process.platform === "win32") return
    throw error
  }
  try {
    fs.fsyncSync(fd)
  } catch (error) {
    if (process.platform !== "win32") throw error
  } finally {
    fs.closeSync(fd)
  }
}

const sortPaths = (paths: Array<string>): Array<string> => paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

/**
 * The environment over `dir`, synchronously (the directory is created if needed; temporary
 * files left by a crash are removed). Throws when the directory cannot be made or read.
 *
 * @since 0.1.0
 */
export const makeUnsafe = (dir: string): FilesShape => {
  const root = nodePath.resolve(dir)
  fs.mkdirSync(root, { recursive: true })
  for (const name of fs.readdirSync(root)) {
    if (name.startsWith(tempPrefix)) fs.rmSync(nodePath.join(root, name), { force: true })
  }
  let temps = 0
  const fileOf = (path: string) => nodePath.join(root, encodeName(path))
  const io = <A>(operation: string, path: string, f: () => A): Effect.Effect<A> =>
    Effect.suspend(() => {
      try {
        return Effect.succeed(f())
      } catch (error) {
        return Effect.die(new DiskFilesError({ operation, path, problem: problemOf(error) }))
      }
    })
  const read = (path: string): Option.Option<string> => {
    try {
      return Option.some(fs.readFileSync(fileOf(path), "utf8"))
    } catch (error) {
      if (codeOf(error) === "ENOENT") return Option.none()
      throw error
    }
  }
  const list = (): Array<string> =>
    sortPaths(
      fs
        .readdirSync(root, { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .flatMap((entry) => {
          const path = decodeName(entry.name)
          return path === undefined ? [] : [path]
        })
    )
  const entries = io("list", root, () =>
    list().flatMap((path): Array<readonly [string, string]> => {
      const content = read(path)
      return Option.isSome(content) ? [[path, content.value]] : []
    })
  )
  return Files.of({
    read: (path) => io("read", path, () => read(path)),
    write: (path, content) =>
      io("write", path, () => {
        const target = fileOf(path)
        temps += 1
        const temp = nodePath.join(root, `${tempPrefix}${process.pid}-${temps}`)
        try {
          writeSynced(temp, "w", content)
          fs.renameSync(temp, target)
        } catch (error) {
          fs.rmSync(temp, { force: true })
          throw error
        }
        fsyncDirectory(root)
      }),
    append: (path, content) =>
      io("append", path, () => {
        const target = fileOf(path)
        const created = !fs.existsSync(target)
        writeSynced(target, "a", content)
        if (created) fsyncDirectory(root)
      }),
    list: io("list", root, list),
    entries,
    snapshot: Effect.map(entries, (all) => Object.fromEntries(all))
  })
}

/**
 * The environment over `dir`; fails when the directory cannot be made or read.
 *
 * @since 0.1.0
 */
export const make = (dir: string): Effect.Effect<FilesShape, DiskFilesError> =>
  Effect.try({
    try: () => makeUnsafe(dir),
    catch: (error) => new DiskFilesError({ operation: "open", path: dir, problem: problemOf(error) })
  })

/**
 * A layer providing `Files` over `dir`.
 *
 * @since 0.1.0
 */
export const layer = (dir: string): Layer.Layer<Files, DiskFilesError> => Layer.effect(Files, make(dir))
