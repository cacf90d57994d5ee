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
 * It stays inside its folder whatever the folder holds. It only ever reads or appends to a
 * regular file with one link: a symbolic link, a file with other hard links, a directory, a
 * FIFO, a socket or a device under a path is a typed `PathRefused` (nothing read, nothing
 * written, never blocking on a FIFO), and `list`, `entries` and `snapshot` skip them. Links are
 * never followed: files are opened with `O_NOFOLLOW` and checked again with `fstat` once open,
 * so a link swapped in after the check is refused too; `write` renames over the name (a link
 * there is replaced, never written through). The folder is resolved once by `make`, and every
 * operation first checks that it is still the same directory.
 *
 * `read`, `list`, `entries` and `snapshot` read the disk each time. Temporary files are named
 * `.agent-harness-diskfiles-<pid>-<n>.tmp` (no encoded name starts with `.`) and are ignored by
 * `list`; `make` removes the ones a crash left (a regular file of that exact name whose process
 * is gone), and nothing else. One process uses a directory at a time.
 *
 * An I/O failure (a full disk, the folder removed) is a defect carrying a `FlatFilesError`;
 * its message shows root-relative names only, never the folder's absolute path. Contents are
 * UTF-8 (a lone surrogate in a content is stored as U+FFFD). On a case-insensitive file system
 * `A.txt` and `a.txt` are one file.
 *
 * @since 0.1.0
 */
import { Buffer } from "node:buffer"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import process from "node:process"
import { type Cause, Effect, Layer, Option, Schema } from "effect"
import { isWellFormed, PathRefused } from "./FilePath.ts"
import { Files, type FilesShape } from "./Files.ts"
import {
  checkSameFolder,
  codeOf,
  isRunning,
  O_NOFOLLOW,
  O_NONBLOCK,
  operationMessage,
  refusalOf,
  refusalOfCode,
  textOf,
  writeAll
} from "./internal/disk.ts"

const FlatFilesErrorBase: Schema.Class<
  FlatFilesError,
  Schema.TaggedStruct<
    "FlatFilesError",
    {
      readonly operation: Schema.String
      readonly path: Schema.optional<Schema.String>
      readonly problem: Schema.String
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<FlatFilesError>()("FlatFilesError", {
  operation: Schema.String,
  path: Schema.optional(Schema.String),
  problem: Schema.String
})

/**
 * A file operation failed: which, on what (a `Files` path; none for the whole folder), and why.
 *
 * @since 0.1.0
 */
export class FlatFilesError extends FlatFilesErrorBase {
  /** `operation path: problem`, or `operation: problem` for the whole folder. */
  override get message(): string {
    return operationMessage(this)
  }
}

/** A text with every mention of the folders (`/abs/root/x` → `x`, `/abs/root` → `.`) made relative. */
const relativeTo =
  (folders: ReadonlyArray<string>) =>
  (text: string): string =>
    folders.reduce((out, folder) => out.split(`${folder}${nodePath.sep}`).join("").split(folder).join("."), text)

const temporaryName = /^\.agent-harness-diskfiles-(\d+)-\d+\.tmp$/

const temporaryFile = (n: number): string => `.agent-harness-diskfiles-${process.pid}-${n}.tmp`

/**
 * The file name of a path: `encodeURIComponent`, with a leading `.` encoded (`.`, `..` and
 * hidden names stay inside and never clash with temporary files) and the empty path as `%`.
 * Throws a `URIError` for a path with a lone surrogate.
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

/** Removes the temporary files a crash left: our exact name, a regular file, its process gone. */
const removeLeftovers = (root: string): void => {
  for (const name of fs.readdirSync(root)) {
    const match = temporaryName.exec(name)
    if (match === null) continue
    const pid = Number(match[1])
    if (pid !== process.pid && isRunning(pid)) continue
    const file = nodePath.join(root, name)
    try {
      if (fs.lstatSync(file).isFile()) fs.rmSync(file, { force: true })
    } catch (error) {
      if (codeOf(error) !== "ENOENT") throw error
    }
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
  fs.mkdirSync(nodePath.resolve(dir), { recursive: true })
  const root = fs.realpathSync(nodePath.resolve(dir))
  const identity = fs.statSync(root)
  removeLeftovers(root)
  const relative = relativeTo([...new Set([root, nodePath.resolve(dir)])])
  let temps = 0

  /** Dies unless the folder is still the directory `make` opened (not removed, moved or swapped). */
  const checkRoot = (): void => checkSameFolder(root, identity)

  /** The file of a path, or a refusal: a path with a lone surrogate has no name on disk. */
  const fileOf = (path: string): string => {
    if (!isWellFormed(path)) throw new PathRefused({ path, reason: "malformed" })
    return nodePath.join(root, encodeName(path))
  }

  /**
   * Whether a plain file (regular, one link) is under a path, `false` when nothing is; throws the
   * `PathRefused` of anything else (`lstat`: a link is seen as a link, never followed).
   */
  const plainFileAt = (path: string, file: string): boolean => {
    let stats: fs.Stats
    try {
      stats = fs.lstatSync(file)
    } catch (error) {
      const code = codeOf(error)
      if (code === "ENOENT") return false
      const reason = refusalOfCode(code)
      if (reason !== undefined) throw new PathRefused({ path, reason })
      throw error
    }
    const reason = refusalOf(stats)
    if (reason !== undefined) throw new PathRefused({ path, reason })
    return true
  }

  /**
   * Opens a plain file without following a link and without blocking, and checks with `fstat`
   * what was opened (a link or special file swapped in after `plainFileAt` is refused here).
   */
  const open = (path: string, file: string, flags: number): number => {
    let fd: number
    try {
      fd = fs.openSync(file, flags | O_NOFOLLOW | O_NONBLOCK, 0o666)
    } catch (error) {
      const reason = refusalOfCode(codeOf(error))
      if (reason !== undefined) throw new PathRefused({ path, reason })
      throw error
    }
    const reason = refusalOf(fs.fstatSync(fd))
    if (reason !== undefined) {
      fs.closeSync(fd)
      throw new PathRefused({ path, reason })
    }
    return fd
  }

  const io = <A>(operation: string, path: string | undefined, f: () => A): Effect.Effect<A, PathRefused> =>
    Effect.suspend(() => {
      try {
        checkRoot()
        return Effect.succeed(f())
      } catch (error) {
        if (error instanceof PathRefused) return Effect.fail(error)
        return Effect.die(new FlatFilesError({ operation, path, problem: relative(textOf(error)) }))
      }
    })

  const read = (path: string): Option.Option<string> => {
    const file = fileOf(path)
    if (!plainFileAt(path, file)) return Option.none()
    let fd: number
    try {
      fd = open(path, file, fs.constants.O_RDONLY)
    } catch (error) {
      if (codeOf(error) === "ENOENT") return Option.none()
      throw error
    }
    try {
      return Option.some(fs.readFileSync(fd, "utf8"))
    } finally {
      fs.closeSync(fd)
    }
  }

  /** A new temporary file, opened for writing: never an existing name, never through a link. */
  const openTemporary = (): { readonly file: string; readonly fd: number } => {
    for (;;) {
      temps += 1
      const file = nodePath.join(root, temporaryFile(temps))
      try {
        const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW
        return { file, fd: fs.openSync(file, flags, 0o666) }
      } catch (error) {
        if (codeOf(error) !== "EEXIST") throw error
      }
    }
  }

  const write = (path: string, content: string): void => {
    const file = fileOf(path)
    // Refuses a link, a directory or a special file there; the rename below replaces the name
    // itself, so a link swapped in meanwhile is replaced, never written through.
    plainFileAt(path, file)
    const temp = openTemporary()
    try {
      try {
        writeAll(temp.fd, Buffer.from(content, "utf8"))
        fs.fsyncSync(temp.fd)
      } finally {
        fs.closeSync(temp.fd)
      }
      fs.renameSync(temp.file, file)
    } catch (error) {
      fs.rmSync(temp.file, { force: true })
      const reason = refusalOfCode(codeOf(error))
      if (reason !== undefined) throw new PathRefused({ path, reason })
      throw error
    }
    fsyncDirectory(root)
  }

  const append = (path: string, content: string): void => {
    const file = fileOf(path)
    const existed = plainFileAt(path, file)
    const fd = open(path, file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT)
    try {
      writeAll(fd, Buffer.from(content, "utf8"))
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
    if (!existed) fsyncDirectory(root)
  }

  /** The paths of the plain files: links, directories, special files and other names are skipped. */
  const list = (): Array<string> =>
    sortPaths(
      fs.readdirSync(root).flatMap((name) => {
        const path = decodeName(name)
        if (path === undefined) return []
        try {
          return refusalOf(fs.lstatSync(nodePath.join(root, name))) === undefined ? [path] : []
        } catch (error) {
          if (codeOf(error) === "ENOENT") return []
          throw error
        }
      })
    )

  /** Every plain file with its content; one removed or swapped for something else meanwhile is skipped. */
  const entries = (): Array<readonly [string, string]> =>
    list().flatMap((path): Array<readonly [string, string]> => {
      try {
        const content = read(path)
        return Option.isSome(content) ? [[path, content.value]] : []
      } catch (error) {
        if (error instanceof PathRefused) return []
        throw error
      }
    })

  const allEntries = Effect.orDie(io("list", undefined, entries))
  return Files.of({
    read: (path) => io("read", path, () => read(path)),
    write: (path, content) => io("write", path, () => write(path, content)),
    append: (path, content) => io("append", path, () => append(path, content)),
    list: Effect.orDie(io("list", undefined, list)),
    entries: allEntries,
    snapshot: Effect.map(allEntries, (all) => Object.fromEntries(all))
  })
}

/**
 * The environment over `dir`; fails when the directory cannot be made or read.
 *
 * @since 0.1.0
 */
export const make = (dir: string): Effect.Effect<FilesShape, FlatFilesError> =>
  Effect.try({
    try: () => makeUnsafe(dir),
    catch: (error) => new FlatFilesError({ operation: "open", path: dir, problem: textOf(error) })
  })

/**
 * A layer providing `Files` over `dir`.
 *
 * @since 0.1.0
 */
export const layer = (dir: string): Layer.Layer<Files, FlatFilesError> => Layer.effect(Files, make(dir))
