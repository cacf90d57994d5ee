/**
 * The durable journal: SQLite through the runtime's built-in `node:sqlite` (Node 22, Deno 2), in
 * WAL mode with `synchronous = FULL`, so a record is on disk before `start` or `finish`
 * returns and a `kill -9` at any instant loses neither an outcome nor a "started" mark. Why
 * SQLite and not effect's file-system key-value store: a key-value file is rewritten in place
 * with no flush and no atomic rename, so a crash mid-write can truncate the record; SQLite's
 * commit is atomic and durable, and it needs no native addon to build (`node:sqlite` ships with
 * the runtime).
 *
 * Several processes may share one journal file: a statement waits for another's lock (the busy
 * timeout, {@link defaultBusyTimeout}) instead of failing at once with "database is locked", and
 * the setup of a new file is one transaction.
 *
 * A file that is not a journal, is corrupt or truncated, holds anything besides the journal's
 * tables, or holds a row that does not decode is refused with an error naming the file and what
 * is wrong; nothing is written to it, so no record that was whole is lost. What would not be
 * durable is refused before anything is opened: `""` and `":memory:"` (a URI that SQLite opens
 * in memory is refused once opened, before anything is written), and a path that is not a
 * regular file (`/dev/null`, a folder).
 *
 * @since 0.1.0
 */
import { type Stats, statSync } from "node:fs"
import type * as Sqlite from "node:sqlite"
import { Duration, Effect, Option, Result, type Scope } from "effect"
import type * as Approvals from "./Approvals.ts"
import * as BusyRetry from "./internal/busyRetry.ts"
import * as SqliteApprovals from "./internal/sqliteApprovals.ts"
import { type Entry, entryOfRow, inputText, JournalError, type Store } from "./Journal.ts"

/** The format this store writes; a database with another (or none) is not one of ours. */
export const format = "agent-harness-journal/1"

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** A row as read: the tool's name is the `tool` column, read as `name` (`Journal.StoredRow`). */
const columns = "seq, id, tool AS name, input, state, observation"

/** An open journal and its statements, prepared once. */
interface Opened {
  readonly db: Sqlite.DatabaseSync
  readonly get: Sqlite.StatementSync
  readonly all: Sqlite.StatementSync
  readonly start: Sqlite.StatementSync
  readonly finish: Sqlite.StatementSync
}

/**
 * Our tables and what SQLite itself keeps beside them: the AUTOINCREMENT counter and the UNIQUE
 * indexes. `approvals` (the parked calls, `approvals`) came with 0.2; a journal without it gets it.
 */
const ours: ReadonlyArray<string> = [
  "table journal_format",
  "table calls",
  "table sqlite_sequence",
  "index sqlite_autoindex_calls_1",
  "table approvals",
  "index sqlite_autoindex_approvals_1",
  "index approvals_by_state"
]

/**
 * Why the schema of the database is not (or not only) a journal's, or `undefined`: with no
 * `journal_format` table, any table is foreign; with one, so is anything that is not ours (a
 * table, an index, a view or a trigger).
 */
const foreignSchema = (db: Sqlite.DatabaseSync): string | undefined => {
  const objects = db
    .prepare("SELECT type, name FROM sqlite_master")
    .all()
    .map((row) => ({ type: String(row.type), name: String(row.name) }))
  if (!objects.some((o) => o.type === "table" && o.name === "journal_format")) {
    const tables = objects.filter((o) => o.type === "table").map((o) => o.name)
    return tables.length === 0 ? undefined : `not an agent-harness journal (it has the tables ${tables.join(", ")})`
  }
  const foreign = objects.filter((o) => !ours.includes(`${o.type} ${o.name}`))
  if (foreign.length === 0) return undefined
  return `not only an agent-harness journal (it also has ${foreign.map((o) => `the ${o.type} ${o.name}`).join(", ")})`
}

/** Why the journal's format row is not ours, or `undefined` (also when there is no such table yet). */
const foreignFormat = (db: Sqlite.DatabaseSync): string | undefined => {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal_format'").get()
  if (hasTable === undefined) return undefined
  const rows = db.prepare("SELECT format FROM journal_format").all()
  if (rows.length === 0) return undefined
  const formats = rows.map((row) => row.format)
  if (formats.every((f) => f === format)) return undefined
  return `journal format ${formats.map((f) => JSON.stringify(f ?? null)).join(", ")}, expected ${format}`
}

/** What kind of thing a path is, for a refusal. */
const kindOf = (stats: Stats): string => {
  if (stats.isDirectory()) return "a folder"
  if (stats.isCharacterDevice()) return "a character device"
  if (stats.isBlockDevice()) return "a block device"
  if (stats.isFIFO()) return "a named pipe"
  if (stats.isSocket()) return "a socket"
  return "not a regular file"
}

/**
 * Refuses, before SQLite opens anything, what cannot be a durable journal: the names SQLite
 * takes for a database in memory or a temporary one, and a path that exists but is not a
 * regular file (`/dev/null`, a folder), which SQLite would open and then surround with its own
 * `-journal` or `-wal` files.
 */
const refuseBeforeOpening = (file: string): string | undefined => {
  if (file === "") {
    return "an empty path is a temporary SQLite database, deleted when it is closed: a journal needs a file (use MemoryStore for one in memory)"
  }
  if (file === ":memory:") {
    return "':memory:' is a SQLite database in memory, lost when the process ends: a journal needs a file (use MemoryStore for one in memory)"
  }
  let stats: Stats
  try {
    stats = statSync(file)
  } catch {
    // Missing (SQLite creates it), or a `file:` URI: SQLite decides.
    return undefined
  }
  return stats.isFile() ? undefined : `${kindOf(stats)}, not a file: a journal needs a regular file`
}

/**
 * Sets a checked file up as a journal (WAL, the tables, the format) in one `BEGIN IMMEDIATE`
 * transaction that checks again; the problem when another process made it something else
 * meanwhile. Switching to WAL can fail with "database is locked" at once, without SQLite's busy
 * handler, while other processes open the same new file: the whole setup is then tried again
 * (`BusyRetry.untilDeadline`) until `deadline` (the busy timeout). Other errors are thrown.
 */
const setUp = (db: Sqlite.DatabaseSync, deadline: number): string | undefined =>
  BusyRetry.untilDeadline(
    () => {
      db.exec("PRAGMA journal_mode = WAL")
      db.exec("PRAGMA synchronous = FULL")
      db.exec("BEGIN IMMEDIATE")
      // Another process may have set the file up (or filled it) since the checks before.
      const now = foreignSchema(db) ?? foreignFormat(db)
      if (now !== undefined) {
        db.exec("ROLLBACK")
        return now
      }
      db.exec(`CREATE TABLE IF NOT EXISTS journal_format (format TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS calls (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL UNIQUE,
          tool TEXT NOT NULL,
          input TEXT NOT NULL,
          state TEXT NOT NULL CHECK (state IN ('started', 'done')),
          observation TEXT
        );
        CREATE TABLE IF NOT EXISTS approvals (
          id TEXT PRIMARY KEY NOT NULL,
          session TEXT NOT NULL,
          tool_use_id TEXT NOT NULL,
          tool TEXT NOT NULL,
          input TEXT NOT NULL,
          digest TEXT NOT NULL,
          reason TEXT,
          rule INTEGER,
          asked_at INTEGER NOT NULL,
          state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied')),
          answered_by TEXT,
          answer_reason TEXT,
          answered_at INTEGER,
          wake TEXT
        );
        CREATE INDEX IF NOT EXISTS approvals_by_state ON approvals (state, asked_at)`)
      if (db.prepare("SELECT count(*) AS n FROM journal_format").get()?.n === 0) {
        db.prepare("INSERT INTO journal_format (format) VALUES (?)").run(format)
      }
      db.exec("COMMIT")
      return undefined
    },
    {
      deadline,
      rollback: () => {
        try {
          db.exec("ROLLBACK")
        } catch {
          // No transaction was open.
        }
      }
    }
  )

/**
 * Opens a journal. Everything that can refuse the file (not durable, not SQLite, corrupt,
 * foreign tables, another format, a row that does not decode) is checked by reading only,
 * before anything is written, so a refused file is left exactly as it was. The setup (creating
 * the tables, recording the format) is one `BEGIN IMMEDIATE` transaction that checks again, so
 * processes opening one new file at once agree on it.
 */
const open = (sqlite: typeof Sqlite, file: string, busyTimeout: number): Result.Result<Opened, JournalError> => {
  const fail = (problem: string) => Result.fail(new JournalError({ file, problem }))
  const before = refuseBeforeOpening(file)
  if (before !== undefined) return fail(`${before}; nothing was opened`)
  let db: Sqlite.DatabaseSync
  try {
    db = new sqlite.DatabaseSync(file)
  } catch (error) {
    return fail(`cannot be opened: ${messageOf(error)}`)
  }
  const close = () => {
    try {
      db.close()
    } catch {
      // Already unusable: the error given says why.
    }
  }
  const refuse = (problem: string) => {
    close()
    return fail(`${problem}; it was not changed`)
  }
  let writing = false
  try {
    // A setting of this connection, not of the file (the constructor's `timeout` option is not
    // in every runtime's node:sqlite).
    db.exec(`PRAGMA busy_timeout = ${busyTimeout}`)
    const main = db
      .prepare("PRAGMA database_list")
      .all()
      .find((row) => row.name === "main")
    if (main?.file === "" || main?.file === null) {
      return refuse(
        "SQLite opened it in memory (a URI with mode=memory, or ':memory:'), lost when the process ends: a journal needs a file"
      )
    }
    const check = db.prepare("PRAGMA quick_check").all()
    const problems = check.map((row) => String(Object.values(row)[0])).filter((v) => v !== "ok")
    if (problems.length > 0) return refuse(`the journal is corrupt (SQLite: ${problems.slice(0, 3).join("; ")})`)
    const schema = foreignSchema(db) ?? foreignFormat(db)
    if (schema !== undefined) return refuse(schema)
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'calls'").get() !== undefined) {
      for (const row of db.prepare(`SELECT ${columns} FROM calls ORDER BY seq`).all()) {
        const entry = entryOfRow(file, row)
        if (Result.isFailure(entry)) return refuse(entry.failure.problem)
      }
    }
    writing = true
    const problem = setUp(db, Date.now() + busyTimeout)
    if (problem !== undefined) {
      close()
      return fail(problem)
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
    // Closing rolls back a setup transaction left open.
    close()
    const message = messageOf(error)
    return fail(writing ? `cannot be set up as a journal: ${message}` : `${unusable(message)}; it was not changed`)
  }
}

/** What SQLite's refusal of a file means for a journal. */
const unusable = (message: string): string => {
  if (/not a database/.test(message)) return `not a SQLite database, so not a journal (SQLite: ${message})`
  if (/malformed|corrupt/.test(message)) return `the journal is corrupt or truncated (SQLite: ${message})`
  return `cannot be used as a journal: ${message}`
}

/**
 * How long a statement waits for another connection's lock before it fails with "database is
 * locked" (SQLite's busy timeout): 10 seconds. Writes are single statements that hold the lock
 * for one commit, so a wait this long only happens on a machine that is badly stuck.
 *
 * @since 0.1.0
 */
export const defaultBusyTimeout: Duration.Input = "10 seconds"

/**
 * Options of a SQLite journal.
 *
 * @since 0.1.0
 */
export interface Options {
  /** How long to wait for another process's lock; default {@link defaultBusyTimeout}. */
  readonly busyTimeout?: Duration.Input | undefined
}

const busyMillis = (file: string, input: Duration.Input): Result.Result<number, JournalError> => {
  const duration = Duration.fromInput(input)
  const millis = Option.isSome(duration) ? Duration.toMillis(duration.value) : Number.NaN
  return Number.isFinite(millis) && millis >= 0 && millis <= 2 ** 31 - 1
    ? Result.succeed(Math.ceil(millis))
    : Result.fail(
        new JournalError({
          file,
          problem: `the busy timeout must be a finite duration of at least 0 (at most about 24 days), got ${JSON.stringify(String(input))}`
        })
      )
}

/** Opens a checked journal file for the scope's lifetime (node:sqlite loaded on first use). */
const openScoped = (file: string, options?: Options): Effect.Effect<Opened, JournalError, Scope.Scope> =>
  Effect.gen(function* () {
    const busyTimeout = yield* Effect.fromResult(busyMillis(file, options?.busyTimeout ?? defaultBusyTimeout))
    const sqlite = yield* Effect.tryPromise({
      try: () => import("node:sqlite"),
      catch: (error) =>
        new JournalError({ file, problem: `cannot be opened: node:sqlite is not available (${messageOf(error)})` })
    })
    const opened = open(sqlite, file, busyTimeout)
    if (Result.isFailure(opened)) return yield* opened.failure
    const { db } = opened.success
    yield* Effect.addFinalizer(() => Effect.sync(() => db.close()))
    return opened.success
  })

/**
 * Opens (or creates) a journal file for the scope's lifetime. `node:sqlite` is loaded here, on
 * first use, so importing this module (or a CLI that links it) prints no `ExperimentalWarning`.
 * Fails with a `JournalError` naming the file and the problem when it cannot be a journal, or
 * when the busy timeout is not a finite duration of at least 0.
 *
 * @since 0.1.0
 */
export const make = (file: string, options?: Options): Effect.Effect<Store, JournalError, Scope.Scope> =>
  Effect.gen(function* () {
    const { get, all, start, finish } = yield* openScoped(file, options)
    const attempt = <A>(what: string, f: () => A): Effect.Effect<A, JournalError> =>
      Effect.try({ try: f, catch: (error) => new JournalError({ file, problem: `${what}: ${messageOf(error)}` }) })
    const decode = (row: unknown): Effect.Effect<Entry, JournalError> => Effect.fromResult(entryOfRow(file, row))
    return {
      location: file,
      get: (id) =>
        Effect.flatMap(
          attempt("read", () => get.get(id)),
          (row) => (row === undefined ? Effect.undefined : decode(row))
        ),
      start: (id, name, input) =>
        Effect.flatMap(Effect.fromResult(inputText(file, id, input)), (text) =>
          Effect.asVoid(
            Effect.try({
              try: () => start.run(id, name, text),
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
      finish: (id, name, input, observation) =>
        Effect.flatMap(Effect.fromResult(inputText(file, id, input)), (text) =>
          Effect.asVoid(attempt("write", () => finish.run(id, name, text, JSON.stringify(observation))))
        ),
      entries: Effect.flatMap(
        attempt("read", () => all.all()),
        (rows) => Effect.forEach(rows, decode)
      )
    }
  })

/**
 * The approvals kept in a journal file (its `approvals` table, beside the calls): the parked
 * calls a permission rule asks about, each answered once, from any process that opens the same
 * file (`harness approve ID --journal FILE`). Opened as `make` opens the file (the same checks;
 * a file without the table gets it); each write is one SQLite commit, durable when it returns.
 *
 * @since 0.2.0
 */
export const approvals = (file: string, options?: Options): Effect.Effect<Approvals.Store, JournalError, Scope.Scope> =>
  Effect.map(openScoped(file, options), ({ db }) => SqliteApprovals.make(file, db))
