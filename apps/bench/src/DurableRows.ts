/**
 * Row 11 (durable): what a durable step costs, ours against DBOS on the same Postgres server.
 * Each side runs the same shape, a workflow of `steps` steps, each step the same trivial
 * non-idempotent tool (an append to an in-memory list), checkpointed; the cost per step is a
 * workflow of `steps` steps minus a workflow of one, divided by `steps − 1`, the cases
 * interleaved in shuffled rounds:
 *
 * - ours: a `DurableSession` plan of `steps` non-idempotent steps on `Engine.single` (one
 *   process), each step a call through the journal over `PgStore`: its started mark committed
 *   before the tool runs, its outcome committed after;
 * - DBOS (`@dbos-inc/dbos-sdk`): a workflow of `steps` `DBOS.runStep` calls, each step's output
 *   committed after it runs, in a database of its own on the same server;
 * - the same session in-process with the local journal over SQLite (synchronous FULL), and the
 *   Postgres journal alone per call.
 *
 * Before timing, one run of each is checked: every step ran once (the list) and is recorded once
 * (the rows of each system's tables). Then one counted run of each gives the SQL statements
 * (`pg_stat_statements`, where the server loads it) and the commits that write (the server's
 * transaction ids) per step. Postgres is a throwaway cluster (tools/postgres; `pg_stat_statements`
 * loaded when the server has it) or the server `DATABASE_URL` names, with its default durability
 * settings (checked: `fsync` and `synchronous_commit` on); the row says it is skipped, and why,
 * when there is none.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Database, DurableJournal, DurableSession, Engine, PgStore } from "@agent-harness/durable"
import { Execute } from "@agent-harness/executor"
import { Journal, SqliteStore } from "@agent-harness/idempotency"
import { RulePlanner, Session, Step } from "@agent-harness/planner"
import * as Postgres from "@agent-harness/postgres-tool/postgres"
import * as Testing from "@agent-harness/postgres-tool/testing"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { Effect, Exit, Layer, Logger, ManagedRuntime, References, Schema, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { check } from "./Fixtures.ts"
import * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

/** What every step's tool did, in order: ours and DBOS's append here. */
const appended: Array<string> = []

/** A tool that is not idempotent: the journal marks each call started before it runs. */
const Append = Tool.make("append", {
  description: "Appends a line to a list",
  parameters: Schema.Struct({ path: Schema.String, content: Schema.String }),
  run: ({ path, content }) => {
    appended.push(content)
    return `appended ${content.length} characters to ${path}`
  }
})
const toolset = Toolset.make(Append)

/** Steps in the long workflow, on both sides. */
const steps = 200

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

/** Runs a query on the database at `url`, over a connection of its own. */
const query = <A extends object>(url: string, statement: string, params: ReadonlyArray<unknown> = []) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return yield* sql.unsafe<A>(statement, params)
    }).pipe(Effect.provide(Database.layer(url, { maxConnections: 1 })))
  )

/** The server the row runs on: its URL, and how to let it go (a throwaway cluster is stopped). */
interface Server {
  readonly url: string
  readonly close: () => void
}

/**
 * `DATABASE_URL`'s server, else a throwaway cluster that loads `pg_stat_statements` when the
 * server has it (set with `ALTER SYSTEM`, then the cluster started again). Why not, when neither.
 */
const server = async (): Promise<Server | Postgres.Unavailable> => {
  const given = process.env.DATABASE_URL
  if (given !== undefined && given !== "") return { url: given, close: () => {} }
  const cluster = await Postgres.start()
  if ("reason" in cluster) return cluster
  const [library] = await query<{ readonly n: number }>(
    cluster.url,
    "SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'pg_stat_statements'"
  )
  if ((library?.n ?? 0) > 0) {
    await query(cluster.url, "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
    cluster.halt()
    const problem = cluster.restart()
    if (problem !== undefined) {
      cluster.stop()
      return { reason: `the throwaway cluster did not start again with pg_stat_statements: ${problem}` }
    }
  }
  return { url: cluster.url, close: cluster.stop }
}

/** What one run of a workflow cost the server: statements (when counted) and commits that wrote. */
interface Counts {
  readonly statements: number | undefined
  readonly commits: number
}

export const measure = async (settings: Measure.Settings, a: number): Promise<ReadonlyArray<Table.Row>> => {
  const found = await server()
  if ("reason" in found) return skipped(found.reason)
  const suffix = globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 12)
  const oursName = `bench_ours_${suffix}`
  const dbosName = `bench_dbos_${suffix}`
  const oursUrl = Testing.withDatabase(found.url, oursName)
  const dbosUrl = Testing.withDatabase(found.url, dbosName)
  const dir = mkdtempSync(join(tmpdir(), "harness-durable-"))
  const scope = Scope.makeUnsafe()
  const one = DurableSession.make("bench/one", definition(1))
  const many = DurableSession.make("bench/many", definition(steps))
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(one.layer, many.layer).pipe(
      Layer.provideMerge(DurableJournal.layerPg()),
      Layer.provideMerge(Engine.single({ url: oursUrl })),
      Layer.provide(Layer.succeed(Logger.LogToStderr, true)),
      Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
    )
  )
  let dbosLaunched = false
  const { DBOS } = await import("@dbos-inc/dbos-sdk")
  try {
    await query(found.url, `CREATE DATABASE ${oursName}`)
    await query(found.url, `CREATE DATABASE ${dbosName}`)
    // Durable on both sides: the server's defaults, which neither side changes (DBOS sets no
    // synchronous_commit of its own; checked in its sources, 5.3.0).
    for (const url of [oursUrl, dbosUrl]) {
      const durable = await query<{ readonly name: string; readonly setting: string }>(
        url,
        "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit') ORDER BY name"
      )
      check(
        durable.map((s) => `${s.name}=${s.setting}`).join(" ") === "fsync=on synchronous_commit=on",
        `${url} commits durably (fsync and synchronous_commit on)`
      )
    }
    const counting = await Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        yield* sql.unsafe("SELECT count(*) FROM pg_stat_statements")
      }).pipe(
        Effect.provide(Database.layer(oursUrl, { maxConnections: 1 })),
        Effect.as(true),
        Effect.orElseSucceed(() => false)
      )
    )

    DBOS.setConfig({ name: "agent-harness-bench", systemDatabaseUrl: dbosUrl, logLevel: "error" })
    const dbosSession = DBOS.registerWorkflow(
      async (size: number) => {
        for (let i = 1; i <= size; i++) {
          await DBOS.runStep(
            async () => {
              const content = `line ${i}`
              appended.push(content)
              return `appended ${content.length} characters to log.txt`
            },
            { name: "append" }
          )
        }
        return size
      },
      { name: "benchSession" }
    )
    await DBOS.launch()
    dbosLaunched = true

    const sqlite = await Effect.runPromise(
      SqliteStore.make(join(dir, "journal.db")).pipe(Effect.provideService(Scope.Scope, scope))
    )
    const pg = await runtime.runPromise(PgStore.make({ table: "bench_journal" }))
    const ours = (size: number) => {
      const kind = size === 1 ? one : many
      return (id: string = fresh("session")) =>
        runtime.runPromise(kind.run({ session_id: id, goal: "append the lines" }))
    }
    const dbos =
      (size: number) =>
      (id: string = fresh("workflow")) =>
        DBOS.withNextWorkflowID(id, () => dbosSession(size))
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
    const rows = <A extends object>(url: string, statement: string, params: ReadonlyArray<unknown>) =>
      query<A>(url, statement, params)
    const count = async (url: string, statement: string, params: ReadonlyArray<unknown>) =>
      (await rows<{ readonly n: number }>(url, statement, params))[0]?.n ?? -1

    // Every step ran once and is recorded once, on each side; ours writes no engine message per step.
    const messages = () => count(oursUrl, "SELECT count(*)::int AS n FROM cluster_messages", [])
    for (const size of [1, steps]) {
      const session = fresh("checked")
      const before = { list: appended.length, messages: await messages() }
      const result = await ours(size)(session)
      check(result.reason === "goal_met" && result.history.length === size, `our session of ${size} runs every step`)
      check(appended.length - before.list === size, `our session of ${size} ran each append once`)
      const done = await count(
        oursUrl,
        "SELECT count(*)::int AS n FROM agent_harness_journal WHERE starts_with(id, $1) AND state = 'done'",
        [`${session}/`]
      )
      check(done === size, `our journal holds the ${size} steps of ${session}, done (${done})`)
      check((await messages()) - before.messages === 2, `our session of ${size} is two engine messages, not per step`)
      const workflow = fresh("checked")
      const listed = appended.length
      check((await dbos(size)(workflow)) === size, `the DBOS workflow of ${size} runs every step`)
      check(appended.length - listed === size, `the DBOS workflow of ${size} ran each append once`)
      const outputs = await count(
        dbosUrl,
        "SELECT count(*)::int AS n FROM dbos.operation_outputs WHERE workflow_uuid = $1",
        [workflow]
      )
      check(outputs === size, `DBOS holds the ${size} step outputs of ${workflow} (${outputs})`)
    }
    check((await local(steps)()).reason === "goal_met", "the local session runs every step")

    // One counted run of each size, three times; the median of the per-step differences.
    const snapshot = async (database: string): Promise<Counts> => {
      const [xid] = await rows<{ readonly xid: string }>(
        oursUrl,
        "SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xid",
        []
      )
      const statements = counting
        ? ((
            await rows<{ readonly n: string }>(
              oursUrl,
              "SELECT coalesce(sum(s.calls), 0)::text AS n FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1",
              [database]
            )
          )[0]?.n ?? undefined)
        : undefined
      return { statements: statements === undefined ? undefined : Number(statements), commits: Number(xid?.xid) }
    }
    const counted = async (database: string, run: (size: number) => () => Promise<unknown>) => {
      const once = async (size: number): Promise<Counts> => {
        const before = await snapshot(database)
        await run(size)()
        const after = await snapshot(database)
        return {
          statements:
            after.statements === undefined || before.statements === undefined
              ? undefined
              : after.statements - before.statements,
          commits: after.commits - before.commits
        }
      }
      const statements: Array<number> = []
      const commits: Array<number> = []
      for (let i = 0; i < 3; i++) {
        const long = await once(steps)
        const short = await once(1)
        commits.push((long.commits - short.commits) / (steps - 1))
        if (long.statements !== undefined && short.statements !== undefined) {
          statements.push((long.statements - short.statements) / (steps - 1))
        }
      }
      const perStep: Counts = {
        statements: statements.length === 0 ? undefined : Measure.median(statements),
        commits: Measure.median(commits)
      }
      return perStep
    }
    const oursCounts = await counted(oursName, (size) => () => ours(size)())
    const dbosCounts = await counted(dbosName, (size) => () => dbos(size)())

    // Each invocation of a long case is itself `steps` steps: fewer samples per round do.
    const long: Measure.Settings = { ...settings, iterations: Math.min(settings.iterations, 5) }
    const results = await Measure.run(
      [
        { name: "ours.1", fn: () => ours(1)() },
        { name: "ours.n", fn: () => ours(steps)() },
        { name: "dbos.1", fn: () => dbos(1)() },
        { name: "dbos.n", fn: () => dbos(steps)() },
        { name: "local.1", fn: local(1) },
        { name: "local.n", fn: local(steps) },
        { name: "plain", fn: journaled(undefined), per: calls },
        { name: "pg", fn: journaled(pg), per: calls }
      ],
      long
    )
    const perStep = (name: string) =>
      (Measure.get(results, `${name}.n`) - Measure.get(results, `${name}.1`)) / (steps - 1)
    const oursStep = perStep("ours")
    const dbosStep = perStep("dbos")
    const localStep = perStep("local")
    const journalOnly = Measure.get(results, "pg") - Measure.get(results, "plain")
    const ratio = oursStep / dbosStep
    const shown = (value: number | undefined) => (value === undefined ? "not counted" : value.toFixed(1))
    return [
      Table.perCall(
        "11",
        `durable plan session on Postgres, per non-idempotent step (${steps} steps − 1) ÷ ${steps - 1}, one process (\`Engine.single\`): the journal's started mark and outcome`,
        oursStep,
        a
      ),
      Table.perCall(
        "11",
        `DBOS 5.3.0 workflow per step (\`DBOS.runStep\`, the same append; ${steps} steps − 1) ÷ ${steps - 1}, same server, its own database: the step's output`,
        dbosStep,
        a
      ),
      {
        id: "11",
        label: "ours per step ÷ DBOS per step",
        value: `×${Table.times(ratio)}`,
        target: "≤ 1.5",
        met: ratio <= 1.5
      },
      {
        id: "11",
        label: `SQL statements per step, ours / DBOS (\`pg_stat_statements\`${counting ? "" : ": not loaded on this server"}; median of 3 counted runs)`,
        value: `${shown(oursCounts.statements)} / ${shown(dbosCounts.statements)}`
      },
      {
        id: "11",
        label: "commits that write per step, ours / DBOS (the server's transaction ids; median of 3 counted runs)",
        value: `${shown(oursCounts.commits)} / ${shown(dbosCounts.commits)}`
      },
      Table.perCall(
        "11",
        `the same session in-process with the local journal (SQLite, synchronous FULL), per step`,
        localStep,
        a
      ),
      {
        id: "11",
        label: "Postgres engine per step ÷ local journal per step",
        value: `×${Table.times(oursStep / localStep)}`
      },
      Table.perCall("11", "journal overhead per non-idempotent call, Postgres store (`PgStore`)", journalOnly, a)
    ]
  } finally {
    if (dbosLaunched) await DBOS.shutdown()
    await runtime.dispose()
    Effect.runSync(Scope.close(scope, Exit.void))
    rmSync(dir, { recursive: true, force: true })
    try {
      await query(found.url, `DROP DATABASE IF EXISTS ${oursName} WITH (FORCE)`)
      await query(found.url, `DROP DATABASE IF EXISTS ${dbosName} WITH (FORCE)`)
    } finally {
      found.close()
    }
  }
}
