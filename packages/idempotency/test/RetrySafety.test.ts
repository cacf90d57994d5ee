/**
 * Retry safety (seed 000's last section): the seed's table for the five file tools in both
 * locales, the verdict for every outcome kind, and the opt-in retry notes.
 */
import { Execute, type Outcome } from "@agent-harness/executor"
import { Files, FileTools, StartFiles } from "@agent-harness/file-tools"
import { MessageCatalog, type Tool, type Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { RetrySafety } from "../src/index.ts"

const safe = (reason: "did_not_run" | "idempotent"): RetrySafety.RetrySafety => ({ _tag: "Safe", reason })
const unsafe = (reason: "may_have_partly_run" | "ran" | "outcome_unknown"): RetrySafety.RetrySafety => ({
  _tag: "Unsafe",
  reason
})

describe("RetrySafety.table: the seed's table", () => {
  const expected = (names: ReadonlyArray<string>): ReadonlyArray<RetrySafety.Row> =>
    names.map((tool, i) =>
      i < 4
        ? { tool, idempotent: true, afterSchemaError: safe("did_not_run"), afterExecutionError: safe("idempotent") }
        : {
            tool,
            idempotent: false,
            afterSchemaError: safe("did_not_run"),
            afterExecutionError: unsafe("may_have_partly_run")
          }
    )

  it("Spanish: leer, listar, buscar, escribir safe after both errors; añadir unsafe after an execution error only", () => {
    assert.deepStrictEqual(
      RetrySafety.table(FileTools.spanish.tools),
      expected(["leer", "listar", "buscar", "escribir", "añadir"])
    )
  })

  it("English: read, list, search, write safe after both errors; append unsafe after an execution error only", () => {
    assert.deepStrictEqual(
      RetrySafety.table(FileTools.english.tools),
      expected(["read", "list", "search", "write", "append"])
    )
  })

  it("isSafe reads the verdict", () => {
    const rows = RetrySafety.table(FileTools.spanish.tools)
    assert.deepStrictEqual(
      rows.map((r) => [r.tool, RetrySafety.isSafe(r.afterSchemaError), RetrySafety.isSafe(r.afterExecutionError)]),
      [
        ["leer", true, true],
        ["listar", true, true],
        ["buscar", true, true],
        ["escribir", true, true],
        ["añadir", true, false]
      ]
    )
  })
})

describe("RetrySafety.of: every outcome kind", () => {
  const appends = FileTools.Anadir.annotations
  const replaces = FileTools.Escribir.annotations
  const readOnlyOnly: Tool.Annotations = { readOnly: true, destructive: false, idempotent: false, openWorld: false }
  const base = { id: "t1", name: "añadir", content: "x" }
  const failed = (failure: Outcome.Failure): Outcome.Outcome => ({ _tag: "Failed", ...base, failure })
  const replayed = (original: "NotExecuted" | "Refused" | "Failed" | "Succeeded"): Outcome.Outcome => ({
    _tag: "Replayed",
    ...base,
    original,
    isError: original !== "Succeeded"
  })
  const cases: ReadonlyArray<
    readonly [string, Outcome.Outcome, RetrySafety.RetrySafety, RetrySafety.RetrySafety, RetrySafety.RetrySafety]
  > = [
    // [label, outcome, non-idempotent tool, idempotent tool, no such tool]
    [
      "NotExecuted",
      { _tag: "NotExecuted", ...base, violation: { _tag: "MissingField", field: "ruta" } },
      safe("did_not_run"),
      safe("did_not_run"),
      safe("did_not_run")
    ],
    [
      "NotExecuted (unknown tool)",
      { _tag: "NotExecuted", ...base, violation: { _tag: "UnknownTool", name: "borrar" } },
      safe("did_not_run"),
      safe("did_not_run"),
      safe("did_not_run")
    ],
    [
      "Refused",
      { _tag: "Refused", ...base, reason: "permission denied" },
      safe("did_not_run"),
      safe("did_not_run"),
      safe("did_not_run")
    ],
    [
      "Failed/ToolError",
      failed({ _tag: "ToolError", error: "no" }),
      unsafe("may_have_partly_run"),
      safe("idempotent"),
      unsafe("may_have_partly_run")
    ],
    [
      "Failed/Defect",
      failed({ _tag: "Defect", defect: new Error("boom") }),
      unsafe("may_have_partly_run"),
      safe("idempotent"),
      unsafe("may_have_partly_run")
    ],
    [
      "Failed/TimedOut",
      failed({ _tag: "TimedOut", millis: 100 }),
      unsafe("may_have_partly_run"),
      safe("idempotent"),
      unsafe("may_have_partly_run")
    ],
    [
      "Failed/Interrupted",
      failed({ _tag: "Interrupted" }),
      unsafe("may_have_partly_run"),
      safe("idempotent"),
      unsafe("may_have_partly_run")
    ],
    [
      "Failed/StatusError",
      failed({ _tag: "StatusError", errorCode: "TIMEOUT", message: "upstream" }),
      unsafe("may_have_partly_run"),
      safe("idempotent"),
      unsafe("may_have_partly_run")
    ],
    [
      "Failed/OutcomeUnknown",
      failed({ _tag: "OutcomeUnknown" }),
      unsafe("outcome_unknown"),
      safe("idempotent"),
      unsafe("outcome_unknown")
    ],
    ["Succeeded", { _tag: "Succeeded", ...base, value: "ok" }, unsafe("ran"), safe("idempotent"), unsafe("ran")],
    ["Replayed NotExecuted", replayed("NotExecuted"), safe("did_not_run"), safe("did_not_run"), safe("did_not_run")],
    ["Replayed Refused", replayed("Refused"), safe("did_not_run"), safe("did_not_run"), safe("did_not_run")],
    [
      "Replayed Failed",
      replayed("Failed"),
      unsafe("may_have_partly_run"),
      safe("idempotent"),
      unsafe("may_have_partly_run")
    ],
    ["Replayed Succeeded", replayed("Succeeded"), unsafe("ran"), safe("idempotent"), unsafe("ran")]
  ]

  for (const [label, outcome, nonIdempotent, idempotent, noTool] of cases) {
    it(`${label}: ${nonIdempotent._tag}/${nonIdempotent.reason} for añadir, ${idempotent._tag}/${idempotent.reason} for escribir`, () => {
      assert.deepStrictEqual(RetrySafety.of(appends, outcome), nonIdempotent)
      assert.deepStrictEqual(RetrySafety.of(replaces, outcome), idempotent)
      assert.deepStrictEqual(RetrySafety.of(readOnlyOnly, outcome), idempotent, "read-only counts as idempotent")
      assert.deepStrictEqual(RetrySafety.of(undefined, outcome), noTool)
      assert.deepStrictEqual(RetrySafety.ofTool(FileTools.Anadir, outcome), nonIdempotent)
      assert.deepStrictEqual(RetrySafety.ofTool(FileTools.Leer, outcome), idempotent)
      assert.deepStrictEqual(RetrySafety.ofTool(undefined, outcome), noTool)
    })
  }
})

describe("RetrySafety.note and annotate: the catalogue's texts", () => {
  const all: ReadonlyArray<RetrySafety.RetrySafety> = [
    safe("did_not_run"),
    safe("idempotent"),
    unsafe("may_have_partly_run"),
    unsafe("ran"),
    unsafe("outcome_unknown")
  ]

  it("English and Spanish notes, word for word", () => {
    assert.deepStrictEqual(
      all.map((s) => RetrySafety.note(MessageCatalog.english, s)),
      [
        "(nothing ran: safe to repeat)",
        "(idempotent: safe to repeat)",
        "(may have partly run: do not repeat blindly)",
        "(it ran: repeating it does it again)",
        "(outcome unknown: do not repeat blindly)"
      ]
    )
    assert.deepStrictEqual(
      all.map((s) => RetrySafety.note(MessageCatalog.spanish, s)),
      [
        "(no se ha ejecutado nada: se puede repetir)",
        "(idempotente: se puede repetir)",
        "(puede haberse ejecutado en parte: no repetir sin mirar)",
        "(se ha ejecutado: repetirla lo vuelve a hacer)",
        "(resultado desconocido: no repetir sin mirar)"
      ]
    )
  })

  it("annotate appends the note to errors only, NotExecuted and Refused included", () => {
    const notExecuted: Outcome.Outcome = {
      _tag: "NotExecuted",
      id: "t1",
      name: "leer",
      violation: { _tag: "MissingField", field: "ruta" },
      content: "no se ha ejecutado: falta el campo 'ruta'"
    }
    assert.strictEqual(
      RetrySafety.annotate(MessageCatalog.spanish, FileTools.Leer, notExecuted).content,
      "no se ha ejecutado: falta el campo 'ruta' (no se ha ejecutado nada: se puede repetir)"
    )
    const unknown: Outcome.Outcome = {
      _tag: "Failed",
      id: "t2",
      name: "añadir",
      failure: { _tag: "OutcomeUnknown" },
      content: MessageCatalog.english.outcomeUnknown
    }
    assert.strictEqual(
      RetrySafety.annotate(MessageCatalog.english, FileTools.Anadir, unknown).content,
      `${MessageCatalog.english.outcomeUnknown} (outcome unknown: do not repeat blindly)`
    )
    const succeeded: Outcome.Outcome = { _tag: "Succeeded", id: "t3", name: "añadir", value: "v", content: "v" }
    assert.strictEqual(RetrySafety.annotate(MessageCatalog.english, FileTools.Anadir, succeeded), succeeded)
  })
})

describe("RetrySafety.notes: the opt-in middleware", () => {
  /** A file environment whose appends die half-way (after nothing, here): an execution error. */
  const brokenDisk = (initial: Readonly<Record<string, string>>): Files.FilesShape => {
    const files = Files.makeFiles(initial)
    return { ...files, append: () => Effect.die(new Error("disco lleno")) }
  }

  const run = (
    toolset: Toolset.Toolset<FileTools.FileTool>,
    call: Toolset.RawCall,
    options: {
      readonly files: Files.FilesShape
      readonly catalog: MessageCatalog.MessageCatalog
      readonly notes: boolean
    }
  ) => {
    const executed = Execute.execute(toolset, call).pipe(
      Effect.provideService(Files.Files, options.files),
      Effect.provideService(MessageCatalog.MessageCatalog, options.catalog)
    )
    return options.notes ? Effect.provideService(executed, Execute.Middleware, RetrySafety.notes) : executed
  }

  const spanish = FileTools.spanish
  const english = FileTools.english

  it.effect("Spanish: the note is appended to execution errors, with the catalogue's text", () =>
    Effect.gen(function* () {
      const options = { files: brokenDisk(StartFiles.spanish), catalog: MessageCatalog.spanish, notes: true }
      const missing = yield* run(spanish, { id: "t2", name: "leer", input: { ruta: "recetas/salmorejo.txt" } }, options)
      assert.strictEqual(missing._tag, "Failed")
      assert.strictEqual(
        missing.content,
        "no existe el fichero 'recetas/salmorejo.txt' (idempotente: se puede repetir)"
      )
      const append = yield* run(
        spanish,
        { id: "t5", name: "añadir", input: { ruta: "lista.txt", contenido: ", tomates" } },
        options
      )
      assert.strictEqual(append._tag, "Failed")
      assert.strictEqual(append.content, "disco lleno (puede haberse ejecutado en parte: no repetir sin mirar)")
    })
  )

  it.effect("English: the same, in English", () =>
    Effect.gen(function* () {
      const options = { files: brokenDisk(StartFiles.english), catalog: MessageCatalog.english, notes: true }
      const missing = yield* run(english, { id: "t2", name: "read", input: { path: "recipes/salmorejo.txt" } }, options)
      assert.strictEqual(missing.content, "file 'recipes/salmorejo.txt' does not exist (idempotent: safe to repeat)")
      const append = yield* run(
        english,
        { id: "t5", name: "append", input: { path: "list.txt", content: ", tomatoes" } },
        options
      )
      assert.strictEqual(append.content, "disco lleno (may have partly run: do not repeat blindly)")
    })
  )

  it.effect("successes are untouched, and schema errors never reach a middleware", () =>
    Effect.gen(function* () {
      const options = { files: Files.makeFiles(StartFiles.spanish), catalog: MessageCatalog.spanish, notes: true }
      const read = yield* run(spanish, { id: "t3", name: "leer", input: { ruta: "lista.txt" } }, options)
      assert.strictEqual(read._tag, "Succeeded")
      assert.strictEqual(read.content, "pan, leche, huevos")
      const added = yield* run(
        spanish,
        { id: "t4", name: "añadir", input: { ruta: "lista.txt", contenido: ", tomates" } },
        options
      )
      assert.strictEqual(added.content, "añadidos 9 caracteres a lista.txt")
      const schema = yield* run(
        spanish,
        { id: "t1", name: "leer", input: { rutas: ["recetas/salmorejo.txt", "lista.txt"] } },
        options
      )
      assert.strictEqual(schema._tag, "NotExecuted")
      assert.strictEqual(schema.content, "no se ha ejecutado: falta el campo 'ruta'")
    })
  )

  it.effect("off unless provided: the seed's exact texts", () =>
    Effect.gen(function* () {
      const options = { files: brokenDisk(StartFiles.spanish), catalog: MessageCatalog.spanish, notes: false }
      const schema = yield* run(
        spanish,
        { id: "t1", name: "leer", input: { rutas: ["recetas/salmorejo.txt", "lista.txt"] } },
        options
      )
      assert.strictEqual(schema.content, "no se ha ejecutado: falta el campo 'ruta'")
      const missing = yield* run(spanish, { id: "t2", name: "leer", input: { ruta: "recetas/salmorejo.txt" } }, options)
      assert.strictEqual(missing.content, "no existe el fichero 'recetas/salmorejo.txt'")
      const read = yield* run(spanish, { id: "t3", name: "leer", input: { ruta: "lista.txt" } }, options)
      assert.strictEqual(read.content, "pan, leche, huevos")
      const append = yield* run(
        spanish,
        { id: "t5", name: "añadir", input: { ruta: "lista.txt", contenido: ", tomates" } },
        options
      )
      assert.strictEqual(append.content, "disco lleno")
    })
  )
})
