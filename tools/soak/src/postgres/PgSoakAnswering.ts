/**
 * The answering side of the Postgres soak with `--approvals`: the answering child
 * (`PgSoakAnswerer.ts`) that answers the approvals the runners park, started at the beginning
 * and again after each time the soak kills it. Each approval a runner says is waiting
 * (`{"parked":…}`) is answered once, approve or deny as the run's seed says
 * (`PgSoakApprovals.answerFor`), after a random delay — unless the soak's killer claims it first,
 * to answer it itself around a kill (the child held between its write and its wake, then killed;
 * the parking runner killed there; the runner held taking the answer).
 *
 * An answer is followed until its wake-up is sent. When the child dies before that (killed
 * between the store's write and the wake, or earlier), its next life is given the answer again,
 * as a person would retry `harness approve`: an answer not written yet is written and woken; one
 * written already is refused by the store, and, like that person, the child leaves it there
 * (`wakeLost`): the conversation must take it on its own, when it next looks at the store.
 *
 * @since 0.1.0
 */
import { Deferred, Effect, Option, Queue, Random, Scope, Semaphore } from "effect"
import * as PgSoakApprovals from "./PgSoakApprovals.ts"
import * as PgSoakProcess from "./PgSoakProcess.ts"

/**
 * A parked approval as the soak saw it, and the runner (one life) that last said it waits.
 *
 * @since 0.1.0
 */
export interface Waiting {
  readonly parked: PgSoakApprovals.ParkedLine
  readonly runner: PgSoakProcess.Child
}

/**
 * An answer the soak gives: the approval, the answer, and how far it got.
 *
 * @since 0.1.0
 */
export interface Given {
  readonly id: string
  readonly session: string
  readonly call: string
  readonly approve: boolean
  /** Hold the child after its write (the next send of it does not). */
  hold: boolean
  /** The child says the answer is written. */
  readonly answered: Deferred.Deferred<void>
  /** The child holds after its write. */
  readonly held: Deferred.Deferred<void>
  /** The wake-up was sent (`true`), or will not be (`false`: its wake was lost, or the answer given up). */
  readonly woken: Deferred.Deferred<boolean>
  /** Times the answer was sent. */
  sends: number
  /** Found written by a later child: the one that wrote it was killed before it said it woke the conversation. */
  wakeLost: boolean
}

/**
 * A parked line as the soak read it, with the runner that printed it.
 *
 * @since 0.1.0
 */
export interface ParkedSeen {
  readonly line: PgSoakApprovals.ParkedLine
  /** The runner's label, one per life (`runner :34431 #2`). */
  readonly runner: string
}

/**
 * What the answering side did, for the judge.
 *
 * @since 0.1.0
 */
export interface Record {
  /** Every `parked` line, in the order read. */
  readonly parked: ReadonlyArray<ParkedSeen>
  /** Every answer given, by approval id. */
  readonly given: ReadonlyMap<string, Given>
}

/**
 * The answering side.
 *
 * @since 0.1.0
 */
export interface Answering {
  /** A runner's `parked` line (called from the runner's output). */
  readonly onParked: (line: PgSoakApprovals.ParkedLine, runner: PgSoakProcess.Child) => void
  /** Whether a call parked by this runner's life waits for an answer not yet given. */
  readonly waitsOn: (runner: PgSoakProcess.Child) => boolean
  /** Takes a waiting approval (its runner still alive, when `alive`) away from the automatic answers. */
  readonly claim: (options: { readonly alive: boolean }) => Effect.Effect<Option.Option<Waiting>>
  /**
   * Claims the next approval this runner's life says waits (before the automatic answers see
   * it); `cancel` stops expecting it (an approval claimed meanwhile is answered at once).
   */
  readonly expect: (
    runner: PgSoakProcess.Child
  ) => Effect.Effect<{ readonly next: Deferred.Deferred<Waiting>; readonly cancel: Effect.Effect<void> }>
  /** Waits (at most `millis`) until a runner other than `runner` says this approval waits: whether one did. */
  readonly waitsAgain: (id: string, runner: PgSoakProcess.Child, millis: number) => Effect.Effect<boolean>
  /** Answers a claimed approval now (held after the write when `hold`). */
  readonly give: (waiting: Waiting, hold: boolean) => Effect.Effect<Given>
  /** Releases an answer held after its write. */
  readonly go: (given: Given) => Effect.Effect<void>
  /** Kills the answering child (started again, its open answers given again): whether it was running. */
  readonly killAnswerer: Effect.Effect<boolean>
  /** Whether an answer to a session is still to come (waiting, claimed, or not yet woken). */
  readonly owes: (session: string) => boolean
  /** When a session was last heard of (a parked line, an answer's wake-up), in ms since the epoch. */
  readonly lastHeard: (session: string) => number | undefined
  /** What it did so far. */
  readonly record: () => Record
}

/**
 * Options of the answering side.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The answering child's entry point and its arguments. */
  readonly entry: string
  readonly args: ReadonlyArray<string>
  /** Milliseconds between a call's first `parked` line and its automatic answer. */
  readonly delay: { readonly min: number; readonly max: number }
  /** Where problems go (violations). */
  readonly problems: Array<string>
}

/** Sends of one answer at most (a wake the engine did not take, a store that failed). */
const maxSends = 6

/** What the answering side hears: a runner's parked line, or a line of its child. */
type Heard =
  | { readonly _tag: "Parked"; readonly line: PgSoakApprovals.ParkedLine; readonly runner: PgSoakProcess.Child }
  | { readonly _tag: "Line"; readonly line: { readonly [key: string]: unknown } }

/**
 * Starts the answering side (its child started now, killed with the scope).
 *
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<Answering, PgSoakProcess.SetupError, Scope.Scope> =>
  Effect.gen(function* () {
    const { problems } = options
    const parked: Array<ParkedSeen> = []
    const waiting = new Map<string, Waiting>()
    const claimed = new Set<string>()
    const given = new Map<string, Given>()
    const heard = new Map<string, number>()
    const events = yield* Queue.unbounded<Heard>()
    const expected = new Map<PgSoakProcess.Child, Deferred.Deferred<Waiting>>()
    const lock = yield* Semaphore.make(1)
    const scope = yield* Effect.scope
    const hear = (session: string) => heard.set(session, Date.now())
    const onLine = (line: { readonly [key: string]: unknown }) => {
      Queue.offerUnsafe(events, { _tag: "Line", line })
    }
    let child = yield* PgSoakProcess.start(options.entry, options.args, "answerer", onLine, problems)
    let killing = false
    const commandOf = (g: Given) => JSON.stringify({ answer: g.id, approve: g.approve, hold: g.hold })
    const send = (g: Given): Effect.Effect<void> =>
      lock.withPermit(
        Effect.suspend(() => {
          g.sends += 1
          return PgSoakProcess.write(child, commandOf(g))
        })
      )
    /** Sends an answer again a second later, or gives it up after `maxSends`. */
    const retry = (g: Given, problem: string): Effect.Effect<void> =>
      g.sends >= maxSends
        ? Effect.andThen(
            Effect.sync(() =>
              problems.push(`approval ${g.id} (${g.session} ${g.call}): given up after ${g.sends} sends: ${problem}`)
            ),
            Deferred.succeed(g.woken, false)
          )
        : Effect.asVoid(Effect.forkIn(Effect.andThen(Effect.sleep(1000), send(g)), scope))
    const open = () => [...given.values()].filter((g) => !Deferred.isDoneUnsafe(g.woken))
    /** Starts the child again and gives it every answer not yet woken (none held). */
    const restart: Effect.Effect<void, PgSoakProcess.SetupError> = Effect.gen(function* () {
      child = yield* Effect.provideService(
        PgSoakProcess.start(options.entry, options.args, "answerer", onLine, problems),
        Scope.Scope,
        scope
      )
      for (const g of open()) {
        g.hold = false
        g.sends += 1
        yield* PgSoakProcess.write(child, commandOf(g))
      }
      yield* Effect.forkIn(watch(child), scope)
    })
    /** A child that dies when the soak did not kill it is a problem; it is started again. */
    const watch = (life: PgSoakProcess.Child): Effect.Effect<void> =>
      Effect.andThen(
        Deferred.await(life.closed),
        Effect.suspend(() =>
          killing || life !== child
            ? Effect.void
            : Effect.andThen(
                Effect.sync(() => problems.push(`the answerer exited on its own (${life.process.exitCode})`)),
                lock.withPermit(Effect.orDie(restart))
              )
        )
      )
    yield* Effect.forkIn(watch(child), scope)
    const giveNow = (w: Waiting, hold: boolean) =>
      Effect.gen(function* () {
        const run = PgSoakApprovals.runOfSession(w.parked.session)
        const g: Given = {
          id: w.parked.id,
          session: w.parked.session,
          call: w.parked.call,
          approve: run !== undefined && PgSoakApprovals.approves(run.seed, w.parked.call),
          hold,
          answered: yield* Deferred.make<void>(),
          held: yield* Deferred.make<void>(),
          woken: yield* Deferred.make<boolean>(),
          sends: 0,
          wakeLost: false
        }
        given.set(g.id, g)
        waiting.delete(g.id)
        yield* send(g)
        return g
      })
    /** The automatic answer of an approval, after its delay, unless it was claimed or given. */
    const later = (id: string) =>
      Effect.gen(function* () {
        yield* Effect.sleep(yield* Random.nextBetween(options.delay.min, options.delay.max))
        const w = waiting.get(id)
        if (w !== undefined && !claimed.has(id) && !given.has(id)) yield* giveNow(w, false)
      })
    const handle = (event: Heard): Effect.Effect<void> => {
      if (event._tag === "Parked") {
        const { line, runner } = event
        parked.push({ line, runner: runner.label })
        hear(line.session)
        if (given.has(line.id)) return Effect.void
        const known = waiting.has(line.id)
        const w = { parked: line, runner }
        waiting.set(line.id, w)
        const expecting = expected.get(runner)
        if (!known && !claimed.has(line.id) && expecting !== undefined) {
          expected.delete(runner)
          claimed.add(line.id)
          return Deferred.succeed(expecting, w)
        }
        return known || claimed.has(line.id) ? Effect.void : Effect.asVoid(Effect.forkIn(later(line.id), scope))
      }
      const { line } = event
      const id = [line.answered, line.woken, line.written, line.refused, line.failed, line.held].find(
        (v) => typeof v === "string"
      )
      const g = typeof id === "string" ? given.get(id) : undefined
      if (g === undefined) {
        problems.push(`the answerer printed ${JSON.stringify(line).slice(0, 200)}`)
        return Effect.void
      }
      if (typeof line.answered === "string") return Deferred.succeed(g.answered, undefined)
      if (typeof line.held === "string") return Deferred.succeed(g.held, undefined)
      if (typeof line.woken === "string") {
        if (line.taken !== true) return retry(g, `the engine did not take the wake-up: ${String(line.problem)}`)
        hear(g.session)
        return Deferred.succeed(g.woken, true)
      }
      if (typeof line.written === "string") {
        g.wakeLost = true
        hear(g.session)
        return Deferred.succeed(g.woken, false)
      }
      if (typeof line.refused === "string") {
        problems.push(
          `approval ${g.id} (${g.session} ${g.call}): the store refused the soak's answer: ${String(line.problem)}`
        )
        return Deferred.succeed(g.woken, false)
      }
      return retry(g, String(line.problem))
    }
    yield* Effect.forkIn(Effect.forever(Effect.flatMap(Queue.take(events), handle)), scope)
    const answering: Answering = {
      onParked: (line, runner) => {
        Queue.offerUnsafe(events, { _tag: "Parked", line, runner })
      },
      waitsOn: (runner) => [...waiting.values()].some((w) => w.runner === runner),
      claim: ({ alive }) =>
        Effect.sync(() => {
          const w = [...waiting.values()].find(
            (w) => !claimed.has(w.parked.id) && (!alive || PgSoakProcess.alive(w.runner))
          )
          if (w === undefined) return Option.none()
          claimed.add(w.parked.id)
          return Option.some(w)
        }),
      expect: (runner) =>
        Effect.gen(function* () {
          const next = yield* Deferred.make<Waiting>()
          expected.set(runner, next)
          const cancel = Effect.suspend(() => {
            if (expected.get(runner) === next) expected.delete(runner)
            const got = Deferred.isDoneUnsafe(next)
            return got ? Effect.flatMap(Deferred.await(next), (w) => Effect.asVoid(giveNow(w, false))) : Effect.void
          })
          return { next, cancel }
        }),
      waitsAgain: (id, runner, millis) =>
        Effect.gen(function* () {
          for (let waited = 0; waited < millis; waited += 200) {
            if (parked.some((p) => p.line.id === id && p.runner !== runner.label)) return true
            if (given.has(id)) return false
            yield* Effect.sleep(200)
          }
          return false
        }),
      give: giveNow,
      go: (g) => lock.withPermit(Effect.suspend(() => PgSoakProcess.write(child, JSON.stringify({ go: g.id })))),
      killAnswerer: lock.withPermit(
        Effect.gen(function* () {
          killing = true
          const was = yield* PgSoakProcess.kill(child)
          killing = false
          yield* Effect.orDie(restart)
          return was
        })
      ),
      owes: (session) =>
        [...waiting.values()].some((w) => w.parked.session === session) || open().some((g) => g.session === session),
      lastHeard: (session) => heard.get(session),
      record: () => ({ parked, given })
    }
    return answering
  })
