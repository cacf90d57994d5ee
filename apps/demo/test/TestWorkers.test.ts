/**
 * `harness test` on every core: with worker threads the report is the same as in one process,
 * line for line, in order, with the same exit code (text, `--json`, `--traces` and the traces
 * themselves); a thread that crashes while running a file gets that file reported as an error and
 * no other lost; threads that cannot start leave every file to this process; a bad `--workers`
 * exits 2 before anything runs.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Variant } from "@agent-harness/scenario"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as ScenarioCommands from "../src/ScenarioCommands.ts"
import * as ScenarioServices from "../src/ScenarioServices.ts"
import * as TestWorkers from "../src/TestWorkers.ts"
import { harness } from "./fixtures/harness.ts"
import {
  catalogo,
  jsonFilesUnder,
  salmorejo,
  scenariosDir,
  tempFolder,
  withoutId,
  withWrongObservation
} from "./fixtures/scenarios.ts"

const temp = tempFolder("test-workers")
afterAll(() => temp.remove())

/** Every spawn of the CLI from its sources, threads loading the harness again: generous. */
const SPAWNS = { timeout: 240_000 }
const spawnTimeout = { timeout: 120_000 }

/** A folder with a bit of everything: passing, failing, invalid, a response-cases file, a FIFO. */
let made = false
const mixed = (): string => {
  if (made) return temp.path("mixed")
  made = true
  temp.write("mixed/a-pass.json", salmorejo())
  temp.write("mixed/b-fail.json", withWrongObservation())
  temp.write("mixed/c-invalid.json", withoutId())
  temp.write("mixed/d-cases.json", readFileSync(catalogo, "utf8"))
  temp.write("mixed/e-not-json.json", "{ nope")
  execFileSync("mkfifo", [temp.path("mixed/f-fifo.json")], { timeout: 10_000 })
  return temp.path("mixed")
}

describe("harness test --workers: the same report", () => {
  it("the shipped scenarios and a mixed folder: text and --json alike, whatever the number of workers", SPAWNS, () => {
    const paths = [scenariosDir, mixed()]
    for (const json of [[], ["--json"]]) {
      const alone = harness(["test", ...paths, ...json, "--workers", "1"], undefined, spawnTimeout)
      expect(alone.code).toBe(2)
      for (const workers of ["2", "3"]) {
        const spread = harness(["test", ...paths, ...json, "--workers", workers], undefined, spawnTimeout)
        expect(spread.code).toBe(alone.code)
        expect(spread.stdout).toBe(alone.stdout)
        expect(spread.stderr).toBe(alone.stderr)
      }
    }
  })

  it("with --traces: the same lines, and the same traces", SPAWNS, () => {
    const paths = [join(scenariosDir, "en"), join(scenariosDir, "plan"), catalogo]
    const alone = harness(
      ["test", ...paths, "--json", "--traces", temp.path("t1"), "--workers", "1"],
      undefined,
      spawnTimeout
    )
    const spread = harness(
      ["test", ...paths, "--json", "--traces", temp.path("t3"), "--workers", "3"],
      undefined,
      spawnTimeout
    )
    expect(alone.code).toBe(0)
    expect(spread.code).toBe(0)
    expect(spread.stdout.replaceAll(temp.path("t3"), temp.path("t1"))).toBe(alone.stdout)
    const names = readdirSync(temp.path("t1")).sort()
    expect(readdirSync(temp.path("t3")).sort()).toEqual(names)
    expect(names.length).toBeGreaterThan(20)
    // A plan session's id is new each run: the traces are the same but for it.
    const ids = (text: string) => text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
    for (const name of names) {
      expect(ids(readFileSync(temp.path(`t3/${name}`), "utf8"))).toBe(
        ids(readFileSync(temp.path(`t1/${name}`), "utf8"))
      )
    }
  })

  it("--workers 0, -1: exit 2 before anything runs; not a number: exit 2 with the usage", SPAWNS, () => {
    for (const bad of ["0", "-1"]) {
      const r = harness(["test", scenariosDir, "--workers", bad])
      expect(r.code).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr).toContain(`--workers must be a whole number of at least 1, got ${bad}; nothing was run`)
    }
    expect(harness(["test", scenariosDir, "--workers", "many"]).code).toBe(2)
  })
})

describe("TestWorkers", () => {
  it("how many runners: as asked, else every core from the threshold on, never more than files", () => {
    expect(TestWorkers.workersFor(50, undefined, 8)).toBe(1)
    expect(TestWorkers.workersFor(TestWorkers.threshold, undefined, 8)).toBe(8)
    expect(TestWorkers.workersFor(TestWorkers.threshold, undefined, TestWorkers.minCores)).toBe(TestWorkers.minCores)
    expect(TestWorkers.workersFor(TestWorkers.threshold, undefined, 2)).toBe(1)
    expect(TestWorkers.workersFor(TestWorkers.threshold, 2, 2)).toBe(2)
    expect(TestWorkers.workersFor(50, 4, 8)).toBe(4)
    expect(TestWorkers.workersFor(3, 4, 8)).toBe(3)
    expect(TestWorkers.workersFor(50, 1, 8)).toBe(1)
  })

  const files = readdirSync(join(scenariosDir, "en"))
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => join(scenariosDir, "en", name))
  const alone = (jobs: ReadonlyArray<TestWorkers.Job>) =>
    Effect.runPromise(ScenarioCommands.runFiles(jobs, Variant.fixed).pipe(Effect.provide(ScenarioServices.layer)))
  const spread = (jobs: ReadonlyArray<TestWorkers.Job>, at: URL = TestWorkers.entry) =>
    Effect.runPromise(
      TestWorkers.run(jobs, 3, "fixed", (some) => ScenarioCommands.runFiles(some, Variant.fixed), {
        at,
        here: false
      }).pipe(Effect.provide(ScenarioServices.layer))
    )

  it(
    "threads give what this process gives: every shipped scenario and a mixed folder, traced or not",
    SPAWNS,
    async () => {
      const all = [...jsonFilesUnder(scenariosDir), ...jsonFilesUnder(mixed())]
      expect(all.length).toBeGreaterThan(35)
      const plain = all.map((file) => ({ file }))
      const ran = await spread(plain)
      expect(ran.unavailable).toBeUndefined()
      expect(ran.results).toEqual(await alone(plain))
      const traced = (folder: string) => all.map((file, i) => ({ file, trace: temp.path(`${folder}/${i}.jsonl`) }))
      temp.write("here/.keep", "")
      temp.write("there/.keep", "")
      const here = await alone(traced("here"))
      const there = await spread(traced("there"))
      expect(JSON.stringify(there.results).replaceAll(temp.path("there"), temp.path("here"))).toBe(JSON.stringify(here))
    }
  )

  it(
    "a thread that crashes while running a file: that file is an error naming why, the others run",
    SPAWNS,
    async () => {
      const crash = temp.write("crash/crash.json", salmorejo())
      const jobs = [...files.slice(0, 4), crash, ...files.slice(4)].map((file) => ({ file }))
      const ran = await spread(jobs, new URL("./fixtures/crashing-worker.ts", import.meta.url))
      const expected = await alone(jobs.filter((job) => job.file !== crash))
      const crashed = ran.results[4]
      assert.isDefined(crashed)
      if (crashed === undefined || "fatal" in crashed) throw new Error("no entry for crash.json")
      assert.isTrue(Result.isFailure(crashed.entry))
      if (Result.isFailure(crashed.entry)) {
        expect(crashed.entry.failure.message).toBe(
          `${crash}: (root): not run to its end: the worker thread running it stopped (it exited with code 3)`
        )
      }
      expect(ran.results.filter((_, i) => i !== 4)).toEqual(expected)
    }
  )

  it("threads that cannot start (an entry point that does not exist): every file runs here", SPAWNS, async () => {
    const jobs = files.map((file) => ({ file }))
    const missing = new URL("./fixtures/no-such-worker.ts", import.meta.url)
    const ran = await spread(jobs, missing)
    expect(ran.results).toEqual(await alone(jobs))
    expect(ran.unavailable).toContain(fileURLToPath(missing))
  })

  it(
    "runFiles keeps what it would have written on stderr, and a fatal --traces file as its lines and code",
    SPAWNS,
    async () => {
      const file = temp.write("self/s.json", salmorejo())
      const [fatal] = await alone([{ file, trace: file }])
      expect(fatal).toEqual({
        fatal: [`--traces ${file}: it is the scenario (${file}), which it would overwrite; nothing was run or written`],
        code: 2
      })
    }
  )
})
