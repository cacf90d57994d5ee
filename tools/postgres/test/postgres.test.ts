/**
 * The throwaway cluster: started as an unprivileged user on a loopback port, answering
 * queries, each test database its own, and gone once stopped. Needs PostgreSQL's binaries
 * (Debian: `apt-get install -y postgresql`); without them every test here says why and is
 * skipped, except in CI (`CI=true`), where it fails. Also: what a test without Postgres does, in
 * CI and out of it.
 */
import * as fs from "node:fs"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import * as Postgres from "../postgres.ts"
import * as Testing from "../testing.ts"

const timeout = 120_000

const query = (url: string, statement: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return yield* sql.unsafe<Record<string, unknown>>(statement)
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
  )

describe("the throwaway cluster", () => {
  it(
    "starts on 127.0.0.1, answers, runs as an unprivileged user, and is removed when stopped",
    async (ctx) => {
      const started = await Postgres.start()
      if ("reason" in started) console.warn(Testing.unavailableNote(started.reason))
      if ("reason" in started) Testing.urlOrSkip(started, ctx)
      const cluster = started as Postgres.Cluster
      try {
        expect(cluster.url).toBe(`postgres://postgres@127.0.0.1:${cluster.port}/postgres`)
        const rows = await query(cluster.url, "SELECT current_setting('listen_addresses') AS listen, 1 + 1 AS two")
        expect(rows).toEqual([{ listen: "127.0.0.1", two: 2 }])
        const owner = fs.statSync(`${cluster.dir}/data`).uid
        expect(owner).not.toBe(0)
      } finally {
        cluster.stop()
      }
      expect(fs.existsSync(cluster.dir)).toBe(false)
      // Stopping twice does nothing.
      cluster.stop()
    },
    timeout
  )

  it(
    "halts as a crash would (connections refused) and starts again on the same port with its data",
    async (ctx) => {
      const started = await Postgres.start()
      if ("reason" in started) console.warn(Testing.unavailableNote(started.reason))
      if ("reason" in started) Testing.urlOrSkip(started, ctx)
      const cluster = started as Postgres.Cluster
      try {
        await query(cluster.url, "CREATE TABLE kept (x int)")
        await query(cluster.url, "INSERT INTO kept VALUES (7)")
        cluster.halt()
        await expect(query(cluster.url, "SELECT 1")).rejects.toThrow()
        expect(cluster.restart()).toBeUndefined()
        expect(await query(cluster.url, "SELECT x FROM kept")).toEqual([{ x: 7 }])
        // Restarting a server that runs does nothing.
        expect(cluster.restart()).toBeUndefined()
      } finally {
        cluster.stop()
      }
      expect(cluster.restart()).toBe("the cluster was stopped and removed")
    },
    timeout
  )

  it(
    "gives each suite its own empty database, dropped when closed",
    async (ctx) => {
      const db = await Testing.database()
      if ("reason" in db) console.warn(Testing.unavailableNote(db.reason))
      Testing.urlOrSkip(db, ctx)
      const one = db as Testing.TestDatabase
      try {
        await query(one.url, "CREATE TABLE t (x int)")
        const tables = await query(one.url, "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 't'")
        expect(tables).toEqual([{ n: 1 }])
      } finally {
        await one.close()
      }
    },
    timeout
  )

  it("names what is missing when the binaries are not there", () => {
    const saved = process.env.PG_BIN
    process.env.PG_BIN = "/nonexistent"
    try {
      expect(Postgres.binaries()).toEqual({
        reason: "PG_BIN=/nonexistent does not hold initdb, pg_ctl, postgres"
      })
    } finally {
      if (saved === undefined) delete process.env.PG_BIN
      else process.env.PG_BIN = saved
    }
  })

  it("without Postgres, a test fails in CI and is skipped elsewhere, saying why", () => {
    const missing: Testing.Unavailable = { reason: "PostgreSQL's initdb, pg_ctl and postgres were not found" }
    const skipped: Array<string | undefined> = []
    const ctx: Testing.Skippable = { skip: (condition, note) => void (condition ? skipped.push(note) : undefined) }
    for (const ci of ["true", "1", "yes"]) {
      expect(Testing.required({ CI: ci })).toBe(true)
      expect(() => Testing.urlOrSkip(missing, ctx, { CI: ci })).toThrow(
        `Postgres is not available: PostgreSQL's initdb, pg_ctl and postgres were not found (CI=${ci}: in CI a Postgres test that cannot run fails, it is not skipped)`
      )
      expect(() => Testing.urlOrSkip(undefined, ctx, { CI: ci })).toThrow(
        "Postgres is not available: the database was not set up (CI="
      )
    }
    expect(skipped).toEqual([])
    expect(Testing.unavailableNote("x", { CI: "true" })).toBe(
      "\n*** Postgres tests FAILED: x (in CI they cannot be skipped) ***\n"
    )
    for (const env of [{}, { CI: "" }, { CI: "false" }, { CI: "0" }]) {
      expect(Testing.required(env)).toBe(false)
      expect(() => Testing.urlOrSkip(missing, ctx, env)).toThrow("Postgres is not available")
    }
    expect(skipped).toEqual(
      Array(4).fill("Postgres is not available: PostgreSQL's initdb, pg_ctl and postgres were not found")
    )
    expect(Testing.unavailableNote("x", {})).toBe("\n*** Postgres tests skipped: x ***\n")
    const db: Testing.TestDatabase = { url: "postgres://postgres@127.0.0.1:1/x", where: "here", close: async () => {} }
    expect(Testing.urlOrSkip(db, ctx, { CI: "true" })).toBe("postgres://postgres@127.0.0.1:1/x")
  })

  it("a test's own cluster without Postgres: fails in CI, is skipped elsewhere, saying why", async () => {
    const saved = process.env.PG_BIN
    process.env.PG_BIN = "/nonexistent"
    const skipped: Array<string | undefined> = []
    const ctx: Testing.Skippable = { skip: (condition, note) => void (condition ? skipped.push(note) : undefined) }
    try {
      await expect(Testing.cluster(ctx, { CI: "true" })).rejects.toThrow(
        "Postgres is not available: PG_BIN=/nonexistent does not hold initdb, pg_ctl, postgres (CI=true: in CI"
      )
      expect(skipped).toEqual([])
      await expect(Testing.cluster(ctx, {})).rejects.toThrow("Postgres is not available")
      expect(skipped).toEqual(["Postgres is not available: PG_BIN=/nonexistent does not hold initdb, pg_ctl, postgres"])
    } finally {
      if (saved === undefined) delete process.env.PG_BIN
      else process.env.PG_BIN = saved
    }
  })

  it("a URL for another database on the same server", () => {
    expect(Testing.withDatabase("postgres://postgres@127.0.0.1:5432/postgres", "x1")).toBe(
      "postgres://postgres@127.0.0.1:5432/x1"
    )
  })
})
