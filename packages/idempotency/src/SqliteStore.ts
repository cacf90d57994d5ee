/**
 * The durable journal: SQLite through the runtime's built-in `node:sqlite` (Node 22, Deno 2), in
 * WAL mode with `synchronous = FULL`, so a record is on disk before `start` or `finish`
 * returns and a `kill -9` at any instant loses neither an outcome nor a "started" mark. Why
 * SQLite and not effect's file-system key-value store: a key-value file is rewritten in place
 * with no flush and no atomic rename, so a crash mid-write can truncate the record; SQLite's
 * commit is atomic and durable, and it needs no native addon to build (`node:sqlite` ships with
 * the runtime).
 *
 * A file that is not a journal, is corrupt or truncated, or holds a row that does not decode is
 * refused with an error naming the file and what is wrong; nothing is written to it, so no
 * record that was whole is lost.
 *
 * @since 0.1.0
 */
import type * as Sqlite from "node:sqlite"
import { Effect, Result, Schema, type Scope } from "effect"
import { type Entry, inputText, JournalError, Observation, type Store } from "./Journal.ts"

/** The format this store writes; a database with another (or none) is not one of ours. */
export const format = "agent-harness-journal/1"

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const decodeObservation = Schema.decodeUnknownResult(Observation)

interface Row {
  readonly seq: number
  readonly id: string
  readonly tool: string
  readonly input: string
  readonly state: string
  readonly observation: string | null
}

const isRow = (u: unknown): u is Row =>
  typeof u === "object" && u !== null && typeof (u as Row).id === "string" && typeof (u as Row).input === "string"

const toEntry = (file: string, row: Row): Result.Result<Entry, JournalError> => {
  const bad = (problem: string) => Result.fail(new JournalError({ file, problem: `call '${row.id}': ${problem}` }))
  let input: unknown
  try {
    input = JSON.parse(row.input)
  } catch (error) {
    return bad(`its input is not JSON (${messageOf(error)})`)
  }
  if (row.state !== "started" && row.state !== "done") return bad(`unknown state ${JSON.stringify(row.state)}`)
  if (row.observation === null) {
    return row.state === "done"
      ? bad("done, but no observation is recorded")
      : Result.succeed({ id: row.id, tool: row.tool, input, state: "started" })
  }
  let json: unknown
  try {
    json = JSON.parse(row.observation)
  } catch (error) {
    return bad(`its observation is not JSON (${messageOf(error)})`)
  }
  const observation = decodeObservation(json)
  if (Result.isFailure(observation)) return bad(`its observation is not valid (${observation.failure.message})`)
  return Result.succeed({ id: row.id, tool: row.tool, input, state: row.state, observation: observation.success })
}

const columns = "seq, id, tool, input, state, observation"

/** An open journal and its statements, prepared once. */
interface Opened {
  readonly db: Sqlite.DatabaseSync
  readonly get: Sqlite.StatementSync
  readonly all: Sqlite.StatementSync
  readonly start: Sqlite.StatementSync
  readonly finish: Sqlite.StatementSync
}

const decodeRow = (file: string, row: unknown): Result.Result<Entry, JournalError> =>
  isRow(row) ? toEntry(file, row) : Result.fail(new JournalError({ file, problem: "a row of calls is not a call" }))

/**
 * Opens a journal. Everything that can refuse the file (not SQLite, corrupt, foreign tables,
 * another format, a row that does not decode) is checked by reading only, before anything is
 * written, so a refused file is left exactly as it was.
 */
const open = (sqlite: typeof Sqlite, file: string): Result.Result<Opened, JournalError> => {
  const fail = (problem: string) => Result.fail(new JournalError({ file, problem }))
  let db: Sqlite.DatabaseSync
  try {
    db = new sqlite.DatabaseSync(file)
  } catch (error) {
    return fail(`cannot be opened: ${messageOf(error)}`)
  }
  const refuse = (problem: string) => {
    db.close()
    return fail(`${problem}; it was not changed`)
  }
  try {
    const check = db.prepare("PRAGMA quick_check").all()
    const problems = check.map((row) => String(Object.values(row)[0])).filter((v) => v !== "ok")
    if (problems.length > 0) return refuse(`the journal is corrupt (SQLite: ${problems.slice(0, 3).join("; ")})`)
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((r) => String(r.name))
    if (tables.length > 0 && !tables.includes("journal_format")) {
      return refuse(`not an agent-harness journal (it has the tables ${tables.join(", ")})`)
    }
    if (tables.includes("journal_format")) {
      const row = db.prepare("SELECT format FROM journal_format").get()
      if (row?.format !== format) {
        return refuse(`journal format ${JSON.stringify(row?.format ?? null)}, expected ${format}`)
      }
    }
    if (tables.includes("calls")) {
      for (const row of db.prepare(`SELECT ${columns} FROM calls ORDER BY seq`).all()) {
        const entry = decodeRow(file, row)
        if (Result.isFailure(entry)) return refuse(entry.failure.problem)
      }
    }
    db.exec("PRAGMA journal_mode = WAL")
    db.exec("PRAGMA synchronous = FULL")
    db.exec(`CREATE TABLE IF NOT EXISTS journal_format (format TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS calls (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        tool TEXT NOT NULL,
        input TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('started', 'done')),
        observation TEXT
      )`)
    if (db.prepare("SELECT count(*) AS n FROM journal_format").get()?.n === 0) {
      db.prepare("INSERT INTO journal_format (format) VALUES (?)").run(format)
    }
    return Result.succeed({
      db,
      get: db.prepare(`SELECT ${columns} FROM calls WHERE id = ?`),
      all: db.prepare(`SELECT ${columns} FROM calls ORDER BY seq`),
      start: db.prepare("INSERT INTO calls (id, tool, input, state) VALUES (?, ?, ?, 'started')"),
      finish: db.prepare(
        `INSERT INTO calls (id, tool, input, state, observation) VALUES (?, ?, ?, 'done', ?)
       ON CONFLICT (id) DO UPDATE SET state = 'done', observation = excluded.observation`
      )
    })
  } catch (error) {
    try {
      db.close()
    } catch {
      // Already unusable: the error below says why.
    }
    return fail(`${unusable(messageOf(error))}; it was not changed`)
  }
}

/** What SQLite's refusal of a file means for a journal. */
const unusable = (message: string): string => {
  if (/not a database/.test(message)) return `not a SQLite database, so not a journal (SQLite: ${message})`
  if (/malformed|corrupt/.test(message)) return `the journal is corrupt or truncated (SQLite: ${message})`
  return `cannot be used as a journal: ${message}`
}

/**
 * Opens (or creates) a journal file for the scope's lifetime. `node:sqlite` is loaded here, on
 * first use, so importing this module (or a CLI that links it) prints no `ExperimentalWarning`.
 *
 * @since 0.1.0
 */
export const make = (file: string): Effect.Effect<Store, JournalError, Scope.Scope> =>
  Effect.gen(function* () {
    const sqlite = yield* Effect.tryPromise({
      try: () => import("node:sqlite"),
      catch: (error) =>
        new JournalError({ file, problem: `cannot be opened: node:sqlite is not available (${messageOf(error)})` })
    })
    const opened = open(sqlite, file)
    if (Result.isFailure(opened)) return yield* opened.failure
    const { db, get, all, start, finish } = opened.success
    yield* Effect.addFinalizer(() => Effect.sync(() => db.close()))
    const attempt = <A>(what: string, f: () => A): Effect.Effect<A, JournalError> =>
      Effect.try({ try: f, catch: (error) => new JournalError({ file, problem: `${what}: ${messageOf(error)}` }) })
    const decode = (row: unknown): Effect.Effect<Entry, JournalError> => Effect.fromResult(decodeRow(file, row))
    return {
      location: file,
      get: (id) =>
        Effect.flatMap(
          attempt("read", () => get.get(id)),
          (row) => (row === undefined ? Effect.undefined : decode(row))
        ),
      start: (id, tool, input) =>
        Effect.flatMap(Effect.fromResult(inputText(file, id, input)), (text) =>
          Effect.asVoid(
            Effect.try({
              try: () => start.run(id, tool, text),
              catch: (error) =>
                new JournalError({
                  file,
                  problem: /UNIQUE constraint failed/.test(messageOf(error))
                    ? `call '${id}' is already in the journal`
                    : `write: ${messageOf(error)}`
                })
            })
          )
        ),
      finish: (id, tool, input, observation) =>
        Effect.flatMap(Effect.fromResult(inputText(file, id, input)), (text) =>
          Effect.asVoid(attempt("write", () => finish.run(id, tool, text, JSON.stringify(observation))))
        ),
      entries: Effect.flatMap(
        attempt("read", () => all.all()),
        (rows) => Effect.forEach(rows, decode)
      )
    }
  })
