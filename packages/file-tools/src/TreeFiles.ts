/**
 * The `Files` service over the user's real folder tree: `notes/todo.txt` is the file
 * `notes/todo.txt` under the root. It behaves as developer tools do in a repository:
 *
 * - **`.git` is never shown, read or written**: a path with a `.git` segment (any case) is a
 *   `PathRefused` (`git`), and listings and searches skip every `.git` folder or file.
 * - **`.gitignore` files are honoured**, nested ones too, with negations, each relative to its
 *   folder (and `.git/info/exclude` at the root), matched by the `ignore` package: `list`,
 *   `listUnder`, `scan`, `entries` and `snapshot` never show an ignored path, and an ignored
 *   folder (`node_modules`, `dist`) is never walked at all, so a repository with 100,000
 *   ignored files lists as fast as one without. An ignored file can still be read, written or
 *   appended to by its name (like an editor). One difference with git: a folder a `.gitignore`
 *   excludes stays excluded even where a deeper `.gitignore` re-includes it.
 * - **Links and special files are refused by name and skipped by listings**: a symbolic link
 *   anywhere in a path (a linked folder in the middle included), a file with other hard links,
 *   a FIFO, a socket or a device is a typed `PathRefused` naming the part of the path that is
 *   one, and is never followed. Each folder of a path is opened with `O_DIRECTORY | O_NOFOLLOW`
 *   inside the one opened before it (on Linux through `/proc/self/fd`, which is `openat`), files
 *   with `O_NOFOLLOW | O_NONBLOCK` and checked with `fstat` once open, so a folder or file
 *   swapped for a link between a check and its use is refused too. Nothing is ever read or
 *   written outside the root.
 * - **Every change is on disk before it returns**: `write` creates missing folders, writes a
 *   temporary file in the file's folder, `fsync`s it, renames it over the name (keeping an
 *   existing file's mode) and `fsync`s every folder it changed or created; `append` opens with
 *   `O_APPEND`, `fsync`s, and `fsync`s the folders when it created the file. A crash leaves the
 *   old content or the new, never a mix. Temporary files (`.agent-harness-tmp-<pid>-<n>.tmp`)
 *   are never listed; the first write into a folder removes those a dead process left there.
 * - **Size**: a file over `maxFileBytes` (1 MiB by default) is refused by `read`
 *   (`too-large`, the limit named) rather than loaded; `scan` and `find` give it, and any file
 *   with a NUL byte in its first 8 KiB (binary), as `Skipped` without its text; `entries` and
 *   `snapshot` leave both out. A file that grows while it is read is read to its end, and
 *   skipped as too large when it grows past the limit.
 * - **`find`** (what `search` runs) looks for the pattern's UTF-8 bytes in each file's bytes,
 *   read into one buffer used again for every file, and decodes only the lines it finds them
 *   on; a file `allows` refuses is never opened.
 * - The root is resolved once by `make` (it must be an existing folder); every operation first
 *   checks that it is still that directory, and dies with a `TreeFilesError` naming the
 *   operation otherwise. Error messages show root-relative names only.
 *
 * Paths are checked like the tools check them (`FilePath.problem`), and also need one plain
 * name per segment (`a//b`, `./a` and `a/` are refused: `segment`). Contents are UTF-8. It
 * needs a POSIX system (folders are opened as descriptors, which Windows does not allow).
 *
 * @since 0.1.0
 */
import { Buffer, isUtf8 } from "node:buffer"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import process from "node:process"
import { type Cause, Effect, Layer, Option, Schema, Stream } from "effect"
import { PathRefused, problem, type Reason } from "./FilePath.ts"
import { Files, type FilesShape, type Found, type Visit } from "./Files.ts"
import * as Dir from "./internal/dir.ts"
import { checkSameFolder, isRunning, operationMessage, textOf } from "./internal/disk.ts"
import * as Ignores from "./internal/ignores.ts"
import * as Lines from "./internal/lines.ts"

const TreeFilesErrorBase: Schema.Class<
  TreeFilesError,
  Schema.TaggedStruct<
    "TreeFilesError",
    {
      readonly operation: Schema.String
      readonly path: Schema.optional<Schema.String>
      readonly problem: Schema.String
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<TreeFilesError>()("TreeFilesError", {
  operation: Schema.String,
  path: Schema.optional(Schema.String),
  problem: Schema.String
})

/**
 * A file operation failed: which, on what (a `Files` path; none for the whole tree), and why.
 * A failure of `make` is typed; one during an operation (a full disk, the root removed) is a
 * defect carrying it.
 *
 * @since 0.1.0
 */
export class TreeFilesError extends TreeFilesErrorBase {
  /** `operation path: problem`, or `operation: problem` for the whole tree. */
  override get message(): string {
    return operationMessage(this)
  }
}

/**
 * Options of `make`.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The largest file `read` returns and `scan` reads, in bytes (default `defaultMaxFileBytes`). */
  readonly maxFileBytes?: number | undefined
}

/**
 * The default size limit of a file read: 1 MiB.
 *
 * @since 0.1.0
 */
export const defaultMaxFileBytes = 1024 * 1024

/** How much of a file decides whether it is binary (a NUL byte there): 8 KiB, as git does. */
const binaryProbe = 8 * 1024

/** A text with the folders (`/abs/root/x` → `x`) and descriptor paths made relative. */
const relativeTo =
  (folders: ReadonlyArray<string>) =>
  (text: string): string =>
    folders
      .reduce((out, folder) => out.split(`${folder}${nodePath.sep}`).join("").split(folder).join("."), text)
      .replace(/\/proc\/self\/fd\/\d+\/?/g, "")

const temporaryName = /^\.agent-harness-tmp-(\d+)-\d+\.tmp$/

const isGit = (name: string): boolean => name.toLowerCase() === ".git"

/** Why a path cannot name a file of the tree, or `undefined`. */
const treeProblem = (path: string): Reason | undefined => {
  const textual = problem(path)
  if (textual !== undefined) return textual
  const segments = path.split("/")
  if (segments.some((s) => s === "" || s === ".")) return "segment"
  if (segments.some(isGit)) return "git"
  return undefined
}

/** The entries of a folder worth walking: a decodable name, not `.git`, not a temporary file. */
interface Entry {
  readonly name: string
  readonly kind: "file" | "dir" | "other"
  /** The sort key: the name, with `/` after a folder's (so the walk is in full-path order). */
  readonly key: string
}

/** A file met by the walk: the open folder it is in, its name there and its path. */
interface Walked {
  readonly folder: Dir.Dir
  readonly name: string
  readonly path: string
}

/** A folder being walked: its entries, the next one to look at, the rules in force in it. */
interface Frame {
  readonly folder: Dir.Dir
  readonly rules: Ignores.Ignores
  readonly entries: ReadonlyArray<Entry>
  index: number
  /** The folder's path with a final `/` (`""` for the root): its entries' paths start with it. */
  readonly base: string
}

/**
 * A walk's stream gives its results in batches: one at least every `files` files walked (empty
 * when none of them gave anything), or as soon as the batch holds `characters` of text.
 */
const batching = { files: 256, characters: 1024 * 1024 }

/** The text a `find` result holds. */
const weighLines = (found: Found): number => {
  if (found._tag !== "Lines") return 0
  let total = 0
  for (const line of found.lines) total += line.length
  return total
}

/** A buffer that grows to what a file needs and is used again for the next one. */
class Growing {
  private bytes: Buffer = Buffer.allocUnsafe(0)
  /** The buffer, at least `size` bytes long (its content kept when it grows). */
  ensure(size: number): Buffer {
    if (this.bytes.length < size) {
      const next = Buffer.allocUnsafe(Math.max(size, 2 * this.bytes.length, 64 * 1024))
      this.bytes.copy(next)
      this.bytes = next
    }
    return this.bytes
  }
}

const kindOf = (dirent: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }) =>
  dirent.isFile() ? "file" : dirent.isDirectory() ? "dir" : "other"

/**
 * The environment over the folder tree at `dir`, synchronously. Throws when `dir` is not an
 * existing folder.
 *
 * @since 0.1.0
 */
export const makeUnsafe = (dir: string, options?: Options): FilesShape => {
  const maxFileBytes = options?.maxFileBytes ?? defaultMaxFileBytes
  if (!Number.isSafeInteger(maxFileBytes) || maxFileBytes < 1) {
    throw new Error(`maxFileBytes must be a positive whole number of bytes, got ${String(maxFileBytes)}`)
  }
  const given = nodePath.resolve(dir)
  const root = fs.realpathSync(given)
  const identity = fs.statSync(root)
  if (!identity.isDirectory()) throw new Error("it is not a folder")
  const relative = relativeTo([...new Set([root, given])])
  const viaProc = (() => {
    const probe = new Dir.Session(false)
    try {
      return Dir.probeProc(probe.openRoot(root, identity).fd)
    } finally {
      probe.close()
    }
  })()
  let temps = 0

  /** Throws unless the root is still the directory `make` opened (not removed, moved or swapped). */
  const checkRoot = (): void => checkSameFolder(root, identity)

  /** A new session with the root open (after `checkRoot`). */
  const open = (): { readonly session: Dir.Session; readonly top: Dir.Dir } => {
    checkRoot()
    const session = new Dir.Session(viaProc)
    try {
      const top = session.openRoot(root, identity)
      if (viaProc && !Dir.probeProc(top.fd)) throw new Error("the folder's descriptor does not lead to the folder")
      return { session, top }
    } catch (error) {
      session.close()
      throw error
    }
  }

  /** Runs `f` with a session whose root is checked to be the folder `make` opened. */
  const withRoot = <A>(f: (session: Dir.Session, top: Dir.Dir) => A): A => {
    const { session, top } = open()
    try {
      return f(session, top)
    } finally {
      session.close()
    }
  }

  const io = <A>(operation: string, path: string | undefined, f: () => A): Effect.Effect<A, PathRefused> =>
    Effect.suspend(() => {
      try {
        return Effect.succeed(f())
      } catch (error) {
        if (error instanceof PathRefused) return Effect.fail(error)
        return Effect.die(new TreeFilesError({ operation, path, problem: relative(textOf(error)) }))
      }
    })

  // Reading a file by descriptor.

  /**
   * Opens a plain file (regular, one link) for reading without following a link or blocking;
   * `"missing"` when nothing is there; throws the refusal of anything else.
   */
  const openPlain = (session: Dir.Session, parent: Dir.Dir, name: string, path: string) => {
    let fd: number
    try {
      fd = fs.openSync(session.at(parent, name), fs.constants.O_RDONLY | Dir.O_NOFOLLOW | Dir.O_NONBLOCK)
    } catch (error) {
      const code = Dir.codeOf(error)
      if (code === "ENOENT" || code === "ENOTDIR") return "missing" as const
      const reason = Dir.refusalOfCode(code)
      if (reason !== undefined) throw new PathRefused({ path, reason })
      throw error
    }
    session.track(fd)
    const stats = fs.fstatSync(fd)
    const reason = Dir.refusalOf(stats)
    if (reason !== undefined) throw new PathRefused({ path, reason })
    return { fd, size: stats.size }
  }

  /** The text of a `.gitignore`-like file in an open folder; `""` when absent or not a plain file. */
  const rulesText = (session: Dir.Session, folder: Dir.Dir, name: string): string => {
    try {
      const opened = openPlain(session, folder, name, name)
      if (opened === "missing") return ""
      try {
        return opened.size > maxFileBytes ? "" : fs.readFileSync(opened.fd, "utf8")
      } finally {
        session.release(opened.fd)
      }
    } catch (error) {
      if (error instanceof PathRefused) return ""
      throw error
    }
  }

  /** The rules in force inside `folder`, given those of its parent. */
  const rulesOf = (session: Dir.Session, folder: Dir.Dir, parent: Ignores.Ignores): Ignores.Ignores => {
    const texts: Array<string> = []
    if (folder.rel === "") {
      const git = session.openChild(folder, ".git")
      if (typeof git === "object") {
        const info = session.openChild(git, "info")
        if (typeof info === "object") {
          texts.push(rulesText(session, info, "exclude"))
          session.release(info.fd)
        }
        session.release(git.fd)
      }
    }
    texts.push(rulesText(session, folder, ".gitignore"))
    return Ignores.push(
      parent,
      folder.rel,
      texts.filter((t) => t !== "")
    )
  }

  // Resolving a path, one folder at a time.

  /**
   * The open folder holding a path's file, and the folders created for it (outermost first).
   * `"missing"` when a folder of the path does not exist (and `create` is off); throws the
   * refusal of a link, a file or a special file in the way.
   */
  const parentOf = (
    session: Dir.Session,
    top: Dir.Dir,
    path: string,
    create: boolean
  ): { readonly parent: Dir.Dir; readonly name: string; readonly changed: Array<Dir.Dir> } | "missing" => {
    const reason = treeProblem(path)
    if (reason !== undefined) throw new PathRefused({ path, reason })
    const segments = path.split("/")
    const name = segments.pop() ?? path
    let current = top
    const changed: Array<Dir.Dir> = []
    for (const segment of segments) {
      let next = session.openChild(current, segment)
      if (next === "missing" && create) {
        try {
          fs.mkdirSync(session.at(current, segment), 0o777)
          changed.push(current)
        } catch (error) {
          if (Dir.codeOf(error) !== "EEXIST") throw error
        }
        next = session.openChild(current, segment)
      }
      if (next === "missing" || (next === "not-folder" && !create)) return "missing"
      if (typeof next === "string") {
        throw new PathRefused({ path: current.rel === "" ? segment : `${current.rel}/${segment}`, reason: next })
      }
      current = next
    }
    return { parent: current, name, changed }
  }

  const read = (path: string): Option.Option<string> =>
    withRoot((session, top) => {
      const found = parentOf(session, top, path, false)
      if (found === "missing") return Option.none()
      const opened = openPlain(session, found.parent, found.name, path)
      if (opened === "missing") return Option.none()
      if (opened.size > maxFileBytes) throw new PathRefused({ path, reason: "too-large", limit: maxFileBytes })
      return Option.some(fs.readFileSync(opened.fd, "utf8"))
    })

  /** What is at a name now: nothing, or a plain file (its mode); throws the refusal of anything else. */
  const existing = (session: Dir.Session, parent: Dir.Dir, name: string, path: string): number | undefined => {
    let stats: fs.Stats
    try {
      stats = fs.lstatSync(session.at(parent, name))
    } catch (error) {
      if (Dir.codeOf(error) === "ENOENT") return undefined
      const reason = Dir.refusalOfCode(Dir.codeOf(error))
      if (reason !== undefined) throw new PathRefused({ path, reason })
      throw error
    }
    const reason = Dir.refusalOf(stats)
    if (reason !== undefined) throw new PathRefused({ path, reason })
    return stats.mode & 0o7777
  }

  /** The folders (`dev:ino`) whose leftovers were removed: each is read once per environment. */
  const swept = new Set<string>()

  /** Removes the temporary files a dead process left in a folder (our exact name, a regular file). */
  const removeLeftovers = (session: Dir.Session, folder: Dir.Dir): void => {
    const key = `${folder.dev}:${folder.ino}`
    if (swept.has(key)) return
    swept.add(key)
    for (const name of fs.readdirSync(session.self(folder))) {
      const match = temporaryName.exec(name)
      if (match === null) continue
      const pid = Number(match[1])
      if (pid === process.pid || isRunning(pid)) continue
      try {
        if (fs.lstatSync(session.at(folder, name)).isFile()) fs.rmSync(session.at(folder, name), { force: true })
      } catch (error) {
        if (Dir.codeOf(error) !== "ENOENT") throw error
      }
    }
  }

  /** `fsync`s the folders an operation changed, deepest first. */
  const syncAll = (folders: ReadonlyArray<Dir.Dir>): void => {
    for (let i = folders.length - 1; i >= 0; i--) {
      const folder = folders[i]
      if (folder !== undefined) Dir.fsyncDir(folder)
    }
  }

  const write = (path: string, content: string): void =>
    withRoot((session, top) => {
      const found = parentOf(session, top, path, true)
      if (found === "missing") throw new Error("a folder of the path vanished while it was made")
      const { parent, name, changed } = found
      const mode = existing(session, parent, name, path)
      removeLeftovers(session, parent)
      let temp: string
      let fd: number
      for (;;) {
        temps += 1
        temp = session.at(parent, `.agent-harness-tmp-${process.pid}-${temps}.tmp`)
        try {
          const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | Dir.O_NOFOLLOW
          fd = fs.openSync(temp, flags, 0o666)
          break
        } catch (error) {
          if (Dir.codeOf(error) !== "EEXIST") throw error
        }
      }
      try {
        try {
          if (mode !== undefined) fs.fchmodSync(fd, mode)
          Dir.writeAll(fd, Buffer.from(content, "utf8"))
          fs.fsyncSync(fd)
        } finally {
          fs.closeSync(fd)
        }
        // Refuses what was swapped in meanwhile; the rename replaces the name itself, so a
        // link that appears after this check is replaced, never written through.
        existing(session, parent, name, path)
        fs.renameSync(temp, session.at(parent, name))
      } catch (error) {
        fs.rmSync(temp, { force: true })
        const reason = Dir.refusalOfCode(Dir.codeOf(error))
        if (reason !== undefined) throw new PathRefused({ path, reason })
        throw error
      }
      syncAll([...changed, parent])
    })

  const append = (path: string, content: string): void =>
    withRoot((session, top) => {
      const found = parentOf(session, top, path, true)
      if (found === "missing") throw new Error("a folder of the path vanished while it was made")
      const { parent, name, changed } = found
      const existed = existing(session, parent, name, path) !== undefined
      let fd: number
      try {
        const flags =
          fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | Dir.O_NOFOLLOW | Dir.O_NONBLOCK
        fd = session.track(fs.openSync(session.at(parent, name), flags, 0o666))
      } catch (error) {
        const reason = Dir.refusalOfCode(Dir.codeOf(error))
        if (reason !== undefined) throw new PathRefused({ path, reason })
        throw error
      }
      const reason = Dir.refusalOf(fs.fstatSync(fd))
      if (reason !== undefined) throw new PathRefused({ path, reason })
      Dir.writeAll(fd, Buffer.from(content, "utf8"))
      fs.fsyncSync(fd)
      syncAll(existed ? changed : [...changed, parent])
    })

  // Walking.

  /** The entries of an open folder worth walking, in full-path order. */
  const entriesOf = (session: Dir.Session, folder: Dir.Dir): Array<Entry> => {
    let dirents: Array<fs.Dirent<Buffer>>
    try {
      dirents = fs.readdirSync(session.self(folder), { withFileTypes: true, encoding: "buffer" })
    } catch (error) {
      const code = Dir.codeOf(error)
      if (code === "ENOENT" || code === "ENOTDIR") return [] // removed while walking
      throw error
    }
    const out: Array<Entry> = []
    for (const dirent of dirents) {
      // A name that is not UTF-8 has no path the tools can write; a line break would forge lines.
      if (!isUtf8(dirent.name)) continue
      const name = dirent.name.toString("utf8")
      if (name.includes("\n") || name.includes("\r")) continue
      if (isGit(name) || temporaryName.test(name)) continue
      let kind: Entry["kind"] = kindOf(dirent)
      if (kind === "other" && !dirent.isSymbolicLink() && !dirent.isFIFO() && !dirent.isSocket()) {
        // The file system did not say (DT_UNKNOWN): ask without following.
        try {
          kind = kindOf(fs.lstatSync(session.at(folder, name)))
        } catch {
          continue
        }
      }
      if (kind === "other") continue
      out.push({ name, kind, key: kind === "dir" ? `${name}/` : name })
    }
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  }

  /**
   * The files of the tree whose paths start with `prefix`, in path order, one per `next()`
   * (`undefined` at the end): a cursor over an explicit stack of open folders, each closed when
   * it is done. Only names the folder says are regular files are given (whether each is plain
   * is for the caller to check); ignored files and folders are skipped before anything in them
   * is touched. Nothing when a folder of the prefix is not a walkable folder.
   */
  const cursor = (session: Dir.Session, top: Dir.Dir, prefix: string): { readonly next: () => Walked | undefined } => {
    const stack: Array<Frame> = []
    const below = (folder: Dir.Dir, rules: Ignores.Ignores): Frame => ({
      folder,
      rules,
      entries: entriesOf(session, folder),
      index: 0,
      base: folder.rel === "" ? "" : `${folder.rel}/`
    })
    const start = (): void => {
      // A prefix no tool path can start with (a NUL, a lone surrogate, `..`) matches nothing.
      if (problem(prefix, { allowEmpty: true }) !== undefined) return
      const segments = prefix.split("/")
      segments.pop()
      let current = top
      let rules = rulesOf(session, top, Ignores.none)
      for (const segment of segments) {
        if (segment === "" || segment === "." || isGit(segment)) return
        const path = current.rel === "" ? segment : `${current.rel}/${segment}`
        if (Ignores.ignored(rules, `${path}/`)) return
        const next = session.openChild(current, segment)
        if (typeof next !== "object") return
        current = next
        rules = rulesOf(session, current, rules)
      }
      stack.push(below(current, rules))
    }
    start()
    const all = prefix === ""
    const next = (): Walked | undefined => {
      for (;;) {
        const frame = stack[stack.length - 1]
        if (frame === undefined) return undefined
        const entry = frame.entries[frame.index++]
        if (entry === undefined) {
          stack.pop()
          if (stack.length > 0) session.release(frame.folder.fd)
          continue
        }
        const path = frame.base + entry.name
        if (entry.kind === "dir") {
          if (!(all || path.startsWith(prefix) || prefix.startsWith(`${path}/`))) continue
          if (Ignores.ignored(frame.rules, `${path}/`)) continue
          const child = session.openChild(frame.folder, entry.name)
          if (typeof child !== "object") continue // swapped for a link or removed meanwhile
          stack.push(below(child, rulesOf(session, child, frame.rules)))
        } else {
          if (!(all || path.startsWith(prefix)) || Ignores.ignored(frame.rules, path)) continue
          return { folder: frame.folder, name: entry.name, path }
        }
      }
    }
    return { next }
  }

  /** Whether the file at a walked name is plain (regular, one link), by `lstat`. */
  const isPlain = (session: Dir.Session, folder: Dir.Dir, name: string): boolean => {
    try {
      return Dir.refusalOf(fs.lstatSync(session.at(folder, name))) === undefined
    } catch (error) {
      if (Dir.codeOf(error) === "ENOENT") return false
      throw error
    }
  }

  const listUnder = (prefix: string): Array<string> =>
    withRoot((session, top) => {
      const out: Array<string> = []
      const files = cursor(session, top, prefix)
      for (let file = files.next(); file !== undefined; file = files.next()) {
        if (isPlain(session, file.folder, file.name)) out.push(file.path)
      }
      return out
    })

  /**
   * The bytes of a walked file, read into `buffer` (a view of it, valid until the next read);
   * `"too-large"` over the limit; `undefined` when it is not a plain file (a link, a FIFO, a
   * file with other hard links, swapped in since the folder was read) or is gone. Opened
   * without following a link or blocking, checked with `fstat` once open, read to its end
   * even when it grew since (up to the limit), and closed.
   */
  const bytesOf = (
    session: Dir.Session,
    folder: Dir.Dir,
    name: string,
    path: string,
    buffer: Growing
  ): Buffer | "too-large" | undefined => {
    let opened: ReturnType<typeof openPlain>
    try {
      opened = openPlain(session, folder, name, path)
    } catch (error) {
      if (error instanceof PathRefused) return undefined
      throw error
    }
    if (opened === "missing") return undefined
    try {
      if (opened.size > maxFileBytes) return "too-large"
      // One byte more than `fstat` said: a file that grew since is read on, to its end.
      let want = opened.size + 1
      let total = 0
      for (;;) {
        if (total === want) want = Math.min(Math.max(2 * want, 64 * 1024), maxFileBytes + 1)
        const bytes = buffer.ensure(want)
        const count = fs.readSync(opened.fd, bytes, total, want - total, total)
        if (count === 0) break
        total += count
        if (total > maxFileBytes) return "too-large"
        // A short read at or past the size `fstat` gave is the end (as `readFileSync` reads).
        if (total >= opened.size && total < want) break
      }
      return buffer.ensure(total).subarray(0, total)
    } finally {
      session.release(opened.fd)
    }
  }

  /** A walked file's visit: its text, skipped (binary, too large), or nothing (not plain). */
  const visit = (session: Dir.Session, file: Walked, buffer: Growing): Visit | undefined => {
    const bytes = bytesOf(session, file.folder, file.name, file.path, buffer)
    if (bytes === undefined) return undefined
    if (bytes === "too-large") return { _tag: "Skipped", path: file.path, reason: "too-large" }
    if (bytes.subarray(0, binaryProbe).includes(0)) return { _tag: "Skipped", path: file.path, reason: "binary" }
    return { _tag: "Text", path: file.path, content: bytes.toString("utf8") }
  }

  /**
   * A stream over the walk of a prefix: the walk holds its folders open between pulls and
   * closes them when the stream ends (or is interrupted). `step` turns each walked file into
   * what the stream gives (or nothing); a failure is a defect naming the operation.
   */
  const walking = <A>(
    operation: string,
    prefix: string,
    step: (session: Dir.Session, file: Walked) => A | undefined,
    weigh: (out: A) => number
  ): Stream.Stream<A> =>
    Stream.unwrap(
      Effect.map(
        Effect.acquireRelease(
          io(operation, undefined, () => {
            const { session, top } = open()
            try {
              return { session, files: cursor(session, top, prefix) }
            } catch (error) {
              session.close()
              throw error
            }
          }).pipe(Effect.orDie),
          ({ session }) => Effect.sync(() => session.close())
        ),
        ({ session, files }) =>
          Stream.fromIteratorSucceed(
            (function* () {
              let batch: Array<A> = []
              let weight = 0
              let walked = 0
              for (;;) {
                let file: Walked | undefined
                try {
                  file = files.next()
                  if (file !== undefined) {
                    const out = step(session, file)
                    if (out !== undefined) {
                      batch.push(out)
                      weight += weigh(out)
                    }
                  }
                } catch (error) {
                  throw new TreeFilesError({ operation, problem: relative(textOf(error)) })
                }
                if (file === undefined) {
                  if (batch.length > 0) yield batch
                  return
                }
                walked++
                // A batch (maybe empty) every `batch.files` files walked, so the fiber can yield
                // between them, or as soon as it holds `batch.characters` of text.
                if (walked % batching.files === 0 || weight >= batching.characters) {
                  yield batch
                  batch = []
                  weight = 0
                }
              }
            })(),
            1
          ).pipe(Stream.flattenIterable)
      )
    ).pipe(Stream.scoped)

  /** The visits of the files under a prefix, one at a time (`keep` asked about plain files only). */
  const scan = (prefix: string, keep: (path: string) => boolean): Stream.Stream<Visit> => {
    const buffer = new Growing()
    return walking(
      "search",
      prefix,
      (session, file) =>
        // `keep` is asked about the files a listing shows (plain ones) only.
        isPlain(session, file.folder, file.name) && keep(file.path) ? visit(session, file, buffer) : undefined,
      (visit) => (visit._tag === "Text" ? visit.content.length : 0)
    )
  }

  /**
   * The lines holding `pattern` of each file under a prefix: its UTF-8 bytes looked for in the
   * file's bytes (`Lines.needleOf`), only the lines found decoded; a pattern bytes cannot stand
   * for (empty, a line break, U+FFFD, a lone surrogate) through the decoded text.
   */
  const find = (prefix: string, pattern: string, allows: (path: string) => boolean): Stream.Stream<Found> => {
    const buffer = new Growing()
    const needle = Lines.needleOf(pattern)
    return walking(
      "search",
      prefix,
      (session, file): Found | undefined => {
        const { path } = file
        // A refused file is never opened: `lstat` says whether a listing would show it.
        if (!allows(path)) return isPlain(session, file.folder, file.name) ? { _tag: "LeftOut", path } : undefined
        const bytes = bytesOf(session, file.folder, file.name, path, buffer)
        if (bytes === undefined) return undefined
        if (bytes === "too-large") return { _tag: "Skipped", path, reason: "too-large" }
        if (bytes.subarray(0, binaryProbe).includes(0)) return { _tag: "Skipped", path, reason: "binary" }
        const lines =
          needle === undefined
            ? Lines.matchingInText(bytes.toString("utf8"), pattern)
            : Lines.matchingInBytes(bytes, needle)
        return lines.length > 0 ? { _tag: "Lines", path, lines } : undefined
      },
      weighLines
    )
  }

  const entries: Effect.Effect<ReadonlyArray<readonly [string, string]>> = Effect.map(
    Stream.runCollect(scan("", () => true)),
    (visits) =>
      visits.flatMap((v): Array<readonly [string, string]> => (v._tag === "Text" ? [[v.path, v.content]] : []))
  )

  return Files.of({
    read: (path) => io("read", path, () => read(path)),
    write: (path, content) => io("write", path, () => write(path, content)),
    append: (path, content) => io("append", path, () => append(path, content)),
    list: Effect.orDie(io("list", undefined, () => listUnder(""))),
    listUnder: (prefix) => Effect.orDie(io("list", prefix, () => listUnder(prefix))),
    scan,
    find,
    entries,
    snapshot: Effect.map(entries, (all) => Object.fromEntries(all))
  })
}

/**
 * The environment over the folder tree at `dir` (an existing folder); fails with a
 * `TreeFilesError` naming it when it is not one.
 *
 * @since 0.1.0
 */
export const make = (dir: string, options?: Options): Effect.Effect<FilesShape, TreeFilesError> =>
  Effect.try({
    try: () => makeUnsafe(dir, options),
    catch: (error) => new TreeFilesError({ operation: "open", path: dir, problem: textOf(error) })
  })

/**
 * A layer providing `Files` over the folder tree at `dir`.
 *
 * @since 0.1.0
 */
export const layer = (dir: string, options?: Options): Layer.Layer<Files, TreeFilesError> =>
  Layer.effect(Files, make(dir, options))
