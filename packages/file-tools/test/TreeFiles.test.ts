// TreeFiles over a real project tree: nested folders, .gitignore files (a nested one with a
// negation), node_modules with thousands of files that are never touched, .git, a linked folder
// in the middle of paths, a link to a file, a hard link, a FIFO and a socket.
import fs from "node:fs"
import { syncBuiltinESMExports } from "node:module"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option, Stream } from "effect"
import { type FilePath, type Files, TreeFiles } from "../src/index.ts"
import { type Project, recording, tempDir, tracked, withProject } from "./tree.ts"

let project: Project
let files: Files.FilesShape

withProject("files", (made, tree) => {
  project = made
  files = tree
})

const refusal = <A>(effect: Effect.Effect<A, FilePath.PathRefused>) =>
  Effect.map(Effect.flip(effect), (error) => ({ path: error.path, reason: error.reason }))

const defectOf = (exit: Exit.Exit<unknown, unknown>): unknown =>
  Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined

describe("TreeFiles: listing", () => {
  it.effect("list shows every tracked file, sorted; nothing ignored, nothing in .git, no link or special file", () =>
    Effect.gen(function* () {
      expect(yield* files.list).toEqual(tracked)
    })
  )

  it.effect("listUnder walks below a folder prefix, with the prefix semantics of the memory environment", () =>
    Effect.gen(function* () {
      const listUnder = files.listUnder
      if (listUnder === undefined) throw new Error("TreeFiles must provide listUnder")
      for (const prefix of [
        "",
        "src/",
        "src",
        "src/a",
        "src/lib/deep/",
        "s",
        "docs/guide.md",
        "nope/",
        "src//",
        "./"
      ]) {
        expect(yield* listUnder(prefix)).toEqual(tracked.filter((p) => p.startsWith(prefix)))
      }
      expect(yield* listUnder("node_modules/")).toEqual([])
      expect(yield* listUnder(".git/")).toEqual([])
      expect(yield* listUnder("src/linked/")).toEqual([])
    })
  )

  it("never opens, reads or stats anything under node_modules (or .git) when listing or scanning", async () => {
    const { paths, value } = await recording(() =>
      Effect.runPromise(
        Effect.gen(function* () {
          const listed = yield* files.list
          const visits = yield* Stream.runCollect(files.scan?.("", () => true) ?? Stream.empty)
          return { listed, visits }
        })
      )
    )
    expect(value.listed).toEqual(tracked)
    expect(paths.length).toBeGreaterThan(10) // the recorder saw the walk
    const modules = nodePath.join(project.root, "node_modules")
    const git = nodePath.join(project.root, ".git")
    expect(paths.filter((p) => p === modules || p.startsWith(`${modules}/`))).toEqual([])
    // Only .git/info (the exclude file) is looked for, nothing else in .git.
    expect(paths.filter((p) => p.startsWith(`${git}/`) && !p.startsWith(`${git}/info`))).toEqual([])
  }, 60_000)

  it.effect("scan gives the text of each tracked file in path order; keep leaves paths unread", () =>
    Effect.gen(function* () {
      const scan = files.scan
      if (scan === undefined) throw new Error("TreeFiles must provide scan")
      const all = yield* Stream.runCollect(scan("", () => true))
      expect(all.map((v) => v.path)).toEqual(tracked)
      expect(all.find((v) => v.path === "notes.txt")).toEqual({
        _tag: "Text",
        path: "notes.txt",
        content: "needle one\nnothing\nneedle two\n"
      })
      const asked: Array<string> = []
      const some = yield* Stream.runCollect(
        scan("src/", (path) => {
          asked.push(path)
          return path.includes("app")
        })
      )
      expect(some.map((v) => v.path)).toEqual(["src/app/main.ts", "src/app/util.ts"])
      expect(asked).toEqual(tracked.filter((p) => p.startsWith("src/")))
    })
  )

  it.effect(".git/info/exclude is honoured at the root, below the .gitignore files", () =>
    Effect.gen(function* () {
      const root = tempDir("exclude")
      fs.mkdirSync(nodePath.join(root, ".git/info"), { recursive: true })
      fs.writeFileSync(nodePath.join(root, ".git/info/exclude"), "*.local\nscratch/\n")
      fs.writeFileSync(nodePath.join(root, ".gitignore"), "!keep.local\n")
      for (const name of ["a.txt", "b.local", "keep.local", "scratch/x.txt"]) {
        fs.mkdirSync(nodePath.dirname(nodePath.join(root, name)), { recursive: true })
        fs.writeFileSync(nodePath.join(root, name), name)
      }
      const tree = yield* TreeFiles.make(root)
      expect(yield* tree.list).toEqual([".gitignore", "a.txt", "keep.local"])
    })
  )

  it.effect("a prefix no path can start with lists nothing, never dies", () =>
    Effect.gen(function* () {
      const listUnder = files.listUnder
      if (listUnder === undefined) throw new Error("TreeFiles must provide listUnder")
      for (const prefix of ["a\0/b", "\ud800/x", "../", "/etc/", `${"x".repeat(300)}/y`, `${"d/".repeat(3000)}x`]) {
        expect(yield* listUnder(prefix)).toEqual([])
      }
    })
  )

  it.effect("binary and too-large files are Skipped by scan, left out of entries", () =>
    Effect.gen(function* () {
      const root = tempDir("sizes")
      fs.writeFileSync(nodePath.join(root, "a.txt"), "text\n")
      fs.writeFileSync(nodePath.join(root, "bin.dat"), Buffer.from([65, 0, 66]))
      fs.writeFileSync(nodePath.join(root, "big.txt"), "x".repeat(2000))
      const small = yield* TreeFiles.make(root, { maxFileBytes: 1000 })
      const visits = yield* Stream.runCollect(small.scan?.("", () => true) ?? Stream.empty)
      expect(visits).toEqual([
        { _tag: "Text", path: "a.txt", content: "text\n" },
        { _tag: "Skipped", path: "big.txt", reason: "too-large" },
        { _tag: "Skipped", path: "bin.dat", reason: "binary" }
      ])
      expect(yield* small.entries).toEqual([["a.txt", "text\n"]])
      expect(yield* small.snapshot).toEqual({ "a.txt": "text\n" })
    })
  )
})

describe("TreeFiles: reading", () => {
  it.effect("reads a nested file by its path; a missing one is None", () =>
    Effect.gen(function* () {
      expect(yield* files.read("src/app/main.ts")).toEqual(Option.some("export const main = 'needle'\n"))
      expect(yield* files.read("src/app/nope.ts")).toEqual(Option.none())
      expect(yield* files.read("nope/deeper/x.ts")).toEqual(Option.none())
      expect(yield* files.read("notes.txt/x")).toEqual(Option.none())
    })
  )

  it.effect("an ignored file can be read by its name (as an editor would)", () =>
    Effect.gen(function* () {
      expect(yield* files.read("debug.log")).toEqual(Option.some("ignored needle log\n"))
      expect(yield* files.read("node_modules/pkg0/f0.js")).toEqual(Option.some("needle in node_modules\n"))
    })
  )

  it.effect("refuses .git, links (a linked folder in the middle too), hard links, FIFOs, sockets, folders", () =>
    Effect.gen(function* () {
      expect(yield* refusal(files.read(".git/HEAD"))).toEqual({ path: ".git/HEAD", reason: "git" })
      expect(yield* refusal(files.read("src/.GIT/x"))).toEqual({ path: "src/.GIT/x", reason: "git" })
      expect(yield* refusal(files.read("src/linked/secret.txt"))).toEqual({ path: "src/linked", reason: "link" })
      expect(yield* refusal(files.read("src/file-link.ts"))).toEqual({ path: "src/file-link.ts", reason: "link" })
      expect(yield* refusal(files.read("hard.txt"))).toEqual({ path: "hard.txt", reason: "hard-link" })
      expect(yield* refusal(files.read("fifo"))).toEqual({ path: "fifo", reason: "special" })
      expect(yield* refusal(files.read("sock"))).toEqual({ path: "sock", reason: "special" })
      expect(yield* refusal(files.read("src/app"))).toEqual({ path: "src/app", reason: "directory" })
    })
  )

  it.effect("refuses paths that are not one plain name per segment, and paths out of the root", () =>
    Effect.gen(function* () {
      for (const path of ["src//app/main.ts", "./notes.txt", "src/./app/main.ts", "src/"]) {
        expect(yield* refusal(files.read(path))).toEqual({ path, reason: "segment" })
      }
      expect(yield* refusal(files.read("../outside/secret.txt"))).toEqual({
        path: "../outside/secret.txt",
        reason: "outside"
      })
      expect(yield* refusal(files.read(project.outside))).toMatchObject({ reason: "outside" })
    })
  )

  it.effect("a file over the size limit is refused naming the limit, never loaded", () =>
    Effect.gen(function* () {
      const root = tempDir("huge")
      // A sparse 2 GiB file: reading it would take 2 GiB of memory.
      const fd = fs.openSync(nodePath.join(root, "huge.bin"), "w")
      fs.ftruncateSync(fd, 2 * 1024 * 1024 * 1024)
      fs.closeSync(fd)
      const tree = yield* TreeFiles.make(root)
      const error = yield* Effect.flip(tree.read("huge.bin"))
      expect(error).toMatchObject({ reason: "too-large", limit: TreeFiles.defaultMaxFileBytes })
      expect(error.message).toBe("not executed: 'huge.bin' is larger than 1 MiB, the most a file tool reads")
    })
  )

  it.effect("a folder in the middle swapped for a link after it was opened: the opened folder is used", () =>
    Effect.gen(function* () {
      const root = tempDir("swap")
      const outside = tempDir("swap-outside")
      fs.mkdirSync(nodePath.join(root, "a"))
      fs.writeFileSync(nodePath.join(root, "a/f.txt"), "inside\n")
      fs.writeFileSync(nodePath.join(outside, "f.txt"), "OUTSIDE\n")
      const tree = yield* TreeFiles.make(root)
      // Swap `a` for a link to the outside folder right before the file itself is opened.
      const original = fs.openSync
      let swapped = false
      const mutable = fs as unknown as { openSync: typeof fs.openSync }
      mutable.openSync = ((path: fs.PathLike, ...rest: Array<never>) => {
        if (!swapped && String(path).endsWith("/f.txt")) {
          swapped = true
          fs.renameSync(nodePath.join(root, "a"), nodePath.join(root, "a-moved"))
          fs.symlinkSync(outside, nodePath.join(root, "a"))
        }
        return (original as (...args: Array<unknown>) => number)(path, ...rest)
      }) as typeof fs.openSync
      syncBuiltinESMExports()
      const read = yield* Effect.ensuring(
        tree.read("a/f.txt"),
        Effect.sync(() => {
          mutable.openSync = original
          syncBuiltinESMExports()
        })
      )
      expect(swapped).toBe(true)
      expect(read).toEqual(Option.some("inside\n"))
      // Now that `a` is a link, it is refused by name.
      expect(yield* refusal(tree.read("a/f.txt"))).toEqual({ path: "a", reason: "link" })
    })
  )
})

describe("TreeFiles: writing", () => {
  it.effect("write creates missing folders and replaces a file whole; append adds and creates", () =>
    Effect.gen(function* () {
      const root = tempDir("write")
      const tree = yield* TreeFiles.make(root)
      yield* tree.write("notes/deep/new.txt", "one\n")
      expect(fs.readFileSync(nodePath.join(root, "notes/deep/new.txt"), "utf8")).toBe("one\n")
      yield* tree.write("notes/deep/new.txt", "two\n")
      expect(yield* tree.read("notes/deep/new.txt")).toEqual(Option.some("two\n"))
      yield* tree.append("logs/today/a.log", "x")
      yield* tree.append("logs/today/a.log", "y")
      expect(fs.readFileSync(nodePath.join(root, "logs/today/a.log"), "utf8")).toBe("xy")
      // No temporary file is left anywhere.
      const all = fs.readdirSync(root, { recursive: true }).map(String)
      expect(all.filter((n) => n.includes("agent-harness-tmp"))).toEqual([])
      expect(yield* tree.list).toEqual(["logs/today/a.log", "notes/deep/new.txt"])
    })
  )

  it.effect("write keeps an existing file's mode (an executable script stays executable)", () =>
    Effect.gen(function* () {
      const root = tempDir("mode")
      fs.writeFileSync(nodePath.join(root, "run.sh"), "#!/bin/sh\n")
      fs.chmodSync(nodePath.join(root, "run.sh"), 0o755)
      const tree = yield* TreeFiles.make(root)
      yield* tree.write("run.sh", "#!/bin/sh\necho hi\n")
      expect(fs.statSync(nodePath.join(root, "run.sh")).mode & 0o777).toBe(0o755)
    })
  )

  it.effect("refuses to write into .git, through a linked folder, over a link, a FIFO or a hard link", () =>
    Effect.gen(function* () {
      const before = fs.readFileSync(nodePath.join(project.outside, "secret.txt"), "utf8")
      expect(yield* refusal(files.write(".git/config", "x"))).toEqual({ path: ".git/config", reason: "git" })
      expect(yield* refusal(files.append(".git/new", "x"))).toEqual({ path: ".git/new", reason: "git" })
      expect(yield* refusal(files.write("src/linked/secret.txt", "x"))).toEqual({ path: "src/linked", reason: "link" })
      expect(yield* refusal(files.write("src/linked/new/x.txt", "x"))).toEqual({ path: "src/linked", reason: "link" })
      expect(yield* refusal(files.append("src/linked/secret.txt", "x"))).toEqual({ path: "src/linked", reason: "link" })
      expect(yield* refusal(files.write("src/file-link.ts", "x"))).toEqual({ path: "src/file-link.ts", reason: "link" })
      expect(yield* refusal(files.append("fifo", "x"))).toEqual({ path: "fifo", reason: "special" })
      expect(yield* refusal(files.write("sock", "x"))).toEqual({ path: "sock", reason: "special" })
      expect(yield* refusal(files.append("hard.txt", "x"))).toEqual({ path: "hard.txt", reason: "hard-link" })
      expect(yield* refusal(files.write("notes.txt/x", "x"))).toEqual({ path: "notes.txt", reason: "not-folder" })
      expect(fs.readFileSync(nodePath.join(project.outside, "secret.txt"), "utf8")).toBe(before)
      expect(fs.readdirSync(project.outside)).toEqual(["secret.txt"])
      expect(fs.existsSync(nodePath.join(project.root, ".git/new"))).toBe(false)
      expect(fs.readFileSync(nodePath.join(project.root, "src/app/main.ts"), "utf8")).toBe(
        "export const main = 'needle'\n"
      )
    })
  )

  it.effect("a write that fails before its rename leaves the old content and no temporary file", () =>
    Effect.gen(function* () {
      const root = tempDir("crash")
      fs.mkdirSync(nodePath.join(root, "d"))
      fs.writeFileSync(nodePath.join(root, "d/a.txt"), "old\n")
      const tree = yield* TreeFiles.make(root)
      const original = fs.renameSync
      const mutable = fs as unknown as { renameSync: typeof fs.renameSync }
      mutable.renameSync = () => {
        throw Object.assign(new Error("EIO: i/o error, rename"), { code: "EIO" })
      }
      syncBuiltinESMExports()
      const exit = yield* Effect.ensuring(
        Effect.exit(tree.write("d/a.txt", "new content that never lands\n")),
        Effect.sync(() => {
          mutable.renameSync = original
          syncBuiltinESMExports()
        })
      )
      expect(defectOf(exit)).toMatchObject({ _tag: "TreeFilesError", operation: "write", path: "d/a.txt" })
      expect(String((defectOf(exit) as Error).message)).not.toContain(root)
      expect(fs.readFileSync(nodePath.join(root, "d/a.txt"), "utf8")).toBe("old\n")
      expect(fs.readdirSync(nodePath.join(root, "d"))).toEqual(["a.txt"])
    })
  )

  it.effect(
    "temporary files a dead process left are never listed, and the next write in their folder removes them",
    () =>
      Effect.gen(function* () {
        const root = tempDir("leftover")
        fs.mkdirSync(nodePath.join(root, "d"))
        const leftover = nodePath.join(root, "d/.agent-harness-tmp-999999999-1.tmp")
        fs.writeFileSync(leftover, "half a write")
        const tree = yield* TreeFiles.make(root)
        expect(yield* tree.list).toEqual([])
        yield* tree.write("d/b.txt", "b")
        expect(fs.existsSync(leftover)).toBe(false)
        expect(yield* tree.list).toEqual(["d/b.txt"])
      })
  )
})

describe("TreeFiles: the root", () => {
  it.effect("make fails with a TreeFilesError when the folder does not exist or is a file", () =>
    Effect.gen(function* () {
      const root = tempDir("missing")
      const missing = yield* Effect.flip(TreeFiles.make(nodePath.join(root, "nope")))
      expect(missing._tag).toBe("TreeFilesError")
      fs.writeFileSync(nodePath.join(root, "file"), "")
      const file = yield* Effect.flip(TreeFiles.make(nodePath.join(root, "file")))
      expect(file.problem).toContain("not a folder")
      const bad = yield* Effect.flip(TreeFiles.make(root, { maxFileBytes: -1 }))
      expect(bad.problem).toContain("maxFileBytes")
    })
  )

  it.effect("a root removed or replaced is a defect naming the operation, with relative names only", () =>
    Effect.gen(function* () {
      const base = tempDir("gone")
      const root = nodePath.join(base, "r")
      fs.mkdirSync(root)
      fs.writeFileSync(nodePath.join(root, "a.txt"), "a")
      const tree = yield* TreeFiles.make(root)
      fs.renameSync(root, nodePath.join(base, "moved"))
      fs.mkdirSync(root)
      const exit = yield* Effect.exit(tree.read("a.txt"))
      const defect = defectOf(exit)
      expect(defect).toMatchObject({ _tag: "TreeFilesError", operation: "read", path: "a.txt" })
      expect((defect as Error).message).not.toContain(base)
      expect(defectOf(yield* Effect.exit(tree.list))).toMatchObject({ _tag: "TreeFilesError", operation: "list" })
      expect(fs.readdirSync(root)).toEqual([])
    })
  )
})
