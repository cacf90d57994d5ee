/**
 * `harness test` on every core: the files run across worker threads (`node:worker_threads`) and
 * this process, scheduled by the scenario package's `Parallel`, each thread running a file exactly
 * as this process would (`ScenarioCommands.runFiles`, over `ScenarioServices`), so the report is
 * the same, line for line and in the same order, with or without them. This process runs files
 * from the start, while the threads load. A thread that stops while running a file (it threw, it
 * ran out of memory, it exited) gets that file reported as an error (exit 2), and the files it had
 * not started run elsewhere; when threads cannot start at all (a platform without them, an entry
 * point that does not load), this process runs them all.
 *
 * The thread's entry point is `TestWorker.ts` next to this module when it runs from the sources
 * (Node's type stripping, Deno), and `TestWorker.js` next to the chunk holding it in the built CLI
 * (`build.ts` bundles it as an entry of its own).
 *
 * @since 0.1.0
 */
import { availableParallelism } from "node:os"
import { Parallel, ScenarioFile, Suite } from "@agent-harness/scenario"
import { Effect, type FileSystem, Queue, Result } from "effect"
import type { FileRun } from "./ScenarioCommands.ts"

/**
 * One file for a thread: its path, and where to record its trace (`--traces`).
 *
 * @since 0.1.0
 */
export interface Job {
  readonly file: string
  readonly trace?: string | undefined
}

/**
 * Below this many files, `harness test` runs them in its own process unless `--workers` asks
 * otherwise: starting threads (each loads the harness again) costs more than they save.
 *
 * @since 0.1.0
 */
export const threshold = 1000

/**
 * The fewest cores on which `harness test` starts threads unless `--workers` asks: on 2 cores
 * (bench row 12) a second thread made 10,000 scenarios slower, not faster — it loads and warms
 * up its own copy of the harness (about 0.7 s) and the two contend for the cores' caches.
 *
 * @since 0.1.0
 */
export const minCores = 4

/**
 * How many runners, this process included, run `count` files: as many as asked (`--workers N`;
 * 1 is this process alone), else one per core once there are `threshold` files on a machine
 * with at least `minCores` cores, else 1. Never more than files.
 *
 * @since 0.1.0
 */
export const workersFor = (count: number, asked: number | undefined, cores: number = availableParallelism()): number =>
  Math.max(1, Math.min(count, asked ?? (count >= threshold && cores >= minCores ? cores : 1)))

/**
 * The thread's entry point: the sources' `TestWorker.ts`, or the built CLI's `TestWorker.js`.
 *
 * @since 0.1.0
 */
export const entry: URL = new URL(
  import.meta.url.endsWith(".ts") ? "./TestWorker.ts" : "./TestWorker.js",
  import.meta.url
)

/** A `FileRun` as a thread sends it: the entry as plain data. */
type Wire =
  | { readonly entry: Suite.WireEntry; readonly trace?: string; readonly said: ReadonlyArray<string> }
  | { readonly fatal: ReadonlyArray<string>; readonly code: 1 | 2 }

const toWire = (run: FileRun): Wire =>
  "fatal" in run
    ? run
    : { entry: Suite.toWire(run.entry), ...(run.trace === undefined ? {} : { trace: run.trace }), said: run.said }

const isStrings = (u: unknown): u is ReadonlyArray<string> => Array.isArray(u) && u.every((s) => typeof s === "string")

/**
 * A thread's answer back as a `FileRun`, or `undefined` when it is not one.
 *
 * @since 0.1.0
 */
export const fromWire = (u: unknown): FileRun | undefined => {
  if (typeof u !== "object" || u === null) return undefined
  const wire = u as Readonly<Record<string, unknown>>
  if (isStrings(wire.fatal))
    return wire.code === 1 || wire.code === 2 ? { fatal: wire.fatal, code: wire.code } : undefined
  const entry = Suite.fromWire(wire.entry)
  if (entry === undefined || !isStrings(wire.said) || (wire.trace !== undefined && typeof wire.trace !== "string")) {
    return undefined
  }
  return { entry, trace: wire.trace, said: wire.said }
}

/**
 * What a file whose thread stopped while running it is reported as: an error naming why (exit 2).
 *
 * @since 0.1.0
 */
export const lost = (job: Job, reason: string): FileRun => ({
  entry: Result.fail(
    new ScenarioFile.InvalidScenario({
      file: job.file,
      path: "(root)",
      problem: `not run to its end: the worker thread running it stopped (${reason})`
    })
  ),
  trace: undefined,
  said: []
})

/**
 * Files this process takes from the queue at once: enough for `local` to read the next ones
 * while one runs (`Suite.readAhead`), few enough to leave the threads their share.
 */
const localBatch = 2 * Suite.readAhead

/** The part of `node:worker_threads` the parent uses. */
interface Threads {
  readonly Worker: typeof import("node:worker_threads").Worker
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Starts threads on `entry`, each told the variant's name. */
const spawner =
  (threads: Threads, at: URL, variant: string): Parallel.Spawn<Job> =>
  (listener) => {
    const worker = new threads.Worker(at, { workerData: { variant } })
    let threw: string | undefined
    worker.on("message", listener.message)
    worker.on("error", (error: unknown) => {
      threw = `it threw: ${message(error)}`
    })
    worker.on("messageerror", (error: unknown) =>
      listener.exit(`a message from it could not be read: ${message(error)}`)
    )
    worker.on("exit", (code: number) => listener.exit(threw ?? `it exited with code ${code}`))
    return {
      post: (work) => worker.postMessage(work),
      terminate: () => void worker.terminate()
    }
  }

/**
 * Runs the files on `workers` runners: this process (`local`, a few files at a time, as
 * `runFiles` runs them) and `workers - 1` threads started on `options.at` (the CLI's `entry` by default). The results in
 * the files' order, and why threads could not start when none did. `options.here: false` keeps
 * this process out unless no thread is left (`Parallel.Options.here`).
 *
 * @since 0.1.0
 */
export const run = <R>(
  jobs: ReadonlyArray<Job>,
  workers: number,
  variant: string,
  local: (jobs: ReadonlyArray<Job>) => Effect.Effect<ReadonlyArray<FileRun>, never, R>,
  options: { readonly at?: URL | undefined; readonly here?: boolean | undefined } = {}
): Effect.Effect<Parallel.Ran<FileRun>, never, R> =>
  Effect.gen(function* () {
    if (workers <= 1) return { results: yield* local(jobs) }
    const threads = yield* Effect.result(Effect.tryPromise(() => import("node:worker_threads")))
    if (Result.isFailure(threads)) {
      return { results: yield* local(jobs), unavailable: `node:worker_threads: ${message(threads.failure.cause)}` }
    }
    return yield* Parallel.run(jobs, {
      workers: workers - 1,
      spawn: spawner(threads.success, options.at ?? entry, variant),
      decode: fromWire,
      lost,
      local,
      localBatch,
      here: options.here
    })
  })

/**
 * The thread's side of the channel: `on("message")` and `postMessage`, as `parentPort` has them.
 *
 * @since 0.1.0
 */
export interface Port {
  readonly on: (event: "message", listener: (message: unknown) => void) => unknown
  readonly postMessage: (message: unknown) => void
}

/** A batch of jobs as the parent sends it, or `undefined` when the message is not one. */
const workOf = (u: unknown): ReadonlyArray<Parallel.Work<Job>> | undefined => {
  if (!Array.isArray(u)) return undefined
  const work: Array<Parallel.Work<Job>> = []
  for (const item of u as ReadonlyArray<unknown>) {
    if (typeof item !== "object" || item === null) return undefined
    const { index, job } = item as { readonly index?: unknown; readonly job?: unknown }
    if (typeof index !== "number" || typeof job !== "object" || job === null) return undefined
    const { file, trace } = job as { readonly file?: unknown; readonly trace?: unknown }
    if (typeof file !== "string" || (trace !== undefined && typeof trace !== "string")) return undefined
    work.push({ index, job: trace === undefined ? { file } : { file, trace } })
  }
  return work
}

/** Sends an answer; one a message cannot carry as it is goes as its JSON form. */
const send = (port: Port, answer: { readonly type: "done"; readonly index: number; readonly result: Wire }) => {
  try {
    port.postMessage(answer)
  } catch {
    port.postMessage(JSON.parse(JSON.stringify(answer)))
  }
}

/**
 * A thread's work: says it is ready, then runs each batch of jobs the parent sends, in order,
 * answering each as it finishes it. Runs until the parent stops the thread; a message that is not
 * a batch ends it with a defect (the parent then reports the file it was on).
 *
 * @since 0.1.0
 */
export const serve = (
  port: Port,
  runFiles: (
    jobs: ReadonlyArray<Job>,
    each: (run: FileRun, index: number) => Effect.Effect<void>
  ) => Effect.Effect<ReadonlyArray<FileRun>, never, FileSystem.FileSystem>
): Effect.Effect<never, never, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const inbox = yield* Queue.unbounded<unknown>()
    port.on("message", (message) => {
      Queue.offerUnsafe(inbox, message)
    })
    port.postMessage({ type: "ready" })
    while (true) {
      const received = yield* Queue.take(inbox)
      const work = workOf(received)
      if (work === undefined) return yield* Effect.die(new Error("harness test worker: a message that is not a batch"))
      yield* runFiles(
        work.map((w) => w.job),
        (run, n) =>
          Effect.sync(() =>
            send(port, { type: "done", index: (work[n] as Parallel.Work<Job>).index, result: toWire(run) })
          )
      )
    }
  })
