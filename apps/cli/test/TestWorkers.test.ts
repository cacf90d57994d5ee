/**
 * `harness test` on every core: with worker threads the report is the same as in one process,
 * line for line, in order, with the same exit code (text, `--json`, `--traces` and the traces
 * themselves); a thread that crashes while running a file gets that file reported as an error and
 * no other lost; a thread that runs out of memory gets its file reported as failed, naming it, and
 * the others run on; threads that cannot start leave every file to this process; a bad `--workers`
 * exits 2 before anything runs; never more runners than cores.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Report, Variant } from "@agent-harness/scenario"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as ScenarioCommands from "../src/engine/Local.ts"
import * as ScenarioServices from "../src/scenarios/ScenarioServices.ts"
import * as TestWorkers from "../src/workers/TestWorkers.ts"
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

/** The stderr line of a `--workers` above the machine's cores, which a run on fewer cores adds. */
const lowered = /^harness test: --workers would start \d+ runners, more than the \d+ cores? .*\n/m

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
        expect(spread.stderr.replace(lowered, "")).toBe(alone.stderr)
      }
    }
  })

  it("--workers 200 runs on the machine's cores, saying so on stderr: the same report", SPAWNS, () => {
    const alone = harness(["test", scenariosDir, "--workers", "1"], undefined, spawnTimeout)
    const many = harness(["test", scenariosDir, "--workers", "200"], undefined, spawnTimeout)
    expect(many.code).toBe(alone.code)
    expect(many.stdout).toBe(alone.stdout)
    const cores = availableParallelism()
    const files = jsonFilesUnder(scenariosDir).length
    expect(files).toBeGreaterThan(cores)
    expect(many.stderr).toContain(
      `harness test: --workers would start ${files} runners, more than the ${cores} ${cores === 1 ? "core" : "cores"} this machine has (os.availableParallelism()); the files run on ${cores}\n`
    )
    expect(many.stderr.replace(lowered, "")).toBe(alone.stderr)
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

  it("--workers 0, -1: exit 2 before anything runs; not a number: exit 2 naming the flag", SPAWNS, () => {
    for (const bad of ["0", "-1"]) {
      const r = harness(["test", scenariosDir, "--workers", bad])
      expect(r.code).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr).toContain(`--workers must be a whole number of at least 1, got ${bad}; nothing was run`)
    }
    for (const bad of ["many", "2.5", ""]) {
      const r = harness(["test", scenariosDir, "--workers", bad])
      expect(r.code).toBe(2)
      expect(r.stdout).not.toMatch(/^(PASS|FAIL) /m)
      expect(r.stdout + r.stderr).toContain("value for flag --workers")
    }
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

  it("each thread's heap limit: a share of half the memory, 256 to 2048 MB; HARNESS_WORKER_MEMORY_MB sets it", () => {
    const GB = 1024 * 1024 * 1024
    expect(TestWorkers.memoryLimitMb(24 * GB, 2)).toBe(2048)
    expect(TestWorkers.memoryLimitMb(8 * GB, 4)).toBe(1024)
    expect(TestWorkers.memoryLimitMb(1 * GB, 16)).toBe(256)
    expect(TestWorkers.memoryLimitMb(256 * GB, 0)).toBe(2048)
    expect(TestWorkers.memoryFrom("512")).toEqual(Result.succeed(512))
    expect(TestWorkers.memoryFrom(undefined)).toEqual(Result.succeed(TestWorkers.memoryLimitMb()))
    expect(TestWorkers.memoryFrom("")).toEqual(Result.succeed(TestWorkers.memoryLimitMb()))
    for (const bad of ["lots", "12", "-512", "1.5", "1e9", "99999999999999999999"]) {
      expect(TestWorkers.memoryFrom(bad)).toEqual(
        Result.fail(`HARNESS_WORKER_MEMORY_MB must be a whole number of MB, at least 64, got ${JSON.stringify(bad)}`)
      )
    }
  })

  const files = readdirSync(join(scenariosDir, "en"))
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => join(scenariosDir, "en", name))
  const alone = (jobs: ReadonlyArray<TestWorkers.Job>) =>
    Effect.runPromise(ScenarioCommands.runFiles(jobs, Variant.fixed).pipe(Effect.provide(ScenarioServices.layer)))
  const spread = (
    jobs: ReadonlyArray<TestWorkers.Job>,
    at: URL = TestWorkers.entry,
    more: Omit<TestWorkers.RunOptions, "at"> = {}
  ) =>
    Effect.runPromise(
      TestWorkers.run(jobs, 3, "fixed", (some) => ScenarioCommands.runFiles(some, Variant.fixed), {
        at,
        here: false,
        cores: 3,
        ...more
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
      expect(ran.unavailable).toBeUndefined()
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

  it(
    "a thread that runs out of memory while running a file: that file fails, naming it; the others run on",
    SPAWNS,
    async () => {
      const exhaust = temp.write("oom/exhaust.json", salmorejo())
      const jobs = [...files.slice(0, 3), exhaust, ...files.slice(3)].map((file) => ({ file }))
      const ran = await spread(jobs, new URL("./fixtures/exhausting-worker.ts", import.meta.url), {
        limits: { maxOldGenerationSizeMb: 96 }
      })
      expect(ran.unavailable).toBeUndefined()
      const expected = await alone(jobs.filter((job) => job.file !== exhaust))
      const failed = ran.results[3]
      if (failed === undefined || "fatal" in failed || Result.isFailure(failed.entry)) {
        throw new Error(`exhaust.json is not a failed verdict: ${JSON.stringify(failed)}`)
      }
      const verdict = failed.entry.success
      expect(verdict.passed).toBe(false)
      expect(verdict.file).toBe(exhaust)
      expect(verdict.variant).toBe("fixed")
      expect(verdict.failures.map((f) => f.message)).toEqual([
        `the worker running ${exhaust} ran out of memory (its heap limit: 96 MB; HARNESS_WORKER_MEMORY_MB sets it); the other files ran on`
      ])
      expect(ran.results.filter((_, i) => i !== 3)).toEqual(expected)
      // The report counts it as failed (exit 1), not as an invalid file (exit 2).
      const verdicts = ran.results.flatMap((r) => ("fatal" in r || Result.isFailure(r.entry) ? [] : [r.entry.success]))
      expect(verdicts).toHaveLength(jobs.length)
      const totals = Report.totals(verdicts, 0)
      expect(totals.failed).toBe(
        expected.filter((r) => "entry" in r && Result.isSuccess(r.entry) && !r.entry.success.passed).length + 1
      )
      expect(Report.verdict(verdict)).toContain(`FAIL ${exhaust}`)
    }
  )

  it(
    "the real thread, HARNESS_WORKER_MEMORY_MB=64 and a 16 MB scenario: that file fails, naming it; the others run as here",
    SPAWNS,
    async () => {
      const big = salmorejo()
      const contents: Record<string, string> = { ...(big.files as Record<string, string>) }
      for (let i = 0; i < 16; i++) contents[`big/${i}.txt`] = `${i}`.padEnd(1024 * 1024, "x")
      const file = temp.write("big/big.json", { ...big, name: "big", files: contents })
      const jobs = [files[0], file, files[1]].map((f) => ({ file: f as string }))
      const before = process.env[TestWorkers.memoryVariable]
      process.env[TestWorkers.memoryVariable] = "64"
      try {
        const ran = await spread(jobs)
        expect(ran.unavailable).toBeUndefined()
        const [first, failed, last] = ran.results
        if (failed === undefined || "fatal" in failed || Result.isFailure(failed.entry)) {
          throw new Error(`big.json is not a failed verdict: ${JSON.stringify(failed)}`)
        }
        expect(failed.entry.success.failures.map((f) => f.message)).toEqual([
          `the worker running ${file} ran out of memory (its heap limit: 64 MB; HARNESS_WORKER_MEMORY_MB sets it); the other files ran on`
        ])
        expect([first, last]).toEqual(await alone([jobs[0], jobs[2]] as ReadonlyArray<TestWorkers.Job>))
      } finally {
        if (before === undefined) delete process.env[TestWorkers.memoryVariable]
        else process.env[TestWorkers.memoryVariable] = before
      }
    }
  )

  it("never more runners than cores: 200 asked on 1 core start no thread at all", SPAWNS, async () => {
    const jobs = files.slice(0, 4).map((file) => ({ file }))
    const missing = new URL("./fixtures/no-such-worker.ts", import.meta.url)
    const capped = await Effect.runPromise(
      TestWorkers.run(jobs, 200, "fixed", (some) => ScenarioCommands.runFiles(some, Variant.fixed), {
        at: missing,
        cores: 1
      }).pipe(Effect.provide(ScenarioServices.layer))
    )
    // Had a thread been started on the missing entry point, `unavailable` would say so.
    expect(capped.unavailable).toBeUndefined()
    expect(capped.results).toEqual(await alone(jobs))
    const two = await spread(jobs, missing, { cores: 2 })
    expect(two.unavailable).toContain(fileURLToPath(missing))
  })

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
