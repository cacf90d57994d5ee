/**
 * Test helpers: a real project tree in a temporary folder (nested folders, `.gitignore` files,
 * `node_modules`, `.git`, links, a FIFO, a socket), and a recorder of the file system calls a
 * piece of code makes, resolved to real paths.
 */
import { execFileSync } from "node:child_process"
import fs from "node:fs"
import { syncBuiltinESMExports } from "node:module"
import * as net from "node:net"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterAll, beforeAll } from "@effect/vitest"
import { type Files, TreeFiles } from "../src/index.ts"

const made: Array<string> = []

/** A fresh temporary folder (its real path), removed by `removeTemporary`. */
export const tempDir = (label: string): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), `tree-${label}-`)))
  made.push(dir)
  return dir
}

/** Removes every folder `tempDir` made. */
export const removeTemporary = (): void => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

const put = (root: string, path: string, content: string | Uint8Array): void => {
  const file = nodePath.join(root, path)
  fs.mkdirSync(nodePath.dirname(file), { recursive: true })
  fs.writeFileSync(file, content)
}

/** The project: `root` (the tree given to TreeFiles) and `outside` (a folder next to it). */
export interface Project {
  readonly root: string
  readonly outside: string
  /** Closes the socket's server. */
  readonly close: () => Promise<void>
}

/** The files of the project that `list ""` must show, sorted. */
export const tracked: ReadonlyArray<string> = [
  ".gitignore",
  "README.md",
  "docs/guide.md",
  "notes.txt",
  "src/.gitignore",
  "src/app/main.ts",
  "src/app/util.ts",
  "src/keep.gen.ts",
  "src/lib/deep/x.ts",
  "src/lib/deep/y.ts",
  "src0.txt"
]

/**
 * Builds the project: tracked files (above), ignored ones (`debug.log`, `build/`,
 * `src/a.gen.ts`, `node_modules` with `modules` files), `.git/`, `src/linked -> ../../outside`
 * (a linked folder in the middle of paths), `src/file-link.ts -> app/main.ts`, a hard link
 * pair, a FIFO and a unix socket.
 */
export const makeProject = async (label: string, modules = 5000): Promise<Project> => {
  const base = tempDir(label)
  const root = nodePath.join(base, "project")
  const outside = nodePath.join(base, "outside")
  put(outside, "secret.txt", "SECRET outside the root\n")
  put(root, ".gitignore", "node_modules/\n*.log\nbuild/\n")
  put(root, "README.md", "# project\nneedle in the readme\n")
  put(root, "docs/guide.md", "guide\n")
  put(root, "notes.txt", "needle one\nnothing\nneedle two\n")
  put(root, "src0.txt", "zero\n")
  put(root, "src/.gitignore", "*.gen.ts\n!keep.gen.ts\n")
  put(root, "src/app/main.ts", "export const main = 'needle'\n")
  put(root, "src/app/util.ts", "export const util = 1\n")
  put(root, "src/keep.gen.ts", "kept needle\n")
  put(root, "src/a.gen.ts", "ignored needle\n")
  put(root, "src/lib/deep/x.ts", "x\n")
  put(root, "src/lib/deep/y.ts", "y\n")
  put(root, "debug.log", "ignored needle log\n")
  put(root, "build/out.js", "ignored needle build\n")
  put(root, ".git/HEAD", "ref: refs/heads/main\n")
  put(root, ".git/config", "[core] needle\n")
  for (let i = 0; i < modules; i++) put(root, `node_modules/pkg${i % 50}/f${i}.js`, "needle in node_modules\n")
  fs.symlinkSync("../../outside", nodePath.join(root, "src/linked"))
  fs.symlinkSync("app/main.ts", nodePath.join(root, "src/file-link.ts"))
  put(root, "hard.txt", "hard needle\n")
  fs.linkSync(nodePath.join(root, "hard.txt"), nodePath.join(root, "hard2.txt"))
  execFileSync("mkfifo", [nodePath.join(root, "fifo")], { timeout: 10_000 })
  const server = net.createServer()
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(nodePath.join(root, "sock"), () => resolve())
  })
  return {
    root,
    outside,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** A path given to `fs`, resolved through `/proc/self/fd/<n>` to the real path it names. */
const resolved = (path: unknown): string | undefined => {
  if (typeof path !== "string") return undefined
  const match = /^\/proc\/self\/fd\/(\d+)(\/.*)?$/.exec(path)
  if (match === null) return path
  try {
    return fs.readlinkSync(`/proc/self/fd/${match[1]}`) + (match[2] ?? "")
  } catch {
    return path
  }
}

const watched = ["openSync", "readdirSync", "lstatSync", "statSync", "opendirSync", "readFileSync"] as const

/**
 * Runs `f` while recording the real paths of the file system calls made (`open`, `readdir`,
 * `lstat`, `stat`), then restores `fs`.
 */
export const recording = async <A>(
  f: () => Promise<A>
): Promise<{ readonly value: A; readonly paths: Array<string> }> => {
  const paths: Array<string> = []
  const mutable = fs as unknown as Record<string, (...args: Array<unknown>) => unknown>
  const originals = watched.map((name) => [name, mutable[name]] as const)
  for (const [name, original] of originals) {
    if (original === undefined) continue
    mutable[name] = (...args: Array<unknown>) => {
      const path = resolved(args[0])
      if (path !== undefined) paths.push(path)
      return original(...args)
    }
  }
  syncBuiltinESMExports()
  try {
    return { value: await f(), paths }
  } finally {
    for (const [name, original] of originals) if (original !== undefined) mutable[name] = original
    syncBuiltinESMExports()
  }
}

/**
 * Makes a project (`label`, `modules` files under node_modules) before the file's tests and
 * gives it and its `TreeFiles` to `use`; closes it and removes every temporary folder after.
 */
export const withProject = (
  label: string,
  use: (project: Project, files: Files.FilesShape) => void,
  modules?: number
): void => {
  let made: Project | undefined
  beforeAll(async () => {
    made = await makeProject(label, modules)
    use(made, TreeFiles.makeUnsafe(made.root))
  }, 120_000)
  afterAll(async () => {
    await made?.close()
    removeTemporary()
  }, 30_000)
}
