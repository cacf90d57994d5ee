// The file tools against hostile input: paths out of the root, NUL bytes, lone surrogates,
// huge paths, fields that are not texts or throw when read, and environments that give back
// something other than text. Character counts are code points.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { Files, FileTools } from "../src/index.ts"
import { observe } from "./run.ts"

const seed = { "a.txt": "A", "notes/b.txt": "needle" }

describe("paths out of the root are refused, in both languages, by every tool", () => {
  const outside = [
    "../x.txt",
    "..",
    "a/../../x",
    "a/..",
    "/etc/passwd",
    "\\x",
    "\\\\server\\share",
    "C:\\x",
    "c:x",
    "..\\x"
  ]

  it.effect("read / write / append refuse them and change nothing", () =>
    Effect.gen(function* () {
      for (const path of outside) {
        const files = Files.makeFiles(seed)
        const refused = { isError: true, content: `not executed: path outside the root: '${path}'` }
        expect(yield* observe(FileTools.Read, { path }, files)).toEqual(refused)
        expect(yield* observe(FileTools.Write, { path, content: "x" }, files)).toEqual(refused)
        expect(yield* observe(FileTools.Append, { path, content: "x" }, files)).toEqual(refused)
        const rechazo = { isError: true, content: `no se ha ejecutado: ruta fuera de la raíz: '${path}'` }
        expect(yield* observe(FileTools.Leer, { ruta: path }, files)).toEqual(rechazo)
        expect(yield* observe(FileTools.Escribir, { ruta: path, contenido: "x" }, files)).toEqual(rechazo)
        expect(yield* observe(FileTools.Anadir, { ruta: path, contenido: "x" }, files)).toEqual(rechazo)
        expect(yield* files.snapshot).toEqual(seed)
      }
    })
  )

  it.effect("list / listar refuse a folder out of the root; an empty folder still lists everything", () =>
    Effect.gen(function* () {
      const files = Files.makeFiles(seed)
      expect(yield* observe(FileTools.List, { folder: "../" }, files)).toEqual({
        isError: true,
        content: "not executed: path outside the root: '../'"
      })
      expect(yield* observe(FileTools.Listar, { carpeta: "/" }, files)).toEqual({
        isError: true,
        content: "no se ha ejecutado: ruta fuera de la raíz: '/'"
      })
      expect(yield* observe(FileTools.List, { folder: "" }, files)).toEqual({
        isError: false,
        content: "a.txt\nnotes/b.txt"
      })
    })
  )

  it.effect("names that only look alike stay accepted: '..x', 'x..', '.hidden', 'a/./b'", () =>
    Effect.gen(function* () {
      const files = Files.makeFiles({})
      for (const path of ["..x", "x..", ".hidden", "a/./b", "...", "a/.../b"]) {
        expect(yield* observe(FileTools.Write, { path, content: "ok" }, files)).toEqual({
          isError: false,
          content: `wrote 2 characters to ${path}`
        })
      }
    })
  )
})

describe("other bad paths", () => {
  it.effect("a NUL character, a lone surrogate, an empty path and a huge path: refused, never echoed", () =>
    Effect.gen(function* () {
      const files = Files.makeFiles(seed)
      const huge = "a".repeat(5000)
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        [
          "a\0.txt",
          "not executed: the path contains a NUL character",
          "no se ha ejecutado: la ruta contiene un carácter NUL"
        ],
        [
          "a\uD800.txt",
          "not executed: the path is not valid Unicode (it has a lone surrogate)",
          "no se ha ejecutado: la ruta no es Unicode válido (tiene un sustituto suelto)"
        ],
        ["", "not executed: the path is empty", "no se ha ejecutado: la ruta está vacía"],
        [huge, "not executed: the path is too long", "no se ha ejecutado: la ruta es demasiado larga"]
      ]
      for (const [path, en, es] of cases) {
        expect(yield* observe(FileTools.Append, { path, content: "x" }, files)).toEqual({ isError: true, content: en })
        expect(yield* observe(FileTools.Leer, { ruta: path }, files)).toEqual({ isError: true, content: es })
      }
      expect(yield* files.snapshot).toEqual(seed)
    })
  )

  it.effect("a path of exactly 4096 code units is accepted", () =>
    Effect.gen(function* () {
      const files = Files.makeFiles({})
      const path = "p".repeat(4096)
      expect((yield* observe(FileTools.Write, { path, content: "x" }, files)).isError).toBe(false)
    })
  )
})

describe("character counts are code points", () => {
  it("characters counts an emoji, a letter with its accent and a lone surrogate as one each", () => {
    expect(FileTools.characters("")).toBe(0)
    expect(FileTools.characters("añadir 🍅")).toBe(8)
    expect(FileTools.characters("🍅🍅")).toBe(2)
    expect(FileTools.characters("\uD800x")).toBe(2)
    expect(FileTools.characters("x\uDC00")).toBe(2)
    expect(FileTools.characters("\uD83C")).toBe(1)
  })

  it.effect("write / append / escribir / añadir report code points", () =>
    Effect.gen(function* () {
      const files = Files.makeFiles({})
      expect(yield* observe(FileTools.Anadir, { ruta: "l.txt", contenido: "añadir 🍅" }, files)).toEqual({
        isError: false,
        content: "añadidos 8 caracteres a l.txt"
      })
      expect(yield* observe(FileTools.Append, { path: "l.txt", content: "🍅" }, files)).toEqual({
        isError: false,
        content: "appended 1 characters to l.txt"
      })
      // Code points, not graphemes: the cook is woman + zero-width joiner + frying pan.
      expect(yield* observe(FileTools.Write, { path: "w.txt", content: "👩‍🍳 ok" }, files)).toEqual({
        isError: false,
        content: "wrote 6 characters to w.txt"
      })
      expect(yield* observe(FileTools.Escribir, { ruta: "w.txt", contenido: "🍅" }, files)).toEqual({
        isError: false,
        content: "escritos 1 caracteres en w.txt"
      })
      expect(yield* files.snapshot).toEqual({ "l.txt": "añadir 🍅🍅", "w.txt": "🍅" })
    })
  )
})

/** What the model would be shown for a call whose input skipped the schema. */
const observeRaw = (tool: FileTools.FileTool, input: unknown, files: Files.FilesShape) =>
  observe(tool as unknown as Parameters<typeof observe<unknown, unknown, unknown>>[0], input, files)

describe("inputs that skip the schema", () => {
  /** An input whose field throws when read. */
  const throwing = (field: string, other: Record<string, string> = {}) =>
    Object.defineProperty({ ...other }, field, {
      enumerable: true,
      get: () => {
        throw new Error("getter exploded")
      }
    })

  it.effect(
    "a throwing getter or a value that is not a text is a typed refusal, never a throw, and reaches no file",
    () =>
      Effect.gen(function* () {
        let touched = 0
        const base = Files.makeFiles(seed)
        const files: Files.FilesShape = {
          ...base,
          write: (path, content) =>
            Effect.andThen(
              Effect.sync(() => touched++),
              base.write(path, content)
            ),
          append: (path, content) =>
            Effect.andThen(
              Effect.sync(() => touched++),
              base.append(path, content)
            )
        }
        expect(yield* observeRaw(FileTools.Read, throwing("path"), files)).toEqual({
          isError: true,
          content: "not executed: field 'path' must be a string"
        })
        expect(yield* observeRaw(FileTools.Append, throwing("content", { path: "a.txt" }), files)).toEqual({
          isError: true,
          content: "not executed: field 'content' must be a string"
        })
        const write = FileTools.Escribir.run as (input: unknown, context: { readonly id: string }) => unknown
        expect(() => write(throwing("ruta"), { id: "t" })).not.toThrow()
        const cases: ReadonlyArray<unknown> = [null, undefined, 42, "text", [], { ruta: 1, contenido: "x" }]
        for (const input of cases) {
          const shown = yield* observeRaw(FileTools.Escribir, input, files)
          expect(shown).toEqual({ isError: true, content: "no se ha ejecutado: el campo 'ruta' debe ser texto" })
        }
        expect(yield* observeRaw(FileTools.Search, { pattern: 7 }, files)).toEqual({
          isError: true,
          content: "not executed: field 'pattern' must be a string"
        })
        expect(touched).toBe(0)
        expect(yield* files.snapshot).toEqual(seed)
      })
  )

  it.effect("each field is read once: a getter that changes its answer cannot pass one path and use another", () =>
    Effect.gen(function* () {
      let reads = 0
      const input = {
        get path() {
          reads += 1
          return reads === 1 ? "safe.txt" : "../escape.txt"
        },
        content: "x"
      }
      const files = Files.makeFiles({})
      expect(yield* observe(FileTools.Write, input, files)).toEqual({
        isError: false,
        content: "wrote 1 characters to safe.txt"
      })
      expect(reads).toBe(1)
      expect(yield* files.snapshot).toEqual({ "safe.txt": "x" })
    })
  )
})

describe("an environment that gives back something other than text", () => {
  it.effect("read and search die with a message naming the path, never pass it on as content", () =>
    Effect.gen(function* () {
      const base = Files.makeFiles({ "a.txt": "A" })
      const broken: Files.FilesShape = {
        ...base,
        scan: undefined,
        read: () => Effect.succeedSome(42 as unknown as string),
        entries: Effect.succeed([["a.txt", null as unknown as string]])
      }
      expect(yield* observe(FileTools.Read, { path: "a.txt" }, broken)).toEqual({
        isError: true,
        content: "the file environment gave number as the content of 'a.txt', not a text"
      })
      expect(yield* observe(FileTools.Buscar, { patron: "A" }, broken)).toEqual({
        isError: true,
        content: "the file environment gave null as the content of 'a.txt', not a text"
      })
      // The same through `scan`, the environment's file-by-file walk.
      const brokenScan: Files.FilesShape = {
        ...base,
        scan: () => Stream.make({ _tag: "Text", path: "b.txt", content: 7 as unknown as string })
      }
      expect(yield* observe(FileTools.Search, { pattern: "A" }, brokenScan)).toEqual({
        isError: true,
        content: "the file environment gave number as the content of 'b.txt', not a text"
      })
      // The same through `find`, the environment's own search.
      for (const lines of [[7], "A", null]) {
        const brokenFind: Files.FilesShape = {
          ...base,
          find: () => Stream.make({ _tag: "Lines", path: "c.txt", lines: lines as unknown as ReadonlyArray<string> })
        }
        expect((yield* observe(FileTools.Search, { pattern: "A" }, brokenFind)).content).toMatch(
          /^the file environment gave (number|string|null) as the content of 'c.txt', not a text$/
        )
      }
    })
  )

  it.effect("an environment whose listUnder, scan or find throws when read falls back to list and entries", () =>
    Effect.gen(function* () {
      const base = Files.makeFiles({ "a.txt": "A", "b/c.txt": "A" })
      const hostile = new Proxy(base, {
        get: (target, key, receiver) => {
          if (key === "listUnder" || key === "scan" || key === "find") throw new Error("no")
          return Reflect.get(target, key, receiver)
        }
      })
      expect(yield* observe(FileTools.List, { folder: "b/" }, hostile)).toEqual({ isError: false, content: "b/c.txt" })
      expect(yield* observe(FileTools.Search, { pattern: "A" }, hostile)).toEqual({
        isError: false,
        content: "a.txt: A\nb/c.txt: A"
      })
    })
  )
})
