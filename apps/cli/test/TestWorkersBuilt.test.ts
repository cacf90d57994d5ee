/**
 * `harness test`'s worker thread in the built CLI: `build.ts` ships it as `dist/TestWorker.js`,
 * next to the chunk that starts it, and it runs every shipped scenario as this process does; the
 * built `harness test --workers 3` prints what the sources print with one.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { Variant } from "@agent-harness/scenario"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ScenarioCommands from "../src/engine/Local.ts"
import * as ScenarioServices from "../src/scenarios/ScenarioServices.ts"
import * as TestWorkers from "../src/workers/TestWorkers.ts"
import { builtCli, runBuilt } from "./fixtures/built.ts"
import { harness } from "./fixtures/harness.ts"
import { jsonFilesUnder, scenariosDir } from "./fixtures/scenarios.ts"

const SPAWNS = { timeout: 240_000 }
const { dist } = builtCli("test-workers-built")

describe("the built CLI's worker thread", () => {
  it("dist/TestWorker.js runs every shipped scenario as this process does", SPAWNS, async () => {
    const entry = join(dist, "TestWorker.js")
    expect(existsSync(entry)).toBe(true)
    const jobs = jsonFilesUnder(scenariosDir).map((file) => ({ file }))
    const run = (some: ReadonlyArray<TestWorkers.Job>) => ScenarioCommands.runFiles(some, Variant.fixed)
    const [alone, spread] = await Effect.runPromise(
      Effect.all([
        run(jobs),
        TestWorkers.run(jobs, 3, "fixed", run, { at: pathToFileURL(entry), here: false, cores: 3 })
      ]).pipe(Effect.provide(ScenarioServices.layer))
    )
    expect(spread.unavailable).toBeUndefined()
    expect(spread.results).toEqual(alone)
  })

  it("harness test --workers 3, built, prints what the sources print in one process", SPAWNS, () => {
    const built = runBuilt(dist, ["test", scenariosDir, "--json", "--workers", "3"])
    const sources = harness(["test", scenariosDir, "--json", "--workers", "1"], undefined, { timeout: 120_000 })
    expect(built.code).toBe(0)
    expect(built.stdout).toBe(sources.stdout)
  })
})
