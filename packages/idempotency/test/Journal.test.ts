/**
 * The journal's meaning (Stripe's idempotency keys), the same over both stores: "started" before
 * a non-idempotent call runs and the outcome after; a recorded call id replays and runs nothing,
 * errors included; a call id that started and never finished is outcome unknown and is not run;
 * an idempotent one re-runs; a reused id is refused; a failing store refuses; schema failures
 * never reach it; and the loop does not change.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Execute, Loop, Message, Model, Outcome } from "@agent-harness/executor"
import { Files, FileTools, StartFiles } from "@agent-harness/file-tools"
import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Result, Schema, type Scope } from "effect"
import { Journal, MemoryStore, RetrySafety, SqliteStore } from "../src/index.ts"

const temp = mkdtempSync(join(tmpdir(), "idempotency-journal-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))
let files = 0

/**
 * A backend under test: `journal` makes a new journal and gives a way to open it, as a process
 * would (the same store again for memory, the same file again for SQLite).
 */
interface Backend {
  readonly name: string
  readonly journal: Effect.Effect<Effect.Effect<Journal.Store, Journal.JournalError, Scope.Scope>>
}

const backends: ReadonlyArray<Backend> = [
  { name: "MemoryStore", journal: Effect.map(MemoryStore.make, (store) => Effect.succeed(store)) },
  {
    name: "SqliteStore",
    journal: Effect.sync(() => {
      files += 1
      return SqliteStore.make(join(temp, `journal-${files}.sqlite`))
    })
  }
]

/** Test tools that count their runs; `cobrar` also reads the journal while it runs. */
const makeTools = (store: Journal.Store) => {
  const runs: Array<string> = []
  const seenWhileRunning: Array<Journal.Entry | undefined> = []
  const cobrar = Tool.make("cobrar", {
    description: "Charges a card: not idempotent (the default annotations).",
    parameters: Schema.Struct({ euros: Schema.Finite, concepto: Schema.optionalKey(Schema.String) }),
    run: ({ euros }, { id }) =>
      Effect.gen(function* () {
        seenWhileRunning.push(yield* Effect.orDie(store.get(id)))
        runs.push(id)
        return `cobrados ${euros} euros`
      })
  })
  const rechazar = Tool.make("rechazar", {
    description: "A charge the bank declines: not idempotent, fails while running.",
    parameters: Schema.Struct({ euros: Schema.Finite }),
    run: (_input, { id }) => Effect.suspend(() => Effect.fail(`tarjeta rechazada (${runs.push(id)})`))
  })
  const consultar = Tool.make("consultar", {
    description: "Reads the balance: read-only.",
    parameters: Schema.Struct({}),
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    run: (_input, { id }) => Effect.sync(() => `saldo tras ${runs.push(id)} ejecuciones`)
  })
  const anotar = Tool.make("anotar", {
    description: "Notes anything: not idempotent, takes any object.",
    parameters: Schema.Record(Schema.String, Schema.Unknown),
    run: (_input, { id }) => Effect.sync(() => `anotado (${runs.push(id)})`)
  })
  return { toolset: Toolset.make(cobrar, rechazar, consultar, anotar), runs, seenWhileRunning }
}

type Tools = ReturnType<typeof makeTools>["toolset"]

const exec = (toolset: Tools, store: Journal.Store, id: string, name: string, input: unknown) =>
  Execute.execute(toolset, { id, name, input }).pipe(Effect.provide(Journal.layer(store)))

for (const backend of backends) {
  describe(`Journal over ${backend.name}`, () => {
    it.effect("a non-idempotent call writes 'started' before it runs, and the outcome after", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs, seenWhileRunning } = makeTools(store)
          assert.strictEqual(yield* store.get("c1"), undefined)
          const outcome = yield* exec(toolset, store, "c1", "cobrar", { euros: 10 })
          assert.strictEqual(outcome._tag, "Succeeded")
          assert.strictEqual(outcome.content, "cobrados 10 euros")
          assert.deepStrictEqual(runs, ["c1"])
          // The tool, while running, read the journal: the mark was already there.
          assert.deepStrictEqual(seenWhileRunning, [
            { id: "c1", name: "cobrar", input: { euros: 10 }, state: "started" }
          ])
          assert.deepStrictEqual(yield* store.get("c1"), {
            id: "c1",
            name: "cobrar",
            input: { euros: 10 },
            state: "done",
            observation: { original: "Succeeded", is_error: false, content: "cobrados 10 euros" }
          })
        })
      )
    )

    it.effect("the same call id again replays the observation and runs nothing", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const open = yield* backend.journal
          const store = yield* open
          const { toolset, runs } = makeTools(store)
          const first = yield* exec(toolset, store, "c1", "cobrar", { euros: 10 })
          const second = yield* exec(toolset, store, "c1", "cobrar", { euros: 10 })
          const replayed: Outcome.Outcome = {
            _tag: "Replayed",
            id: "c1",
            name: "cobrar",
            original: "Succeeded",
            isError: false,
            content: "cobrados 10 euros"
          }
          assert.strictEqual(first._tag, "Succeeded")
          assert.deepStrictEqual(second, replayed)
          assert.deepStrictEqual(yield* exec(toolset, store, "c1", "cobrar", { euros: 10 }), replayed)
          // A restart (the store opened again) replays too.
          const again = yield* open
          assert.deepStrictEqual(yield* exec(toolset, again, "c1", "cobrar", { euros: 10 }), replayed)
          assert.deepStrictEqual(runs, ["c1"])
        })
      )
    )

    it.effect("equal inputs in another key order are the same call", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          yield* exec(toolset, store, "c1", "cobrar", { euros: 10, concepto: "pan" })
          const second = yield* exec(toolset, store, "c1", "cobrar", { concepto: "pan", euros: 10 })
          assert.strictEqual(second._tag, "Replayed")
          assert.deepStrictEqual(runs, ["c1"])
        })
      )
    )

    it.effect("an error outcome is replayed too, as an error, and the tool does not run again", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          const first = yield* exec(toolset, store, "r1", "rechazar", { euros: 10 })
          assert.strictEqual(first._tag, "Failed")
          assert.strictEqual(first.content, "tarjeta rechazada (1)")
          const second = yield* exec(toolset, store, "r1", "rechazar", { euros: 10 })
          assert.deepStrictEqual(second, {
            _tag: "Replayed",
            id: "r1",
            name: "rechazar",
            original: "Failed",
            isError: true,
            content: "tarjeta rechazada (1)"
          })
          assert.deepStrictEqual(runs, ["r1"])
        })
      )
    )

    it.effect("started and never finished (a crash): outcome unknown, with the catalogue's text, not run", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          yield* store.start("c7", "cobrar", { euros: 5 })
          const outcome = yield* exec(toolset, store, "c7", "cobrar", { euros: 5 })
          assert.deepStrictEqual(outcome, {
            _tag: "Failed",
            id: "c7",
            name: "cobrar",
            failure: { _tag: "OutcomeUnknown" },
            content: MessageCatalog.english.outcomeUnknown
          })
          assert.strictEqual(
            outcome.content,
            "outcome unknown: this call started before a crash and its result was never recorded; it may or may not have run, and it will not be run again"
          )
          const spanish = yield* exec(toolset, store, "c7", "cobrar", { euros: 5 }).pipe(
            Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
          )
          assert.strictEqual(spanish._tag, "Failed")
          assert.strictEqual(
            spanish.content,
            "resultado desconocido: esta llamada empezó antes de una caída y su resultado no llegó a guardarse; puede haberse ejecutado o no, y no se volverá a ejecutar"
          )
          assert.deepStrictEqual(runs, [])
          assert.deepStrictEqual(yield* store.get("c7"), {
            id: "c7",
            name: "cobrar",
            input: { euros: 5 },
            state: "started"
          })
        })
      )
    )

    it.effect("started and never finished, for an idempotent tool: it re-runs and is recorded", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          yield* store.start("q1", "consultar", {})
          const outcome = yield* exec(toolset, store, "q1", "consultar", {})
          assert.strictEqual(outcome._tag, "Succeeded")
          assert.strictEqual(outcome.content, "saldo tras 1 ejecuciones")
          assert.deepStrictEqual(runs, ["q1"])
          assert.strictEqual((yield* store.get("q1"))?.state, "done")
        })
      )
    )

    it.effect("an idempotent call writes no 'started' mark; its outcome is recorded and replayed", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          const starts: Array<string> = []
          const watched: Journal.Store = {
            ...store,
            start: (id, tool, input) =>
              Effect.andThen(
                Effect.sync(() => starts.push(id)),
                store.start(id, tool, input)
              )
          }
          yield* exec(toolset, watched, "q1", "consultar", {})
          yield* exec(toolset, watched, "c1", "cobrar", { euros: 1 })
          assert.deepStrictEqual(starts, ["c1"])
          const again = yield* exec(toolset, watched, "q1", "consultar", {})
          assert.strictEqual(again._tag, "Replayed")
          assert.deepStrictEqual(runs, ["q1", "c1"])
        })
      )
    )

    it.effect("an input with no canonical JSON (a cycle, NaN) is refused before it runs; comparing ends", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          const loop: Record<string, unknown> = { nota: "pan" }
          loop.self = loop
          const twin: Record<string, unknown> = { nota: "pan" }
          twin.self = twin
          // The decoded input (what runs) is a copy of the record whose `self` is the original.
          const reason = "the journal cannot record its input (a cycle (the value contains itself) at $.self.self)"
          const first = yield* exec(toolset, store, "n1", "anotar", loop)
          assert.deepStrictEqual(first, {
            _tag: "Refused",
            id: "n1",
            name: "anotar",
            reason,
            content: `not executed: ${reason}`
          })
          // The same id with an equal cyclic input: refused again, at once.
          const again = yield* exec(toolset, store, "n1", "anotar", twin)
          assert.strictEqual(again.content, `not executed: ${reason}`)
          const nan = yield* exec(toolset, store, "n2", "anotar", { cantidad: Number.NaN })
          assert.strictEqual(
            nan.content,
            "not executed: the journal cannot record its input (NaN is not a JSON number at $.cantidad)"
          )
          assert.deepStrictEqual(runs, [])
          assert.deepStrictEqual(yield* store.entries, [])
          // The store refuses such an input itself, naming the call.
          const error = yield* Effect.flip(store.start("n3", "anotar", loop))
          assert.strictEqual(
            error.message,
            `${store.location}: call 'n3': its input cannot be recorded (a cycle (the value contains itself) at $.self)`
          )
        })
      )
    )

    it.effect("an entry keeps the input as recorded: changing the caller's object later changes nothing", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          const input: Record<string, unknown> = { nota: "pan", cosas: ["a"] }
          yield* exec(toolset, store, "n1", "anotar", input)
          input.nota = "leche"
          assert.deepStrictEqual((yield* store.get("n1"))?.input, { cosas: ["a"], nota: "pan" })
          const changed = yield* exec(toolset, store, "n1", "anotar", input)
          assert.strictEqual(changed._tag, "Refused")
          assert.deepStrictEqual(runs, ["n1"])
        })
      )
    )

    it.effect("a call id reused for another input or another tool is refused, and nothing runs", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          yield* exec(toolset, store, "c1", "cobrar", { euros: 10 })
          const otherInput = yield* exec(toolset, store, "c1", "cobrar", { euros: 20 })
          const reason = `call id 'c1' was already used for another call (cobrar {"euros":10})`
          assert.deepStrictEqual(otherInput, {
            _tag: "Refused",
            id: "c1",
            name: "cobrar",
            reason,
            content: `not executed: ${reason}`
          })
          const otherTool = yield* exec(toolset, store, "c1", "consultar", {})
          assert.strictEqual(otherTool._tag, "Refused")
          assert.strictEqual(otherTool.content, `not executed: ${reason}`)
          // A started id too: refused, not "outcome unknown".
          yield* store.start("c2", "cobrar", { euros: 3 })
          const startedOther = yield* exec(toolset, store, "c2", "cobrar", { euros: 4 }).pipe(
            Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
          )
          assert.strictEqual(
            startedOther.content,
            `no se ha ejecutado: call id 'c2' was already used for another call (cobrar {"euros":3})`
          )
          assert.deepStrictEqual(runs, ["c1"])
        })
      )
    )

    it.effect("a store that cannot be read or written refuses the call, and the tool does not run", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          const broken = new Journal.JournalError({ file: "/discos/journal.sqlite", problem: "disk I/O error" })
          const unreadable: Journal.Store = { ...store, get: () => Effect.fail(broken) }
          const unwritable: Journal.Store = { ...store, start: () => Effect.fail(broken) }
          const read = yield* exec(toolset, unreadable, "c1", "cobrar", { euros: 1 })
          assert.deepStrictEqual(read, {
            _tag: "Refused",
            id: "c1",
            name: "cobrar",
            reason: "the journal cannot be read (/discos/journal.sqlite: disk I/O error)",
            content: "not executed: the journal cannot be read (/discos/journal.sqlite: disk I/O error)"
          })
          const write = yield* exec(toolset, unwritable, "c2", "cobrar", { euros: 1 })
          assert.strictEqual(write._tag, "Refused")
          assert.strictEqual(
            write.content,
            "not executed: the journal cannot record the call (/discos/journal.sqlite: disk I/O error)"
          )
          assert.deepStrictEqual(runs, [])
          assert.deepStrictEqual(yield* store.entries, [])
        })
      )
    )

    it.effect("a journal write that fails is tried again (the tool is not): a passing retry changes nothing", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          const broken = new Journal.JournalError({ file: store.location, problem: "database is locked" })
          const tries = { start: 0, finish: 0 }
          // Each write fails twice, then works.
          const flaky: Journal.Store = {
            ...store,
            start: (id, tool, input) =>
              Effect.suspend(() => (++tries.start <= 2 ? Effect.fail(broken) : store.start(id, tool, input))),
            finish: (id, tool, input, observation) =>
              Effect.suspend(() =>
                ++tries.finish <= 2 ? Effect.fail(broken) : store.finish(id, tool, input, observation)
              )
          }
          const outcome = yield* exec(toolset, flaky, "c1", "cobrar", { euros: 1 })
          assert.strictEqual(outcome._tag, "Succeeded")
          assert.deepStrictEqual(tries, { start: 3, finish: 3 })
          assert.deepStrictEqual(runs, ["c1"])
          assert.strictEqual((yield* store.get("c1"))?.state, "done")
        })
      )
    )

    it.effect("a result that cannot be recorded is answered loudly: an error saying so, typed NotRecorded", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          const broken = new Journal.JournalError({ file: store.location, problem: "disk full" })
          let finishes = 0
          const full: Journal.Store = {
            ...store,
            finish: () =>
              Effect.suspend(() => {
                finishes++
                return Effect.fail(broken)
              })
          }
          const outcome = yield* exec(toolset, full, "c1", "cobrar", { euros: 1 })
          assert.strictEqual(finishes, 1 + Journal.writeRetries)
          assert.strictEqual(outcome._tag, "Failed")
          if (outcome._tag !== "Failed") return
          assert.strictEqual(outcome.failure._tag, "Defect")
          const failure = outcome.failure._tag === "Defect" ? outcome.failure.defect : undefined
          assert.instanceOf(failure, Journal.NotRecorded)
          assert.deepStrictEqual(
            { ...(failure as Journal.NotRecorded) },
            {
              _tag: "NotRecorded",
              id: "c1",
              tool: "cobrar",
              observation: { original: "Succeeded", is_error: false, content: "cobrados 1 euros" },
              problem: `${store.location}: disk full`,
              started: true
            }
          )
          assert.strictEqual(
            outcome.content,
            `cobrados 1 euros (not recorded: the journal could not record this result (${store.location}: disk full); the call ran, so do not repeat it blindly: after a restart it is reported as outcome unknown and not run again)`
          )
          // The model reads an error.
          assert.isTrue(Outcome.isError(outcome))
          // As the note says: the call stays started, and is outcome unknown from then on.
          const later = yield* exec(toolset, store, "c1", "cobrar", { euros: 1 })
          assert.deepStrictEqual(later._tag === "Failed" ? later.failure : undefined, { _tag: "OutcomeUnknown" })
          // An idempotent call has no mark: the note says it may run again.
          const read = yield* exec(toolset, full, "q1", "consultar", {})
          assert.strictEqual(
            read.content,
            `saldo tras 2 ejecuciones (not recorded: the journal could not record this result (${store.location}: disk full); the tool is idempotent, so after a restart it may run again)`
          )
          assert.deepStrictEqual(runs, ["c1", "q1"])
        })
      )
    )

    it.effect("composed with the retry notes: the model reads why it must not repeat", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          const journal = Journal.middleware(store)
          const both: Execute.Middleware = (call, tool, run) => RetrySafety.notes(call, tool, journal(call, tool, run))
          const run = (id: string, name: string, input: unknown) =>
            Execute.execute(toolset, { id, name, input }).pipe(
              Effect.provideService(Execute.Middleware, both),
              Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
            )
          yield* store.start("c7", "cobrar", { euros: 5 })
          const unknown = yield* run("c7", "cobrar", { euros: 5 })
          assert.strictEqual(
            unknown.content,
            `${MessageCatalog.spanish.outcomeUnknown} (resultado desconocido: no repetir sin mirar)`
          )
          const declined = yield* run("r1", "rechazar", { euros: 5 })
          assert.strictEqual(
            declined.content,
            "tarjeta rechazada (1) (puede haberse ejecutado en parte: no repetir sin mirar)"
          )
          // The journal records what the model was shown without the note; the replay gets it again.
          assert.strictEqual((yield* store.get("r1"))?.observation?.content, "tarjeta rechazada (1)")
          const replayed = yield* run("r1", "rechazar", { euros: 5 })
          assert.strictEqual(replayed._tag, "Replayed")
          assert.strictEqual(replayed.content, declined.content)
          const reused = yield* run("r1", "cobrar", { euros: 5 })
          assert.strictEqual(reused._tag, "Refused")
          assert.isTrue(reused.content.endsWith(" (no se ha ejecutado nada: se puede repetir)"), reused.content)
          assert.deepStrictEqual(runs, ["r1"])
        })
      )
    )

    it.effect("two calls with one id racing past the journal's read: only one runs", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          // Neither read answers until both calls have read: both see no entry, both try to start.
          const bothRead = yield* Deferred.make<void>()
          let reads = 0
          const slow: Journal.Store = {
            ...store,
            get: (id) =>
              Effect.gen(function* () {
                const entry = yield* store.get(id)
                reads += 1
                if (reads === 2) yield* Deferred.succeed(bothRead, undefined)
                yield* Deferred.await(bothRead)
                return entry
              })
          }
          const outcomes = yield* Effect.all(
            [exec(toolset, slow, "c1", "cobrar", { euros: 10 }), exec(toolset, slow, "c1", "cobrar", { euros: 10 })],
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(
            outcomes.map((o) => o._tag),
            ["Succeeded", "Refused"]
          )
          assert.strictEqual(
            outcomes[1]?.content,
            `not executed: the journal cannot record the call (${store.location}: call 'c1' is already in the journal)`
          )
          assert.deepStrictEqual(runs, ["c1"])
        })
      )
    )

    it.effect("calls that fail their schema (or name no tool) never reach the journal", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset, runs } = makeTools(store)
          const bad = yield* exec(toolset, store, "c1", "cobrar", { euros: "diez" })
          assert.strictEqual(bad._tag, "NotExecuted")
          assert.strictEqual(bad.content, "not executed: field 'euros' must be a number")
          const unknown = yield* exec(toolset, store, "c2", "devolver", { euros: 1 })
          assert.strictEqual(unknown._tag, "NotExecuted")
          assert.deepStrictEqual(yield* store.entries, [])
          // The id stays free: the corrected call runs.
          const fixed = yield* exec(toolset, store, "c1", "cobrar", { euros: 10 })
          assert.strictEqual(fixed._tag, "Succeeded")
          assert.deepStrictEqual(runs, ["c1"])
        })
      )
    )

    it.effect("entries: every call, in the order first written", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* yield* backend.journal
          const { toolset } = makeTools(store)
          yield* store.start("z", "cobrar", { euros: 1 })
          yield* exec(toolset, store, "b", "consultar", {})
          yield* exec(toolset, store, "a", "cobrar", { euros: 2 })
          yield* store.finish("z", "cobrar", { euros: 1 }, { original: "Succeeded", is_error: false, content: "ok" })
          assert.deepStrictEqual(
            (yield* store.entries).map((e) => [e.id, e.state]),
            [
              ["z", "done"],
              ["b", "done"],
              ["a", "done"]
            ]
          )
        })
      )
    )

    it.effect("through Loop.run: the loop is unchanged, and a second run replays the observations", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const open = yield* backend.journal
          const baseline = Files.makeFiles(StartFiles.spanish)
          const without = yield* conversation(baseline)
          const environment = Files.makeFiles(StartFiles.spanish)
          const first = yield* Effect.scoped(
            Effect.flatMap(open, (store) => conversation(environment).pipe(Effect.provide(Journal.layer(store))))
          )
          assert.deepStrictEqual(first.messages, without.messages)
          assert.deepStrictEqual([first.stop, first.text], [without.stop, without.text])
          assert.deepStrictEqual(
            first.turns.flatMap((t) => t.outcomes.map((o) => o._tag)),
            ["Succeeded", "Succeeded", "Failed", "NotExecuted"]
          )
          assert.deepStrictEqual(yield* environment.snapshot, yield* baseline.snapshot)
          // The same script again on the same journal (reopened): observations replayed, nothing re-run.
          const second = yield* Effect.scoped(
            Effect.flatMap(open, (store) => conversation(environment).pipe(Effect.provide(Journal.layer(store))))
          )
          assert.deepStrictEqual(second.messages, without.messages)
          assert.deepStrictEqual(
            second.turns.flatMap((t) => t.outcomes.map((o) => o._tag)),
            ["Replayed", "Replayed", "Replayed", "NotExecuted"]
          )
          const after = yield* environment.snapshot
          assert.strictEqual(after["lista.txt"], "pan, leche, huevos, tomates")
          const journal = yield* Effect.scoped(Effect.flatMap(open, (store) => store.entries))
          assert.deepStrictEqual(
            journal.map((e) => [e.id, e.name, e.state, e.observation?.original]),
            [
              ["t1", "leer", "done", "Succeeded"],
              ["t2", "añadir", "done", "Succeeded"],
              ["t3", "leer", "done", "Failed"]
            ]
          )
        })
      )
    )
  })
}

/** A model that replies from a list, whatever it is shown. */
const scripted = (replies: ReadonlyArray<ReadonlyArray<Message.ReplyBlock>>) => {
  const queue = [...replies]
  return Model.layer(
    Model.fromReply(() =>
      Effect.suspend(() => {
        const next = queue.shift()
        return next === undefined
          ? Effect.fail({ _tag: "ScriptExhausted", message: "no reply left" })
          : Effect.succeed(next)
      })
    )
  )
}

/** Seed 000's kind of conversation: a read, an append and a failing read, a schema error, the end. */
const conversation = (environment: Files.FilesShape) =>
  Loop.run({
    toolset: FileTools.spanish,
    messages: [
      Message.system("Trabajas con los ficheros del usuario mediante tus herramientas."),
      Message.user("Añade tomates a lista.txt y mira la receta del salmorejo.")
    ]
  }).pipe(
    Effect.provide(
      scripted([
        [Message.text("Leo la lista."), Message.toolUse("t1", "leer", { ruta: "lista.txt" })],
        [
          Message.toolUse("t2", "añadir", { ruta: "lista.txt", contenido: ", tomates" }),
          Message.toolUse("t3", "leer", { ruta: "recetas/salmorejo.txt" })
        ],
        [Message.toolUse("t4", "leer", { rutas: ["recetas/salmorejo.txt"] })],
        [Message.text("He añadido tomates; no hay receta de salmorejo.")]
      ])
    ),
    Effect.provideService(Files.Files, environment),
    Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
  )

describe("Journal.entryOfRow: every store reads its rows alike", () => {
  const read = (row: unknown) => Journal.entryOfRow("the store", row)
  const problemOf = (row: unknown): string => {
    const entry = read(row)
    assert.isTrue(Result.isFailure(entry))
    return Result.isFailure(entry) ? entry.failure.message : ""
  }
  const row = { id: "c1", name: "append", input: '{"path":"a"}', state: "started", observation: null }

  it("a started row, and a done one with its observation", () => {
    assert.deepStrictEqual(
      read(row),
      Result.succeed({ id: "c1", name: "append", input: { path: "a" }, state: "started" })
    )
    const observation: Journal.Observation = { original: "Succeeded", is_error: false, content: "ok" }
    assert.deepStrictEqual(
      read({ ...row, state: "done", observation: JSON.stringify(observation) }),
      Result.succeed({ id: "c1", name: "append", input: { path: "a" }, state: "done", observation })
    )
  })

  it("a row shaped as before, its tool's name under tool, still reads, as name", () => {
    const { name, ...rest } = row
    assert.deepStrictEqual(
      read({ ...rest, tool: name }),
      Result.succeed({ id: "c1", name: "append", input: { path: "a" }, state: "started" })
    )
    assert.strictEqual(problemOf(rest), "the store: a row of the journal is not a call")
    assert.strictEqual(problemOf({ ...rest, tool: 7 }), "the store: a row of the journal is not a call")
  })

  it("what is not a call's row is refused, naming the store, the call and what is wrong", () => {
    assert.strictEqual(problemOf(null), "the store: a row of the journal is not a call")
    assert.strictEqual(problemOf({ ...row, observation: 7 }), "the store: a row of the journal is not a call")
    assert.include(problemOf({ ...row, input: "{" }), "the store: call 'c1': its input is not JSON")
    assert.strictEqual(problemOf({ ...row, state: "half" }), `the store: call 'c1': unknown state "half"`)
    assert.strictEqual(
      problemOf({ ...row, state: "done" }),
      "the store: call 'c1': done, but no observation is recorded"
    )
    assert.include(problemOf({ ...row, state: "done", observation: "nope" }), "call 'c1': its observation is not JSON")
    assert.include(problemOf({ ...row, state: "done", observation: "{}" }), "call 'c1': its observation is not valid")
  })
})
