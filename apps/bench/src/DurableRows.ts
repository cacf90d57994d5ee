/**
 * Row 11 (durable): what a plan step costs on the Postgres engine against the local journal.
 * Sessions of `steps` non-idempotent steps minus sessions of one step, divided by `steps − 1`:
 *
 * - on the engine in this process (`Engine.single` over Postgres): each step an activity (its
 *   request and reply persisted as messages) whose body is the journal over `PgStore` (the
 *   started row, then the outcome, each committed);
 * - in-process with the local journal over SQLite (synchronous FULL), the durable setup of one
 *   machine;
 *
 * and the journal alone per call over Postgres, beside row 7's SQLite figure. Postgres is a
 * throwaway cluster (tools/postgres) or the server `DATABASE_URL` names, with its default
 * durability settings; the row says it is skipped, and why, when there is none.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DurableJournal, DurableSession, Engine, PgStore } from "@agent-harness/durable"
import { Execute } from "@agent-harness/executor"
import { Journal, SqliteStore } from "@agent-harness/idempotency"
import { RulePlanner, Session, Step } from "@agent-harness/planner"
import * as Testing from "@agent-harness/postgres-tool/testing"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { Effect, Exit, Layer, Logger, ManagedRuntime, References, Schema, Scope } from "effect"
import { check } from "./Fixtures.ts"
import * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

/** A tool that is not idempotent: the journal marks each call started before it runs. */
const Append = Tool.make("append", {
  description: "Appends to a file",
  parameters: Schema.Struct({ path: Schema.String, content: Schema.String }),
  run: ({ path, content }) => `appended ${content.length} characters to ${path}`
})
const toolset = Toolset.make(Append)

/** Steps in the long session. */
const steps = 10

/** Calls per invocation of the journal-alone case. */
const calls = 10

const planOf = (size: number) =>
  Array.from({ length: size }, (_, i) =>
    Step.make(i + 1, "append", { path: "log.txt", content: `line ${i + 1}` }, "the line is there")
  )
const definition = (size: number) => ({
  toolset,
  planner: RulePlanner.make([{ when: null, plan: planOf(size) }]),
  maxSteps: size,
  maxReplans: 0
})

let nextId = 0
const fresh = (what: string) => `bench-${what}-${process.pid}-${nextId++}`

/** What the row shows when Postgres is not there. */
const skipped = (reason: string): ReadonlyArray<Table.Row> => [
  { id: "11", label: `durable engine rows skipped: no Postgres (${reason})`, value: "—" }
]

export const measure = async (settings: Measure.Settings, a: number): Promise<ReadonlyArray<Table.Row>> => {
  const db = await Testing.database()
  if ("reason" in db) return skipped(db.reason)
  const dir = mkdtempSync(join(tmpdir(), "harness-durable-"))
  const scope = Scope.makeUnsafe()
  const one = DurableSession.make("bench/one", definition(1))
  const many = DurableSession.make("bench/many", definition(steps))
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(one.layer, many.layer).pipe(
      Layer.provideMerge(DurableJournal.layerPg()),
      Layer.provideMerge(Engine.single({ url: db.url })),
      Layer.provide(Layer.succeed(Logger.LogToStderr, true)),
      Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
    )
  )
  try {
    const sqlite = await Effect.runPromise(
      SqliteStore.make(join(dir, "journal.db")).pipe(Effect.provideService(Scope.Scope, scope))
    )
    const pg = await runtime.runPromise(PgStore.make({ table: "bench_journal" }))
    const durable = (kind: typeof one | typeof many) => () =>
      runtime.runPromise(kind.run({ session_id: fresh("session"), goal: "append the lines" }))
    const local = (size: number) => () =>
      Effect.runPromise(
        Session.run({ ...definition(size), goal: "append the lines", sessionId: fresh("local") }).pipe(
          Effect.provide(Journal.layer(sqlite))
        )
      )
    const journaled = (store: Journal.Store | undefined) => () =>
      runtime.runPromise(
        Effect.gen(function* () {
          for (let i = 0; i < calls; i++) {
            yield* Execute.execute(toolset, {
              id: fresh("call"),
              name: "append",
              input: { path: "log.txt", content: "x" }
            })
          }
        }).pipe(Effect.provideService(Execute.Middleware, store === undefined ? undefined : Journal.middleware(store)))
      )
    const checked = await durable(many)()
    check(checked.reason === "goal_met" && checked.history.length === steps, "the durable session runs every step")
    check((await local(steps)()).reason === "goal_met", "the local session runs every step")

    const results = await Measure.run(
      [
        { name: "durable.1", fn: durable(one) },
        { name: "durable.n", fn: durable(many) },
        { name: "local.1", fn: local(1) },
        { name: "local.n", fn: local(steps) },
        { name: "plain", fn: journaled(undefined), per: calls },
        { name: "pg", fn: journaled(pg), per: calls }
      ],
      settings
    )
    const perStep = (name: string) =>
      (Measure.get(results, `${name}.n`) - Measure.get(results, `${name}.1`)) / (steps - 1)
    const durableStep = perStep("durable")
    const localStep = perStep("local")
    const journalOnly = Measure.get(results, "pg") - Measure.get(results, "plain")
    return [
      Table.perCall(
        "11",
        `durable plan session on Postgres, per non-idempotent step (activity + journal; ${steps} steps − 1) ÷ ${steps - 1}, one process (\`Engine.single\`)`,
        durableStep,
        a
      ),
      Table.perCall(
        "11",
        `the same session in-process with the local journal (SQLite, synchronous FULL), per step`,
        localStep,
        a
      ),
      {
        id: "11",
        label: "Postgres engine per step ÷ local journal per step",
        value: `×${Table.times(durableStep / localStep)}`
      },
      Table.perCall("11", "journal overhead per non-idempotent call, Postgres store (`PgStore`)", journalOnly, a)
    ]
  } finally {
    await runtime.dispose()
    Effect.runSync(Scope.close(scope, Exit.void))
    rmSync(dir, { recursive: true, force: true })
    await db.close()
  }
}
