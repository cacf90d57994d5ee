/**
 * `harness demo idempotency`: the errors-as-observations idea's last section for a person. First the idea's second cell
 * (`una_y_dos`): each of the five Spanish file tools run once on one copy of the idea's files and
 * twice on another — añadir leaves ", tomates" twice — and the retry-safety table. Then a crash
 * and a resume over a real SQLite journal in a temporary folder: a conversation runs until the
 * process "dies" right after an append wrote its text and before its outcome was recorded; the
 * same conversation resumed on the same journal replays the calls that finished, reports the
 * interrupted one as outcome unknown (the model reads the catalogue's text), and runs the rest.
 * No call runs twice, and lista.txt ends with every item once.
 *
 * @since 0.1.0
 */
import { join } from "node:path"
import { Loop, Message, Model, type Outcome } from "@agent-harness/executor"
import { Files, FileTools, StartFiles } from "@agent-harness/file-tools"
import { Journal, OnceTwice, RetrySafety, SqliteStore } from "@agent-harness/idempotency"
import type { Report } from "@agent-harness/scenario"
import { Script, ScriptedModel } from "@agent-harness/scripted-model"
import { MessageCatalog } from "@agent-harness/tool-schema"
import { Console, Context, Deferred, Effect, FileSystem } from "effect"
import * as ExitCode from "../common/ExitCode.ts"
import * as Style from "../printing/Style.ts"

/** Pads every column but the last to its widest cell. */
const table = (rows: ReadonlyArray<ReadonlyArray<string>>, indent = "  "): ReadonlyArray<string> => {
  const widths = rows.reduce<Array<number>>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), [])
  return rows.map((row) =>
    (indent + row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ")).trimEnd()
  )
}

const py = (b: boolean): string => (b ? "True" : "False")

// ---------------------------------------------------------------------------------------------
// 1. Once or twice, and retry safety.

/** The idea's PRUEBAS: the five tools and their inputs. */
const pruebas = [
  [FileTools.Leer, { ruta: "lista.txt" }],
  [FileTools.Listar, { carpeta: "recetas/" }],
  [FileTools.Buscar, { patron: "patatas" }],
  [FileTools.Escribir, { ruta: "lista.txt", contenido: "pan, leche, patatas, tomates" }],
  [FileTools.Anadir, { ruta: "lista.txt", contenido: ", tomates" }]
] as const

/** A fresh copy of the idea's files for each run: its `dict(ENTORNO)`. */
const startFiles: OnceTwice.Environment<Record<string, string>, Files.Files> = {
  fresh: Effect.map(Files.make(StartFiles.spanish), (shape) => ({
    context: Context.make(Files.Files, shape),
    state: shape.snapshot
  }))
}

/**
 * The once-vs-twice table, in the idea's format plus the declared annotation, and whether every
 * tool is what it declares.
 *
 * @since 0.1.0
 */
export const onceTwice = (
  style: Report.Style
): Effect.Effect<{ readonly lines: ReadonlyArray<string>; readonly ok: boolean }> =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    let ok = true
    for (const [tool, input] of pruebas) {
      const report = yield* OnceTwice.check(tool, input, startFiles)
      const observed = py(report.idempotent).padEnd(5)
      lines.push(
        `${report.tool.padEnd(9)} declarada: ${py(report.declared).padEnd(5)} idempotente: ${report.idempotent ? style.pass(observed) : style.fail(observed)} lista.txt tras dos: ${report.twice["lista.txt"] ?? ""}`
      )
      if (report.declared && !report.idempotent) {
        ok = false
        lines.push(
          style.fail(new OnceTwice.NotIdempotent({ tool: report.tool, input, differences: report.differences }).message)
        )
      }
    }
    return { lines, ok }
  })

const verdict = (safety: RetrySafety.RetrySafety, style: Report.Style): string =>
  safety._tag === "Safe" ? style.pass(`safe: ${safety.reason}`) : style.fail(`UNSAFE: ${safety.reason}`)

/**
 * The retry-safety table of the five Spanish tools: may the model repeat a call after each kind
 * of error?
 *
 * @since 0.1.0
 */
export const retryTable = (style: Report.Style): ReadonlyArray<string> =>
  table([
    ["tool", "idempotent", "after a schema error", "after an error while running"],
    ...RetrySafety.table(FileTools.spanish.tools).map((row) => [
      row.tool,
      row.idempotent ? "yes" : "no",
      verdict(row.afterSchemaError, style),
      verdict(row.afterExecutionError, style)
    ])
  ])

// ---------------------------------------------------------------------------------------------
// 2. Crash and resume.

const opening: ReadonlyArray<Message.Message> = [
  Message.system("Trabajas con los ficheros del usuario mediante tus herramientas."),
  Message.user("Añade a lista.txt lo que falta para el gazpacho y apúntalo en nota.txt.")
]

const nota =
  "Cena del viernes: somos cuatro. Gazpacho de primero y tortilla de segundo. Lo del gazpacho está en lista.txt."

const texts = FileTools.spanishTexts
const appended = (content: string) => texts.appended(content.length, "lista.txt")

/** The conversation, with what the model must be shown before each next reply. */
const script: Script.Script = {
  messages: opening,
  turns: [
    {
      reply: [
        Message.text("Leo la receta y la lista."),
        Message.toolUse("t1", "leer", { ruta: "recetas/gazpacho.txt" }),
        Message.toolUse("t2", "leer", { ruta: "lista.txt" })
      ],
      expect: [
        Script.expected("t1", false, StartFiles.spanish["recetas/gazpacho.txt"] ?? ""),
        Script.expected("t2", false, "pan, leche, huevos")
      ]
    },
    {
      reply: [Message.toolUse("t3", "añadir", { ruta: "lista.txt", contenido: ", tomates, pepino" })],
      expect: [Script.expected("t3", false, appended(", tomates, pepino"))]
    },
    {
      reply: [Message.toolUse("t4", "añadir", { ruta: "lista.txt", contenido: ", pimiento, ajo" })],
      expect: [Script.expected("t4", true, MessageCatalog.spanish.outcomeUnknown)]
    },
    {
      reply: [
        Message.text("No sé si t4 llegó a escribirse: miro la lista antes de repetirlo."),
        Message.toolUse("t5", "leer", { ruta: "lista.txt" })
      ],
      expect: [Script.expected("t5", false, "pan, leche, huevos, tomates, pepino, pimiento, ajo")]
    },
    {
      reply: [
        Message.text("t4 sí se escribió: no lo repito."),
        Message.toolUse("t6", "añadir", { ruta: "lista.txt", contenido: ", aceite, vinagre, sal" }),
        Message.toolUse("t7", "escribir", { ruta: "nota.txt", contenido: nota })
      ],
      expect: [
        Script.expected("t6", false, appended(", aceite, vinagre, sal")),
        Script.expected("t7", false, texts.wrote(nota.length, "nota.txt"))
      ]
    },
    {
      reply: [
        Message.text(
          "He añadido a lista.txt lo que faltaba para el gazpacho (tomates, pepino, pimiento, ajo, aceite, vinagre y sal) y lo he apuntado en nota.txt."
        )
      ]
    }
  ]
}

/** The list the conversation must leave: every gazpacho item once. */
const expectedList = "pan, leche, huevos, tomates, pepino, pimiento, ajo, aceite, vinagre, sal"

/** The side effects a run did to the files, in order, as `añadir lista.txt ", tomates"`. */
type Witness = Array<string>

/**
 * The files of the walkthrough, as a disk: they outlive the process. Each run sees them through
 * a wrapper that writes down every change, and run 1 through one that dies (never returns, and
 * signals `died`) right after the append number `dieAfter` has changed the file.
 */
const observed = (
  disk: Files.FilesShape,
  witness: Witness,
  crash?: { readonly dieAfter: number; readonly died: Deferred.Deferred<void> }
): Files.FilesShape => ({
  ...disk,
  write: (path, content) =>
    Effect.andThen(
      disk.write(path, content),
      Effect.sync(() => void witness.push(`escribir ${path} ${JSON.stringify(content)}`))
    ),
  append: (path, content) =>
    Effect.gen(function* () {
      yield* disk.append(path, content)
      witness.push(`añadir ${path} ${JSON.stringify(content)}`)
      if (crash !== undefined && witness.filter((w) => w.startsWith("añadir ")).length === crash.dieAfter) {
        yield* Deferred.succeed(crash.died, undefined)
        return yield* Effect.never
      }
    })
})

const show = (value: unknown): string => JSON.stringify(value) ?? "undefined"

const tagOf = (outcome: Outcome.Outcome): string =>
  outcome._tag === "Replayed"
    ? `Replayed (${outcome.original})`
    : outcome._tag === "Failed"
      ? `Failed/${outcome.failure._tag}`
      : outcome._tag

/** The model of a run: the scripted model, printing each reply as it comes. */
const printingModel = (style: Report.Style): Effect.Effect<Model.Shape> =>
  Effect.map(ScriptedModel.make(script), (model) => {
    let turn = 0
    return {
      ...model,
      respond: (request) =>
        Effect.tap(model.respond(request), (response) =>
          Effect.gen(function* () {
            turn += 1
            yield* Console.log(style.dim(`— turno ${turn} —`))
            for (const block of response.content) {
              if (block.type === "reasoning") continue
              yield* Console.log(
                block.type === "text"
                  ? `modelo: ${block.text}`
                  : `modelo llama a ${block.id} ${block.name}(${show(block.input)})`
              )
            }
          })
        )
    }
  })

/** What the model is shown for each call of a turn: a mark, the call, its outcome, the text. */
const outcomeLines = (turn: Loop.Turn, style: Report.Style): ReadonlyArray<string> => {
  const rows = table(
    turn.outcomes.map((o) => [o.id, o.name, tagOf(o), o.content]),
    ""
  )
  return turn.outcomes.map((o, i) => {
    const mark =
      o._tag === "Replayed"
        ? style.dim("replay")
        : o._tag === "Succeeded"
          ? style.pass("ok".padEnd(6))
          : style.fail("error".padEnd(6))
    return `    ${mark} ${rows[i] ?? ""}`
  })
}

/** A cell cut to `width` characters. */
const clip = (text: string, width = 64): string => (text.length > width ? `${text.slice(0, width - 1)}…` : text)

/**
 * The journal's entries as a table: order, call id, tool, state, input, recorded observation.
 *
 * @since 0.1.0
 */
export const journalTable = (entries: ReadonlyArray<Journal.Entry>): ReadonlyArray<string> =>
  table([
    ["#", "id", "tool", "state", "input", "observation"],
    ...entries.map((e, i) => [
      String(i + 1),
      e.id,
      e.name,
      e.state,
      clip(show(e.input)),
      e.observation === undefined
        ? "(none recorded: outcome unknown)"
        : clip(`${e.observation.original}${e.observation.is_error ? " (error)" : ""}: ${e.observation.content}`)
    ])
  ])

/** Runs the conversation on a journal file and the disk; `crash` stops it as a `kill -9` would. */
const conversation = (
  file: string,
  disk: Files.FilesShape,
  witness: Witness,
  style: Report.Style,
  crash?: { readonly dieAfter: number; readonly died: Deferred.Deferred<void> }
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const store = yield* SqliteStore.make(file)
      const model = yield* printingModel(style)
      const outcomes: Array<Outcome.Outcome> = []
      const loop = Loop.run({
        toolset: FileTools.spanish,
        messages: opening,
        onTurn: (turn) =>
          Effect.gen(function* () {
            outcomes.push(...turn.outcomes)
            for (const line of outcomeLines(turn, style)) yield* Console.log(line)
          })
      }).pipe(
        Effect.provideService(Model.Model, model),
        Effect.provideService(Files.Files, observed(disk, witness, crash)),
        Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish),
        Effect.provide(Journal.layer(store))
      )
      if (crash === undefined) {
        const result = yield* Effect.result(loop)
        return { result, outcomes, crashed: false }
      }
      // The first to settle wins: the loop's end (it should not come) or the death of the process,
      // which interrupts the loop where it is — after the append, before the outcome is recorded.
      const raced = yield* Effect.raceFirst(
        Effect.map(Effect.result(loop), (result) => ({ result, crashed: false })),
        Effect.as(Deferred.await(crash.died), { result: undefined, crashed: true })
      )
      return { ...raced, outcomes }
    })
  )

const readEntries = (file: string) => Effect.scoped(Effect.flatMap(SqliteStore.make(file), (store) => store.entries))

/**
 * The crash-and-resume walkthrough; whether it went as it must (no call twice, the list whole).
 *
 * @since 0.1.0
 */
export const crashAndResume = (folder: string, style: Report.Style): Effect.Effect<boolean, Journal.JournalError> =>
  Effect.gen(function* () {
    const file = join(folder, "journal.sqlite")
    const disk = Files.makeFiles(StartFiles.spanish)
    const say = (line = "") => Console.log(line)
    yield* say(`journal: ${file} (SQLite via node:sqlite, WAL, synchronous = FULL)`)
    yield* say(`user: ${typeof opening[1]?.content === "string" ? opening[1].content : ""}`)
    yield* say()
    yield* say(style.dim("Run 1: the conversation, until the process dies"))
    const died = yield* Deferred.make<void>()
    const first: Witness = []
    const run1 = yield* conversation(file, disk, first, style, { dieAfter: 2, died })
    if (!run1.crashed) {
      yield* Console.error(style.fail("run 1 ended before the crash it was built for"))
      return false
    }
    const crashed = yield* disk.read("lista.txt")
    yield* say(
      style.fail(
        '    ✝ the process dies: añadir has written ", pimiento, ajo" to lista.txt, and the journal has t4 started with no outcome'
      )
    )
    yield* say(`lista.txt on disk after the crash: ${crashed._tag === "Some" ? crashed.value : "(missing)"}`)
    yield* say()
    yield* say("the journal after the crash:")
    for (const line of journalTable(yield* readEntries(file))) yield* say(line)
    yield* say()
    yield* say(style.dim("Run 2: the same conversation, resumed on the same journal"))
    const second: Witness = []
    const run2 = yield* conversation(file, disk, second, style)
    if (run2.result?._tag !== "Success") {
      const failure = run2.result?._tag === "Failure" ? run2.result.failure.message : "no result"
      yield* Console.error(style.fail(`the resumed conversation failed: ${failure}`))
      return false
    }
    yield* say(`${style.dim("stop:")} ${run2.result.success.stop}`)
    const ids = (keep: (o: Outcome.Outcome) => boolean) =>
      run2.outcomes
        .filter(keep)
        .map((o) => o.id)
        .join(", ") || "none"
    yield* say(
      `resumed: replayed ${ids((o) => o._tag === "Replayed")} (not run again) · outcome unknown ${ids(
        (o) => o._tag === "Failed" && o.failure._tag === "OutcomeUnknown"
      )} (not run again) · ran ${ids((o) => o._tag === "Succeeded")}`
    )
    yield* say()
    yield* say("the journal after the resume:")
    const entries = yield* readEntries(file)
    for (const line of journalTable(entries)) yield* say(line)
    yield* say()
    yield* say("what each run did to the files (every append and write, as it happened):")
    for (const [name, witness] of [
      ["run 1", first],
      ["run 2", second]
    ] as const) {
      for (const w of witness) yield* say(`  ${name}  ${w}`)
    }
    const finalList = (yield* disk.snapshot)["lista.txt"] ?? ""
    const items = finalList.split(", ")
    const duplicates = items.filter((item, i) => items.indexOf(item) !== i)
    const effects = [...first, ...second]
    const repeated = effects.filter((w, i) => effects.indexOf(w) !== i)
    const tags = run2.outcomes.map((o) => `${o.id} ${tagOf(o)}`)
    const expectedTags = [
      "t1 Replayed (Succeeded)",
      "t2 Replayed (Succeeded)",
      "t3 Replayed (Succeeded)",
      "t4 Failed/OutcomeUnknown",
      "t5 Succeeded",
      "t6 Succeeded",
      "t7 Succeeded"
    ]
    const ok =
      finalList === expectedList &&
      duplicates.length === 0 &&
      repeated.length === 0 &&
      show(tags) === show(expectedTags) &&
      entries.find((e) => e.id === "t4")?.state === "started"
    yield* say()
    yield* say(`lista.txt: ${finalList}`)
    yield* say(
      duplicates.length === 0 && repeated.length === 0
        ? style.pass("no item twice in lista.txt, and no call ran twice")
        : style.fail(`duplicated: ${show([...duplicates, ...repeated])}`)
    )
    if (!ok) yield* Console.error(style.fail(`unexpected outcomes of the resume: ${show(tags)}`))
    return ok
  })

/**
 * The whole demo: the tables, then the crash and the resume. Exit 1 if anything is not as the
 * idea and the journal promise.
 *
 * @since 0.1.0
 */
export const idempotency: Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> = Effect.gen(function* () {
  const style = Style.current()
  yield* Console.log(
    style.dim("1. Once or twice (una_y_dos): each call once on one copy of the files, twice on another")
  )
  const cell = yield* onceTwice(style)
  for (const line of cell.lines) yield* Console.log(line)
  yield* Console.log("añadir deja tomates dos veces en la lista: repeating it is not harmless.")
  yield* Console.log("")
  yield* Console.log(style.dim("Retry safety (RetrySafety.table): may the model repeat a call after an error?"))
  for (const line of retryTable(style)) yield* Console.log(line)
  yield* Console.log("")
  yield* Console.log(style.dim("2. Crash and resume, with the journal (Journal.layer over SqliteStore)"))
  const fs = yield* FileSystem.FileSystem
  const resumed = yield* Effect.scoped(
    Effect.flatMap(fs.makeTempDirectoryScoped({ prefix: "harness-idempotency-" }), (folder) =>
      crashAndResume(folder, style)
    )
  ).pipe(Effect.catch((error) => Effect.as(Console.error(style.fail(error.message)), false)))
  if (!cell.ok || !resumed) return yield* ExitCode.failed
})
