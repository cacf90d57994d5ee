import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import fc from "fast-check"
import { FlatFiles, FilePath, Files, FileTools } from "../src/index.ts"
import { readsWritesAppendsLists } from "./fixtures/contract.ts"
import { observe, runOn } from "./run.ts"

const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "disk-files-test-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

let folders = 0
/** A fresh folder (not yet created) under the test's temporary root. */
const fresh = (): string => {
  folders += 1
  return nodePath.join(root, `env-${folders}`)
}

/** The names of the files in a folder, sorted. */
const namesIn = (dir: string): ReadonlyArray<string> => fs.readdirSync(dir).sort()

/** What a failed exit failed or died with. */
const defectOf = <A, E>(exit: Exit.Exit<A, E>): unknown => (Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined)

/** Whether a text is valid UTF-16 (no lone surrogate), so UTF-8 on disk keeps it as it is. */
const wellFormed = (text: string): boolean => {
  try {
    encodeURIComponent(text)
    return true
  } catch {
    return false
  }
}

describe("FlatFiles", () => {
  it.effect("reads, writes, appends, lists and snapshots, like the in-memory Files", () =>
    Effect.gen(function* () {
      const dir = fresh()
      const files = yield* FlatFiles.make(dir)
      yield* files.write("b.txt", "B")
      yield* files.write("a.txt", "A")
      yield* readsWritesAppendsLists(files)
      expect(namesIn(dir)).toEqual(["a.txt", "b.txt", "c.txt", "new.txt"])
    })
  )

  it.effect("is on disk: a second environment over the folder sees every change", () =>
    Effect.gen(function* () {
      const dir = fresh()
      const one = yield* FlatFiles.make(dir)
      yield* one.write("notes/todo.txt", "milk")
      yield* one.append("notes/todo.txt", ", eggs")
      yield* one.append("log.txt", "[a1]")
      const two = yield* FlatFiles.make(dir)
      expect(yield* two.snapshot).toEqual({ "log.txt": "[a1]", "notes/todo.txt": "milk, eggs" })
      expect(fs.readFileSync(nodePath.join(dir, "notes%2Ftodo.txt"), "utf8")).toBe("milk, eggs")
    })
  )

  it.effect("every path is one file inside the folder: nothing escapes it", () =>
    Effect.gen(function* () {
      const outer = fresh()
      const dir = nodePath.join(outer, "env")
      const paths = [
        "../escape.txt",
        "../../far.txt",
        "/etc/passwd",
        ".",
        "..",
        "",
        ".hidden",
        ".tmp-1-1",
        "a/b/c.txt",
        "__proto__",
        "%41",
        "%",
        "C:\\x.txt",
        "ñ ü €.txt",
        "emoji 🍅"
      ]
      const files = yield* FlatFiles.make(dir)
      for (const [i, path] of paths.entries()) yield* files.write(path, `content ${i}`)
      yield* files.append("../escape.txt", "!")
      expect(namesIn(outer)).toEqual(["env"])
      expect(namesIn(dir)).toHaveLength(paths.length)
      expect(namesIn(dir).every((name) => !name.startsWith("."))).toBe(true)
      expect(yield* files.list).toEqual([...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
      for (const [i, path] of paths.entries()) {
        expect(yield* files.read(path)).toEqual(Option.some(`content ${i}${path === "../escape.txt" ? "!" : ""}`))
      }
      const snap = yield* files.snapshot
      expect(Object.getPrototypeOf(snap)).toBe(Object.prototype)
      expect(Object.getOwnPropertyDescriptor(snap, "__proto__")?.value).toBe("content 9")
    })
  )

  it("names round-trip, and names it never writes decode to nothing", () => {
    for (const path of ["", ".", "..", "a/b", "%", "%2E", ".x", "x.", "a b"]) {
      expect(FlatFiles.decodeName(FlatFiles.encodeName(path))).toBe(path)
    }
    expect(FlatFiles.encodeName("")).toBe("%")
    expect(FlatFiles.encodeName(".")).toBe("%2E")
    expect(FlatFiles.encodeName("..")).toBe("%2E.")
    expect(FlatFiles.encodeName("a/b.txt")).toBe("a%2Fb.txt")
    for (const name of [".tmp-1-1", ".x", "%zz", "a%2fb", "%2E%2E"]) expect(FlatFiles.decodeName(name)).toBeUndefined()
  })

  it.effect("leftover temporary files of a crash are never listed, and the next make removes them", () =>
    Effect.gen(function* () {
      const dir = fresh()
      const files = yield* FlatFiles.make(dir)
      yield* files.write("a.txt", "A")
      // A process that no longer runs (no pid is that high on Linux, macOS or Windows).
      const leftover = ".agent-harness-diskfiles-999999999-1.tmp"
      fs.writeFileSync(nodePath.join(dir, leftover), "half a write")
      expect(yield* files.list).toEqual(["a.txt"])
      expect(yield* files.snapshot).toEqual({ "a.txt": "A" })
      yield* FlatFiles.make(dir)
      expect(namesIn(dir)).toEqual(["a.txt"])
    })
  )

  it.effect(
    "make removes only its own leftovers: other hidden files, links and a running process's temporaries stay",
    () =>
      Effect.gen(function* () {
        const dir = fresh()
        fs.mkdirSync(dir)
        const others = [
          ".tmp-999-1",
          ".tmp-notes",
          ".tmp-",
          ".agent-harness-diskfiles-999999999-1.tmp.bak",
          ".agent-harness-diskfiles-x-1.tmp",
          // pid 1 always runs: another process may be writing this one right now.
          ".agent-harness-diskfiles-1-7.tmp"
        ]
        for (const name of others) fs.writeFileSync(nodePath.join(dir, name), "keep me")
        const outside = nodePath.join(root, `outside-${folders}.txt`)
        fs.writeFileSync(outside, "outside")
        fs.symlinkSync(outside, nodePath.join(dir, ".agent-harness-diskfiles-999999999-2.tmp"))
        fs.mkdirSync(nodePath.join(dir, ".agent-harness-diskfiles-999999999-3.tmp"))
        yield* FlatFiles.make(dir)
        expect(namesIn(dir)).toEqual(
          [...others, ".agent-harness-diskfiles-999999999-2.tmp", ".agent-harness-diskfiles-999999999-3.tmp"].sort()
        )
        expect(fs.readFileSync(outside, "utf8")).toBe("outside")
      })
  )

  it.effect("a write never writes through a link planted where its temporary file goes", () =>
    Effect.gen(function* () {
      const dir = fresh()
      const files = yield* FlatFiles.make(dir)
      const outside = nodePath.join(root, `outside-${folders}.txt`)
      fs.writeFileSync(outside, "outside")
      // The names of its first temporary files (and those of the version before, `.tmp-<pid>-<n>`).
      for (const n of [1, 2]) {
        fs.symlinkSync(outside, nodePath.join(dir, `.agent-harness-diskfiles-${process.pid}-${n}.tmp`))
        fs.symlinkSync(outside, nodePath.join(dir, `.tmp-${process.pid}-${n}`))
      }
      yield* files.write("a.txt", "A")
      expect(fs.readFileSync(outside, "utf8")).toBe("outside")
      expect(yield* files.read("a.txt")).toEqual(Option.some("A"))
    })
  )

  it.effect("a write replaces the whole file and leaves no temporary file", () =>
    Effect.gen(function* () {
      const dir = fresh()
      const files = yield* FlatFiles.make(dir)
      yield* files.write("a.txt", "a long first content")
      yield* files.write("a.txt", "short")
      expect(yield* files.read("a.txt")).toEqual(Option.some("short"))
      expect(namesIn(dir)).toEqual(["a.txt"])
    })
  )

  it.effect("the file tools over disk: append twice adds twice, write replaces, read reads", () =>
    Effect.gen(function* () {
      const files = yield* FlatFiles.make(fresh())
      yield* files.write("lista.txt", "pan")
      const once = yield* runOn(FileTools.Append, { path: "lista.txt", content: ", tomates" }, files)
      expect(once.exit).toEqual(Exit.succeed("appended 9 characters to lista.txt"))
      const twice = yield* runOn(FileTools.Append, { path: "lista.txt", content: ", tomates" }, files)
      expect(twice.after).toEqual({ "lista.txt": "pan, tomates, tomates" })
      const written = yield* runOn(FileTools.Write, { path: "lista.txt", content: "pan" }, files)
      expect(written.after).toEqual({ "lista.txt": "pan" })
      const read = yield* runOn(FileTools.Read, { path: "nope.txt" }, files)
      expect(Exit.isFailure(read.exit)).toBe(true)
      const searched = yield* runOn(FileTools.Search, { pattern: "pa" }, files)
      expect(searched.exit).toEqual(Exit.succeed("lista.txt: pan"))
    })
  )

  it.effect("a folder that cannot be made is a typed FlatFilesError naming it", () =>
    Effect.gen(function* () {
      const file = nodePath.join(root, "a-file")
      fs.writeFileSync(file, "not a folder")
      const error = yield* Effect.flip(FlatFiles.make(nodePath.join(file, "env")))
      expect(error._tag).toBe("FlatFilesError")
      expect(error.path).toBe(nodePath.join(file, "env"))
      expect(error.message).toContain("a-file")
    })
  )

  it.effect("a name too long for the file system, or a lone surrogate, is a typed refusal", () =>
    Effect.gen(function* () {
      const files = yield* FlatFiles.make(fresh())
      const tooLong = "x".repeat(300)
      const long = yield* Effect.flip(files.write(tooLong, "x"))
      expect(long).toEqual(new FilePath.PathRefused({ path: tooLong, reason: "too-long" }))
      expect(long.message).toBe("not executed: the path is too long")
      expect(yield* Effect.flip(files.append(tooLong, "x"))).toMatchObject({ reason: "too-long" })
      expect(yield* Effect.flip(files.read(tooLong))).toMatchObject({ reason: "too-long" })
      expect(wellFormed("\uD800")).toBe(false)
      expect(yield* Effect.flip(files.append("\uD800", "x"))).toMatchObject({
        _tag: "PathRefused",
        reason: "malformed"
      })
      expect(yield* files.list).toEqual([])
    })
  )

  it.effect("an I/O failure is a defect carrying a FlatFilesError; no message shows the folder's absolute path", () =>
    Effect.gen(function* () {
      const dir = fresh()
      const files = yield* FlatFiles.make(dir)
      yield* files.write("a.txt", "A")
      fs.rmSync(dir, { recursive: true })
      const exits: ReadonlyArray<Exit.Exit<unknown, unknown>> = [
        yield* Effect.exit(files.write("a.txt", "x")),
        yield* Effect.exit(files.append("a.txt", "x")),
        yield* Effect.exit(files.read("a.txt")),
        yield* Effect.exit(files.list)
      ]
      for (const exit of exits) {
        const defect = defectOf(exit)
        expect(defect).toBeInstanceOf(FlatFilesError)
        expect(String((defect as Error).message)).not.toContain(root)
      }
      expect(defectOf(exits[0] ?? Exit.void)).toMatchObject({ operation: "write", path: "a.txt" })
      expect((defectOf(exits[3] ?? Exit.void) as Error).message).toBe(
        "list: the folder was removed, moved or replaced since the environment was made"
      )
      expect((defectOf(exits[1] ?? Exit.void) as Error).message).toBe(
        "append a.txt: the folder was removed, moved or replaced since the environment was made"
      )
    })
  )

  it.effect("a folder swapped for a link to another folder is noticed before any operation", () =>
    Effect.gen(function* () {
      const dir = fresh()
      const files = yield* FlatFiles.make(dir)
      const elsewhere = fresh()
      fs.mkdirSync(elsewhere)
      fs.writeFileSync(nodePath.join(elsewhere, "a.txt"), "elsewhere")
      fs.renameSync(dir, `${dir}-moved`)
      fs.symlinkSync(elsewhere, dir)
      const exit = yield* Effect.exit(files.append("a.txt", "!"))
      expect(defectOf(exit)).toMatchObject({ _tag: "FlatFilesError", operation: "append", path: "a.txt" })
      expect(fs.readFileSync(nodePath.join(elsewhere, "a.txt"), "utf8")).toBe("elsewhere")
    })
  )

  it.effect("error observations of the file tools over disk show root-relative paths only", () =>
    Effect.gen(function* () {
      const dir = fresh()
      const files = yield* FlatFiles.make(dir)
      fs.mkdirSync(nodePath.join(dir, "sub"))
      fs.symlinkSync("/etc/hostname", nodePath.join(dir, "link"))
      const shown = [
        yield* observe(FileTools.Read, { path: "sub" }, files),
        yield* observe(FileTools.Read, { path: "link" }, files),
        yield* observe(FileTools.Write, { path: "x".repeat(300), content: "x" }, files),
        yield* observe(FileTools.Append, { path: "ñ".repeat(200), content: "x" }, files),
        yield* observe(FileTools.Leer, { ruta: "nope" }, files)
      ]
      expect(shown.map((s) => s.content)).toEqual([
        "not executed: 'sub' is a directory, not a file",
        "not executed: 'link' is a symbolic link, and links are not followed",
        "not executed: the path is too long",
        "not executed: the path is too long",
        "no existe el fichero 'nope'"
      ])
    })
  )

  it.effect("the layer provides Files over the folder", () =>
    Effect.gen(function* () {
      const dir = fresh()
      const change = Files.Files.use((files) => Effect.andThen(files.append("a.txt", "!"), files.snapshot))
      expect(yield* Effect.provide(change, FlatFiles.layer(dir))).toEqual({ "a.txt": "!" })
      expect(yield* Effect.provide(change, FlatFiles.layer(dir))).toEqual({ "a.txt": "!!" })
    })
  )

  it.effect("agrees with the in-memory Files on any sequence of writes and appends", () =>
    Effect.promise(() => {
      // Paths the disk can hold: no lone surrogates, names within the file system's limit.
      const path = fc
        .oneof(
          fc.string({ maxLength: 12 }),
          fc.string({ unit: "binary", maxLength: 6 }),
          fc.constantFrom("", ".", "..", "a/b", "%", "__proto__", "A", "a")
        )
        .filter((p) => wellFormed(p) && Buffer.byteLength(FlatFiles.encodeName(p)) < 200)
      const content = fc.string({ unit: "binary", maxLength: 8 }).filter(wellFormed)
      const op = fc.record({ kind: fc.constantFrom("write", "append"), path, content })
      return fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
          const disk = FlatFiles.makeUnsafe(fresh())
          const memory = Files.makeFiles()
          for (const o of ops) {
            await Effect.runPromise(o.kind === "write" ? disk.write(o.path, o.content) : disk.append(o.path, o.content))
            await Effect.runPromise(
              o.kind === "write" ? memory.write(o.path, o.content) : memory.append(o.path, o.content)
            )
          }
          expect(await Effect.runPromise(disk.entries)).toEqual(await Effect.runPromise(memory.entries))
        }),
        { numRuns: 60 }
      )
    })
  )
})

const { FlatFilesError } = FlatFiles
