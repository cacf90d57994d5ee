/**
 * Node's synchronous file calls as effect's `FileSystem` service: the four that finding and
 * reading scenario files use (`stat`, `lstat`, `readDirectoryEntries`, `readFile`). With it,
 * `Suite.find` and `Suite.load` run under `Effect.runSync`, so `scenarioTests` registers its
 * tests at collection time with the same rules as `harness test` (links to folders not
 * followed, FIFOs and devices never opened).
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

/**
 * The service (every other method fails as not supported).
 *
 * @since 0.1.0
 */
export const fileSystem: FileSystem.FileSystem = FileSystem.makeNoop({
  stat: (path) => attempt("stat", path, () => info(fs.statSync(path))),
  lstat: (path) => attempt("lstat", path, () => info(fs.lstatSync(path))),
  readDirectoryEntries: (path) =>
    attempt("readDirectoryEntries", path, () =>
      fs.readdirSync(path, { withFileTypes: true }).map((entry) => ({ name: entry.name, type: typeOf(entry) }))
    ),
  readFile: (path) => attempt("readFile", path, () => new Uint8Array(fs.readFileSync(path)))
})

/**
 * The service and effect's POSIX `Path`, as a layer.
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<FileSystem.FileSystem | Path.Path> = Layer.merge(
  Layer.succeed(FileSystem.FileSystem)(fileSystem),
  Path.layer
)
