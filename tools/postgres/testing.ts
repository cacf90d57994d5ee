/**
 * Postgres for test suites and benches: a fresh, empty database on the server `DATABASE_URL`
 * names when it is set, else on a throwaway cluster started for the purpose (`postgres.ts`).
 * Each call gives its own database, so tests never see each other's tables; closing drops it
 * (and stops the cluster it started).
 *
 * Runs on Node 22 type stripping: erasable TypeScript only.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as Postgres from "./postgres.ts"

/** A database for one suite. */
export interface TestDatabase {
  /** Its URL. */
  readonly url: string
  /** Where it lives, for the suite's log: `DATABASE_URL` or a throwaway cluster. */
  readonly where: string
  /** Drops the database, and stops the cluster when one was started for it. */
  readonly close: () => Promise<void>
}

/** Why there is no database: the suite says so and skips what needs one (outside CI only). */
export type Unavailable = Postgres.Unavailable

/**
 * Whether a missing Postgres must fail the run instead of skipping: in CI (`CI` set to anything
 * but `""`, `0` or `false`), where Postgres is installed, a test that skips would pass unseen.
 */
export const required = (env: NodeJS.ProcessEnv = process.env): boolean => {
  const ci = env.CI
  return ci !== undefined && ci !== "" && ci !== "0" && ci.toLowerCase() !== "false"
}

/** What a test needs of its context to skip itself (vitest's `ctx.skip`). */
export interface Skippable {
  /** Skips the test when `condition` holds, with `note` as the reason. */
  readonly skip: (condition: boolean, note?: string) => void
}

/**
 * The URL of a suite's database (as `database()` gave it, or `undefined` before it was set up).
 * Without one: in CI (see {@link required}) the test FAILS with an error naming why; elsewhere it
 * is skipped, saying why.
 */
export const urlOrSkip = (
  db: TestDatabase | Unavailable | undefined,
  ctx: Skippable,
  env: NodeJS.ProcessEnv = process.env
): string => {
  if (db !== undefined && !("reason" in db)) return db.url
  const reason = db === undefined ? "the database was not set up" : db.reason
  if (required(env)) {
    throw new Error(
      `Postgres is not available: ${reason} (CI=${env.CI ?? ""}: in CI a Postgres test that cannot run fails, it is not skipped)`
    )
  }
  ctx.skip(true, `Postgres is not available: ${reason}`)
  throw new Error(`Postgres is not available: ${reason}`)
}

/**
 * A throwaway cluster of the test's own, for a test that halts or stops its server. Without
 * Postgres, in CI (see {@link required}) the test FAILS with an error naming why; elsewhere it is
 * skipped, saying why. The test stops it (`cluster.stop()`).
 */
export const cluster = async (ctx: Skippable, env: NodeJS.ProcessEnv = process.env): Promise<Postgres.Cluster> => {
  const started = await Postgres.start()
  if (!("reason" in started)) return started
  urlOrSkip(started, ctx, env)
  throw new Error(`Postgres is not available: ${started.reason}`)
}

/** The line a suite prints when it has no database: "skipped" outside CI, "FAILED" in it. */
export const unavailableNote = (reason: string, env: NodeJS.ProcessEnv = process.env): string =>
  required(env)
    ? `\n*** Postgres tests FAILED: ${reason} (in CI they cannot be skipped) ***\n`
    : `\n*** Postgres tests skipped: ${reason} ***\n`

/** The URL of another database on the same server. */
export const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** Runs one statement on a server, through a short-lived connection. */
const execute = (url: string, statement: string): Promise<void> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(statement)
    }).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), connectTimeout: "10 seconds", maxConnections: 1 })),
      Effect.timeout("60 seconds")
    )
  )

/**
 * A fresh database: on `DATABASE_URL`'s server when set, else on a throwaway cluster. When
 * neither works, why.
 */
export const database = async (): Promise<TestDatabase | Unavailable> => {
  const given = process.env.DATABASE_URL
  let server: string
  let stop: () => void = () => {}
  let where: string
  if (given !== undefined && given !== "") {
    server = given
    where = "DATABASE_URL"
  } else {
    const cluster = await Postgres.start()
    if ("reason" in cluster) return cluster
    server = cluster.url
    stop = cluster.stop
    where = `a throwaway cluster in ${cluster.dir}`
  }
  const name = `agent_harness_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`
  try {
    await execute(server, `CREATE DATABASE ${name}`)
  } catch (error) {
    stop()
    return { reason: `cannot create a database on ${where}: ${error instanceof Error ? error.message : String(error)}` }
  }
  return {
    url: withDatabase(server, name),
    where,
    close: async () => {
      try {
        await execute(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        stop()
      }
    }
  }
}

/** The hooks of a test runner that a suite's database needs (vitest's `beforeAll` and `afterAll`). */
export interface Hooks {
  /** Runs `fn` once before the file's tests, with `timeout` in milliseconds. */
  readonly beforeAll: (fn: () => Promise<void>, timeout?: number) => void
  /** Runs `fn` once after the file's tests, with `timeout` in milliseconds. */
  readonly afterAll: (fn: () => Promise<void>, timeout?: number) => void
}

/** A test file's database, set up by {@link suiteDatabase}. */
export interface SuiteDatabase {
  /** Its URL; without one the test is skipped saying why, or fails in CI (see {@link urlOrSkip}). */
  readonly url: (ctx: Skippable) => string
}

/**
 * The Postgres setup of a test file, written once for every package's suites: a fresh database
 * ({@link database}) made before the file's tests (a warning on the log when there is none, saying
 * why) and dropped after them, each hook given `timeout` milliseconds. The hooks are the caller's
 * (`import { afterAll, beforeAll } from "@effect/vitest"`), so they register on its own runner.
 */
export const suiteDatabase = (hooks: Hooks, timeout: number): SuiteDatabase => {
  let db: TestDatabase | Unavailable | undefined
  hooks.beforeAll(async () => {
    db = await database()
    if ("reason" in db) console.warn(unavailableNote(db.reason))
  }, timeout)
  hooks.afterAll(async () => {
    if (db !== undefined && !("reason" in db)) await db.close()
  }, timeout)
  return { url: (ctx) => urlOrSkip(db, ctx) }
}
