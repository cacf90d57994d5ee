/**
 * Approvals that survive: a parked call is found again by the same call (a restart), refused to
 * another call of the same id, answered exactly once (a second answer, an answer for other
 * arguments, an answer for no approval: refused, nothing changed), with who answered and why;
 * the same contract in memory and in a journal file, the file's answers durable across
 * reopening and exactly-once across processes answering at the same instant.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Approvals, SqliteStore } from "../src/index.ts"

const temp = mkdtempSync(join(tmpdir(), "idempotency-approvals-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))
let count = 0
const fresh = (name: string): string => {
  count += 1
  return join(temp, `${count}-${name}`)
}

const ask: Approvals.Ask = {
  session: "s1",
  toolUseId: "c1",
  name: "command",
  input: { program: "git", args: ["push", "origin", "main"] },
  reason: "pushing is asked about",
  rule: 2
}

const stores: ReadonlyArray<
  readonly [string, () => Effect.Effect<Approvals.Store, unknown, import("effect").Scope.Scope>]
> = [
  ["memory", () => Approvals.memory],
  ["sqlite", () => SqliteStore.approvals(fresh("approvals.sqlite"))]
]

describe.each(stores)("%s store", (_, make) => {
  it.effect("parks a call once: parking it again gives the same approval, pending", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const store = yield* make()
        const first = yield* store.park(ask)
        assert.strictEqual(first.state, "pending")
        assert.strictEqual(first.id, Approvals.idOf("s1", "c1"))
        assert.match(first.id, /^[0-9a-f]{16}$/)
        assert.strictEqual(first.input, '{"args":["push","origin","main"],"program":"git"}')
        assert.strictEqual(first.digest, Approvals.digestOf(first.input))
        assert.strictEqual(first.reason, "pushing is asked about")
        assert.strictEqual(first.rule, 2)
        // Key order does not matter: the same decoded input is the same call.
        const again = yield* store.park({ ...ask, input: { args: ["push", "origin", "main"], program: "git" } })
        assert.deepStrictEqual(again, first)
        assert.deepStrictEqual(yield* store.list(), [first])
        assert.deepStrictEqual(yield* store.list({ state: "approved" }), [])
        assert.deepStrictEqual(yield* store.list({ session: "s1", state: "pending" }), [first])
      })
    )
  )

  it.effect("the same call id of the same session with other input or another tool is refused: a Mismatch", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const store = yield* make()
        yield* store.park(ask)
        const other = yield* Effect.flip(store.park({ ...ask, input: { program: "git", args: ["push", "--force"] } }))
        assert.instanceOf(other, Approvals.Mismatch)
        assert.include(other.message, "call 'c1' of session 's1' was parked for another call")
        assert.include(other.message, 'not command {"args":["push","--force"],"program":"git"}')
        const tool = yield* Effect.flip(store.park({ ...ask, name: "shell" }))
        assert.instanceOf(tool, Approvals.Mismatch)
        // Another session's call c1 is another approval.
        const elsewhere = yield* store.park({ ...ask, session: "s2" })
        assert.notStrictEqual(elsewhere.id, Approvals.idOf("s1", "c1"))
        assert.strictEqual((yield* store.list()).length, 2)
      })
    )
  )

  it.effect("an answer is taken once, with who gave it; a second answer is refused and changes nothing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const store = yield* make()
        const parked = yield* store.park(ask)
        const approved = yield* store.answer(parked.id, { approve: true, by: "ana", reason: "fine" })
        assert.strictEqual(approved.state, "approved")
        assert.strictEqual(approved.by, "ana")
        assert.strictEqual(approved.answerReason, "fine")
        assert.isNumber(approved.answeredAt)
        const second = yield* Effect.flip(store.answer(parked.id, { approve: false, by: "bob" }))
        assert.instanceOf(second, Approvals.AnswerRefused)
        assert.include(second.message, `approval ${parked.id}: it was approved already, by ana at `)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.get(parked.id)), approved)
        // Parking the call again (a restart) gives the answer.
        assert.deepStrictEqual(yield* store.park(ask), approved)
      })
    )
  )

  it.effect(
    "an answer for other arguments (another digest) is refused; the right digest or a prefix of it is taken",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* make()
          const parked = yield* store.park(ask)
          const other = Approvals.digestOf('{"args":["push","--force"],"program":"git"}')
          const wrong = yield* Effect.flip(store.answer(parked.id, { approve: true, by: "ana", digest: other }))
          assert.include(wrong.message, `the answer is for arguments with digest ${other}`)
          assert.include(wrong.message, parked.input)
          const short = yield* Effect.flip(store.answer(parked.id, { approve: true, by: "ana", digest: "abc" }))
          assert.include(short.message, "8 to 64 hexadecimal digits")
          assert.strictEqual(Option.getOrThrow(yield* store.get(parked.id)).state, "pending")
          const denied = yield* store.answer(parked.id, {
            approve: false,
            by: "ana",
            reason: "not on Friday",
            digest: parked.digest.slice(0, 12)
          })
          assert.strictEqual(denied.state, "denied")
          assert.strictEqual(denied.answerReason, "not on Friday")
        })
      )
  )

  it.effect("answers that cannot be taken: no such approval, nobody answering, hostile values", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const store = yield* make()
        const parked = yield* store.park(ask)
        const none = yield* Effect.flip(store.answer("0000000000000000", { approve: true, by: "ana" }))
        assert.strictEqual(none.message, "approval 0000000000000000: there is no such approval")
        const nobody = yield* Effect.flip(store.answer(parked.id, { approve: true, by: "  " }))
        assert.include(nobody.message, "says who gives it")
        const hostile = new Proxy({} as Approvals.Answer, {
          get: () => {
            throw new Error("boom")
          }
        })
        const read = yield* Effect.flip(store.answer(parked.id, hostile))
        assert.include(read.message, "the answer could not be read: boom")
        assert.strictEqual(Option.getOrThrow(yield* store.get(parked.id)).state, "pending")
      })
    )
  )

  it.effect("asks that cannot be kept: an empty session, an input with no JSON text, a throwing getter", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const store = yield* make()
        const empty = yield* Effect.flip(store.park({ ...ask, session: "" }))
        assert.include(empty.message, "a parked call needs a session")
        const cyclic: Record<string, unknown> = {}
        cyclic.self = cyclic
        const unencodable = yield* Effect.flip(store.park({ ...ask, input: cyclic }))
        assert.include(unencodable.message, "call 'c1': its input cannot be recorded")
        const getter = {
          ...ask,
          get session(): string {
            throw new Error("no session today")
          }
        }
        const thrown = yield* Effect.flip(store.park(getter))
        assert.include(thrown.message, "the ask could not be read: no session today")
        assert.deepStrictEqual(yield* store.list(), [])
      })
    )
  )

  it.effect("find: an id by a unique prefix of at least 4 digits", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const store = yield* make()
        const parked = yield* store.park(ask)
        assert.deepStrictEqual(yield* Approvals.find(store, parked.id.slice(0, 6)), parked)
        assert.deepStrictEqual(yield* Approvals.find(store, parked.id.toUpperCase()), parked)
        const bad = yield* Effect.flip(Approvals.find(store, "xyz"))
        assert.include(bad.message, "4 to 16 hexadecimal digits")
        const missing = yield* Effect.flip(Approvals.find(store, parked.id.startsWith("ffff") ? "eeee" : "ffff"))
        assert.include(missing.message, "there is no such approval")
      })
    )
  )
})

describe("in a journal file", () => {
  it.effect("an approval and its answer survive closing and reopening; a journal file without the table gets it", () =>
    Effect.gen(function* () {
      const file = fresh("reopen.sqlite")
      const parked = yield* Effect.scoped(Effect.flatMap(SqliteStore.approvals(file), (store) => store.park(ask)))
      const approved = yield* Effect.scoped(
        Effect.flatMap(SqliteStore.approvals(file), (store) => store.answer(parked.id, { approve: true, by: "ana" }))
      )
      const read = yield* Effect.scoped(Effect.flatMap(SqliteStore.approvals(file), (store) => store.get(parked.id)))
      assert.deepStrictEqual(Option.getOrThrow(read), approved)
      // The journal itself still opens and works on the same file.
      yield* Effect.scoped(
        Effect.gen(function* () {
          const journal = yield* SqliteStore.make(file)
          yield* journal.start("t1", "append", { path: "a" })
          assert.strictEqual((yield* journal.entries).length, 1)
        })
      )
    })
  )

  it.effect("a journal written before approvals existed (calls only) opens and gets the table, its calls kept", () =>
    Effect.gen(function* () {
      const file = fresh("old.sqlite")
      const db = new DatabaseSync(file)
      db.exec(`PRAGMA journal_mode = WAL;
        CREATE TABLE journal_format (format TEXT NOT NULL);
        INSERT INTO journal_format (format) VALUES ('agent-harness-journal/1');
        CREATE TABLE calls (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, tool TEXT NOT NULL,
          input TEXT NOT NULL, state TEXT NOT NULL CHECK (state IN ('started', 'done')), observation TEXT);
        INSERT INTO calls (id, tool, input, state) VALUES ('t1', 'append', '{"path":"a"}', 'started');`)
      db.close()
      const parked = yield* Effect.scoped(Effect.flatMap(SqliteStore.approvals(file), (store) => store.park(ask)))
      assert.strictEqual(parked.state, "pending")
      const entries = yield* Effect.scoped(Effect.flatMap(SqliteStore.make(file), (journal) => journal.entries))
      assert.deepStrictEqual(
        entries.map((e) => [e.id, e.state]),
        [["t1", "started"]]
      )
    })
  )

  it("six processes answer one approval at the same instant: exactly one answer is taken", async () => {
    const file = fresh("race.sqlite")
    const parked = await Effect.runPromise(
      Effect.scoped(Effect.flatMap(SqliteStore.approvals(file), (store) => store.park(ask)))
    )
    const worker = join(import.meta.dirname, "fixtures", "AnswerWorker.ts")
    const names = ["p1", "p2", "p3", "p4", "p5", "p6"]
    const children = names.map((name, i) => {
      const child = spawn(
        process.execPath,
        ["--disable-warning=ExperimentalWarning", worker, file, parked.id, name, i % 2 === 0 ? "approve" : "deny"],
        { stdio: ["pipe", "pipe", "pipe"] }
      )
      let stdout = ""
      let stderr = ""
      const guard = setTimeout(() => child.kill("SIGKILL"), 100_000)
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout.on("data", () => (stdout.startsWith("ready\n") ? resolve() : undefined))
        child.on("exit", (code) => reject(new Error(`${name} exited ${code} before it was ready: ${stderr}`)))
      })
      const report = new Promise<{ by: string; taken: boolean; state?: string; problem?: string }>((resolve, reject) =>
        child.on("exit", (code) => {
          clearTimeout(guard)
          const last = stdout.trim().split("\n").at(-1) ?? ""
          if (code !== 0 || last === "ready") reject(new Error(`${name} exited ${code}: ${stderr}`))
          else resolve(JSON.parse(last))
        })
      )
      return { child, ready, report }
    })
    try {
      await Promise.all(children.map((c) => c.ready))
      for (const c of children) c.child.stdin.end("go\n")
      const reports = await Promise.all(children.map((c) => c.report))
      const taken = reports.filter((r) => r.taken)
      assert.strictEqual(taken.length, 1, JSON.stringify(reports))
      for (const r of reports.filter((r) => !r.taken)) {
        assert.match(r.problem ?? "", /already, by p\d|answered by someone else meanwhile/)
      }
      const final = await Effect.runPromise(
        Effect.scoped(Effect.flatMap(SqliteStore.approvals(file), (store) => store.get(parked.id)))
      )
      const kept = Option.getOrThrow(final)
      assert.strictEqual(kept.by, taken[0]?.by)
      assert.strictEqual(kept.state, taken[0]?.state)
    } finally {
      for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL")
    }
  }, 120_000)
})
