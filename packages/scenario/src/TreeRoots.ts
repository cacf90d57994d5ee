/**
 * The `Roots` service over the real folder tree, as `harness test` runs scenarios: a
 * conversation scenario's `root` folder, checked when the file is loaded and copied afresh for
 * each run into a temporary folder (removed when the run ends), its file tools working on the
 * copy through `TreeFiles` (the same real-folder `Files` as `harness agent --root`:
 * `.gitignore` honoured, `.git` hidden, links refused), the copy's path given with them (where a
 * scenario's `commands` run). The fixture itself is never written.
 * Import it from `@agent-harness/scenario/TreeRoots` (Node, Deno and Bun: it reads the disk;
 * the package's main entry does not), and provide `layer` where scenario files run.
 *
 * A root is a real folder inside the scenario file's folder: not a symbolic link, with no link on
 * the way to it, and not the scenario's folder itself (a suite carries its fixtures, and a file
 * cannot copy the machine's folders into a run). Its tree is copied as it is — folders, regular
 * files, and symbolic links as links (never followed; the file tools refuse them by name) — and
 * a FIFO, socket or device in it fails the run naming it (nothing waits on a pipe).
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { TreeFiles } from "@agent-harness/file-tools"
import { Effect, Layer } from "effect"
import * as Roots from "./Roots.ts"

/**
 * The scenario package's `Roots` service (`Roots.Roots` of the main entry), which `layer`
 * provides.
 *
 * @since 0.1.0
 */
export type Service = Roots.Roots

/**
 * What the service does (`Roots.Shape` of the main entry), which `roots` is.
 *
 * @since 0.1.0
 */
export type Shape = Roots.Shape

/** The `code` of a Node error, or its message. */
const reasonOf = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    return error.code
  }
  return error instanceof Error ? error.message : String(error)
}

/** What an entry is, in words, when it is neither a folder, a file nor a link. */
const special = (stats: fs.Stats): string =>
  stats.isFIFO()
    ? "a FIFO (named pipe)"
    : stats.isSocket()
      ? "a socket"
      : stats.isBlockDevice()
        ? "a block device"
        : stats.isCharacterDevice()
          ? "a character device"
          : "of an unknown type"

/** The folder a root names, or why it cannot be used (thrown as `InvalidRoot`). */
const folderOf = (root: string, file: string): string => {
  const refuse = (problem: string): never => {
    throw new Roots.InvalidRoot({ problem })
  }
  const base = nodePath.dirname(nodePath.resolve(file))
  const folder = nodePath.resolve(base, root)
  const relative = nodePath.relative(base, folder)
  if (relative === "") refuse("it is the scenario file's own folder: give a folder inside it")
  if (relative === ".." || relative.startsWith(`..${nodePath.sep}`) || nodePath.isAbsolute(relative)) {
    refuse(
      `${JSON.stringify(root)} is outside the scenario file's folder: a root is a folder next to the file, so the suite carries its fixtures`
    )
  }
  let stats: fs.Stats
  try {
    stats = fs.lstatSync(folder)
  } catch (error) {
    return refuse(
      reasonOf(error) === "ENOENT"
        ? `no such folder: ${JSON.stringify(root)} (from the scenario file's folder)`
        : `${JSON.stringify(root)} cannot be read (${reasonOf(error)})`
    )
  }
  if (stats.isSymbolicLink()) {
    refuse(`${JSON.stringify(root)} is a symbolic link: a root is a real folder (links are never followed)`)
  }
  if (!stats.isDirectory()) {
    refuse(`${JSON.stringify(root)} is ${stats.isFile() ? "a regular file" : special(stats)}, not a folder`)
  }
  let real: string
  let realBase: string
  try {
    real = fs.realpathSync(folder)
    realBase = fs.realpathSync(base)
  } catch (error) {
    return refuse(`${JSON.stringify(root)} cannot be resolved (${reasonOf(error)})`)
  }
  if (real !== nodePath.join(realBase, relative)) {
    refuse(
      `a folder on the way to ${JSON.stringify(root)} is a symbolic link: a root is a real folder (links are never followed)`
    )
  }
  return folder
}

/** `O_NOFOLLOW` and `O_NONBLOCK` where the platform has them. */
const noFollow = (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0)

/**
 * Copies one regular file (content and mode) without following a link: opened with
 * `O_NOFOLLOW | O_NONBLOCK` and checked once open, so an entry swapped for a link or a FIFO
 * since it was listed is refused, never read through or waited on.
 */
const copyFile = (source: string, target: string, where: string): void => {
  const fd = fs.openSync(source, fs.constants.O_RDONLY | noFollow)
  try {
    const stats = fs.fstatSync(fd)
    if (!stats.isFile()) {
      throw new Roots.InvalidRoot({ problem: `${where}: it is ${special(stats)}, which a root folder cannot hold` })
    }
    fs.writeFileSync(target, fs.readFileSync(fd), { flag: "wx", mode: stats.mode & 0o777 })
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Copies the tree under `from` into the existing folder `to`: folders, regular files (content
 * and mode), symbolic links as links (their target text as it is). Throws `InvalidRoot` naming
 * the entry (`root/...`) that is anything else or cannot be copied.
 */
const copyTree = (from: string, to: string, shown: string): void => {
  let entries: Array<string>
  try {
    entries = fs.readdirSync(from).sort()
  } catch (error) {
    throw new Roots.InvalidRoot({ problem: `${shown}: cannot be read (${reasonOf(error)})` })
  }
  for (const name of entries) {
    const source = nodePath.join(from, name)
    const target = nodePath.join(to, name)
    const where = `${shown}/${name}`
    try {
      const stats = fs.lstatSync(source)
      if (stats.isDirectory()) {
        fs.mkdirSync(target)
        copyTree(source, target, where)
      } else if (stats.isSymbolicLink()) {
        fs.symlinkSync(fs.readlinkSync(source), target)
      } else if (stats.isFile()) {
        copyFile(source, target, where)
      } else {
        throw new Roots.InvalidRoot({ problem: `${where}: it is ${special(stats)}, which a root folder cannot hold` })
      }
    } catch (error) {
      if (error instanceof Roots.InvalidRoot) throw error
      throw new Roots.InvalidRoot({ problem: `${where}: cannot be copied (${reasonOf(error)})` })
    }
  }
}

const attempt = <A>(f: () => A): Effect.Effect<A, Roots.InvalidRoot> =>
  Effect.try({
    try: f,
    catch: (error) => (error instanceof Roots.InvalidRoot ? error : new Roots.InvalidRoot({ problem: reasonOf(error) }))
  })

/**
 * Checks a root (`check`) and opens a fresh copy of its tree for the length of the scope
 * (`open`).
 *
 * @since 0.1.0
 */
export const roots: Shape = Roots.Roots.of({
  check: (root, file) => Effect.asVoid(attempt(() => folderOf(root, file))),
  open: (root, file) =>
    Effect.gen(function* () {
      const folder = yield* attempt(() => folderOf(root, file))
      const copy = yield* Effect.acquireRelease(
        attempt(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "harness-root-"))),
        (made) =>
          Effect.sync(() => {
            try {
              fs.rmSync(made, { recursive: true, force: true })
            } catch {
              // Left in the temporary folder: the run's verdict stands.
            }
          })
      )
      yield* attempt(() => copyTree(folder, copy, root.replace(/[\\/]+$/, "")))
      const files = yield* Effect.mapError(
        TreeFiles.make(copy),
        (error) => new Roots.InvalidRoot({ problem: `the copy of ${JSON.stringify(root)}: ${error.message}` })
      )
      // The copy's real path: where a scenario's commands run (links of the temporary folder resolved).
      const real = yield* attempt(() => fs.realpathSync(copy))
      const opened: Roots.Opened = { ...files, folder: real }
      return opened
    })
})

/**
 * `roots` as a layer: provide it where scenario files are loaded and run.
 *
 * @example
 * ```ts
 * import * as TreeRoots from "@agent-harness/scenario/TreeRoots"
 * import { scenarioTests } from "@agent-harness/testing/vitest"
 *
 * scenarioTests("scenarios/root", { layer: TreeRoots.layer })
 * ```
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<Service> = Layer.succeed(Roots.Roots, roots)
