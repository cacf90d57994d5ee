/**
 * The `--root` folder of the commands that work on a real folder (`harness mcp serve`, `harness
 * agent`): it must exist and be a folder, so that a typo never works on a new empty one; and the
 * harness's own files (`--journal`, `--trace`) are never inside it, links resolved, where the
 * model's tools could read them or write over them.
 *
 * @since 0.1.0
 */
import { Console, Effect, FileSystem, Option, Path } from "effect"
import * as ExitCode from "./ExitCode.ts"

/** What a file system entry is, in words (as the scenario package says it, without loading it). */
const typeText = (type: FileSystem.File.Type): string => {
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
 * Checks `--root`: exit 2 with `<command>: --root X: no such folder` (or what it is instead of
 * a folder, or why it cannot be read) when it is not an existing folder.
 *
 * @since 0.1.0
 */
export const check = (command: string, root: string): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const usage = (message: string) =>
      Effect.andThen(Console.error(`${command}: --root ${root}: ${message}`), Effect.fail(ExitCode.invalid))
    const info = yield* Effect.result(fs.stat(root))
    if (info._tag === "Failure") {
      return yield* usage(info.failure.reason._tag === "NotFound" ? "no such folder" : info.failure.message)
    }
    if (info.success.type !== "Directory") {
      return yield* usage(`it is ${typeText(info.success.type)}, not a folder`)
    }
  })

/** Symbolic links followed at most while resolving one path (as Linux's `ELOOP` limit). */
const maxLinks = 40

/**
 * Where a file is, or would be once created, with every link resolved: the real path of its
 * nearest existing ancestor (a link there followed, a dangling one through its target) joined
 * with the rest. `undefined` when the links loop.
 */
const realLocation = (file: string): Effect.Effect<string | undefined, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    let here = path.resolve(file)
    const rest: Array<string> = []
    let links = 0
    while (true) {
      const info = yield* Effect.option(fs.lstat(here))
      if (Option.isSome(info)) {
        const real = yield* Effect.option(fs.realPath(here))
        if (Option.isSome(real)) return path.join(real.value, ...rest)
        // A dangling link: the file would be created where it points.
        const target = info.value.type === "SymbolicLink" ? yield* Effect.option(fs.readLink(here)) : Option.none()
        if (Option.isNone(target) || ++links > maxLinks) return undefined
        here = path.resolve(path.dirname(here), target.value)
        continue
      }
      const parent = path.dirname(here)
      if (parent === here) return path.join(here, ...rest)
      rest.unshift(path.basename(here))
      here = parent
    }
  })

/**
 * Refuses (exit 2, naming the flag and why) a harness file given as `flag` `file` that is inside
 * `root` once links are resolved (a linked folder, or a link to the file, that leads into the
 * root included), or whose path cannot be resolved: the model's file tools work in the root, so
 * they could read the file or write over it (a journal overwritten runs a call twice). Run
 * after `check`.
 *
 * @since 0.1.0
 */
export const refuseInside = (
  command: string,
  root: string,
  flag: string,
  file: string
): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const usage = (message: string) =>
      Effect.andThen(Console.error(`${command}: ${flag} ${file}: ${message}`), Effect.fail(ExitCode.invalid))
    const realRoot = yield* Effect.option(fs.realPath(root))
    const real = yield* realLocation(file)
    if (real === undefined) return yield* usage("its path cannot be resolved (a loop of symbolic links); give another")
    const inRoot = (rootPath: string, location: string): boolean => {
      const relative = path.relative(rootPath, location)
      return (
        relative === "" || !(relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative))
      )
    }
    const lexical = inRoot(path.resolve(root), path.resolve(file))
    const resolved = Option.isSome(realRoot) && inRoot(realRoot.value, real)
    if (!lexical && !resolved) return
    const how = lexical ? "" : ` (through a symbolic link: it is ${real})`
    return yield* usage(
      `it is in --root${how}, where the model's tools could read it or write over it; put the harness's files outside the folder`
    )
  })
