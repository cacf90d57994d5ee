/**
 * The scheduler that runs a suite across workers and this process, with fake workers that answer,
 * crash, talk nonsense or never start on cue: results come back in the jobs' order, a job whose
 * worker stopped while running it is reported lost (and only that one), the jobs it had not
 * started run elsewhere, nothing waits for a worker that is gone, and when no worker starts the
 * jobs run here. Most cases keep this process out (`here: false`) so that which runner takes which
 * job is fixed.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import fc from "fast-check"
import { Parallel } from "../src/index.ts"

type Result = { readonly by: string; readonly value: string } | { readonly lost: string; readonly reason: string }

/** How a fake worker treats a job: answers it, crashes on it, or answers nonsense. */
type Behaviour = "answer" | "crash" | "nonsense"

interface Fleet {
  readonly spawn: Parallel.Spawn<string>
  /** Every job a worker ran to its answer, by worker. */
  readonly ran: Array<string>
  readonly started: () => number
  readonly alive: () => number
}

/**
 * Fake workers: each answers after a macrotask; `behaviour(job, worker)` decides, `boot(worker)`
 * whether it starts at all (`"fail"`: it stops before saying it is ready).
 */
const fleet = (
  behaviour: (job: string, worker: number) => Behaviour = () => "answer",
  boot: (worker: number) => "ok" | "fail" | "throw" = () => "ok"
): Fleet => {
  const ran: Array<string> = []
  let started = 0
  let alive = 0
  const spawn: Parallel.Spawn<string> = (listener) => {
    const id = started++
    const how = boot(id)
    if (how === "throw") throw new Error("no threads here")
    alive++
    let dead = false
    const die = (reason: string) => {
      if (dead) return
      dead = true
      alive--
      listener.exit(reason)
    }
    setTimeout(() => (how === "fail" ? die("the entry point failed to load") : listener.message({ type: "ready" })))
    return {
      post: (work) => {
        let at = 0
        const next = () => {
          if (dead) return
          const item = work[at++]
          if (item === undefined) return
          const what = behaviour(item.job, id)
          if (what === "crash") return die(`worker ${id} crashed on ${item.job}`)
          if (what === "nonsense") return listener.message({ type: "done", index: item.index + 1000 })
          ran.push(item.job)
          listener.message({ type: "done", index: item.index, result: { by: `w${id}`, value: item.job } })
          setTimeout(next)
        }
        setTimeout(next)
      },
      terminate: () => {
        if (!dead) {
          dead = true
          alive--
          setTimeout(() => listener.exit("terminated"))
        }
      }
    }
  }
  return { spawn, ran, started: () => started, alive: () => alive }
}

const jobs = (n: number): ReadonlyArray<string> => Array.from({ length: n }, (_, i) => `j${i}`)

const decode = (u: unknown): Result | undefined => {
  if (typeof u !== "object" || u === null) return undefined
  const r = u as { readonly by?: unknown; readonly value?: unknown }
  return typeof r.by === "string" && typeof r.value === "string" ? { by: r.by, value: r.value } : undefined
}

/** A macrotask later, as a real job here would take. */
const later = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve)))

const options = (
  f: Fleet,
  workers: number,
  batch?: number,
  here = false,
  localBatch?: number
): Parallel.Options<string, Result, never, never> => ({
  workers,
  spawn: f.spawn,
  decode,
  lost: (job, reason) => ({ lost: job, reason }),
  local: (left) =>
    Effect.as(
      later,
      left.map((job) => ({ by: "here", value: job }))
    ),
  batch,
  localBatch,
  here
})

const jobOf = (r: Result): string => ("lost" in r ? r.lost : r.value)

describe("Parallel.run", () => {
  it.effect("every job answered once, the results in the jobs' order, the workers let go at the end", () =>
    Effect.gen(function* () {
      const f = fleet()
      const ran = yield* Parallel.run(jobs(100), options(f, 3, 4))
      expect(ran.results.map(jobOf)).toEqual(jobs(100))
      expect(ran.unavailable).toBeUndefined()
      expect([...f.ran].sort()).toEqual([...jobs(100)].sort())
      expect(new Set(ran.results.map((r) => ("by" in r ? r.by : ""))).size).toBe(3)
      expect(f.alive()).toBe(0)
    })
  )

  it.effect("a worker that crashes loses the job it was running, only that one; a new worker takes the rest", () =>
    Effect.gen(function* () {
      const f = fleet((job) => (job === "j7" ? "crash" : "answer"))
      const ran = yield* Parallel.run(jobs(30), options(f, 2, 5))
      expect(ran.results.map(jobOf)).toEqual(jobs(30))
      const lost = ran.results.filter((r) => "lost" in r)
      expect(lost).toEqual([{ lost: "j7", reason: expect.stringMatching(/^worker \d crashed on j7$/) }])
      expect([...f.ran].sort()).toEqual(
        jobs(30)
          .filter((j) => j !== "j7")
          .sort()
      )
      expect(f.started()).toBe(3)
      expect(f.alive()).toBe(0)
    })
  )

  it.effect("a worker that answers nonsense is stopped like one that crashed, the reason naming what it sent", () =>
    Effect.gen(function* () {
      const f = fleet((job) => (job === "j3" ? "nonsense" : "answer"))
      const ran = yield* Parallel.run(jobs(10), options(f, 2, 2))
      const lost = ran.results.filter((r) => "lost" in r)
      expect(lost).toEqual([
        {
          lost: "j3",
          reason: `it sent something that is not an answer to its jobs: {"type":"done","index":1003}`
        }
      ])
      expect(ran.results.map(jobOf)).toEqual(jobs(10))
    })
  )

  it.effect("when every job crashes its worker, each is reported once and the run still ends", () =>
    Effect.gen(function* () {
      const f = fleet(() => "crash")
      const ran = yield* Parallel.run(jobs(12), options(f, 3, 4))
      expect(ran.results.map((r) => ("lost" in r ? r.lost : "answered"))).toEqual(jobs(12))
      expect(f.alive()).toBe(0)
    })
  )

  it.effect("no worker starts (they fail to load, or cannot be made): the jobs run here, and the reason is given", () =>
    Effect.gen(function* () {
      for (const here of [false, true]) {
        for (const boot of ["fail", "throw"] as const) {
          const f = fleet(undefined, () => boot)
          const ran = yield* Parallel.run(jobs(9), options(f, 3, undefined, here))
          expect(ran.results).toEqual(jobs(9).map((value) => ({ by: "here", value })))
          expect(ran.unavailable).toBe(
            boot === "fail" ? "the entry point failed to load" : "it could not be started (no threads here)"
          )
        }
      }
    })
  )

  it.effect("this process takes jobs too, from the start: with workers slow to start, it runs some itself", () =>
    Effect.gen(function* () {
      const f = fleet()
      const slow: Parallel.Spawn<string> = (listener) => {
        // Ready only after this process has had time for a few jobs.
        let delay = 0
        return f.spawn({
          message: (message) => {
            delay++
            setTimeout(() => listener.message(message), delay === 1 ? 30 : 0)
          },
          exit: listener.exit
        })
      }
      const ran = yield* Parallel.run(jobs(60), { ...options(f, 2, 2, true), spawn: slow })
      expect(ran.results.map(jobOf)).toEqual(jobs(60))
      const by = new Set(ran.results.map((r) => ("by" in r ? r.by : "lost")))
      expect(by.has("here")).toBe(true)
      expect([...by].some((b) => b.startsWith("w"))).toBe(true)
      expect(f.ran.length + ran.results.filter((r) => "by" in r && r.by === "here").length).toBe(60)
      expect(f.alive()).toBe(0)
    })
  )

  it.effect("this process takes `localBatch` jobs at a time, never more than its share of what is left", () =>
    Effect.gen(function* () {
      const f = fleet()
      const sizes: Array<number> = []
      const ran = yield* Parallel.run(jobs(50), {
        ...options(f, 1, 2, true, 8),
        local: (left) => {
          sizes.push(left.length)
          return Effect.as(
            later,
            left.map((job) => ({ by: "here", value: job }))
          )
        }
      })
      expect(ran.results.map(jobOf)).toEqual(jobs(50))
      expect(sizes.length).toBeGreaterThan(0)
      expect(Math.max(...sizes)).toBeLessThanOrEqual(8)
      // The first batch: 8 of the 50 (a fair share of 50 for two runners is 25).
      expect(sizes[0]).toBe(8)
      expect(sizes.reduce((a, b) => a + b, 0) + f.ran.length).toBe(50)
      expect(f.alive()).toBe(0)
    })
  )

  it.effect("one worker that fails to start is not blamed for anything: the others run every job", () =>
    Effect.gen(function* () {
      const f = fleet(undefined, (worker) => (worker === 0 ? "fail" : "ok"))
      const ran = yield* Parallel.run(jobs(20), options(f, 3, 2))
      expect(ran.results.map(jobOf)).toEqual(jobs(20))
      expect(ran.results.every((r) => "by" in r && r.by !== "w0" && r.by !== "here")).toBe(true)
      expect(ran.unavailable).toBeUndefined()
    })
  )

  it.effect("no jobs, no workers; never more workers than jobs besides this process", () =>
    Effect.gen(function* () {
      const none = fleet()
      expect((yield* Parallel.run([], options(none, 4))).results).toEqual([])
      expect(none.started()).toBe(0)
      const three = fleet()
      yield* Parallel.run(jobs(3), options(three, 8, undefined, true))
      expect(three.started()).toBe(2)
      const alone = fleet()
      expect((yield* Parallel.run(jobs(3), options(alone, 0))).results.map(jobOf)).toEqual(jobs(3))
      expect(alone.started()).toBe(0)
    })
  )

  it.effect("interrupting the run stops every worker", () =>
    Effect.gen(function* () {
      const f = fleet()
      const hang: Parallel.Spawn<string> = (listener) => {
        const handle = f.spawn(listener)
        // Ready, but never answers a job.
        return { post: () => undefined, terminate: handle.terminate }
      }
      const fiber = yield* Effect.forkChild(Parallel.run(jobs(5), { ...options(f, 2), spawn: hang }))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      assert.strictEqual(f.alive(), 2)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(f.alive(), 0)
    })
  )

  it("on random crashes: every job exactly once, in order, lost only where its worker crashed on it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.nat({ max: 39 }), { maxLength: 6 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 6 }),
        async (n, workers, batch, crashing, here, localBatch) => {
          const crashOn = new Set(crashing.map((i) => `j${i}`))
          const f = fleet((job) => (crashOn.has(job) ? "crash" : "answer"))
          const ran = await Effect.runPromise(Parallel.run(jobs(n), options(f, workers, batch, here, localBatch)))
          expect(ran.results.map(jobOf)).toEqual(jobs(n))
          for (const r of ran.results) {
            // Lost exactly where a worker crashed on it; a crashing job this process ran is answered.
            if ("lost" in r) expect(crashOn.has(r.lost)).toBe(true)
            else if (crashOn.has(r.value)) expect(r.by).toBe("here")
          }
          const byWorkers = ran.results.filter((r) => "by" in r && r.by !== "here").length
          expect(f.ran.length).toBe(byWorkers)
          expect(f.alive()).toBe(0)
        }
      ),
      { numRuns: 150 }
    )
  })
})
