/**
 * The journal's Postgres store: the `Store` contract (started rows durable before `start`
 * returns, one start per call id, outcomes replacing marks, entries in order), the journal's
 * middleware over it (a call id never runs twice, an unfinished non-idempotent call is outcome
 * unknown), and what it refuses: a table of that name that is not a journal, a table name that is
 * not a plain identifier, rows that do not decode. Needs Postgres (see postgres.ts).
 */
import { Execute, Outcome } from "@agent-harness/executor"
import { Journal } from "@agent-harness/idempotency"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Database, PgStore } from "../src/index.ts"
import { database, timeout } from "./postgres.ts"

const db = database()
const sqlLayer = (url: string): Layer.Layer<SqlClient.SqlClient, Database.DatabaseUnavailable> => Database.layer(url)

const done = (content: string): Journal.Observation => ({ original: "Succeeded", is_error: false, content })

describe("PgStore", () => {
  it(
    "keeps the Store contract: start, one start per id, finish over a mark, entries in order",
    async (ctx) => {
      const url = db.url(ctx)
      await Effect.runPromise(
        Effect.gen(function* () {
          const store = yield* PgStore.make({ table: "contract" })
          assert.strictEqual(store.location, "postgres table contract")
          assert.strictEqual(yield* store.get("a1"), undefined)
          yield* store.start("a1", "append", { path: "log.txt", content: "x" })
          assert.deepStrictEqual(yield* store.get("a1"), {
            id: "a1",
            name: "append",
            input: { content: "x", path: "log.txt" },
            state: "started"
          })
          const again = yield* Effect.flip(store.start("a1", "append", { path: "log.txt", content: "x" }))
          assert.instanceOf(again, Journal.JournalError)
          assert.strictEqual(
            again.message,
            "postgres table contract: call 'a1' is already in the journal: at most one start of it may run"
          )
          yield* store.finish("a1", "append", { path: "log.txt", content: "x" }, done("appended 1"))
          yield* store.finish("w2", "write", { path: "s.txt", content: "y" }, done("wrote 1"))
          const entries = yield* store.entries
          assert.deepStrictEqual(
            entries.map((e) => [e.id, e.state, e.observation?.content]),
            [
              ["a1", "done", "appended 1"],
              ["w2", "done", "wrote 1"]
            ]
          )
          // A second store on the same table (another runner) sees the same journal.
          const other = yield* PgStore.make({ table: "contract" })
          assert.deepStrictEqual(yield* other.entries, entries)
        }).pipe(Effect.provide(sqlLayer(url)))
      )
    },
    timeout
  )

  it(
    "under the journal's middleware, no call id runs twice and an unfinished call is outcome unknown",
    async (ctx) => {
      const url = db.url(ctx)
      let runs = 0
      const Charge = Tool.make("charge", {
        description: "Charges a card",
        parameters: Schema.Struct({ euros: Schema.Int }),
        annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
        run: ({ euros }) => Effect.sync(() => `charged ${euros} € (run ${++runs})`)
      })
      const tools = Toolset.make(Charge)
      await Effect.runPromise(
        Effect.gen(function* () {
          const store = yield* PgStore.make({ table: "middleware" })
          const execute = (id: string) =>
            Execute.execute(tools, { id, name: "charge", input: { euros: 10 } }).pipe(
              Effect.provideService(Execute.Middleware, Journal.middleware(store))
            )
          const first = yield* execute("c1")
          assert.strictEqual(first._tag, "Succeeded")
          const second = yield* execute("c1")
          assert.strictEqual(second._tag, "Replayed")
          assert.strictEqual(second.content, "charged 10 € (run 1)")
          assert.strictEqual(runs, 1)
          // A call marked started and never finished (its process died while it ran).
          yield* store.start("c2", "charge", { euros: 10 })
          const unknown = yield* execute("c2")
          assert.strictEqual(unknown._tag, "Failed")
          assert.strictEqual(unknown._tag === "Failed" ? unknown.failure._tag : "", "OutcomeUnknown")
          assert.isTrue(Outcome.isError(unknown))
          assert.strictEqual(runs, 1)
        }).pipe(Effect.provide(sqlLayer(url)))
      )
    },
    timeout
  )

  it(
    "claims a call in one write the key decides: undefined when marked now, else the row there, unchanged",
    async (ctx) => {
      const url = db.url(ctx)
      await Effect.runPromise(
        Effect.gen(function* () {
          const store = yield* PgStore.make({ table: "claims" })
          const claim = store.claim
          if (claim === undefined) return assert.fail("PgStore claims")
          const input = { path: "log.txt", content: "x" }
          assert.strictEqual(yield* claim("k1", "append", input), undefined)
          const started: Journal.Entry = {
            id: "k1",
            name: "append",
            input: { content: "x", path: "log.txt" },
            state: "started"
          }
          assert.deepStrictEqual(yield* claim("k1", "append", input), started)
          assert.deepStrictEqual(yield* claim("k1", "write", { other: true }), started)
          yield* store.finish("k1", "append", input, done("appended 1"))
          assert.deepStrictEqual(yield* claim("k1", "append", input), {
            ...started,
            state: "done",
            observation: done("appended 1")
          })
          // Two runners claiming one call at once: exactly one marks it.
          const other = (yield* PgStore.make({ table: "claims" })).claim
          if (other === undefined) return assert.fail("PgStore claims")
          const racing = yield* Effect.all([claim("k2", "append", input), other("k2", "append", input)], {
            concurrency: 2
          })
          assert.strictEqual(racing.filter((entry) => entry === undefined).length, 1)
          assert.deepStrictEqual(
            (yield* store.entries).map((e) => `${e.id} ${e.state}`),
            ["k1 done", "k2 started"]
          )
        }).pipe(Effect.provide(sqlLayer(url)))
      )
    },
    timeout
  )

  it(
    "under the middleware, a non-idempotent call is marked with the claim alone (no read before it)",
    async (ctx) => {
      const url = db.url(ctx)
      let runs = 0
      const Charge = Tool.make("charge", {
        description: "Charges a card",
        parameters: Schema.Struct({ euros: Schema.Int }),
        run: ({ euros }) => Effect.sync(() => `charged ${euros} € (run ${++runs})`)
      })
      const tools = Toolset.make(Charge)
      await Effect.runPromise(
        Effect.gen(function* () {
          const store = yield* PgStore.make({ table: "claimed" })
          let reads = 0
          const counted: Journal.Store = {
            ...store,
            get: (id) =>
              Effect.andThen(
                Effect.sync(() => reads++),
                store.get(id)
              )
          }
          const execute = (id: string, euros: number) =>
            Execute.execute(tools, { id, name: "charge", input: { euros } }).pipe(
              Effect.provideService(Execute.Middleware, Journal.middleware(counted))
            )
          assert.strictEqual((yield* execute("c1", 10))._tag, "Succeeded")
          const replayed = yield* execute("c1", 10)
          assert.strictEqual(replayed._tag, "Replayed")
          assert.strictEqual(replayed.content, "charged 10 € (run 1)")
          const reused = yield* execute("c1", 20)
          assert.strictEqual(reused._tag, "Refused")
          assert.match(reused.content, /call id 'c1' was already used for another call \(charge \{"euros":10\}\)/)
          yield* store.start("c2", "charge", { euros: 10 })
          const unknown = yield* execute("c2", 10)
          assert.strictEqual(unknown._tag === "Failed" ? unknown.failure._tag : unknown._tag, "OutcomeUnknown")
          assert.strictEqual(runs, 1)
          assert.strictEqual(reads, 0)
          assert.deepStrictEqual(
            (yield* store.entries).map((e) => `${e.id} ${e.state}`),
            ["c1 done", "c2 started"]
          )
        }).pipe(Effect.provide(sqlLayer(url)))
      )
    },
    timeout
  )

  it(
    "refuses a table that is not a journal, a bad table name, and rows that do not decode",
    async (ctx) => {
      const url = db.url(ctx)
      await Effect.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TABLE invoices (id TEXT PRIMARY KEY, amount INT)`
          const foreign = yield* Effect.flip(PgStore.make({ table: "invoices" }))
          assert.strictEqual(
            foreign.message,
            "postgres table invoices: not an agent-harness journal (its columns are amount integer, id text: input, observation, seq, state, tool are missing; amount is not the journal's); it was not changed"
          )
          const bad = yield* Effect.flip(PgStore.make({ table: "Robert'); DROP TABLE students;--" }))
          assert.match(bad.message, /is not a table name the journal uses/)
          const store = yield* PgStore.make({ table: "broken" })
          yield* sql`INSERT INTO broken (id, tool, input, state) VALUES ('x1', 'append', '{not json', 'started')`
          const unreadable = yield* Effect.flip(store.get("x1"))
          assert.strictEqual(
            unreadable.message,
            "postgres table broken: call 'x1': its input is not JSON (Expected property name or '}' in JSON at position 1 (line 1 column 2))"
          )
          const cycle: Record<string, unknown> = {}
          cycle.self = cycle
          const unencodable = yield* Effect.flip(store.start("x2", "append", cycle))
          assert.match(unencodable.message, /call 'x2': its input cannot be recorded/)
        }).pipe(Effect.provide(sqlLayer(url)))
      )
    },
    timeout
  )
})

describe("PgStore refuses a table that is not the journal's, and changes nothing", () => {
  /** The journal's columns, as `make` creates them, without any key. */
  const keyless = `seq BIGSERIAL NOT NULL, id TEXT NOT NULL, tool TEXT NOT NULL, input TEXT NOT NULL,
    state TEXT NOT NULL, observation TEXT`

  it(
    "a table with the journal's columns and no primary key on id (one call id could start twice)",
    async (ctx) => {
      const url = db.url(ctx)
      await Effect.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql.unsafe(`CREATE TABLE nokey (${keyless})`)
          const refused = yield* Effect.flip(PgStore.make({ table: "nokey" }))
          assert.instanceOf(refused, Journal.JournalError)
          assert.strictEqual(refused.file, "postgres table nokey")
          assert.strictEqual(
            refused.message,
            "postgres table nokey: not an agent-harness journal (no primary key on id, nor a unique index on id alone, so one call id could be started, and run, twice); it was not changed"
          )
          // Nothing was changed: still no index, no row.
          const indexes = yield* sql<{
            readonly n: number
          }>`SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = 'nokey'`
          assert.strictEqual(indexes[0]?.n, 0)
          const rows = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM nokey`
          assert.strictEqual(rows[0]?.n, 0)
          // A unique index that is partial, on an expression, or on more than id is no key either.
          yield* sql.unsafe(`CREATE TABLE partialkey (${keyless})`)
          yield* sql.unsafe(`CREATE UNIQUE INDEX ON partialkey (id) WHERE state = 'done'`)
          yield* sql.unsafe(`CREATE TABLE pairkey (${keyless}, PRIMARY KEY (id, tool))`)
          yield* sql.unsafe(`CREATE TABLE lowerkey (${keyless})`)
          yield* sql.unsafe(`CREATE UNIQUE INDEX ON lowerkey (lower(id))`)
          for (const table of ["partialkey", "pairkey", "lowerkey"]) {
            const error = yield* Effect.flip(PgStore.make({ table }))
            assert.include(error.message, `postgres table ${table}: not an agent-harness journal (no primary key on id`)
          }
          // A unique index on id alone is a key: accepted, and one start per call id.
          yield* sql.unsafe(`CREATE TABLE uniquekey (${keyless})`)
          yield* sql.unsafe(`CREATE UNIQUE INDEX ON uniquekey (id)`)
          const store = yield* PgStore.make({ table: "uniquekey" })
          yield* store.start("c1", "append", { path: "a" })
          const twice = yield* Effect.flip(store.start("c1", "append", { path: "a" }))
          assert.include(twice.message, "at most one start of it may run")
        }).pipe(Effect.provide(sqlLayer(url)))
      )
    },
    timeout
  )

  it(
    "missing, extra and mistyped columns, a seq without a default, a view: each named",
    async (ctx) => {
      const url = db.url(ctx)
      await Effect.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const refusal = (table: string) => Effect.map(Effect.flip(PgStore.make({ table })), (e) => e.message)
          yield* sql.unsafe(
            `CREATE TABLE fewer (seq BIGSERIAL, id TEXT PRIMARY KEY, tool TEXT, input TEXT, state TEXT)`
          )
          assert.strictEqual(
            yield* refusal("fewer"),
            "postgres table fewer: not an agent-harness journal (its columns are id text, input text, seq bigint, state text, tool text: observation is missing); it was not changed"
          )
          yield* sql.unsafe(`CREATE TABLE more (${keyless}, PRIMARY KEY (id), note TEXT, extra INT)`)
          assert.strictEqual(
            yield* refusal("more"),
            "postgres table more: not an agent-harness journal (its columns are extra integer, id text, input text, note text, observation text, seq bigint, state text, tool text: extra, note are not the journal's); it was not changed"
          )
          yield* sql.unsafe(
            `CREATE TABLE typed (seq SERIAL, id INT PRIMARY KEY, tool TEXT, input JSONB, state TEXT, observation TEXT)`
          )
          assert.strictEqual(
            yield* refusal("typed"),
            "postgres table typed: not an agent-harness journal (its columns are id integer, input jsonb, observation text, seq integer, state text, tool text: id is integer, not text; input is jsonb, not text; seq is integer, not bigint); it was not changed"
          )
          yield* sql.unsafe(
            `CREATE TABLE unnumbered (seq BIGINT, id TEXT PRIMARY KEY, tool TEXT, input TEXT, state TEXT, observation TEXT)`
          )
          assert.strictEqual(
            yield* refusal("unnumbered"),
            "postgres table unnumbered: not an agent-harness journal (seq has no default: the journal numbers its rows in order); it was not changed"
          )
          yield* sql.unsafe(`CREATE TABLE real_journal (${keyless}, PRIMARY KEY (id))`)
          yield* sql.unsafe(`CREATE VIEW seen AS SELECT * FROM real_journal`)
          assert.strictEqual(
            yield* refusal("seen"),
            "postgres table seen: it is a view, not a table; it was not changed"
          )
          // A table make created itself is accepted again (by another runner, or after a restart).
          yield* PgStore.make({ table: "again" })
          yield* PgStore.make({ table: "again" })
        }).pipe(Effect.provide(sqlLayer(url)))
      )
    },
    timeout
  )
})

describe("Database", () => {
  it("names what is wrong with a URL, with the password hidden", () => {
    assert.strictEqual(Database.urlProblem("postgres://u@h:5432/d"), undefined)
    assert.strictEqual(Database.urlProblem(""), "no database URL was given (postgres://user@host:port/database)")
    assert.strictEqual(
      Database.urlProblem("mysql://u@h/d"),
      "not a Postgres URL: it starts with mysql:// (postgres://user@host:port/database)"
    )
    assert.strictEqual(Database.urlProblem("nope"), "not a URL (postgres://user@host:port/database)")
    assert.strictEqual(Database.redact("postgres://u:secret@h:5432/d"), "postgres://u:***@h:5432/d")
  })

  it(
    "a database that does not answer is a DatabaseUnavailable naming it and why, without its password",
    async () => {
      // A port nothing listens on (the kernel refuses at once).
      const error = await Effect.runPromise(
        Effect.flip(
          Effect.provide(
            Effect.void,
            Database.layer("postgres://someone:secret@127.0.0.1:1/nothing", { connectTimeout: "5 seconds" })
          )
        )
      )
      assert.instanceOf(error, Database.DatabaseUnavailable)
      assert.strictEqual(error.url, "postgres://someone:***@127.0.0.1:1/nothing")
      assert.notInclude(error.message, "secret")
      assert.match(error.message, /^database postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nothing: /)
      // The driver's cause is named: what a person fixes.
      assert.include(error.message, "ECONNREFUSED 127.0.0.1:1")
    },
    timeout
  )
})
