/**
 * The SQLite journal's file: a file that is not SQLite, a truncated journal, a database with
 * foreign tables, rows that do not decode — each refused with an error naming the file and what
 * is wrong, the file left byte for byte as it was; and a good journal reopened keeps every entry.
 */
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Journal, SqliteStore } from "../src/index.ts"

const temp = mkdtempSync(join(tmpdir(), "idempotency-sqlite-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))
let count = 0
const fresh = (name: string): string => {
  count += 1
  return join(temp, `${count}-${name}`)
}

const done = (content: string): Journal.Observation => ({ original: "Succeeded", is_error: false, content })

/** Writes a journal through the store and closes it. */
const writeJournal = (file: string, calls: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const store = yield* SqliteStore.make(file)
      for (let i = 1; i <= calls; i++) {
        const input = { ruta: "lista.txt", contenido: `, cosa número ${i} ${"x".repeat(200)}` }
        yield* store.start(`t${i}`, "añadir", input)
        yield* store.finish(`t${i}`, "añadir", input, done(`añadidos ${i} caracteres a lista.txt`))
      }
    })
  )

/** Opening the file fails with a JournalError naming it; the file is not changed. */
const refused = (file: string) =>
  Effect.gen(function* () {
    const before = readFileSync(file)
    const error = yield* Effect.flip(Effect.scoped(SqliteStore.make(file)))
    assert.instanceOf(error, Journal.JournalError)
    assert.strictEqual(error._tag, "JournalError")
    assert.strictEqual(error.file, file)
    assert.isTrue(error.message.startsWith(`${file}: `), error.message)
    assert.isTrue(readFileSync(file).equals(before), "the file was changed")
    return error
  })

describe("SqliteStore: bad files are refused, clearly, and left as they were", () => {
  it.effect("a file that is not SQLite (random bytes)", () =>
    Effect.gen(function* () {
      const file = fresh("random.sqlite")
      writeFileSync(file, randomBytes(8192))
      const error = yield* refused(file)
      assert.strictEqual(
        error.message,
        `${file}: not a SQLite database, so not a journal (SQLite: file is not a database); it was not changed`
      )
    })
  )

  it.effect("a text file", () =>
    Effect.gen(function* () {
      const file = fresh("notes.txt")
      writeFileSync(file, "pan, leche, huevos\n".repeat(100))
      const error = yield* refused(file)
      assert.strictEqual(
        error.problem,
        "not a SQLite database, so not a journal (SQLite: file is not a database); it was not changed"
      )
    })
  )

  it.effect("a truncated journal (cut to half its size)", () =>
    Effect.gen(function* () {
      const file = fresh("truncated.sqlite")
      yield* writeJournal(file, 200)
      assert.isFalse(existsSync(`${file}-wal`), "closing checkpoints the WAL into the file")
      const size = statSync(file).size
      truncateSync(file, Math.floor(size / 2))
      const error = yield* refused(file)
      assert.strictEqual(
        error.message,
        `${file}: the journal is corrupt or truncated (SQLite: database disk image is malformed); it was not changed`
      )
    })
  )

  it.effect("a SQLite database with foreign tables", () =>
    Effect.gen(function* () {
      const file = fresh("recetas.sqlite")
      const db = new DatabaseSync(file)
      db.exec("CREATE TABLE recetas (nombre TEXT, ingredientes TEXT); CREATE TABLE compras (cosa TEXT)")
      db.prepare("INSERT INTO recetas VALUES (?, ?)").run("gazpacho", "tomates, pepino")
      db.close()
      const error = yield* refused(file)
      assert.strictEqual(
        error.message,
        `${file}: not an agent-harness journal (it has the tables recetas, compras); it was not changed`
      )
    })
  )

  it.effect("a journal of another format", () =>
    Effect.gen(function* () {
      const file = fresh("format.sqlite")
      yield* writeJournal(file, 1)
      const db = new DatabaseSync(file)
      db.prepare("UPDATE journal_format SET format = ?").run("agent-harness-journal/9")
      db.close()
      const error = yield* refused(file)
      assert.strictEqual(
        error.problem,
        `journal format "agent-harness-journal/9", expected ${SqliteStore.format}; it was not changed`
      )
    })
  )

  /** A good journal with one bad row written with node:sqlite directly. */
  const withRow = (name: string, sql: string, ...values: ReadonlyArray<string | null>) =>
    Effect.gen(function* () {
      const file = fresh(name)
      yield* writeJournal(file, 3)
      const db = new DatabaseSync(file)
      db.prepare(sql).run(...values)
      db.close()
      return file
    })

  it.effect("a row whose input is not JSON", () =>
    Effect.gen(function* () {
      const file = yield* withRow(
        "input.sqlite",
        "INSERT INTO calls (id, tool, input, state) VALUES (?, ?, ?, 'started')",
        "t4",
        "añadir",
        '{"ruta": "lista.txt", '
      )
      const error = yield* refused(file)
      assert.match(error.problem, /^call 't4': its input is not JSON \(.+\); it was not changed$/)
    })
  )

  it.effect("a row whose observation is not JSON", () =>
    Effect.gen(function* () {
      const file = yield* withRow(
        "observation.sqlite",
        "INSERT INTO calls (id, tool, input, state, observation) VALUES (?, ?, ?, 'done', ?)",
        "t4",
        "añadir",
        '{"ruta":"lista.txt","contenido":", tomates"}',
        '{"original": "Succeeded", "is_error": fal'
      )
      const error = yield* refused(file)
      assert.match(error.problem, /^call 't4': its observation is not JSON \(.+\); it was not changed$/)
    })
  )

  it.effect("a row whose observation is JSON but not an observation", () =>
    Effect.gen(function* () {
      const file = yield* withRow(
        "shape.sqlite",
        "UPDATE calls SET observation = ? WHERE id = ?",
        '{"original":"Maybe","is_error":false,"content":"ok"}',
        "t2"
      )
      const error = yield* refused(file)
      assert.match(error.problem, /^call 't2': its observation is not valid \(.+\); it was not changed$/s)
    })
  )

  it.effect("a row marked done with no observation", () =>
    Effect.gen(function* () {
      const file = yield* withRow("nothing.sqlite", "UPDATE calls SET observation = NULL WHERE id = ?", "t3")
      const error = yield* refused(file)
      assert.strictEqual(error.problem, "call 't3': done, but no observation is recorded; it was not changed")
    })
  )

  it.effect("a journal in a folder that does not exist cannot be opened", () =>
    Effect.gen(function* () {
      const file = join(temp, "no-such-folder", "journal.sqlite")
      const error = yield* Effect.flip(Effect.scoped(SqliteStore.make(file)))
      assert.strictEqual(error.file, file)
      assert.match(error.message, /: cannot be opened: /)
      assert.isFalse(existsSync(file))
    })
  )
})

describe("SqliteStore: a good journal", () => {
  it.effect("reopened, keeps every entry, in insertion order", () =>
    Effect.gen(function* () {
      const file = fresh("good.sqlite")
      yield* Effect.scoped(
        Effect.gen(function* () {
          const store = yield* SqliteStore.make(file)
          assert.strictEqual(store.location, file)
          yield* store.start("c", "añadir", { ruta: "lista.txt", contenido: ", tomates" })
          yield* store.finish("a", "leer", { ruta: "lista.txt" }, done("pan, leche, huevos"))
          yield* store.start("b", "escribir", { ruta: "nota.txt", contenido: "somos cuatro" })
          yield* store.finish("c", "añadir", { ruta: "lista.txt", contenido: ", tomates" }, done("añadidos 9"))
          yield* store.finish("d", "leer", { ruta: "x" }, { original: "Failed", is_error: true, content: "no existe" })
        })
      )
      const entries = yield* Effect.scoped(Effect.flatMap(SqliteStore.make(file), (store) => store.entries))
      assert.deepStrictEqual(entries, [
        {
          id: "c",
          tool: "añadir",
          input: { ruta: "lista.txt", contenido: ", tomates" },
          state: "done",
          observation: done("añadidos 9")
        },
        { id: "a", tool: "leer", input: { ruta: "lista.txt" }, state: "done", observation: done("pan, leche, huevos") },
        { id: "b", tool: "escribir", input: { ruta: "nota.txt", contenido: "somos cuatro" }, state: "started" },
        {
          id: "d",
          tool: "leer",
          input: { ruta: "x" },
          state: "done",
          observation: { original: "Failed", is_error: true, content: "no existe" }
        }
      ])
    })
  )

  it.effect("200 calls written, closed and reopened: all 200, in order", () =>
    Effect.gen(function* () {
      const file = fresh("many.sqlite")
      yield* writeJournal(file, 200)
      const before = readFileSync(file)
      const entries = yield* Effect.scoped(Effect.flatMap(SqliteStore.make(file), (store) => store.entries))
      assert.deepStrictEqual(
        entries.map((e) => e.id),
        Array.from({ length: 200 }, (_, i) => `t${i + 1}`)
      )
      assert.isTrue(entries.every((e) => e.state === "done"))
      assert.isTrue(readFileSync(file).equals(before), "reading a journal does not change it")
    })
  )

  it.effect("it is a WAL database with synchronous = FULL while open", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const file = fresh("pragmas.sqlite")
        const store = yield* SqliteStore.make(file)
        yield* store.start("t1", "añadir", { ruta: "lista.txt", contenido: "x" })
        // The "started" mark is in the WAL (or the file) before start returns: a second
        // connection, as another process would, sees it at once.
        const db = new DatabaseSync(file, { readOnly: true })
        const row = db.prepare("SELECT id, state FROM calls").get()
        const mode = db.prepare("PRAGMA journal_mode").get()
        db.close()
        assert.deepStrictEqual({ ...row }, { id: "t1", state: "started" })
        assert.deepStrictEqual({ ...mode }, { journal_mode: "wal" })
      })
    )
  )
})
