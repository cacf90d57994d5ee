/**
 * A suite's files run across workers (threads, processes: whatever `Spawn` starts), with the
 * results put back in the files' order: the same results, in the same order, as a run in this
 * process. The scheduler hands each worker a few jobs at a time and the next batch when it has
 * answered them all, so fast workers take more. A worker answers each job as it finishes it, in
 * the order given, so when one stops (it crashed, it was killed, it sent something that is not an
 * answer), the job it was running is known: that one is reported as lost (`Options.lost`, with
 * why), the jobs it had not started go back to the queue, and a new worker takes its place.
 * Nothing is lost and nothing waits for a worker that is gone. When no worker can start at all
 * (no threads on this platform, an entry point that fails to load), the jobs left run in this
 * process (`Options.local`): the results are the same, only slower.
 *
 * The module speaks no particular kind of worker: `Spawn` adapts one (the CLI's adapts
 * `node:worker_threads`), which keeps the scheduler testable with workers that crash on cue.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"

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
  /** How many workers run at once, at least 1 (never more than there are jobs). */
  readonly workers: number
  /** Starts one worker. */
  readonly spawn: Spawn<J>
  /** A `done` message's result as a result, or `undefined` when it is not one (the worker is then stopped). */
  readonly decode: (result: unknown) => A | undefined
  /** The result of a job whose worker stopped while running it. */
  readonly lost: (job: J, reason: string) => A
  /** Runs jobs in this process, in order: the jobs no worker could take. */
  readonly local: (jobs: ReadonlyArray<J>) => Effect.Effect<ReadonlyArray<A>, E, R>
  /** Jobs handed to a worker at once, at most (default 32; fewer near the end of the queue). */
  readonly batch?: number | undefined
}

/**
 * The results, in the jobs' order; `unavailable` says why no worker could start when some jobs
 * ran in this process instead.
 *
 * @since 0.1.0
 */
export interface Ran<A> {
  /** One result per job, in the jobs' order. */
  readonly results: ReadonlyArray<A>
  /** Why no worker could start, when some jobs ran in this process instead. */
  readonly unavailable?: string | undefined
}

/** Where the scheduler left off: the results so far, and the jobs no worker took. */
interface Scheduled<A> {
  readonly results: Array<A | undefined>
  readonly left: ReadonlyArray<number>
  readonly unavailable: string | undefined
}

/** One worker as the scheduler tracks it. */
interface Slot<J> {
  handle: Handle<J> | undefined
  ready: boolean
  dead: boolean
  /** The jobs given and not answered yet, in the order given: the first is the one running. */
  outstanding: Array<number>
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null

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

/** Schedules the jobs on workers until every one is answered, or no worker is left. */
const schedule = <J, A, E, R>(jobs: ReadonlyArray<J>, options: Options<J, A, E, R>): Effect.Effect<Scheduled<A>> =>
  Effect.callback<Scheduled<A>>((resume) => {
    const total = jobs.length
    const results: Array<A | undefined> = new Array(total)
    const queue: Array<number> = jobs.map((_, i) => i)
    const live = new Set<Slot<J>>()
    const most = Math.max(1, Math.floor(options.batch ?? 32))
    let answered = 0
    let finished = false
    /** While the first workers are being started, none of them having stopped ends anything. */
    let starting = true
    let unavailable: string | undefined
    // Every replacement follows a worker that stopped while running a job, which is then lost:
    // there can be no more replacements than jobs.
    let replacements = 0

    const finish = () => {
      if (finished) return
      finished = true
      for (const slot of live) stop(slot)
      live.clear()
      resume(Effect.succeed({ results, left: [...queue].sort((a, b) => a - b), unavailable }))
    }
    const settle = () => {
      if (!starting && (answered === total || live.size === 0)) finish()
    }
    const stop = (slot: Slot<J>) => {
      slot.dead = true
      try {
        slot.handle?.terminate()
      } catch {
        // It is being let go either way.
      }
    }
    /** The next jobs for a free worker, or it is let go when there are none. */
    const give = (slot: Slot<J>) => {
      const size = Math.max(1, Math.min(most, Math.ceil(queue.length / (Math.max(live.size, 1) * 4))))
      const batch = queue.splice(0, size)
      if (batch.length === 0) {
        live.delete(slot)
        stop(slot)
        return settle()
      }
      slot.outstanding = batch
      try {
        slot.handle?.post(batch.map((index) => ({ index, job: jobs[index] as J })))
      } catch (error) {
        gone(slot, `its jobs could not be sent to it (${thrown(error)})`)
      }
    }
    /** A worker stopped (or was stopped): the job it was running is lost, the others go back. */
    const gone = (slot: Slot<J>, reason: string) => {
      if (slot.dead && !live.has(slot)) return
      live.delete(slot)
      stop(slot)
      if (!slot.ready) {
        unavailable ??= reason
        return settle()
      }
      const [running, ...rest] = slot.outstanding
      slot.outstanding = []
      if (running !== undefined) {
        results[running] = options.lost(jobs[running] as J, reason)
        answered++
      }
      queue.unshift(...rest)
      if (queue.length > 0 && running !== undefined && replacements < total) {
        replacements++
        start()
      }
      settle()
    }
    const hear = (slot: Slot<J>, message: unknown) => {
      if (slot.dead || finished) return
      if (isRecord(message) && message.type === "ready") {
        if (!slot.ready) {
          slot.ready = true
          give(slot)
        }
        return
      }
      if (
        isRecord(message) &&
        message.type === "done" &&
        typeof message.index === "number" &&
        message.index === slot.outstanding[0]
      ) {
        const value = options.decode(message.result)
        if (value !== undefined) {
          results[message.index] = value
          answered++
          slot.outstanding.shift()
          if (slot.outstanding.length === 0) give(slot)
          else settle()
          return
        }
      }
      gone(slot, `it sent something that is not an answer to its jobs: ${describe(message)}`)
    }
    const start = () => {
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

    const count = Math.max(1, Math.min(Math.floor(options.workers), total))
    for (let i = 0; i < count; i++) start()
    starting = false
    settle()
    return Effect.sync(finish)
  })

/**
 * Runs the jobs across `options.workers` workers: the results in the jobs' order. A job whose
 * worker stopped while running it gets `options.lost`; the jobs no worker could take run in this
 * process with `options.local`, in order. Never waits for a worker that stopped; interrupting it
 * stops every worker.
 *
 * @since 0.1.0
 */
export const run = <J, A, E, R>(jobs: ReadonlyArray<J>, options: Options<J, A, E, R>): Effect.Effect<Ran<A>, E, R> =>
  Effect.gen(function* () {
    if (jobs.length === 0) return { results: [] }
    const scheduled = yield* schedule(jobs, options)
    const results = scheduled.results
    if (scheduled.left.length > 0) {
      const here = yield* options.local(scheduled.left.map((index) => jobs[index] as J))
      for (const [i, index] of scheduled.left.entries()) results[index] = here[i]
    }
    for (let i = 0; i < results.length; i++) {
      // A hole too (`indexOf` would skip it): every job must have its result.
      if (results[i] === undefined) return yield* Effect.die(new Error(`Parallel.run: job ${i} has no result`))
    }
    return {
      results: results as ReadonlyArray<A>,
      ...(scheduled.left.length > 0 && scheduled.unavailable !== undefined
        ? { unavailable: scheduled.unavailable }
        : {})
    }
  })
