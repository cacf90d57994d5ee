/**
 * The Postgres soak when its server stops as a crash would (`Cluster.halt`) while the sessions
 * run: the soak stops, kills its runners, judges nothing and exits 2 within bounded time, with
 * one line on stderr naming its database and what it last said — never a hang or a stack trace.
 * Needs Postgres (a throwaway cluster it starts): without it the test says why and is skipped (in
 * CI, where a skip would pass unseen, it fails).
 */
import { Database } from "@agent-harness/durable"
import * as Testing from "@agent-harness/postgres-tool/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { soakAsync } from "./fixtures/soak.ts"

const timeout = 240_000
/**
 * How long after the halt the soak must have ended: the engine gives the database 15 s
 * (`Database.defaultLostAfter`), its shutdown at most 5 s more, the soak 2 s. Generous for a
 * loaded 2-core machine.
 */
const endsWithinMs = 50_000

/** The rows of one statement on the database of `url`; none when it cannot be asked. */
const rows = (url: string, statement: string): Promise<ReadonlyArray<Record<string, unknown>>> =>
  Effect.runPromise(
    SqlClient.SqlClient.pipe(
      Effect.flatMap((sql) => sql.unsafe<Record<string, unknown>>(statement)),
      Effect.provide(Database.layer(url, { maxConnections: 1 })),
      Effect.orElseSucceed((): ReadonlyArray<Record<string, unknown>> => [])
    )
  )

/** The calls the journal of the soak's own database holds (0 before the soak has made it). */
const soakCalls = async (url: string): Promise<number> => {
  const [soakDb] = await rows(url, "SELECT datname FROM pg_database WHERE datname LIKE 'agent_harness_soak_%'")
  if (soakDb === undefined) return 0
  const [count] = await rows(
    Testing.withDatabase(url, String(soakDb.datname)),
    "SELECT count(*)::text AS n FROM agent_harness_journal"
  )
  return Number(count?.n ?? 0)
}

describe("a Postgres server that stops while the soak runs on it", () => {
  it(
    "the soak stops, exit 2 within bounded time, one line on stderr naming its database, nothing on stdout",
    async (ctx) => {
      const cluster = await Testing.cluster(ctx)
      try {
        let done = false
        let haltedAt: number | undefined
        const running = soakAsync(
          ["--engine", "postgres", "--runners", "1", "--runs", "40", "--json", "--database-url", cluster.url],
          150_000
        ).finally(() => {
          done = true
        })
        // Once the journal holds more than 20 calls (the sessions are under way), the server stops.
        for (const until = Date.now() + 90_000; !done && haltedAt === undefined && Date.now() < until; ) {
          if ((await soakCalls(cluster.url)) > 20) {
            cluster.halt()
            haltedAt = Date.now()
          } else await new Promise((resolve) => setTimeout(resolve, 200))
        }
        const ran = await running
        const endedIn = Date.now() - (haltedAt ?? Number.NaN)
        assert.isDefined(haltedAt, `the soak never got under way: exit ${ran.code}\n${ran.stderr.slice(-2000)}`)
        console.log(`soak: ended ${endedIn} ms after the halt`)
        assert.notMatch(ran.stderr, /^\s+at /m, "a stack trace")
        assert.notInclude(ran.stderr, "ERROR (#", "a logged defect or engine error")
        assert.strictEqual(ran.code, 2, ran.stderr.slice(-3000))
        assert.strictEqual(ran.stdout, "")
        assert.match(
          ran.stderr,
          /^soak: database postgres:\/\/[^ ]*\/agent_harness_soak_[0-9a-f]+: connection lost: no answer for \d+(\.\d)? s \(.+\); the soak stopped, its runners were killed, nothing was judged\n$/
        )
        assert.isBelow(endedIn, endsWithinMs, "the soak took too long to end")
      } finally {
        cluster.stop()
      }
    },
    timeout
  )
})
