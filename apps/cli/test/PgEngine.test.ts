/**
 * `harness run|test --engine postgres` end to end: every shipped scenario gives the verdicts,
 * the `--json` lines and the exit codes of the local engine (fixed and before variants); a plan
 * scenario run durably keeps the session id it is given; and what is refused with exit 2,
 * naming why: no database, a URL that is not Postgres, a database that does not answer (its
 * password hidden), the Postgres engine's flags without it, recording with it. Needs Postgres
 * for the first tests (a throwaway cluster, or DATABASE_URL): without it they say why and are
 * skipped (in CI, where a skip would pass unseen, they fail).
 */
import process from "node:process"
import * as Testing from "@agent-harness/postgres-tool/testing"
import { NodeServices } from "@effect/platform-node"
import { PlanScenario, Suite } from "@agent-harness/scenario"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { harness } from "./fixtures/harness.ts"
import { scenariosDir } from "./fixtures/scenarios.ts"

const timeout = 240_000
const spawn = { timeout: 180_000 }
let db: Testing.TestDatabase | Testing.Unavailable | undefined
beforeAll(async () => {
  db = await Testing.database()
  if ("reason" in db) console.warn(Testing.unavailableNote(db.reason))
}, timeout)
afterAll(async () => {
  if (db !== undefined && !("reason" in db)) await db.close()
}, timeout)

/** The database's URL; without one the test is skipped, saying why (in CI it fails). */
const urlOr = (ctx: Testing.Skippable): string => Testing.urlOrSkip(db, ctx)

/** The environment without DATABASE_URL (and without colour). */
const bare = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" }
  delete env.DATABASE_URL
  return env
}

describe("harness test --engine postgres", () => {
  it(
    "every shipped scenario: the same --json lines and exit code as the local engine, under both variants",
    async (ctx) => {
      const url = urlOr(ctx)
      for (const variant of ["fixed", "before"]) {
        const local = harness(["test", scenariosDir, "--json", "--variant", variant], bare(), spawn)
        const durable = harness(
          ["test", scenariosDir, "--json", "--variant", variant, "--engine", "postgres", "--database-url", url],
          bare(),
          spawn
        )
        assert.strictEqual(durable.stderr, "")
        assert.strictEqual(durable.code, local.code)
        assert.deepStrictEqual(durable.lines, local.lines)
        assert.isAbove(durable.lines.length, 20)
      }
    },
    timeout
  )

  it(
    "harness run: the same report and exit code, with the database from DATABASE_URL",
    async (ctx) => {
      const url = urlOr(ctx)
      for (const file of ["es/salmorejo.json", "plan/replan-twice.json", "regress/catalogo.json"]) {
        const path = `${scenariosDir}/${file}`
        const local = harness(["run", path], bare(), spawn)
        const durable = harness(["run", path, "--engine", "postgres"], { ...bare(), DATABASE_URL: url }, spawn)
        assert.deepStrictEqual([durable.code, durable.stdout, durable.stderr], [local.code, local.stdout, local.stderr])
      }
    },
    timeout
  )
})

describe("PlanScenario.run with a session id", () => {
  it.effect("keeps the id it is given in the result and in every call id", () =>
    Effect.gen(function* () {
      const scenario = yield* Suite.load(`${scenariosDir}/plan/linear-success.json`).pipe(
        Effect.provide(NodeServices.layer)
      )
      assert.strictEqual(scenario.kind, "plan")
      if (scenario.kind !== "plan") return
      let seen: string | undefined
      const callIds: Array<string> = []
      yield* PlanScenario.run(scenario, "linear-success.json", {
        sessionId: "run-7",
        onEvent: (event) =>
          Effect.sync(() => {
            if (event.type === "step.started") callIds.push(event.tool_use_id)
          }),
        onResult: (result) =>
          Effect.sync(() => {
            seen = result.session_id
          })
      })
      assert.strictEqual(seen, "run-7")
      assert.isAbove(callIds.length, 0)
      assert.isTrue(callIds.every((id) => id.startsWith("run-7/step-")))
    })
  )
})

describe("--engine postgres refuses, exit 2, naming why", () => {
  const salmorejo = `${scenariosDir}/es/salmorejo.json`
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
    [
      "no database",
      ["run", salmorejo, "--engine", "postgres"],
      "--engine postgres needs a database: --database-url postgres://user@host:port/database, or DATABASE_URL\n"
    ],
    [
      "a URL that is not Postgres",
      ["test", salmorejo, "--engine", "postgres", "--database-url", "mysql://u:pw@h/db"],
      "--database-url mysql://u:***@h/db: not a Postgres URL: it starts with mysql:// (postgres://user@host:port/database)\n"
    ],
    [
      "--database-url without --engine postgres",
      ["run", salmorejo, "--database-url", "postgres://u@h/db"],
      "--database-url is for --engine postgres: add --engine postgres, or drop --database-url\n"
    ],
    [
      "--workers with --engine postgres",
      ["test", salmorejo, "--engine", "postgres", "--workers", "2", "--database-url", "postgres://u@h/db"],
      "--workers runs the local engine's files on threads; with --engine postgres every scenario is a workflow on the engine: drop --workers\n"
    ],
    [
      "--trace with --engine postgres",
      ["run", salmorejo, "--engine", "postgres", "--trace", "t.jsonl", "--database-url", "postgres://u@h/db"],
      "--trace records runs of the local engine; with --engine postgres nothing is recorded: drop --trace\n"
    ]
  ]
  for (const [name, args, message] of cases) {
    it(name, { timeout: 60_000 }, () => {
      const r = harness(args, bare())
      assert.deepStrictEqual([r.code, r.stdout, r.stderr], [2, "", message])
    })
  }

  it("a database that does not answer: named, its password hidden, for run and test", {
    timeout: 120_000
  }, () => {
    // Port 1 on the loopback: nothing listens there, the connection is refused at once.
    const url = "postgres://someone:secret@127.0.0.1:1/nothing"
    for (const args of [
      ["run", salmorejo],
      ["test", salmorejo]
    ]) {
      const r = harness([...args, "--engine", "postgres", "--database-url", url], bare())
      assert.strictEqual(r.code, 2, r.stderr)
      assert.strictEqual(r.stdout, "")
      assert.match(r.stderr, /^database postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nothing: /)
      assert.notInclude(r.stderr, "secret")
    }
  })
})
