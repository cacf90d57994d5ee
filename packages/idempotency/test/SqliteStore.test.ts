/**
 * The SQLite journal's file: a file that is not SQLite, a truncated journal, a database with
 * foreign tables (alone or beside the journal's), rows that do not decode — each refused with an
 * error naming the file and what is wrong, the file left byte for byte as it was; what would not
 * be durable (`""`, `:memory:`, `/dev/null`) refused before anything is opened; a good journal
 * reopened keeps every entry; a lock held elsewhere is waited for, and a result that cannot be
 * written is answered loudly; and several processes sharing one file at once.
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { Execute, Outcome } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
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

  it.effect("a journal with a foreign table beside its own", () =>
    Effect.gen(function* () {
      const file = fresh("beside.sqlite")
      yield* writeJournal(file, 2)
      const db = new DatabaseSync(file)
      db.exec("CREATE TABLE recetas (nombre TEXT)")
      db.close()
      const error = yield* refused(file)
      assert.strictEqual(
        error.problem,
        "not only an agent-harness journal (it also has the table recetas); it was not changed"
      )
    })
  )

  it.effect("a journal with someone's trigger or index on its calls", () =>
    Effect.gen(function* () {
      const file = fresh("trigger.sqlite")
      yield* writeJournal(file, 2)
      const db = new DatabaseSync(file)
      db.exec(`CREATE INDEX by_tool ON calls (tool);
        CREATE TRIGGER forget AFTER INSERT ON calls BEGIN DELETE FROM calls WHERE id = NEW.id; END`)
      db.close()
      const error = yield* refused(file)
      assert.strictEqual(
        error.problem,
        "not only an agent-harness journal (it also has the index by_tool, the trigger forget); it was not changed"
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

  /** A good journal with one more done row, written as every journal so far holds it (a `tool` column). */
  const withDoneRow = (name: string, id: string, tool: string, input: string, observation: string) =>
    withRow(
      name,
      "INSERT INTO calls (id, tool, input, state, observation) VALUES (?, ?, ?, 'done', ?)",
      id,
      tool,
      input,
      observation
    )

  it.effect("a row as every journal so far holds it (the tool column) reads with the tool's name as name", () =>
    Effect.gen(function* () {
      const old = { id: "t9", tool: "leer", input: { ruta: "lista.txt" }, observation: done("pan") }
      const { id, tool, input, observation } = old
      const file = yield* withDoneRow("old.sqlite", id, tool, JSON.stringify(input), JSON.stringify(observation))
      const entry = yield* Effect.scoped(Effect.flatMap(SqliteStore.make(file), (store) => store.get(id)))
      assert.deepStrictEqual(entry, { id, name: tool, input, state: "done", observation })
    })
  )

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
      const file = yield* withDoneRow(
        "observation.sqlite",
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

describe("SqliteStore: what would not be durable is refused before anything is opened", () => {
  const notOpened = (file: string) => Effect.flip(Effect.scoped(SqliteStore.make(file)))

  it.effect("'' and ':memory:' are not files: refused, and the error says to use MemoryStore", () =>
    Effect.gen(function* () {
      const empty = yield* notOpened("")
      assert.strictEqual(
        empty.message,
        ": an empty path is a temporary SQLite database, deleted when it is closed: a journal needs a file (use MemoryStore for one in memory); nothing was opened"
      )
      const memory = yield* notOpened(":memory:")
      assert.strictEqual(
        memory.problem,
        "':memory:' is a SQLite database in memory, lost when the process ends: a journal needs a file (use MemoryStore for one in memory); nothing was opened"
      )
    })
  )

  it.effect("a URI SQLite opens in memory: refused before anything is written, no file made", () =>
    Effect.gen(function* () {
      const path = fresh("uri.sqlite")
      for (const uri of ["file::memory:", `file:${path}?mode=memory`]) {
        const error = yield* notOpened(uri)
        assert.strictEqual(error.file, uri)
        assert.strictEqual(
          error.problem,
          "SQLite opened it in memory (a URI with mode=memory, or ':memory:'), lost when the process ends: a journal needs a file; it was not changed"
        )
      }
      assert.isFalse(existsSync(path))
    })
  )

  it.effect("/dev/null (directly or through a link) and a folder: refused, and no file is left beside them", () =>
    Effect.gen(function* () {
      const siblings = ["/dev/null-journal", "/dev/null-wal", "/dev/null-shm"]
      const before = siblings.filter((f) => existsSync(f))
      const link = fresh("null-link.sqlite")
      symlinkSync("/dev/null", link)
      const folder = fresh("folder.sqlite")
      mkdirSync(folder)
      try {
        for (const file of ["/dev/null", link]) {
          const error = yield* notOpened(file)
          assert.strictEqual(
            error.message,
            `${file}: a character device, not a file: a journal needs a regular file; nothing was opened`
          )
        }
        const error = yield* notOpened(folder)
        assert.strictEqual(error.problem, "a folder, not a file: a journal needs a regular file; nothing was opened")
        assert.deepStrictEqual(readdirSync(folder), [])
        assert.deepStrictEqual(
          siblings.filter((f) => existsSync(f)),
          before,
          "opening /dev/null left a file beside it"
        )
        for (const suffix of ["-journal", "-wal", "-shm"]) assert.isFalse(existsSync(`${link}${suffix}`))
      } finally {
        // Only what this test would have left (it fails above if it did).
        for (const f of siblings) if (!before.includes(f)) rmSync(f, { force: true })
      }
    })
  )

  it.effect("a busy timeout that is not a finite duration of at least 0", () =>
    Effect.gen(function* () {
      const file = fresh("timeout.sqlite")
      const error = yield* Effect.flip(Effect.scoped(SqliteStore.make(file, { busyTimeout: -5 })))
      assert.strictEqual(
        error.message,
        `${file}: the busy timeout must be a finite duration of at least 0 (at most about 24 days), got "-5"`
      )
      const infinite = yield* Effect.flip(Effect.scoped(SqliteStore.make(file, { busyTimeout: "Infinity" })))
      assert.match(infinite.problem, /got "Infinity"$/)
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
          name: "añadir",
          input: { ruta: "lista.txt", contenido: ", tomates" },
          state: "done",
          observation: done("añadidos 9")
        },
        { id: "a", name: "leer", input: { ruta: "lista.txt" }, state: "done", observation: done("pan, leche, huevos") },
        { id: "b", name: "escribir", input: { ruta: "nota.txt", contenido: "somos cuatro" }, state: "started" },
        {
          id: "d",
          name: "leer",
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

describe("SqliteStore: shared with other connections and processes", () => {
  /** A non-idempotent tool that notes its runs; `during` runs inside it. */
  const charging = (during: () => void = () => {}) => {
    const ran: Array<string> = []
    const charge = Tool.make("charge", {
      description: "Charges a card: not idempotent.",
      parameters: Schema.Struct({ amount: Schema.Finite }),
      run: ({ amount }, { id }) => {
        during()
        ran.push(id)
        return `charged ${amount}`
      }
    })
    return { toolset: Toolset.make(charge), ran }
  }

  it.effect("a lock held elsewhere: each write waits the busy timeout, is tried again, then the call is refused", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const file = fresh("locked.sqlite")
        const store = yield* SqliteStore.make(file, { busyTimeout: "100 millis" })
        const { toolset, ran } = charging()
        const other = new DatabaseSync(file)
        other.exec("BEGIN IMMEDIATE")
        const started = performance.now()
        const outcome = yield* Execute.execute(toolset, { id: "c1", name: "charge", input: { amount: 10 } }).pipe(
          Effect.provide(Journal.layer(store))
        )
        const waited = performance.now() - started
        other.exec("COMMIT")
        other.close()
        assert.deepStrictEqual(outcome, {
          _tag: "Refused",
          id: "c1",
          name: "charge",
          reason: `the journal cannot record the call (${file}: write: database is locked)`,
          content: `not executed: the journal cannot record the call (${file}: write: database is locked)`
        })
        // Three tries, each waiting out the busy timeout (a lower bound: the wait cannot be shorter).
        assert.isAtLeast(waited, 250)
        assert.deepStrictEqual(ran, [])
        const again = yield* Execute.execute(toolset, { id: "c1", name: "charge", input: { amount: 10 } }).pipe(
          Effect.provide(Journal.layer(store))
        )
        assert.strictEqual(again._tag, "Succeeded")
        assert.deepStrictEqual(ran, ["c1"])
      })
    )
  )

  it.effect("a result the store cannot write (locked while the tool ran): NotRecorded, then outcome unknown", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const file = fresh("locked-finish.sqlite")
        const store = yield* SqliteStore.make(file, { busyTimeout: "50 millis" })
        const other = new DatabaseSync(file)
        const { toolset, ran } = charging(() => other.exec("BEGIN IMMEDIATE"))
        const call = { id: "c1", name: "charge", input: { amount: 10 } }
        const outcome = yield* Execute.execute(toolset, call).pipe(Effect.provide(Journal.layer(store)))
        other.exec("COMMIT")
        other.close()
        assert.deepStrictEqual(ran, ["c1"])
        assert.strictEqual(outcome._tag, "Failed")
        assert.isTrue(Outcome.isError(outcome))
        const failure = outcome._tag === "Failed" && outcome.failure._tag === "Defect" ? outcome.failure.defect : null
        assert.instanceOf(failure, Journal.NotRecorded)
        assert.strictEqual(
          outcome.content,
          `charged 10 (not recorded: the journal could not record this result (${file}: write: database is locked); the call ran, so do not repeat it blindly: after a restart it is reported as outcome unknown and not run again)`
        )
        const later = yield* Execute.execute(toolset, call).pipe(Effect.provide(Journal.layer(store)))
        assert.deepStrictEqual(later._tag === "Failed" ? later.failure : null, { _tag: "OutcomeUnknown" })
        assert.deepStrictEqual(ran, ["c1"])
      })
    )
  )

  /** What a worker process (`fixtures/JournalWorker.ts`) reports. */
  interface Report {
    readonly name: string
    readonly ran: ReadonlyArray<string>
    readonly outcomes: ReadonlyArray<{ readonly id: string; readonly tag: string; readonly content: string }>
    readonly error: string | null
  }

  const worker = join(import.meta.dirname, "fixtures", "JournalWorker.ts")

  /** Starts the workers, waits until each is loaded, lets them all go at once, collects their reports. */
  const runWorkers = async (file: string, names: ReadonlyArray<string>, calls: number) => {
    const children = names.map((name) => {
      const child = spawn(
        process.execPath,
        ["--disable-warning=ExperimentalWarning", worker, file, name, String(calls)],
        { stdio: ["pipe", "pipe", "pipe"] }
      )
      let stdout = ""
      let stderr = ""
      // A worker that hangs is killed (and reported by its exit) long before the test's own timeout.
      const guard = setTimeout(() => child.kill("SIGKILL"), 150_000)
      child.on("exit", () => clearTimeout(guard))
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      const ready = new Promise<void>((resolve, reject) => {
        const check = () => (stdout.startsWith("ready\n") ? resolve() : undefined)
        child.stdout.on("data", check)
        child.on("exit", (code) => reject(new Error(`worker ${name} exited (${code}) before it was ready: ${stderr}`)))
      })
      const exited = new Promise<Report>((resolve, reject) =>
        child.on("exit", (code) => {
          const last = stdout.trim().split("\n").at(-1) ?? ""
          if (code !== 0 || last === "ready") reject(new Error(`worker ${name} exited ${code}: ${stderr}`))
          else resolve(JSON.parse(last) as Report)
        })
      )
      return { child, ready, exited }
    })
    try {
      await Promise.all(children.map((c) => c.ready))
      for (const c of children) c.child.stdin.end("go\n")
      return await Promise.all(children.map((c) => c.exited))
    } finally {
      for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL")
    }
  }

  it("six processes open one new journal file at once and write together: no 'database is locked', no id run twice", async () => {
    const file = fresh("shared.sqlite")
    const names = ["p1", "p2", "p3", "p4", "p5", "p6"]
    const calls = 30
    const reports = await runWorkers(file, names, calls)
    for (const report of reports) assert.strictEqual(report.error, null, `${report.name}: ${report.error}`)
    const outcomes = reports.flatMap((r) => r.outcomes)
    assert.deepStrictEqual(
      outcomes.filter((o) => /locked|busy/i.test(o.content)),
      [],
      "calls refused because the database was locked"
    )
    // Each process's own calls all ran, once.
    for (const report of reports) {
      const own = report.outcomes.filter((o) => o.id.startsWith(`${report.name}-`))
      assert.strictEqual(own.length, calls)
      assert.isTrue(
        own.every((o) => o.tag === "Succeeded"),
        JSON.stringify(own.find((o) => o.tag !== "Succeeded"))
      )
    }
    // No id ran twice, anywhere; each shared id ran exactly once, in one of the processes, and
    // the others were told it is taken (refused, replayed or outcome unknown), never locked.
    const ran = reports.flatMap((r) => r.ran)
    assert.strictEqual(new Set(ran).size, ran.length, "an id ran twice")
    for (let i = 0; i < calls; i++) {
      const id = `shared-${i}`
      assert.strictEqual(ran.filter((r) => r === id).length, 1, id)
      const tags = outcomes.filter((o) => o.id === id).map((o) => o.tag)
      assert.strictEqual(tags.filter((t) => t === "Succeeded").length, 1, `${id}: ${tags.join(", ")}`)
      assert.isTrue(
        tags.every((t) => ["Succeeded", "Replayed", "Refused", "Failed"].includes(t)),
        tags.join(", ")
      )
    }
    // The journal: one format row, and every call done.
    const db = new DatabaseSync(file, { readOnly: true })
    const formats = db.prepare("SELECT count(*) AS n FROM journal_format").get()?.n
    const states = db.prepare("SELECT state, count(*) AS n FROM calls GROUP BY state").all()
    db.close()
    assert.strictEqual(formats, 1)
    assert.deepStrictEqual(
      states.map((r) => ({ ...r })),
      [{ state: "done", n: names.length * calls + calls }]
    )
  }, 240_000)
})
