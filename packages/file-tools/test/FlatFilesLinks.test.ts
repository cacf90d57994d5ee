// FlatFiles stays inside its folder whatever the folder holds: symbolic links (to files and
// folders outside, dangling, in cycles), hard links, directories, FIFOs and sockets.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { FlatFiles, FilePath, FileTools } from "../src/index.ts"
import { observe } from "./run.ts"

const base = fs.mkdtempSync(nodePath.join(os.tmpdir(), "disk-files-links-"))
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

let made = 0
/** A fresh folder with a secret file and a folder outside it, and the environment over it. */
const setup = () => {
  made += 1
  const home = nodePath.join(base, `case-${made}`)
  const outside = nodePath.join(home, "outside")
  fs.mkdirSync(outside, { recursive: true })
  const secret = nodePath.join(outside, "secret.txt")
  fs.writeFileSync(secret, "SECRET")
  fs.writeFileSync(nodePath.join(outside, "other.txt"), "needle outside")
  const root = nodePath.join(home, "root")
  const files = FlatFiles.makeUnsafe(root)
  return { home, outside, secret, root, files, at: (name: string) => nodePath.join(root, name) }
}

/** The refusal a Files operation failed with. */
const refusalOf = <A>(effect: Effect.Effect<A, FilePath.PathRefused>) =>
  Effect.map(Effect.exit(effect), (exit) => (Exit.isFailure(exit) ? Exit.findErrorOption(exit) : Option.none()))

const linkText = "not executed: 'link.txt' is a symbolic link, and links are not followed"
const enlaceTexto = "no se ha ejecutado: 'link.txt' es un enlace simbólico, y los enlaces no se siguen"

describe("FlatFiles and symbolic links", () => {
  it.effect("a link to a file outside: read, write and append are refused, the outside file untouched", () =>
    Effect.gen(function* () {
      const { secret, files, at } = setup()
      fs.symlinkSync(secret, at("link.txt"))
      expect(yield* observe(FileTools.Read, { path: "link.txt" }, files)).toEqual({ isError: true, content: linkText })
      expect(yield* observe(FileTools.Leer, { ruta: "link.txt" }, files)).toEqual({
        isError: true,
        content: enlaceTexto
      })
      expect(yield* observe(FileTools.Append, { path: "link.txt", content: "!!" }, files)).toEqual({
        isError: true,
        content: linkText
      })
      expect(yield* observe(FileTools.Anadir, { ruta: "link.txt", contenido: "!!" }, files)).toEqual({
        isError: true,
        content: enlaceTexto
      })
      expect(yield* observe(FileTools.Write, { path: "link.txt", content: "new" }, files)).toEqual({
        isError: true,
        content: linkText
      })
      expect(fs.readFileSync(secret, "utf8")).toBe("SECRET")
      expect(fs.lstatSync(at("link.txt")).isSymbolicLink()).toBe(true)
      const refused = yield* refusalOf(files.read("link.txt"))
      expect(refused).toEqual(Option.some(new FilePath.PathRefused({ path: "link.txt", reason: "link" })))
    })
  )

  it.effect("a link to another file inside the folder is not followed either", () =>
    Effect.gen(function* () {
      const { files, at } = setup()
      yield* files.write("a.txt", "A")
      fs.symlinkSync(at("a.txt"), at("link.txt"))
      expect(yield* observe(FileTools.Read, { path: "link.txt" }, files)).toEqual({ isError: true, content: linkText })
      expect(yield* files.list).toEqual(["a.txt"])
    })
  )

  it.effect("a dangling link: append refuses, and creates nothing outside", () =>
    Effect.gen(function* () {
      const { outside, files, at } = setup()
      const target = nodePath.join(outside, "created.txt")
      fs.symlinkSync(target, at("link.txt"))
      expect(yield* observe(FileTools.Append, { path: "link.txt", content: "x" }, files)).toEqual({
        isError: true,
        content: linkText
      })
      expect(yield* observe(FileTools.Read, { path: "link.txt" }, files)).toEqual({ isError: true, content: linkText })
      expect(fs.existsSync(target)).toBe(false)
    })
  )

  it.effect("list and search skip links out of the folder, link cycles, subfolders and links to the folder", () =>
    Effect.gen(function* () {
      const { outside, secret, files, at, root } = setup()
      yield* files.write("notes.txt", "needle inside\nplain")
      fs.symlinkSync(secret, at("secret-link"))
      fs.symlinkSync(outside, at("outside-dir"))
      fs.symlinkSync(root, at("self"))
      fs.symlinkSync(at("cycle-b"), at("cycle-a"))
      fs.symlinkSync(at("cycle-a"), at("cycle-b"))
      fs.mkdirSync(at("sub"))
      fs.writeFileSync(nodePath.join(at("sub"), "deep.txt"), "needle deep")
      expect(yield* files.list).toEqual(["notes.txt"])
      expect(yield* files.entries).toEqual([["notes.txt", "needle inside\nplain"]])
      expect(yield* files.snapshot).toEqual({ "notes.txt": "needle inside\nplain" })
      expect(yield* observe(FileTools.Search, { pattern: "needle" }, files)).toEqual({
        isError: false,
        content: "notes.txt: needle inside"
      })
      expect(yield* observe(FileTools.List, { folder: "" }, files)).toEqual({ isError: false, content: "notes.txt" })
      expect(yield* observe(FileTools.Read, { path: "cycle-a" }, files)).toEqual({
        isError: true,
        content: "not executed: 'cycle-a' is a symbolic link, and links are not followed"
      })
    })
  )
})

describe("FlatFiles and other things a folder may hold", () => {
  it.effect("a hard link to a file outside: read and append refused, the outside file untouched, not listed", () =>
    Effect.gen(function* () {
      const { secret, files, at } = setup()
      fs.linkSync(secret, at("hard.txt"))
      const refused = "not executed: 'hard.txt' has other hard links (it may be a file outside the root)"
      expect(yield* observe(FileTools.Read, { path: "hard.txt" }, files)).toEqual({ isError: true, content: refused })
      expect(yield* observe(FileTools.Append, { path: "hard.txt", content: "!!" }, files)).toEqual({
        isError: true,
        content: refused
      })
      expect(yield* observe(FileTools.Leer, { ruta: "hard.txt" }, files)).toEqual({
        isError: true,
        content: "no se ha ejecutado: 'hard.txt' tiene otros enlaces duros (puede ser un fichero fuera de la raíz)"
      })
      expect(fs.readFileSync(secret, "utf8")).toBe("SECRET")
      expect(yield* files.list).toEqual([])
    })
  )

  it.effect("a directory: every tool refuses it as a directory", () =>
    Effect.gen(function* () {
      const { files, at } = setup()
      fs.mkdirSync(at("sub"))
      const refused = { isError: true, content: "not executed: 'sub' is a directory, not a file" }
      expect(yield* observe(FileTools.Read, { path: "sub" }, files)).toEqual(refused)
      expect(yield* observe(FileTools.Write, { path: "sub", content: "x" }, files)).toEqual(refused)
      expect(yield* observe(FileTools.Append, { path: "sub", content: "x" }, files)).toEqual(refused)
      expect(yield* observe(FileTools.Escribir, { ruta: "sub", contenido: "x" }, files)).toEqual({
        isError: true,
        content: "no se ha ejecutado: 'sub' es una carpeta, no un fichero"
      })
      expect(fs.statSync(at("sub")).isDirectory()).toBe(true)
    })
  )

  it.effect(
    "a FIFO: refused without blocking, by read, append and write",
    () =>
      Effect.gen(function* () {
        const { files, at } = setup()
        execFileSync("mkfifo", [at("fifo")], { timeout: 10_000 })
        const refused = {
          isError: true,
          content: "not executed: 'fifo' is not a regular file (it is a FIFO, a socket or a device)"
        }
        expect(yield* observe(FileTools.Read, { path: "fifo" }, files)).toEqual(refused)
        expect(yield* observe(FileTools.Append, { path: "fifo", content: "x" }, files)).toEqual(refused)
        expect(yield* observe(FileTools.Write, { path: "fifo", content: "x" }, files)).toEqual(refused)
        expect(yield* observe(FileTools.Anadir, { ruta: "fifo", contenido: "x" }, files)).toEqual({
          isError: true,
          content: "no se ha ejecutado: 'fifo' no es un fichero normal (es una FIFO, un socket o un dispositivo)"
        })
        expect(fs.lstatSync(at("fifo")).isFIFO()).toBe(true)
        expect(yield* files.list).toEqual([])
      }),
    60_000
  )

  it.effect(
    "a socket: refused by read and append, not listed",
    () =>
      Effect.gen(function* () {
        const { files, at } = setup()
        const server = net.createServer()
        yield* Effect.callback<void>((resume) => {
          server.listen(at("sock"), () => resume(Effect.void))
        })
        yield* Effect.addFinalizer(() => Effect.sync(() => server.close()))
        const refused = {
          isError: true,
          content: "not executed: 'sock' is not a regular file (it is a FIFO, a socket or a device)"
        }
        expect(yield* observe(FileTools.Read, { path: "sock" }, files)).toEqual(refused)
        expect(yield* observe(FileTools.Append, { path: "sock", content: "x" }, files)).toEqual(refused)
        expect(yield* files.list).toEqual([])
      }).pipe(Effect.scoped),
    60_000
  )

  it.effect("the tools over disk refuse paths out of the root and write nothing", () =>
    Effect.gen(function* () {
      const { home, files, root } = setup()
      for (const path of ["../escape.txt", "/etc/passwd", "a/../../b", "C:\\x.txt", "..\\x"]) {
        const shown = yield* observe(FileTools.Write, { path, content: "x" }, files)
        expect(shown).toEqual({ isError: true, content: `not executed: path outside the root: '${path}'` })
      }
      expect(fs.readdirSync(root)).toEqual([])
      expect(fs.readdirSync(home).sort()).toEqual(["outside", "root"])
    })
  )
})
