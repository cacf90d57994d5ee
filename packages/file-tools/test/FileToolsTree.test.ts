// The file tools over TreeFiles end to end (a real project tree), the cut of large results with
// its marker, and the PathGuard of the running call filtering what list and search reveal, in
// both languages.
import fs from "node:fs"
import * as nodePath from "node:path"
import { PathGuard } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Files, FileTools, TreeFiles } from "../src/index.ts"
import { observe } from "./run.ts"
import { tempDir, tracked, withProject } from "./tree.ts"

let files: Files.FilesShape

withProject(
  "tools",
  (_, tree) => {
    files = tree
  },
  500
)

const ok = (content: string) => ({ isError: false, content })

describe("the file tools over a real project tree", () => {
  it.effect("list / listar show the tracked files under a folder, recursively, sorted", () =>
    Effect.gen(function* () {
      expect(yield* observe(FileTools.List, { folder: "" }, files)).toEqual(ok(tracked.join("\n")))
      expect(yield* observe(FileTools.Listar, { carpeta: "src/" }, files)).toEqual(
        ok(tracked.filter((p) => p.startsWith("src/")).join("\n"))
      )
      expect(yield* observe(FileTools.List, { folder: "node_modules/" }, files)).toEqual(ok(""))
    })
  )

  it.effect("search / buscar look in every tracked file, never in ignored ones, .git, links or hard links", () =>
    Effect.gen(function* () {
      const found = [
        "README.md: needle in the readme",
        "notes.txt: needle one",
        "notes.txt: needle two",
        "src/app/main.ts: export const main = 'needle'",
        "src/keep.gen.ts: kept needle"
      ].join("\n")
      expect(yield* observe(FileTools.Search, { pattern: "needle" }, files)).toEqual(ok(found))
      expect(yield* observe(FileTools.Buscar, { patron: "needle" }, files)).toEqual(ok(found))
      expect(yield* observe(FileTools.Search, { pattern: "SECRET" }, files)).toEqual(ok(""))
    })
  )

  it.effect("read / leer of a path through a linked folder is refused by name, in both languages", () =>
    Effect.gen(function* () {
      expect(yield* observe(FileTools.Read, { path: "src/linked/secret.txt" }, files)).toEqual({
        isError: true,
        content: "not executed: 'src/linked' is a symbolic link, and links are not followed"
      })
      expect(yield* observe(FileTools.Leer, { ruta: ".git/config" }, files)).toEqual({
        isError: true,
        content:
          "no se ha ejecutado: '.git/config' está dentro de .git, que las herramientas de ficheros nunca leen ni escriben"
      })
      expect(yield* observe(FileTools.Read, { path: "../outside/secret.txt" }, files)).toEqual({
        isError: true,
        content: "not executed: path outside the root: '../outside/secret.txt'"
      })
      expect(yield* observe(FileTools.Read, { path: "src/app/nope.ts" }, files)).toEqual({
        isError: true,
        content: "file 'src/app/nope.ts' does not exist"
      })
    })
  )

  it.effect("write / escribir create the folders of a new file; read gives it back", () =>
    Effect.gen(function* () {
      const root = tempDir("tools-write")
      const tree = yield* TreeFiles.make(root)
      expect(yield* observe(FileTools.Escribir, { ruta: "notas/nuevas/a.txt", contenido: "hola" }, tree)).toEqual(
        ok("escritos 4 caracteres en notas/nuevas/a.txt")
      )
      expect(fs.readFileSync(nodePath.join(root, "notas/nuevas/a.txt"), "utf8")).toBe("hola")
      expect(yield* observe(FileTools.Append, { path: "notas/nuevas/a.txt", content: "!" }, tree)).toEqual(
        ok("appended 1 characters to notas/nuevas/a.txt")
      )
      expect(yield* observe(FileTools.Read, { path: "notas/nuevas/a.txt" }, tree)).toEqual(ok("hola!"))
    })
  )

  it.effect("search counts the files it did not read (binary, too large)", () =>
    Effect.gen(function* () {
      const root = tempDir("tools-binary")
      fs.writeFileSync(nodePath.join(root, "a.txt"), "needle\n")
      fs.writeFileSync(nodePath.join(root, "b.bin"), Buffer.from("needle\0"))
      const tree = yield* TreeFiles.make(root)
      expect(yield* observe(FileTools.Search, { pattern: "needle" }, tree)).toEqual(
        ok("a.txt: needle\n1 file not searched (binary, or over the size limit)")
      )
      expect(yield* observe(FileTools.Buscar, { patron: "needle" }, tree)).toEqual(
        ok("a.txt: needle\n1 fichero sin buscar (binario, o de más del tamaño máximo)")
      )
    })
  )
})

describe("large results are cut with a marker", () => {
  const many: Record<string, string> = {}
  for (let i = 0; i < 2500; i++) many[`f/${String(i).padStart(4, "0")}.txt`] = "x"

  it.effect("list / listar stop at 2,000 lines and say how many were left out", () =>
    Effect.gen(function* () {
      const env = Files.makeFiles(many)
      const listed = yield* observe(FileTools.List, { folder: "f/" }, env)
      const lines = listed.content.split("\n")
      expect(lines.length).toBe(FileTools.limits.maxLines + 1)
      expect(lines.slice(0, 2)).toEqual(["f/0000.txt", "f/0001.txt"])
      expect(lines.at(-1)).toBe("… 500 more lines not shown: narrow the folder")
      const listado = yield* observe(FileTools.Listar, { carpeta: "" }, env)
      expect(listado.content.split("\n").at(-1)).toBe("… 500 líneas más sin mostrar: acota la carpeta")
    })
  )

  it.effect("search / buscar stop at about 100 KB and say how many lines were left out", () =>
    Effect.gen(function* () {
      const line = `needle ${"y".repeat(93)}` // 100 characters; each result line is 'big.txt: ' + it
      const env = Files.makeFiles({ "big.txt": `${line}\n`.repeat(3000) })
      const found = yield* observe(FileTools.Search, { pattern: "needle" }, env)
      const lines = found.content.split("\n")
      const perLine = `big.txt: ${line}`.length + 1
      const shown = Math.floor(FileTools.limits.maxBytes / perLine)
      expect(lines.length).toBe(shown + 1)
      expect(lines.at(-1)).toBe(`… ${(3000 - shown).toLocaleString("en-US")} more lines not shown: narrow the pattern`)
      const buscado = yield* observe(FileTools.Buscar, { patron: "needle" }, env)
      expect(buscado.content.split("\n").at(-1)).toBe(
        `… ${(3000 - shown).toLocaleString("en-US").replace(",", ".")} líneas más sin mostrar: acota el patrón`
      )
    })
  )

  it.effect("a result within the limits has no marker", () =>
    Effect.gen(function* () {
      const env = Files.makeFiles({ "a.txt": "needle\n".repeat(FileTools.limits.maxLines) })
      const found = yield* observe(FileTools.Search, { pattern: "needle" }, env)
      expect(found.content.split("\n").length).toBe(FileTools.limits.maxLines)
      expect(found.content).not.toContain("…")
    })
  )
})

describe("the PathGuard of the running call", () => {
  const seed = {
    "a.txt": "SECRET? no, a note",
    "secrets/k1": "SECRET one",
    "secrets/k2": "SECRET two",
    "src/b.txt": "b"
  }
  const guard: PathGuard.PathGuard = { allows: (path) => !path.startsWith("secrets/") }
  const guarded = <A>(effect: Effect.Effect<A>) => Effect.provideService(effect, PathGuard.PathGuard, guard)

  it.effect("list / listar leave out the paths it refuses, and say how many", () =>
    Effect.gen(function* () {
      const env = Files.makeFiles(seed)
      expect(yield* guarded(observe(FileTools.List, { folder: "" }, env))).toEqual(
        ok("a.txt\nsrc/b.txt\n2 paths left out by the permission policy")
      )
      expect(yield* guarded(observe(FileTools.Listar, { carpeta: "secrets/" }, env))).toEqual(
        ok("2 rutas omitidas por la política de permisos")
      )
      expect(yield* guarded(observe(FileTools.List, { folder: "src/" }, env))).toEqual(ok("src/b.txt"))
    })
  )

  it.effect("search / buscar never show a refused file's lines, and say how many paths were left out", () =>
    Effect.gen(function* () {
      const env = Files.makeFiles(seed)
      expect(yield* guarded(observe(FileTools.Search, { pattern: "SECRET" }, env))).toEqual(
        ok("a.txt: SECRET? no, a note\n2 paths left out by the permission policy")
      )
      expect(yield* guarded(observe(FileTools.Buscar, { patron: "" }, env))).toEqual(
        ok("a.txt: SECRET? no, a note\nsrc/b.txt: b\n2 rutas omitidas por la política de permisos")
      )
    })
  )

  it.effect("over a real tree too; a guard that throws refuses; outside a gate nothing is left out", () =>
    Effect.gen(function* () {
      const onlyNotes: PathGuard.PathGuard = {
        allows: (path) => {
          if (path === "README.md") throw new Error("hostile guard")
          return path === "notes.txt"
        }
      }
      const search = observe(FileTools.Search, { pattern: "needle" }, files)
      expect(yield* Effect.provideService(search, PathGuard.PathGuard, onlyNotes)).toEqual(
        ok(
          `notes.txt: needle one\nnotes.txt: needle two\n${tracked.length - 1} paths left out by the permission policy`
        )
      )
      expect((yield* search).content).not.toContain("left out")
    })
  )

  it("the Spanish tools say what their fields mean", () => {
    expect(FileTools.Leer.fields).toEqual({ ruta: "path" })
    expect(FileTools.Listar.fields).toEqual({ carpeta: "folder" })
    expect(FileTools.Buscar.fields).toEqual({ patron: "pattern" })
    expect(FileTools.Escribir.fields).toEqual({ ruta: "path", contenido: "content" })
    expect(FileTools.Anadir.fields).toEqual({ ruta: "path", contenido: "content" })
  })
})
