/**
 * Node's synchronous file calls (`node:fs`, also in Deno and Bun) as effect's `FileSystem`: the
 * four that finding and reading scenario files use (`stat`, `lstat`, `readDirectoryEntries`,
 * `readFile`). A separate entry point (`@agent-harness/scenario/SyncFileSystem`), so the
 * package's main entry needs no `node:fs`.
 *
 * Why: a small file read through the platform's asynchronous calls costs five round trips to
 * the thread pool (stat, open, fstat, read, close), more than reading it; `harness test` reads
 * thousands one after another (`overlay`, over the platform's file system). And with it,
 * `Suite.find` and `Suite.load` run under `Effect.runSync`, so `scenarioTests` registers its
 * tests at collection time with the same rules as `harness test` (`layer`).
 *
 * The same rules as the asynchronous calls: links to folders are not followed by `Suite.find`,
 * and `readFile` opens without blocking and reads only a regular file, so a FIFO or a device
 * (one swapped in after `stat`, too) is refused, never waited on.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import { ByteSize, Effect, FileSystem, Layer, Option, Path, PlatformError } from "effect"

const tagOf = (error: unknown): PlatformError.SystemErrorTag => {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined
  return code === "ENOENT" || code === "ENOTDIR"
    ? "NotFound"
    : code === "EACCES" || code === "EPERM"
      ? "PermissionDenied"
      : "Unknown"
}

const attempt = <A>(method: string, path: string, f: () => A): Effect.Effect<A, PlatformError.PlatformError> =>
  Effect.try({
    try: f,
    catch: (error) =>
      PlatformError.systemError({
        _tag: tagOf(error),
        module: "FileSystem",
        method,
        pathOrDescriptor: path,
        cause: error
      })
  })

const typeOf = (entry: fs.Stats | fs.Dirent): FileSystem.File.Type =>
  entry.isFile()
    ? "File"
    : entry.isDirectory()
      ? "Directory"
      : entry.isSymbolicLink()
        ? "SymbolicLink"
        : entry.isFIFO()
          ? "FIFO"
          : entry.isCharacterDevice()
            ? "CharacterDevice"
            : entry.isBlockDevice()
              ? "BlockDevice"
              : entry.isSocket()
                ? "Socket"
                : "Unknown"

const info = (stats: fs.Stats): FileSystem.File.Info => ({
  type: typeOf(stats),
  mtime: Option.some(stats.mtime),
  atime: Option.some(stats.atime),
  birthtime: Option.some(stats.birthtime),
  dev: BigInt(stats.dev),
  ino: Option.some(BigInt(stats.ino)),
  mode: stats.mode,
  nlink: Option.some(BigInt(stats.nlink)),
  uid: Option.some(stats.uid),
  gid: Option.some(stats.gid),
  rdev: Option.some(BigInt(stats.rdev)),
  size: ByteSize.bytes(BigInt(stats.size)),
  blksize: Option.some(ByteSize.bytes(BigInt(stats.blksize))),
  blocks: Option.some(BigInt(stats.blocks))
})

/** A regular file's bytes: opened without blocking (a FIFO does not wait for a writer), then checked. */
const readRegular = (path: string): Uint8Array => {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  try {
    const type = typeOf(fs.fstatSync(fd))
    if (type !== "File") {
      throw Object.assign(new Error(`${path} is not a regular file (${type})`), { code: "EINVAL" })
    }
    return new Uint8Array(fs.readFileSync(fd))
  } finally {
    fs.closeSync(fd)
  }
}

/** The four calls, synchronous. */
const calls = {
  stat: (path: string) => attempt("stat", path, () => info(fs.statSync(path))),
  lstat: (path: string) => attempt("lstat", path, () => info(fs.lstatSync(path))),
  readDirectoryEntries: (path: string) =>
    attempt("readDirectoryEntries", path, () =>
      fs.readdirSync(path, { withFileTypes: true }).map((entry) => ({ name: entry.name, type: typeOf(entry) }))
    ),
  readFile: (path: string) => attempt("readFile", path, () => readRegular(path))
}

/**
 * The service (every other method fails as not supported).
 *
 * @since 0.1.0
 */
export const fileSystem: FileSystem.FileSystem = FileSystem.makeNoop(calls)

/**
 * The service and effect's POSIX `Path`, as a layer.
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<FileSystem.FileSystem | Path.Path> = Layer.merge(
  Layer.succeed(FileSystem.FileSystem)(fileSystem),
  Path.layer
)

/**
 * The `FileSystem` it is given with the four calls made synchronous, every other call its own
 * (writing traces, for one).
 *
 * @since 0.1.0
 */
export const overlay: Layer.Layer<FileSystem.FileSystem, never, FileSystem.FileSystem> = Layer.effect(
  FileSystem.FileSystem,
  Effect.map(FileSystem.FileSystem, (platform): FileSystem.FileSystem => ({ ...platform, ...calls }))
)
