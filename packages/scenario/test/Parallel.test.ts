/**
 * The scheduler that runs a suite across workers, with fake workers that answer, crash, talk
 * nonsense or never start on cue: results come back in the jobs' order, a job whose worker
 * stopped while running it is reported lost (and only that one), the jobs it had not started run
 * elsewhere, nothing waits for a worker that is gone, and when no worker starts the jobs run here.
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

const options = (f: Fleet, workers: number, batch?: number): Parallel.Options<string, Result, never, never> => ({
  workers,
  spawn: f.spawn,
  decode,
  lost: (job, reason) => ({ lost: job, reason }),
  local: (left) => Effect.succeed(left.map((job) => ({ by: "here", value: job }))),
  batch
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
      for (const boot of ["fail", "throw"] as const) {
        const f = fleet(undefined, () => boot)
        const ran = yield* Parallel.run(jobs(9), options(f, 3))
        expect(ran.results).toEqual(jobs(9).map((value) => ({ by: "here", value })))
        expect(ran.unavailable).toBe(
          boot === "fail" ? "the entry point failed to load" : "it could not be started (no threads here)"
        )
      }
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

  it.effect("no jobs, no workers; never more workers than jobs", () =>
    Effect.gen(function* () {
      const none = fleet()
      expect((yield* Parallel.run([], options(none, 4))).results).toEqual([])
      expect(none.started()).toBe(0)
      const two = fleet()
      yield* Parallel.run(jobs(2), options(two, 8))
      expect(two.started()).toBe(2)
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
        async (n, workers, batch, crashing) => {
          const crashOn = new Set(crashing.map((i) => `j${i}`))
          const f = fleet((job) => (crashOn.has(job) ? "crash" : "answer"))
          const ran = await Effect.runPromise(Parallel.run(jobs(n), options(f, workers, batch)))
          expect(ran.results.map(jobOf)).toEqual(jobs(n))
          for (const r of ran.results) expect("lost" in r).toBe(crashOn.has(jobOf(r)))
          expect(f.ran.length).toBe(ran.results.filter((r) => "by" in r).length)
          expect(f.alive()).toBe(0)
        }
      ),
      { numRuns: 150 }
    )
  })
})
