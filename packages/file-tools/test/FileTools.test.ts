import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Effect, Exit, Result, type Schema } from "effect"
import { type FilePath, Files, FileTools, SeedFiles, StartFiles } from "../src/index.ts"
import { runFresh, runOn } from "./run.ts"

const env = {
  "notes/b.txt": "second\nneedle two",
  "a.txt": "needle one\nnothing\r\nneedle again\n",
  "notes/a.txt": "plain",
  "B.txt": "upper",
  "a/10.txt": "ten",
  "a/2.txt": "two"
}

const failure = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const found = Exit.findError(exit)
  if (Result.isFailure(found)) throw new Error("expected a typed failure")
  return found.success
}

const success = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isFailure(exit)) throw new Error(`expected a success, got ${String(exit)}`)
  return exit.value
}

describe("read / leer", () => {
  it.effect("returns the file's content and changes nothing", () =>
    Effect.gen(function* () {
      const en = yield* runFresh(FileTools.Read, { path: "a/2.txt" }, env)
      expect(success(en.exit)).toBe("two")
      expect(en.after).toEqual(env)
      const es = yield* runFresh(FileTools.Leer, { ruta: "notes/b.txt" }, env)
      expect(success(es.exit)).toBe("second\nneedle two")
      expect(es.after).toEqual(env)
    })
  )

  it.effect("fails with a typed FileNotFound when the file is missing, and changes nothing", () =>
    Effect.gen(function* () {
      const en = yield* runFresh(FileTools.Read, { path: "missing.txt" }, env)
      const enError = failure(en.exit)
      expect(enError).toBeInstanceOf(FileTools.FileNotFound)
      expect(enError).toMatchObject({ _tag: "FileNotFound", path: "missing.txt" })
      expect(enError.message).toBe("file 'missing.txt' does not exist")
      expect(FileTools.Read.failureMessage(enError)).toBe("file 'missing.txt' does not exist")
      expect(en.after).toEqual(env)

      const es = yield* runFresh(FileTools.Leer, { ruta: "recetas/salmorejo.txt" }, StartFiles.spanish)
      const esError = failure(es.exit)
      expect(esError).toBeInstanceOf(FileTools.FileNotFound)
      expect(esError.message).toBe("no existe el fichero 'recetas/salmorejo.txt'")
      expect(FileTools.Leer.failureMessage(esError)).toBe("no existe el fichero 'recetas/salmorejo.txt'")
      expect(es.after).toEqual(StartFiles.spanish)
    })
  )

  it.effect("an empty file is content, not an error", () =>
    Effect.gen(function* () {
      const { exit } = yield* runFresh(FileTools.Leer, { ruta: "vacio.txt" }, { "vacio.txt": "" })
      expect(success(exit)).toBe("")
    })
  )
})

describe("list / listar", () => {
  it.effect("lists the paths that start with the folder, sorted by code unit, one per line", () =>
    Effect.gen(function* () {
      const en = yield* runFresh(FileTools.List, { folder: "a" }, env)
      expect(success(en.exit)).toBe("a.txt\na/10.txt\na/2.txt")
      expect(en.after).toEqual(env)
      const es = yield* runFresh(FileTools.Listar, { carpeta: "notes/" }, env)
      expect(success(es.exit)).toBe("notes/a.txt\nnotes/b.txt")
      expect(es.after).toEqual(env)
    })
  )

  it.effect("an empty folder lists everything, upper case first", () =>
    Effect.gen(function* () {
      const { exit } = yield* runFresh(FileTools.List, { folder: "" }, env)
      expect(success(exit)).toBe("B.txt\na.txt\na/10.txt\na/2.txt\nnotes/a.txt\nnotes/b.txt")
    })
  )

  it.effect("sorts integer-like paths as strings", () =>
    Effect.gen(function* () {
      const { exit } = yield* runFresh(FileTools.Listar, { carpeta: "" }, { "9": "", "10": "", "1x": "" })
      expect(success(exit)).toBe("10\n1x\n9")
    })
  )

  it.effect("no match gives an empty text", () =>
    Effect.gen(function* () {
      expect(success((yield* runFresh(FileTools.List, { folder: "zzz/" }, env)).exit)).toBe("")
      expect(success((yield* runFresh(FileTools.Listar, { carpeta: "recetas/" }, {})).exit)).toBe("")
    })
  )

  it.effect("lists the seed's two recipes", () =>
    Effect.gen(function* () {
      const es = yield* runFresh(FileTools.Listar, { carpeta: "recetas/" }, StartFiles.spanish)
      expect(success(es.exit)).toBe("recetas/gazpacho.txt\nrecetas/tortilla.txt")
      const en = yield* runFresh(FileTools.List, { folder: "recipes/" }, StartFiles.english)
      expect(success(en.exit)).toBe("recipes/gazpacho.txt\nrecipes/tortilla.txt")
    })
  )
})

describe("search / buscar", () => {
  it.effect("gives 'path: line' for each matching line, by path then line order", () =>
    Effect.gen(function* () {
      const expected = "a.txt: needle one\na.txt: needle again\nnotes/b.txt: needle two"
      const en = yield* runFresh(FileTools.Search, { pattern: "needle" }, env)
      expect(success(en.exit)).toBe(expected)
      expect(en.after).toEqual(env)
      const es = yield* runFresh(FileTools.Buscar, { patron: "needle" }, env)
      expect(success(es.exit)).toBe(expected)
      expect(es.after).toEqual(env)
    })
  )

  it.effect("matches a substring, not a regular expression", () =>
    Effect.gen(function* () {
      const files = { "r.txt": "a.c\nabc\n(x)" }
      expect(success((yield* runFresh(FileTools.Search, { pattern: "a.c" }, files)).exit)).toBe("r.txt: a.c")
      expect(success((yield* runFresh(FileTools.Buscar, { patron: "(x)" }, files)).exit)).toBe("r.txt: (x)")
    })
  )

  it.effect("no match is an empty text and a success", () =>
    Effect.gen(function* () {
      expect(success((yield* runFresh(FileTools.Search, { pattern: "salmorejo" }, StartFiles.english)).exit)).toBe("")
      expect(success((yield* runFresh(FileTools.Buscar, { patron: "salmorejo" }, StartFiles.spanish)).exit)).toBe("")
    })
  )

  it.effect("finds the seed's potatoes", () =>
    Effect.gen(function* () {
      const { exit } = yield* runFresh(FileTools.Buscar, { patron: "patatas" }, StartFiles.spanish)
      expect(success(exit)).toBe(`recetas/tortilla.txt: ${StartFiles.spanish["recetas/tortilla.txt"]}`)
    })
  )

  it("splits lines like Python's splitlines", () => {
    expect(FileTools.lines("")).toEqual([])
    expect(FileTools.lines("a")).toEqual(["a"])
    expect(FileTools.lines("a\n")).toEqual(["a"])
    expect(FileTools.lines("a\r\nb\rc\n\nd")).toEqual(["a", "b", "c", "", "d"])
  })
})

describe("write / escribir", () => {
  it.effect("replaces the file and reports the characters written", () =>
    Effect.gen(function* () {
      const en = yield* runFresh(FileTools.Write, { path: "a.txt", content: "new" }, env)
      expect(success(en.exit)).toBe("wrote 3 characters to a.txt")
      expect(en.after).toEqual({ ...env, "a.txt": "new" })
      const es = yield* runFresh(
        FileTools.Escribir,
        { ruta: "lista.txt", contenido: "pan, leche, patatas, tomates" },
        StartFiles.spanish
      )
      expect(success(es.exit)).toBe("escritos 28 caracteres en lista.txt")
      expect(es.after).toEqual({ ...StartFiles.spanish, "lista.txt": "pan, leche, patatas, tomates" })
    })
  )

  it.effect("creates a missing file; empty content is 0 characters", () =>
    Effect.gen(function* () {
      const en = yield* runFresh(FileTools.Write, { path: "new/x.txt", content: "" }, {})
      expect(success(en.exit)).toBe("wrote 0 characters to new/x.txt")
      expect(en.after).toEqual({ "new/x.txt": "" })
      const es = yield* runFresh(FileTools.Escribir, { ruta: "ñ.txt", contenido: "año" }, {})
      expect(success(es.exit)).toBe("escritos 3 caracteres en ñ.txt")
      expect(es.after).toEqual({ "ñ.txt": "año" })
    })
  )

  it.effect("is idempotent: writing twice leaves what writing once leaves", () =>
    Effect.gen(function* () {
      const once = yield* runFresh(FileTools.Escribir, { ruta: "lista.txt", contenido: "x" }, StartFiles.spanish)
      const twice = startFilesCopy()
      const first = yield* twice.run(FileTools.Escribir, { ruta: "lista.txt", contenido: "x" })
      const second = yield* twice.run(FileTools.Escribir, { ruta: "lista.txt", contenido: "x" })
      expect(success(first.exit)).toBe(success(second.exit))
      expect(second.after).toEqual(once.after)
    })
  )
})

describe("append / añadir", () => {
  it.effect("adds to the end and reports the characters appended", () =>
    Effect.gen(function* () {
      const en = yield* runFresh(FileTools.Append, { path: "list.txt", content: ", tomatoes" }, StartFiles.english)
      expect(success(en.exit)).toBe("appended 10 characters to list.txt")
      expect(en.after).toEqual({ ...StartFiles.english, "list.txt": "bread, milk, eggs, tomatoes" })
      const es = yield* runFresh(FileTools.Anadir, { ruta: "lista.txt", contenido: ", tomates" }, StartFiles.spanish)
      expect(success(es.exit)).toBe("añadidos 9 caracteres a lista.txt")
      expect(es.after).toEqual({ ...StartFiles.spanish, "lista.txt": "pan, leche, huevos, tomates" })
    })
  )

  it.effect("creates a missing file", () =>
    Effect.gen(function* () {
      const en = yield* runFresh(FileTools.Append, { path: "x.txt", content: "ab" }, {})
      expect(success(en.exit)).toBe("appended 2 characters to x.txt")
      expect(en.after).toEqual({ "x.txt": "ab" })
    })
  )

  it.effect("is not idempotent: appending twice adds the content twice", () =>
    Effect.gen(function* () {
      const twice = startFilesCopy()
      const first = yield* twice.run(FileTools.Anadir, { ruta: "lista.txt", contenido: ", tomates" })
      const second = yield* twice.run(FileTools.Anadir, { ruta: "lista.txt", contenido: ", tomates" })
      expect(success(first.exit)).toBe("añadidos 9 caracteres a lista.txt")
      expect(success(second.exit)).toBe("añadidos 9 caracteres a lista.txt")
      expect(first.after["lista.txt"]).toBe("pan, leche, huevos, tomates")
      expect(second.after["lista.txt"]).toBe("pan, leche, huevos, tomates, tomates")
    })
  )
})

describe("annotations", () => {
  const readOnly = { readOnly: true, destructive: false, idempotent: true, openWorld: false }
  const replaces = { readOnly: false, destructive: true, idempotent: true, openWorld: false }
  const appends = { readOnly: false, destructive: false, idempotent: false, openWorld: false }
  const cases: ReadonlyArray<readonly [Tool.Any, Tool.Annotations]> = [
    [FileTools.Read, readOnly],
    [FileTools.List, readOnly],
    [FileTools.Search, readOnly],
    [FileTools.Write, replaces],
    [FileTools.Append, appends],
    [FileTools.Leer, readOnly],
    [FileTools.Listar, readOnly],
    [FileTools.Buscar, readOnly],
    [FileTools.Escribir, replaces],
    [FileTools.Anadir, appends]
  ]
  for (const [tool, expected] of cases) {
    it(`${tool.name}`, () => {
      expect(tool.annotations).toEqual(expected)
      expect(Tool.isIdempotent(tool)).toBe(expected.idempotent)
    })
  }
})

describe("toolsets", () => {
  const shape = (toolset: Toolset.Toolset<Tool.Any>) =>
    toolset.tools.map((tool) => [tool.name, tool.parameters.ast.propertySignatures.map((ps) => ps.name)])

  it("English: names and fields", () => {
    expect(shape(FileTools.english)).toEqual([
      ["read", ["path"]],
      ["list", ["folder"]],
      ["search", ["pattern"]],
      ["write", ["path", "content"]],
      ["append", ["path", "content"]]
    ])
    expect(FileTools.forLocale("en")).toBe(FileTools.english)
  })

  it("Spanish: names and fields", () => {
    expect(shape(FileTools.spanish)).toEqual([
      ["leer", ["ruta"]],
      ["listar", ["carpeta"]],
      ["buscar", ["patron"]],
      ["escribir", ["ruta", "contenido"]],
      ["añadir", ["ruta", "contenido"]]
    ])
    expect(FileTools.forLocale("es")).toBe(FileTools.spanish)
    expect(Toolset.get(FileTools.spanish, "añadir")).toBe(FileTools.Anadir)
  })

  it("every tool has a description", () => {
    for (const tool of [...FileTools.english.tools, ...FileTools.spanish.tools]) {
      expect(tool.description.length).toBeGreaterThan(0)
    }
  })

  it("seed 000, turn 1: leer with a list 'rutas' is missing 'ruta'", () => {
    const decoded = Toolset.decode(FileTools.spanish, { id: "t1", name: "leer", input: { rutas: ["a"] } })
    if (Result.isSuccess(decoded)) throw new Error("expected a violation")
    expect(decoded.failure).toEqual({ _tag: "MissingField", field: "ruta" })
    expect(MessageCatalog.notExecuted(MessageCatalog.spanish, decoded.failure)).toBe(
      "no se ha ejecutado: falta el campo 'ruta'"
    )
  })

  it("every field is a required string", () => {
    const wrong = Toolset.decode(FileTools.english, { id: "t", name: "write", input: { path: "a", content: 1 } })
    if (Result.isSuccess(wrong)) throw new Error("expected a violation")
    expect(MessageCatalog.notExecuted(MessageCatalog.english, wrong.failure)).toBe(
      "not executed: field 'content' must be a string"
    )
    const missing = Toolset.decode(FileTools.spanish, { id: "t", name: "añadir", input: { ruta: "a" } })
    if (Result.isSuccess(missing)) throw new Error("expected a violation")
    expect(MessageCatalog.notExecuted(MessageCatalog.spanish, missing.failure)).toBe(
      "no se ha ejecutado: falta el campo 'contenido'"
    )
  })

  it.effect("a decoded call runs against the environment", () =>
    Effect.gen(function* () {
      const decoded = Toolset.decode(FileTools.spanish, { id: "t3", name: "leer", input: { ruta: "lista.txt" } })
      if (Result.isFailure(decoded)) throw new Error("expected a decoded call")
      expect(decoded.success.name).toBe("leer")
      expect(decoded.success.tool).toBe(FileTools.Leer)
      const { exit } = yield* runFresh(FileTools.Leer, { ruta: "lista.txt" }, StartFiles.spanish)
      expect(success(exit)).toBe("pan, leche, huevos")
    })
  )
})

describe("the tools' types", () => {
  type Text = Schema.String
  type Refused = FileTools.InvalidField | FilePath.PathRefused

  it("name each tool, its input fields and its failures exactly (checked by the typecheck)", () => {
    expectTypeOf(FileTools.Read).toEqualTypeOf<
      Tool.Tool<"read", Schema.Struct<{ readonly path: Text }>, string, FileTools.Failure, Files.Files>
    >()
    expectTypeOf(FileTools.Listar).toEqualTypeOf<
      Tool.Tool<"listar", Schema.Struct<{ readonly carpeta: Text }>, string, Refused, Files.Files>
    >()
    expectTypeOf(FileTools.Buscar).toEqualTypeOf<
      Tool.Tool<"buscar", Schema.Struct<{ readonly patron: Text }>, string, FileTools.InvalidField, Files.Files>
    >()
    expectTypeOf(FileTools.Write).toEqualTypeOf<
      Tool.Tool<"write", Schema.Struct<{ readonly path: Text; readonly content: Text }>, string, Refused, Files.Files>
    >()
    expectTypeOf(FileTools.Anadir).toEqualTypeOf<
      Tool.Tool<
        "añadir",
        Schema.Struct<{ readonly ruta: Text; readonly contenido: Text }>,
        string,
        Refused,
        Files.Files
      >
    >()
    expect(FileTools.spanish.tools.map((tool) => tool.name)).toEqual(["leer", "listar", "buscar", "escribir", "añadir"])
  })
})

describe("StartFiles", () => {
  it("holds the conversation's starting files per locale, and SeedFiles is its old name", () => {
    expect(StartFiles.forLocale("es")).toBe(StartFiles.spanish)
    expect(StartFiles.forLocale("en")).toBe(StartFiles.english)
    expect(Object.keys(StartFiles.spanish)).toContain("lista.txt")
    expect(SeedFiles.spanish).toBe(StartFiles.spanish)
    expect(SeedFiles.forLocale).toBe(StartFiles.forLocale)
  })
})

// One environment shared by several calls, to compare once with twice.
const startFilesCopy = () => {
  const files = Files.makeFiles(StartFiles.spanish)
  return {
    run: <I, A, E>(
      tool: { readonly run: (input: I, context: Tool.CallContext) => Tool.RunResult<A, E, Files.Files> },
      input: I
    ) => runOn(tool, input, files)
  }
}
