/**
 * The once-vs-twice check of seed 000's second cell (`una_y_dos`): every shipped file tool is
 * what it declares, append leaves ", tomates" twice, and a mis-annotated tool fails the check.
 */
import { Files, FileTools, StartFiles } from "@agent-harness/file-tools"
import { Tool } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Ref, Schema } from "effect"
import { OnceTwice } from "../src/index.ts"

/** A fresh copy of a file environment each time: the seed's `dict(ENTORNO)`. */
const files = (
  initial: Readonly<Record<string, string>>
): OnceTwice.Environment<Record<string, string>, Files.Files> => ({
  fresh: Effect.map(Files.make(initial), (shape) => ({
    context: Context.make(Files.Files, shape),
    state: shape.snapshot
  }))
})

const lista = StartFiles.spanish["lista.txt"] ?? ""
const list = StartFiles.english["list.txt"] ?? ""

/** The seed's PRUEBAS, and their English twins. */
const spanishCases = [
  [FileTools.Leer, { ruta: "lista.txt" }],
  [FileTools.Listar, { carpeta: "recetas/" }],
  [FileTools.Buscar, { patron: "patatas" }],
  [FileTools.Escribir, { ruta: "lista.txt", contenido: "pan, leche, patatas, tomates" }],
  [FileTools.Anadir, { ruta: "lista.txt", contenido: ", tomates" }]
] as const

const englishCases = [
  [FileTools.Read, { path: "list.txt" }],
  [FileTools.List, { folder: "recipes/" }],
  [FileTools.Search, { pattern: "potatoes" }],
  [FileTools.Write, { path: "list.txt", content: "bread, milk, potatoes, tomatoes" }],
  [FileTools.Append, { path: "list.txt", content: ", tomatoes" }]
] as const

describe("OnceTwice.verify: every shipped file tool is what it declares", () => {
  it.effect("Spanish, the seed's inputs: the four of the block are idempotent, añadir is not", () =>
    Effect.gen(function* () {
      const env = files(StartFiles.spanish)
      const reports = []
      for (const [tool, input] of spanishCases) reports.push(yield* OnceTwice.verify(tool, input, env))
      assert.deepStrictEqual(
        reports.map((r) => [r.tool, r.declared, r.idempotent, r.twice["lista.txt"]]),
        [
          ["leer", true, true, "pan, leche, huevos"],
          ["listar", true, true, "pan, leche, huevos"],
          ["buscar", true, true, "pan, leche, huevos"],
          ["escribir", true, true, "pan, leche, patatas, tomates"],
          ["añadir", false, false, "pan, leche, huevos, tomates, tomates"]
        ]
      )
      for (const r of reports) {
        assert.deepStrictEqual(
          r.outcomes.map((o) => o._tag),
          ["Succeeded", "Succeeded", "Succeeded"]
        )
      }
    })
  )

  it.effect("English: the same table", () =>
    Effect.gen(function* () {
      const env = files(StartFiles.english)
      const reports = []
      for (const [tool, input] of englishCases) reports.push(yield* OnceTwice.verify(tool, input, env))
      assert.deepStrictEqual(
        reports.map((r) => [r.tool, r.declared, r.idempotent]),
        [
          ["read", true, true],
          ["list", true, true],
          ["search", true, true],
          ["write", true, true],
          ["append", false, false]
        ]
      )
      assert.deepStrictEqual(reports[4]?.differences, [
        { key: "list.txt", once: `${list}, tomatoes`, twice: `${list}, tomatoes, tomatoes` }
      ])
    })
  )

  it.effect("añadir: not idempotent, with the one file that differs, once and twice", () =>
    Effect.gen(function* () {
      const report = yield* OnceTwice.check(
        FileTools.Anadir,
        { ruta: "lista.txt", contenido: ", tomates" },
        files(StartFiles.spanish)
      )
      assert.strictEqual(report.idempotent, false)
      assert.strictEqual(report.declared, false)
      assert.strictEqual(lista, "pan, leche, huevos")
      assert.deepStrictEqual(report.differences, [
        { key: "lista.txt", once: `${lista}, tomates`, twice: `${lista}, tomates, tomates` }
      ])
      assert.deepStrictEqual(report.once, { ...StartFiles.spanish, "lista.txt": "pan, leche, huevos, tomates" })
      assert.deepStrictEqual(report.twice, {
        ...StartFiles.spanish,
        "lista.txt": "pan, leche, huevos, tomates, tomates"
      })
      assert.deepStrictEqual(
        report.outcomes.map((o) => o.content),
        ["añadidos 9 caracteres a lista.txt", "añadidos 9 caracteres a lista.txt", "añadidos 9 caracteres a lista.txt"]
      )
    })
  )

  it.effect("a tool declared not idempotent passes verify either way (declaring less is safe)", () =>
    Effect.gen(function* () {
      const env = files(StartFiles.spanish)
      const empty = yield* OnceTwice.verify(FileTools.Anadir, { ruta: "lista.txt", contenido: "" }, env)
      assert.deepStrictEqual([empty.declared, empty.idempotent, empty.differences], [false, true, []])
      const twice = yield* OnceTwice.verify(FileTools.Anadir, { ruta: "lista.txt", contenido: ", tomates" }, env)
      assert.deepStrictEqual([twice.declared, twice.idempotent], [false, false])
    })
  )

  it.effect("a failing call is compared like any other (leer of a missing file changes nothing)", () =>
    Effect.gen(function* () {
      const report = yield* OnceTwice.verify(
        FileTools.Leer,
        { ruta: "recetas/salmorejo.txt" },
        files(StartFiles.spanish)
      )
      assert.strictEqual(report.idempotent, true)
      assert.deepStrictEqual(
        report.outcomes.map((o) => [o._tag, o.content]),
        [
          ["Failed", "no existe el fichero 'recetas/salmorejo.txt'"],
          ["Failed", "no existe el fichero 'recetas/salmorejo.txt'"],
          ["Failed", "no existe el fichero 'recetas/salmorejo.txt'"]
        ]
      )
    })
  )
})

describe("OnceTwice.verify: a mis-annotated tool fails", () => {
  /** The seed's añadir, declared idempotent by mistake. */
  const misannotated = Tool.make("añadir", {
    description: FileTools.Anadir.description,
    parameters: FileTools.Anadir.parameters,
    annotations: { ...FileTools.Anadir.annotations, idempotent: true },
    run: (input, context) => FileTools.Anadir.run(input, context)
  })

  it.effect("NotIdempotent, with the differing file and an exact message", () =>
    Effect.gen(function* () {
      const input = { ruta: "lista.txt", contenido: ", tomates" }
      const error = yield* Effect.flip(OnceTwice.verify(misannotated, input, files(StartFiles.spanish)))
      assert.instanceOf(error, OnceTwice.NotIdempotent)
      assert.strictEqual(error._tag, "NotIdempotent")
      assert.strictEqual(error.tool, "añadir")
      assert.deepStrictEqual(error.input, input)
      assert.deepStrictEqual(error.differences, [
        { key: "lista.txt", once: "pan, leche, huevos, tomates", twice: "pan, leche, huevos, tomates, tomates" }
      ])
      assert.strictEqual(
        error.message,
        `tool 'añadir' is declared idempotent, but running it twice with {"ruta":"lista.txt","contenido":", tomates"} leaves a different state than running it once: 'lista.txt' is "pan, leche, huevos, tomates" once and "pan, leche, huevos, tomates, tomates" twice`
      )
    })
  )

  it.effect("check still reports (no failure): declared true, observed false", () =>
    Effect.gen(function* () {
      const report = yield* OnceTwice.check(
        misannotated,
        { ruta: "lista.txt", contenido: ", tomates" },
        files(StartFiles.spanish)
      )
      assert.deepStrictEqual([report.declared, report.idempotent], [true, false])
    })
  )

  it.effect("a file one copy has and the other lacks is named 'absent'", () =>
    Effect.gen(function* () {
      // Creates a new file per run: once leaves nota-1.txt, twice also nota-2.txt.
      const numbered = Tool.make("numerar", {
        description: "",
        parameters: Schema.Struct({}),
        annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
        run: () =>
          Files.Files.use((f) =>
            Effect.flatMap(f.list, (paths) =>
              f.write(`nota-${paths.filter((p) => p.startsWith("nota-")).length + 1}.txt`, "x")
            )
          )
      })
      const error = yield* Effect.flip(OnceTwice.verify(numbered, {}, files({})))
      assert.deepStrictEqual(error.differences, [{ key: "nota-2.txt", once: undefined, twice: "x" }])
      assert.strictEqual(
        error.message,
        `tool 'numerar' is declared idempotent, but running it twice with {} leaves a different state than running it once: 'nota-2.txt' is absent once and "x" twice`
      )
    })
  )
})

describe("OnceTwice with a state that is not a record", () => {
  class Counter extends Context.Service<Counter, Ref.Ref<number>>()("test/Counter") {}

  const counter: OnceTwice.Environment<number, Counter> = {
    fresh: Effect.map(Ref.make(0), (ref) => ({ context: Context.make(Counter, ref), state: Ref.get(ref) }))
  }

  const increment = Tool.make("increment", {
    description: "Adds one to the counter.",
    parameters: Schema.Struct({}),
    annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
    run: () => Counter.use((ref) => Ref.updateAndGet(ref, (n) => n + 1))
  })

  const reset = Tool.make("reset", {
    description: "Sets the counter to zero.",
    parameters: Schema.Struct({}),
    annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
    run: () => Counter.use((ref) => Ref.set(ref, 0))
  })

  it.effect("a counter: increment declared idempotent fails on the state, reset passes", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(OnceTwice.verify(increment, {}, counter))
      assert.deepStrictEqual(error.differences, [{ key: "(state)", once: 1, twice: 2 }])
      assert.strictEqual(
        error.message,
        "tool 'increment' is declared idempotent, but running it twice with {} leaves a different state than running it once: the state is 1 once and 2 twice"
      )
      const report = yield* OnceTwice.verify(reset, {}, counter)
      assert.deepStrictEqual([report.idempotent, report.once, report.twice, report.differences], [true, 0, 0, []])
    })
  )

  it("differences: records key by key (sorted, order-blind), anything else as one state", () => {
    assert.deepStrictEqual(OnceTwice.differences({ b: 1, a: [1, 2] }, { a: [1, 2], b: 1 }), [])
    assert.deepStrictEqual(OnceTwice.differences({ b: 1, a: 1 }, { b: 2, a: 2, c: 3 }), [
      { key: "a", once: 1, twice: 2 },
      { key: "b", once: 1, twice: 2 },
      { key: "c", once: undefined, twice: 3 }
    ])
    assert.deepStrictEqual(OnceTwice.differences([1], [1, 1]), [{ key: "(state)", once: [1], twice: [1, 1] }])
    assert.deepStrictEqual(OnceTwice.differences("a", "a"), [])
  })
})
