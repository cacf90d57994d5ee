/**
 * `harness test` on every core: the files run across worker threads (`node:worker_threads`) and
 * this process, scheduled by the scenario package's `Parallel`, each thread running a file exactly
 * as this process would (`ScenarioCommands.runFiles`, over `ScenarioServices`), so the report is
 * the same, line for line and in the same order, with or without them. This process runs files
 * from the start, while the threads load. A thread that stops while running a file (it threw, it
 * exited) gets that file reported as an error (exit 2), and the files it had not started run
 * elsewhere; when threads cannot start at all (a platform without them, an entry point that does
 * not load), this process runs them all.
 *
 * What the machine has bounds the threads: never more runners than cores
 * (`os.availableParallelism()`; a `--workers` above it is lowered, saying so on stderr), and each
 * thread has a heap limit (`resourceLimits`, `memoryLimitMb`, `HARNESS_WORKER_MEMORY_MB`), so a
 * file that makes its thread run out of memory kills that thread alone: the file is reported as
 * failed ("the worker running FILE ran out of memory", exit 1) and the others run on.
 *
 * The thread's entry point is `TestWorker.ts` next to this module when it runs from the sources
 * (Node's type stripping, Deno), and `TestWorker.js` next to the chunk holding it in the built CLI
 * (`build.ts` bundles it as an entry of its own).
 *
 * @since 0.1.0
 */
import { availableParallelism, totalmem } from "node:os"
import process from "node:process"
import type { ResourceLimits } from "node:worker_threads"
import { Parallel, ScenarioFile, Suite, Verdict } from "@agent-harness/scenario"
import { Console, Effect, type FileSystem, Queue, Result } from "effect"
import type { FileRun } from "../engine/Local.ts"

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
 * with at least `minCores` cores, else 1. Never more than files; `run` then lowers an asked
 * number above the machine's cores to them.
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

/**
 * The environment variable that sets each thread's heap limit in MB (V8's old generation,
 * `resourceLimits.maxOldGenerationSizeMb`); unset, `memoryLimitMb` decides.
 *
 * @since 0.1.0
 */
export const memoryVariable = "HARNESS_WORKER_MEMORY_MB"

/**
 * The fewest MB `HARNESS_WORKER_MEMORY_MB` may give a thread: below it a thread cannot load the
 * harness at all.
 *
 * @since 0.1.0
 */
export const minMemoryMb = 64

/**
 * A thread's default heap limit in MB: its share of half the machine's memory (every core may
 * run one), at most 2048 and at least 256. On a 24 GB 2-core machine that is 2048: two threads
 * stay under 4 GB, and a scenario file (at most 64 MiB) needs far less to run.
 *
 * @since 0.1.0
 */
export const memoryLimitMb = (total: number = totalmem(), cores: number = availableParallelism()): number =>
  Math.max(256, Math.min(2048, Math.floor(total / (1024 * 1024) / (2 * Math.max(1, cores)))))

/**
 * The heap limit `HARNESS_WORKER_MEMORY_MB` sets (whole MB, at least `minMemoryMb`), or why the
 * value is not one; unset or empty: `memoryLimitMb()`.
 *
 * @since 0.1.0
 */
export const memoryFrom = (value: string | undefined): Result.Result<number, string> => {
  if (value === undefined || value.trim() === "") return Result.succeed(memoryLimitMb())
  const mb = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN
  return Number.isSafeInteger(mb) && mb >= minMemoryMb
    ? Result.succeed(mb)
    : Result.fail(
        `${memoryVariable} must be a whole number of MB, at least ${minMemoryMb}, got ${JSON.stringify(value)}`
      )
}

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
 * What a file whose thread ran out of memory while running it is reported as: a failed verdict
 * (exit 1), named by the file (its scenario was not read to its end), whose one failure says
 * "the worker running FILE ran out of memory" and the limit it had: the run goes on.
 *
 * @since 0.1.0
 */
export const outOfMemory = (job: Job, limitMb: number, variant: string): FileRun => {
  const seen = `the worker running ${job.file} ran out of memory (its heap limit: ${limitMb} MB; ${memoryVariable} sets it); the other files ran on`
  return {
    entry: Result.succeed(
      Verdict.make(
        { name: job.file, kind: "unknown", reserved: false },
        job.file,
        variant,
        { status: "failed", reason: "out_of_memory", executed: [], revisions: [], steps: 0, replans: 0, files: {} },
        [{ kind: "status", expected: "the scenario run to its end", seen, message: seen }]
      )
    ),
    trace: undefined,
    said: []
  }
}

/**
 * The reason a thread that ran out of memory stops with, carrying its limit: `lost` tells it
 * from other stops by it.
 */
const outOfMemoryReason = (limitMb: number): string => `it ran out of memory (${limitMb} MB)`

/**
 * What a file whose thread stopped while running it is reported as: an error naming why (exit 2),
 * or, when the thread ran out of memory, a failed verdict saying so (`outOfMemory`, exit 1).
 *
 * @since 0.1.0
 */
export const lost = (job: Job, reason: string, variant = ""): FileRun => {
  const limit = /^it ran out of memory \((\d+) MB\)$/.exec(reason)?.[1]
  return limit === undefined ? stopped(job, reason) : outOfMemory(job, Number(limit), variant)
}

const stopped = (job: Job, reason: string): FileRun => ({
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

/** Whether a thread's error is Node's "reached its memory limit" (`ERR_WORKER_OUT_OF_MEMORY`). */
const isOutOfMemory = (error: unknown): boolean => {
  try {
    return (
      typeof error === "object" && error !== null && (error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY"
    )
  } catch {
    return false
  }
}

/** Starts threads on `entry`, each told the variant's name, each within `limits`. */
const spawner =
  (threads: Threads, at: URL, variant: string, limits: ResourceLimits): Parallel.Spawn<Job> =>
  (listener) => {
    const worker = new threads.Worker(at, { workerData: { variant }, resourceLimits: limits })
    let threw: string | undefined
    worker.on("message", listener.message)
    worker.on("error", (error: unknown) => {
      threw = isOutOfMemory(error)
        ? outOfMemoryReason(limits.maxOldGenerationSizeMb ?? 0)
        : `it threw: ${message(error)}`
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
 * How `run` starts its threads; every field is optional.
 *
 * @since 0.1.0
 */
export interface RunOptions {
  /** The threads' entry point (default: the CLI's `entry`). */
  readonly at?: URL | undefined
  /** Whether this process runs files too (default `true`; `Parallel.Options.here`). */
  readonly here?: boolean | undefined
  /** The machine's cores, the most runners there may be (default `os.availableParallelism()`). */
  readonly cores?: number | undefined
  /**
   * Each thread's `resourceLimits` (default: a heap of `HARNESS_WORKER_MEMORY_MB`, else
   * `memoryLimitMb()`, MB of old generation; V8's defaults for the rest).
   */
  readonly limits?: ResourceLimits | undefined
}

/**
 * Runs the files on `workers` runners: this process (`local`, a few files at a time, as
 * `runFiles` runs them) and `workers - 1` threads started on `options.at` (the CLI's `entry` by
 * default). Never more runners than the machine's cores: a larger `workers` is lowered to them,
 * saying so on stderr. Each thread runs within `options.limits`, so one that runs out of memory
 * stops alone and its file is reported as failed (`outOfMemory`). The results in the files'
 * order, and why threads could not start when none did. `options.here: false` keeps this process
 * out unless no thread is left (`Parallel.Options.here`).
 *
 * @since 0.1.0
 */
export const run = <R>(
  jobs: ReadonlyArray<Job>,
  workers: number,
  variant: string,
  local: (jobs: ReadonlyArray<Job>) => Effect.Effect<ReadonlyArray<FileRun>, never, R>,
  options: RunOptions = {}
): Effect.Effect<Parallel.Ran<FileRun>, never, R> =>
  Effect.gen(function* () {
    const cores = Math.max(1, Math.floor(options.cores ?? availableParallelism()))
    if (workers > cores) {
      yield* Console.error(
        `harness test: --workers would start ${workers} runners, more than the ${cores} ${cores === 1 ? "core" : "cores"} this machine has (os.availableParallelism()); the files run on ${cores}`
      )
    }
    const runners = Math.min(workers, cores)
    if (runners <= 1) return { results: yield* local(jobs) }
    let limits = options.limits
    if (limits === undefined) {
      const memory = memoryFrom(process.env[memoryVariable])
      if (Result.isFailure(memory)) {
        yield* Console.error(`harness test: ${memory.failure}; each thread gets ${memoryLimitMb()} MB`)
      }
      limits = { maxOldGenerationSizeMb: Result.getOrElse(memory, () => memoryLimitMb()) }
    }
    const threads = yield* Effect.result(Effect.tryPromise(() => import("node:worker_threads")))
    if (Result.isFailure(threads)) {
      return { results: yield* local(jobs), unavailable: `node:worker_threads: ${message(threads.failure.cause)}` }
    }
    return yield* Parallel.run(jobs, {
      workers: runners - 1,
      spawn: spawner(threads.success, options.at ?? entry, variant, limits),
      decode: fromWire,
      lost: (job, reason) => lost(job, reason, variant),
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
