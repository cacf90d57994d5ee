/**
 * The built CLI (`build.ts`, as published) and the Postgres engine: `harness run` never loads
 * the engine's code (effect/cluster, the Postgres driver); `--engine postgres` loads it and gives
 * the local verdict. The crash soak is not shipped (it is `pnpm soak`, in tools/soak). The Postgres
 * tests need Postgres (a throwaway cluster, or DATABASE_URL): without it they say why and are
 * skipped (in CI, where a skip would pass unseen, they fail).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import * as Testing from "@agent-harness/postgres-tool/testing"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { builtCli, runBuilt } from "./fixtures/built.ts"
import { salmorejoEs, scenariosDir } from "./fixtures/scenarios.ts"

const SPAWNS = { timeout: 300_000 }
const { dist } = builtCli("pg-built")

/** The database's URL; without one the test is skipped, saying why (in CI it fails). */
const urlOr = Testing.suiteDatabase({ beforeAll, afterAll }, 180_000).url

/** The loaded files that hold the engine's code (the journal's table, the cluster's sharding), wherever bundled. */
const withEngine = (loaded: ReadonlyArray<string>): ReadonlyArray<string> =>
  loaded.filter((file) => {
    const text = readFileSync(join(dist, file), "utf8")
    return text.includes("agent_harness_journal") || text.includes("EntityNotAssignedToRunner")
  })

describe("the built CLI and the Postgres engine", () => {
  it("harness run and harness test load none of the engine's code", SPAWNS, () => {
    const run = runBuilt(dist, ["run", salmorejoEs])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.loaded, "main.js")
    assert.deepStrictEqual(withEngine(run.loaded), [])
    const test = runBuilt(dist, ["test", join(scenariosDir, "plan")])
    assert.strictEqual(test.code, 0, test.stderr)
    assert.deepStrictEqual(withEngine(test.loaded), [])
  })

  it("--engine postgres loads it and gives the local verdict", SPAWNS, (ctx) => {
    const url = urlOr(ctx)
    const file = join(scenariosDir, "plan", "replan-twice.json")
    const local = runBuilt(dist, ["run", file])
    const durable = runBuilt(dist, ["run", file, "--engine", "postgres", "--database-url", url])
    assert.deepStrictEqual([durable.code, durable.stdout, durable.stderr], [local.code, local.stdout, local.stderr])
    assert.isAbove(withEngine(durable.loaded).length, 0)
  })

  it("ships no crash soak: no soak child or runner in dist, and harness soak is an unknown command", SPAWNS, () => {
    assert.deepStrictEqual(
      readdirSync(dist).filter((file) => /soak/i.test(file)),
      []
    )
    const soak = runBuilt(dist, ["soak", "--runs", "1"])
    assert.strictEqual(soak.code, 2, soak.stderr)
    assert.include(soak.stderr, 'Unknown subcommand "soak" for "harness"')
  })
})
