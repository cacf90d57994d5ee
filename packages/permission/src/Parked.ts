/**
 * An approver that parks: a call a rule asks about becomes a pending approval in a store
 * (`Approvals.Store` of `@agent-harness/idempotency`: the journal's SQLite file, Postgres), bound
 * to the session, the call id and a digest of the decoded input, and the call waits there until
 * a person answers from any process that reaches the store (`harness approve ID`, `harness deny
 * ID --reason …`, an approver in code). No timeout allows or denies it silently: it waits for
 * the answer (give the gate `approvalTimeout: Infinity`).
 *
 * Parking is idempotent: the same call asked again (a run resumed after a restart, on another
 * runner) finds its approval, answered or not, and is never asked twice; the same call id with
 * other input is denied (the approval is not its). Each approval is answered once, and the
 * answer says who gave it: the gate's `permission.decided` event records it.
 *
 * @since 0.2.0
 */
import { Execute } from "@agent-harness/executor"
import type { Approvals } from "@agent-harness/idempotency"
import { Localized } from "@agent-harness/tool-schema"
import { type Context, Duration, Effect, Option } from "effect"
import type * as Approver from "./Approver.ts"

/**
 * The texts of parking, as functions of what happened.
 *
 * @since 0.2.0
 */
export interface Texts {
  /** The store could not keep the call: it is denied, saying why. */
  readonly notParked: (problem: string) => string
  /** The call id was parked for another call: this one is denied. */
  readonly mismatch: (problem: string) => string
  /** Waiting for the answer failed again and again: the call is denied, saying why. */
  readonly lost: (problem: string) => string
  /** A denial that came without a reason: who denied it. */
  readonly deniedBy: (by: string) => string
}

/** Parking's texts in English. @since 0.2.0 */
export const english: Texts = {
  notParked: (problem) => `the call could not be parked for approval: ${problem}`,
  mismatch: (problem) => `its approval is another call's: ${problem}`,
  lost: (problem) => `the approval could not be read while it waited: ${problem}`,
  deniedBy: (by) => `${by} said no`
}

/** Parking's texts in Spanish. @since 0.2.0 */
export const spanish: Texts = {
  notParked: (problem) => `no se ha podido dejar la llamada pendiente de aprobación: ${problem}`,
  mismatch: (problem) => `su aprobación es de otra llamada: ${problem}`,
  lost: (problem) => `no se ha podido leer la aprobación mientras esperaba: ${problem}`,
  deniedBy: (by) => `${by} ha dicho que no`
}

/** Parking's texts by locale. @since 0.2.0 */
export const byLocale: Localized.ByLocale<Texts> = { en: english, es: spanish }

/**
 * Parking's texts in use: yours when provided, else the catalogue's locale's.
 *
 * @since 0.2.0
 */
export const TextsRef: Context.Reference<Texts | undefined> = Localized.reference<Texts>(
  "@agent-harness/permission/Parked/Texts"
)

const current: Effect.Effect<Texts> = Localized.current(
  TextsRef,
  byLocale,
  Effect.map(Execute.harness, ({ catalog }) => catalog.locale)
)

/**
 * How to wait for an answer.
 *
 * @since 0.2.0
 */
export interface Options {
  /** Where approvals are parked and answered. */
  readonly store: Approvals.Store
  /** The session the calls belong to (a conversation id): with the call id, it names the approval. */
  readonly session: string
  /** How often the store is read for the answer while a call waits. Default 500 ms. */
  readonly poll?: Duration.Input | undefined
  /**
   * Told once each time a call starts to wait (it was parked, or found parked and not yet
   * answered): the CLI prints how to answer it.
   */
  readonly onParked?: ((approval: Approvals.Approval) => Effect.Effect<void>) | undefined
  /**
   * How a waiting call learns the answer: by default the store is read every `poll`. The
   * durable engine gives its own (a workflow suspends on a durable deferred instead).
   */
  readonly wait?: ((approval: Approvals.Approval) => Effect.Effect<Approvals.Approval, string>) | undefined
  /** How the `wake` of a parked call is written (the durable engine's workflow address). */
  readonly wake?: string | undefined
}

/**
 * How many reads in a row may fail while a call waits before it is denied (saying why).
 *
 * @since 0.2.0
 */
export const maxFailedReads = 20

/**
 * An answered approval as the gate's answer (with who gave it).
 *
 * @since 0.2.0
 */
export const answerOf = (texts: Texts, approval: Approvals.Approval): Approver.Answer =>
  approval.state === "approved"
    ? { answer: "yes", ...(approval.by === undefined ? {} : { by: approval.by }) }
    : {
        answer: "no",
        reason: approval.answerReason ?? texts.deniedBy(approval.by ?? "someone"),
        ...(approval.by === undefined ? {} : { by: approval.by })
      }

/**
 * Reads the store every `poll` until the approval is answered; a read that fails is tried again,
 * and `maxFailedReads` failures in a row end the wait with the last problem.
 *
 * @since 0.2.0
 */
export const polling =
  (
    store: Approvals.Store,
    poll: Duration.Duration
  ): ((approval: Approvals.Approval) => Effect.Effect<Approvals.Approval, string>) =>
  (approval: Approvals.Approval): Effect.Effect<Approvals.Approval, string> =>
    Effect.gen(function* () {
      let failed = 0
      while (true) {
        yield* Effect.sleep(poll)
        const read = yield* Effect.result(store.get(approval.id))
        if (read._tag === "Failure") {
          failed += 1
          if (failed >= maxFailedReads) return yield* Effect.fail(read.failure.message)
          continue
        }
        failed = 0
        if (Option.isNone(read.success))
          return yield* Effect.fail(`approval ${approval.id} is gone from ${store.location}`)
        if (read.success.value.state !== "pending") return read.success.value
      }
    })

/**
 * The parking approver. Use it with a gate that waits for ever (`approvalTimeout: Infinity`):
 * the person may answer tomorrow.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Approvals } from "@agent-harness/idempotency"
 * import { Approver, Gate, Parked } from "@agent-harness/permission"
 *
 * const program = Effect.gen(function* () {
 *   const store = yield* Approvals.memory
 *   const gate = yield* Gate.make({ policy: { default: "ask" }, approvalTimeout: Infinity })
 *   return { gate, approver: Parked.approver({ store, session: "run-1" }) }
 * })
 * ```
 *
 * @since 0.2.0
 */
export const approver = (options: Options): Approver.Approver => {
  const poll = Duration.fromInputUnsafe(options.poll ?? "500 millis")
  const wait = options.wait ?? polling(options.store, poll)
  return {
    ask: (request) =>
      Effect.gen(function* () {
        const texts = yield* current
        const parked = yield* Effect.result(
          options.store.park({
            session: options.session,
            toolUseId: request.id,
            name: request.name,
            input: request.input,
            reason: request.reason,
            rule: request.rule,
            wake: options.wake
          })
        )
        if (parked._tag === "Failure") {
          const failure = parked.failure
          return {
            answer: "no",
            reason: failure._tag === "Mismatch" ? texts.mismatch(failure.message) : texts.notParked(failure.message)
          } satisfies Approver.Answer
        }
        const approval = parked.success
        if (approval.state !== "pending") return answerOf(texts, approval)
        if (options.onParked !== undefined) yield* options.onParked(approval)
        const answered = yield* Effect.result(wait(approval))
        return answered._tag === "Failure"
          ? ({ answer: "no", reason: texts.lost(answered.failure) } satisfies Approver.Answer)
          : answerOf(texts, answered.success)
      })
  }
}
