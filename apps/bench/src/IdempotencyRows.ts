/**
 * Row 7 (idempotency): the journal's overhead per non-idempotent call — `execute` through the
 * journal middleware minus `execute` alone, both inside a running Effect with fresh call ids —
 * with the in-memory store and the durable SQLite store (WAL, synchronous FULL: every record
 * waits for the disk).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Execute } from "@agent-harness/executor"
import { Journal, MemoryStore, SqliteStore } from "@agent-harness/idempotency"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { Effect, Exit, Schema, Scope } from "effect"
import { check } from "./Fixtures.ts"
import * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

/** A tool that is not idempotent (MCP's default annotations): the journal records its start. */
const Append = Tool.make("append", {
  description: "Appends to a file",
  parameters: Schema.Struct({ path: Schema.String, content: Schema.String }),
  run: ({ path, content }) => `appended ${content.length} characters to ${path}`
})
const tools = Toolset.make(Append)

let nextId = 0

const calls = (count: number) =>
  Effect.gen(function* () {
    let last = ""
    for (let i = 0; i < count; i++) {
      const outcome = yield* Execute.execute(tools, {
        id: `call_${nextId++}`,
        name: "append",
        input: { path: "log.txt", content: "one more line" }
      })
      last = outcome._tag
    }
    return last
  })

const inMemory = 100
const durable = 10

export const measure = async (settings: Measure.Settings, a: number): Promise<ReadonlyArray<Table.Row>> => {
  const dir = mkdtempSync(join(tmpdir(), "harness-journal-"))
  const scope = Scope.makeUnsafe()
  try {
    const sqlite = await Effect.runPromise(
      SqliteStore.make(join(dir, "journal.db")).pipe(Effect.provideService(Scope.Scope, scope))
    )
    const plain = (count: number) => Effect.runSync(calls(count))
    const memory = () =>
      Effect.runSync(Effect.flatMap(MemoryStore.make, (store) => Effect.provide(calls(inMemory), Journal.layer(store))))
    const durableRun = () => Effect.runSync(Effect.provide(calls(durable), Journal.layer(sqlite)))
    check(plain(1) === "Succeeded" && memory() === "Succeeded" && durableRun() === "Succeeded", "journaled calls run")
    const journaled = Effect.runSync(sqlite.entries)
    check(journaled.length === durable && journaled.every((e) => e.state === "done"), "the journal records every call")

    const results = await Measure.run(
      [
        { name: "plain.memory", fn: () => plain(inMemory), per: inMemory },
        { name: "plain.durable", fn: () => plain(durable), per: durable },
        { name: "memory", fn: memory, per: inMemory },
        { name: "durable", fn: durableRun, per: durable }
      ],
      settings
    )
    const memoryOverhead = Measure.get(results, "memory") - Measure.get(results, "plain.memory")
    const durableOverhead = Measure.get(results, "durable") - Measure.get(results, "plain.durable")
    return [
      Table.perCall("7", "journal overhead per non-idempotent call, in-memory store", memoryOverhead, a),
      Table.perCall(
        "7",
        "journal overhead per non-idempotent call, SQLite store (synchronous FULL)",
        durableOverhead,
        a
      )
    ]
  } finally {
    Effect.runSync(Scope.close(scope, Exit.void))
    rmSync(dir, { recursive: true, force: true })
  }
}
