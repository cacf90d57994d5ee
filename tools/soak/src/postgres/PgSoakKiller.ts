/**
 * The Postgres soak's killer: every `killEvery` it SIGKILLs one of its children and starts it
 * again (a runner on the same port; the answering child). It starts with every runner held in
 * its next append and killed there; then every other kill is asked to land inside an append
 * that ran, before its outcome was recorded, and the others land at a random instant.
 *
 * With approvals, the others go in turn to the places an answer can be caught in:
 *
 * - `random`: a random runner at a random instant;
 * - `waiting`: a runner held right after it says a call waits (parked, before its run suspends);
 *   the answer is kept back until the resumed run says the same approval waits;
 * - `answerer`: the answering child, held between the store's write of an answer and the wake;
 *   its next life gives the answer again and finds it written: the wake-up is lost, and the
 *   conversation must take the answer on its own;
 * - `mid`: the runner that parked the call, while its answer is held between the write and the wake;
 * - `take`: that runner, held as a resumed run takes the answer (before the call goes on);
 * - `after`: that runner, right after the wake-up was sent.
 *
 * Around every runner kill, with approvals, the pending approvals are read before the kill and
 * after the restart: each one pending before is pending after, the same (session, call, input,
 * when it was asked), unless the soak answered it in between.
 *
 * @since 0.1.0
 */
import type { Approvals } from "@agent-harness/idempotency"
import { Deferred, Effect, Option, Random } from "effect"
import type * as PgSoakAnswering from "./PgSoakAnswering.ts"
import * as PgSoakProcess from "./PgSoakProcess.ts"

/**
 * What the killer did.
 *
 * @since 0.1.0
 */
export interface Counts {
  /** SIGKILLs that hit a running child (runners and the answering child). */
  kills: number
  /** Of them, runners killed held inside an append that ran. */
  held: number
  /** Runners killed while a call they parked waited for its answer. */
  killsWaiting: number
  /** Kills between an answer's write and its wake (the answering child, or the parking runner). */
  killsAnswering: number
  /** Runners killed right after an answer's wake, or held taking it. */
  killsAnswered: number
  /** Pending approvals read before a kill and found the same after the restart. */
  pendingKept: number
  /** Pending approvals read before a kill and gone after the restart with no answer given. */
  pendingLost: number
}

/**
 * The runners, one per slot: a killed one is replaced by its next life.
 *
 * @since 0.1.0
 */
export interface Slots {
  readonly runners: Array<PgSoakProcess.Child>
  /** Starts the next life of slot `i`'s runner. */
  readonly restart: (i: number) => Effect.Effect<PgSoakProcess.Child, PgSoakProcess.SetupError>
}

/**
 * Options of the killer.
 *
 * @since 0.1.0
 */
export interface Options {
  /** Milliseconds between kills. */
  readonly killEvery: { readonly min: number; readonly max: number }
  /** Hold the first round and every other kill inside an append. */
  readonly holds: boolean
  /** With approvals: the answering side, and how to read the pending approvals. */
  readonly approvals?:
    | {
        readonly answering: PgSoakAnswering.Answering
        readonly pending: Effect.Effect<ReadonlyArray<Approvals.Approval>, string>
      }
    | undefined
  /** Where problems go (violations). */
  readonly problems: Array<string>
}

/** The kinds of kill with approvals, in turn (see the module's comment). */
const kinds = ["random", "waiting", "answerer", "mid", "take", "after"] as const

type Kind = (typeof kinds)[number]

/** How many times (250 ms apart) the killer looks for a waiting approval before it kills at random. */
const claimTries = 40

/** How long an answer is kept back for the resumed run to say its call waits again. */
const waitsAgainMillis = 60_000

/** How long the killer waits for an answer's wake-up before it kills anyway. */
const wokenMillis = 30_000

/**
 * The killer's counts, and its loop (runs until interrupted).
 *
 * @since 0.1.0
 */
export const make = (slots: Slots, options: Options) => {
  const counts: Counts = {
    kills: 0,
    held: 0,
    killsWaiting: 0,
    killsAnswering: 0,
    killsAnswered: 0,
    pendingKept: 0,
    pendingLost: 0
  }
  const approvals = options.approvals
  const { runners } = slots
  /** The pending approvals, or none (a problem said) when they cannot be read. */
  const pendingNow: Effect.Effect<Option.Option<ReadonlyArray<Approvals.Approval>>> =
    approvals === undefined
      ? Effect.succeedNone
      : approvals.pending.pipe(
          Effect.asSome,
          Effect.catch((problem) =>
            Effect.andThen(
              Effect.sync(() =>
                options.problems.push(`the pending approvals cannot be read around a kill: ${problem}`)
              ),
              Effect.succeedNone
            )
          )
        )
  /** Each approval pending before the kill of `victim` is pending after its restart, or was answered. */
  const compare = (
    victim: PgSoakProcess.Child,
    before: ReadonlyArray<Approvals.Approval>,
    after: ReadonlyArray<Approvals.Approval>
  ) => {
    const now = new Map(after.map((a) => [a.id, a]))
    const given = approvals?.answering.record().given
    for (const was of before) {
      const is = now.get(was.id)
      if (is === undefined) {
        if (given?.has(was.id) === true) continue
        counts.pendingLost += 1
        options.problems.push(
          `approval ${was.id} (${was.session} ${was.toolUseId}) was pending before ${victim.label} was killed, and is not after its restart, though the soak had not answered it`
        )
      } else if (
        is.session !== was.session ||
        is.toolUseId !== was.toolUseId ||
        is.input !== was.input ||
        is.askedAt !== was.askedAt
      ) {
        options.problems.push(
          `approval ${was.id} was ${was.session} ${was.toolUseId} ${was.input} asked at ${was.askedAt} before ${victim.label} was killed, and ${is.session} ${is.toolUseId} ${is.input} asked at ${is.askedAt} after its restart`
        )
      } else counts.pendingKept += 1
    }
  }
  /** Kills slot `i`'s runner `victim` (if it is still that slot's) and starts it again: whether it was killed. */
  const killRunner = (i: number, victim: PgSoakProcess.Child, held: boolean) =>
    Effect.gen(function* () {
      if (runners[i] !== victim) return false
      const before = yield* pendingNow
      const waited = approvals?.answering.waitsOn(victim) === true
      const killed = yield* PgSoakProcess.kill(victim)
      if (killed) {
        counts.kills += 1
        if (held) counts.held += 1
        if (waited) counts.killsWaiting += 1
      }
      runners[i] = yield* slots.restart(i)
      const after = yield* pendingNow
      if (Option.isSome(before) && Option.isSome(after)) compare(victim, before.value, after.value)
      return killed
    })
  const heldInAppend = (i: number, victim: PgSoakProcess.Child) =>
    Effect.flatMap(PgSoakProcess.holdAfter(victim, "hold"), (held) => killRunner(i, victim, held))
  const randomSlot = Effect.map(Random.nextIntBetween(0, runners.length, { halfOpen: true }), (i) => ({
    i,
    victim: runners[i]
  }))
  const atRandom = Effect.flatMap(randomSlot, ({ i, victim }) =>
    victim === undefined ? Effect.void : Effect.asVoid(killRunner(i, victim, false))
  )
  /** A waiting approval claimed from the automatic answers, with its runner's slot (-1: gone). */
  const claim = (alive: boolean) =>
    Effect.gen(function* () {
      // A call starts to wait every second or so while conversations run: wait a little for one.
      for (let tries = 0; tries < claimTries; tries++) {
        const claimed = yield* approvals?.answering.claim({ alive }) ?? Effect.succeedNone
        if (Option.isSome(claimed)) return Option.some({ w: claimed.value, i: runners.indexOf(claimed.value.runner) })
        yield* Effect.sleep(250)
      }
      return Option.none()
    })
  const awaited = <A>(deferred: Deferred.Deferred<A>, millis: number) =>
    Deferred.await(deferred).pipe(
      Effect.asSome,
      Effect.timeoutOrElse({ duration: millis, orElse: () => Effect.succeedNone })
    )
  const byKind = (kind: Kind): Effect.Effect<void, PgSoakProcess.SetupError> =>
    Effect.gen(function* () {
      const answering = approvals?.answering
      if (answering === undefined || kind === "random") return yield* atRandom
      if (kind === "waiting") {
        // Held right after it says a call waits, before its run suspends; the answer is kept back
        // until the resumed run (on the restarted runner or the other) says the same approval waits.
        // The runner that said a call waits last runs conversations: it will say so again soon.
        const last = answering.record().parked.at(-1)?.runner
        const busy = runners.findIndex((r) => r.label === last)
        const { i, victim } = busy >= 0 ? { i: busy, victim: runners[busy] } : yield* randomSlot
        if (victim === undefined) return
        const { next, cancel } = yield* answering.expect(victim)
        const held = yield* PgSoakProcess.holdAfter(victim, "hold-parked")
        const w = held ? yield* awaited(next, 5000) : Option.none()
        if (Option.isNone(w)) yield* cancel
        yield* killRunner(i, victim, false)
        if (Option.isNone(w)) return
        yield* answering.waitsAgain(w.value.parked.id, victim, waitsAgainMillis)
        return yield* Effect.asVoid(answering.give(w.value, false))
      }
      const claimed = yield* claim(kind !== "answerer")
      if (Option.isNone(claimed)) return yield* atRandom
      const { w, i } = claimed.value
      if (kind === "answerer") {
        const g = yield* answering.give(w, true)
        const held = yield* awaited(g.held, PgSoakProcess.holdMillis)
        if (yield* answering.killAnswerer) {
          counts.kills += 1
          if (Option.isSome(held)) counts.killsAnswering += 1
        }
        return
      }
      if (i < 0) {
        yield* answering.give(w, false)
        return yield* atRandom
      }
      if (kind === "mid") {
        const g = yield* answering.give(w, true)
        const held = yield* awaited(g.held, PgSoakProcess.holdMillis)
        const killed = yield* killRunner(i, w.runner, false)
        if (killed && Option.isSome(held)) counts.killsAnswering += 1
        return yield* answering.go(g)
      }
      if (kind === "take") {
        yield* PgSoakProcess.write(w.runner, `hold-take ${w.parked.id}`)
        yield* answering.give(w, false)
        const held = yield* awaited(w.runner.holding, PgSoakProcess.holdMillis)
        if ((yield* killRunner(i, w.runner, false)) && Option.isSome(held)) counts.killsAnswered += 1
        return
      }
      const g = yield* answering.give(w, false)
      const woken = yield* awaited(g.woken, wokenMillis)
      if ((yield* killRunner(i, w.runner, false)) && Option.isSome(woken) && woken.value) counts.killsAnswered += 1
    })
  // The first round, right away: every runner holds in its next append and is killed there (or
  // after `holdMillis` if it gets none), so that at least one kill lands inside a call however
  // fast the runs end.
  const firstRound = options.holds
    ? Effect.forEach(
        runners.map((victim, i) => [i, victim] as const),
        ([i, victim]) => heldInAppend(i, victim),
        { concurrency: "unbounded", discard: true }
      )
    : Effect.void
  const loop = Effect.gen(function* () {
    yield* firstRound
    for (let attempt = 0; ; attempt++) {
      yield* Effect.sleep(yield* Random.nextBetween(options.killEvery.min, options.killEvery.max))
      if (options.holds && attempt % 2 === 1) {
        const { i, victim } = yield* randomSlot
        if (victim !== undefined) yield* heldInAppend(i, victim)
      } else {
        const turn = options.holds ? attempt / 2 : attempt
        yield* byKind(kinds[turn % kinds.length] ?? "random")
      }
    }
  }).pipe(
    Effect.catch((error) => Effect.sync(() => void options.problems.push(`the killer stopped: ${error.message}`)))
  )
  return { counts, loop }
}
