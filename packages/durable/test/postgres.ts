/**
 * Postgres for this suite: a fresh database for each test file, on `DATABASE_URL`'s server when
 * it is set, else on a throwaway cluster (tools/postgres). Where neither can be had, the file's
 * tests say why (a warning on the log) and are skipped, except in CI (`CI=true`), where they fail:
 * a skipped test is not a passed one.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import * as Testing from "@agent-harness/postgres-tool/testing"
import { Effect } from "effect"
import { Database, PgStore } from "../src/index.ts"

/** Generous: starting a cluster and a runner on a loaded 2-core machine. */
export const timeout = 180_000

/** A database for the calling test file: `url(ctx)` gives its URL, or skips the test (fails it in CI) saying why. */
export const database = (): Testing.SuiteDatabase => Testing.suiteDatabase({ beforeAll, afterAll }, timeout)

/** Every entry of the journal in the database at `url`. */
export const journal = (url: string) =>
  Effect.runPromise(Effect.flatMap(PgStore.make(), (store) => store.entries).pipe(Effect.provide(Database.layer(url))))
