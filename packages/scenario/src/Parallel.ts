/**
 * A suite's files run across workers (threads, processes: whatever `Spawn` starts) and this
 * process, with the results put back in the files' order: the same results, in the same order,
 * as a run in this process alone. This process takes jobs from the start (`Options.local`), so a
 * worker that takes long to start, or never does (no threads on this platform, an entry point
 * that fails to load), costs no more than the jobs it does not take. The scheduler hands each
 * worker a few jobs at a time and the next batch when it has answered them all, so faster
 * runners take more. A worker answers each job as it finishes it, in the order given, so when one
 * stops (it crashed, it was killed, it sent something that is not an answer), the job it was
 * running is known: that one is reported as lost (`Options.lost`, with why), the jobs it had not
 * started go back to the queue, and a new worker takes its place. Nothing is lost and nothing
 * waits for a worker that is gone.
 *
 * The module speaks no particular kind of worker: `Spawn` adapts one (the CLI's adapts
 * `node:worker_threads`), which keeps the scheduler testable with workers that crash on cue.
 *
 * @since 0.1.0
 */
import { Effect, Predicate, Queue } from "effect"

/**
 * A job as a worker gets it: its place in the list, and the job itself.
 *
 * @since 0.1.0
 */
export interface Work<J> {
  /** The job's place in the list given to `run`, from 0. */
  readonly index: number
  /** The job. */
  readonly job: J
}

/**
 * What a worker says to the scheduler: `ready` once it can take jobs (a worker that stops before
 * it is ready did not start, and is not blamed for any job), then a `done` for each job it was
 * given, in the order given, with its result.
 *
 * @since 0.1.0
 */
export type Reply =
  | { readonly type: "ready" }
  | { readonly type: "done"; readonly index: number; readonly result: unknown }

/**
 * What the scheduler hears from a worker: its messages, and that it stopped (and why).
 *
 * @since 0.1.0
 */
export interface Listener {
  /** Called with each message the worker sends (a `Reply`, or anything else). */
  readonly message: (message: unknown) => void
  /** Called once when the worker stops, with why. */
  readonly exit: (reason: string) => void
}

/**
 * A running worker: give it jobs, or stop it.
 *
 * @since 0.1.0
 */
export interface Handle<J> {
  /** Gives the worker a batch of jobs, to answer in order. */
  readonly post: (work: ReadonlyArray<Work<J>>) => void
  /** Stops the worker. */
  readonly terminate: () => void
}

/**
 * Starts a worker that tells `listener` what it says and when it stops (never synchronously
 * from within `Spawn`). May throw: such a worker did not start.
 *
 * @since 0.1.0
 */
export type Spawn<J> = (listener: Listener) => Handle<J>

/**
 * How to run jobs across workers.
 *
 * @since 0.1.0
 */
export interface Options<J, A, E, R> {
  /** How many workers run besides this process (0: this process alone; never more than jobs). */
  readonly workers: number
  /** Starts one worker. */
  readonly spawn: Spawn<J>
  /** A `done` message's result as a result, or `undefined` when it is not one (the worker is then stopped). */
  readonly decode: (result: unknown) => A | undefined
  /** The result of a job whose worker stopped while running it. */
  readonly lost: (job: J, reason: string) => A
  /** Runs jobs in this process, in order, one result per job. */
  readonly local: (jobs: ReadonlyArray<J>) => Effect.Effect<ReadonlyArray<A>, E, R>
  /** Jobs handed to a worker at once, at most (default 32; fewer near the end of the queue). */
  readonly batch?: number | undefined
  /**
   * Jobs this process takes at once (default 1), for a `local` that works ahead within a batch
   * (reads the next files while one runs): never more than a fair share of the queue left.
   */
  readonly localBatch?: number | undefined
  /**
   * Whether this process takes jobs too (default `true`). With `false` it takes them only when no
   * worker is left (none could start, or the last one stopped).
   */
  readonly here?: boolean | undefined
}

/**
 * The results, in the jobs' order; `unavailable` says why, when workers were asked for and none
 * could start (every job then ran in this process).
 *
 * @since 0.1.0
 */
export interface Ran<A> {
  /** One per job, in the jobs' order. */
  readonly results: ReadonlyArray<A>
  /** Why no worker could start, when workers were asked for and none did. */
  readonly unavailable?: string | undefined
}

/** One worker as the scheduler tracks it. */
interface Slot<J> {
  handle: Handle<J> | undefined
  ready: boolean
  dead: boolean
  /** The jobs given and not answered yet, in the order given: the first is the one running. */
  outstanding: Array<number>
}

const describe = (u: unknown): string => {
  try {
    const text = JSON.stringify(u)
    if (text !== undefined) return text.length > 120 ? `${text.slice(0, 120)}…` : text
  } catch {
    // Described by its type below.
  }
  return typeof u
}

const thrown = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * Runs the jobs across `options.workers` workers and this process: the results in the jobs'
 * order. A job whose worker stopped while running it gets `options.lost`; the others are
 * answered by a worker or run here (`options.local`), each exactly once. Never waits for a worker
 * that stopped; when it ends, or is interrupted, every worker is stopped.
 *
 * @since 0.1.0
 */
export const run = <J, A, E, R>(jobs: ReadonlyArray<J>, options: Options<J, A, E, R>): Effect.Effect<Ran<A>, E, R> =>
  Effect.gen(function* () {
    const total = jobs.length
    if (total === 0) return { results: [] }
    const results: Array<A | undefined> = new Array(total)
    const queue: Array<number> = jobs.map((_, i) => i)
    const live = new Set<Slot<J>>()
    const most = Math.max(1, Math.floor(options.batch ?? 32))
    /** Told whenever a job is answered or goes back to the queue: this process looks again. */
    const changed = yield* Queue.unbounded<void>()
    const tell = () => {
      Queue.offerUnsafe(changed, undefined)
    }
    let answered = 0
    let started = 0
    let everReady = false
    let unavailable: string | undefined
    // Every replacement follows a worker that stopped while running a job, which is then lost:
    // there can be no more replacements than jobs.
    let replacements = 0

    const stop = (slot: Slot<J>) => {
      slot.dead = true
      live.delete(slot)
      try {
        slot.handle?.terminate()
      } catch {
        // It is being let go either way.
      }
    }
    const answer = (index: number, value: A) => {
      if (results[index] !== undefined) return
      results[index] = value
      answered++
      tell()
    }
    /** The next jobs for a free worker, or it is let go when there are none. */
    const give = (slot: Slot<J>) => {
      const runners = live.size + 1
      const size = Math.max(1, Math.min(most, Math.ceil(queue.length / (runners * 4))))
      const batch = queue.splice(0, size)
      if (batch.length === 0) return stop(slot)
      slot.outstanding = batch
      try {
        slot.handle?.post(batch.map((index) => ({ index, job: jobs[index] as J })))
      } catch (error) {
        gone(slot, `its jobs could not be sent to it (${thrown(error)})`)
      }
    }
    /** A worker stopped (or was stopped): the job it was running is lost, the others go back. */
    const gone = (slot: Slot<J>, reason: string) => {
      if (slot.dead) return
      stop(slot)
      tell()
      if (!slot.ready) {
        unavailable ??= reason
        return
      }
      const [running, ...rest] = slot.outstanding
      slot.outstanding = []
      queue.unshift(...rest)
      if (running !== undefined) answer(running, options.lost(jobs[running] as J, reason))
      tell()
      if (queue.length > 0 && running !== undefined && replacements < total) {
        replacements++
        start()
      }
    }
    const hear = (slot: Slot<J>, message: unknown) => {
      if (slot.dead) return
      if (Predicate.isObject(message) && message.type === "ready") {
        if (!slot.ready) {
          slot.ready = true
          everReady = true
          give(slot)
        }
        return
      }
      if (
        Predicate.isObject(message) &&
        message.type === "done" &&
        typeof message.index === "number" &&
        message.index === slot.outstanding[0]
      ) {
        const value = options.decode(message.result)
        if (value !== undefined) {
          slot.outstanding.shift()
          answer(message.index, value)
          if (slot.outstanding.length === 0) give(slot)
          return
        }
      }
      gone(slot, `it sent something that is not an answer to its jobs: ${describe(message)}`)
    }
    const start = () => {
      started++
      const slot: Slot<J> = { handle: undefined, ready: false, dead: false, outstanding: [] }
      live.add(slot)
      try {
        slot.handle = options.spawn({
          message: (message) => hear(slot, message),
          exit: (reason) => gone(slot, reason)
        })
      } catch (error) {
        gone(slot, `it could not be started (${thrown(error)})`)
      }
    }

    const here = options.here ?? true
    const localMost = Math.max(1, Math.floor(options.localBatch ?? 1))
    const local = Effect.gen(function* () {
      while (answered < total) {
        const size = Math.max(1, Math.min(localMost, Math.ceil(queue.length / (live.size + 1))))
        const taken = here || live.size === 0 ? queue.splice(0, size) : []
        if (taken.length === 0) {
          // Every job is with a worker (or left to them): wait for an answer, a job that comes
          // back, or a worker that stops.
          yield* Queue.takeAll(changed)
          continue
        }
        const values = yield* options.local(taken.map((index) => jobs[index] as J))
        for (let n = 0; n < taken.length; n++) {
          const index = taken[n] as number
          const value = values[n]
          if (value === undefined) return yield* Effect.die(new Error(`Parallel.run: no result for job ${index}`))
          answer(index, value)
        }
      }
    })
    const workers = Math.max(0, Math.min(Math.floor(options.workers), total - 1))
    yield* Effect.ensuring(
      Effect.andThen(
        Effect.sync(() => {
          for (let i = 0; i < workers; i++) start()
        }),
        local
      ),
      Effect.sync(() => {
        for (const slot of [...live]) stop(slot)
      })
    )
    return {
      results: results as ReadonlyArray<A>,
      ...(started > 0 && !everReady && unavailable !== undefined ? { unavailable } : {})
    }
  })
