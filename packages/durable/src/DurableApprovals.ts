/**
 * Approvals on the durable engine: a call the permission gate asks about, inside a durable
 * conversation, is parked in the approvals store every runner shares (`PgApprovals`) and the
 * conversation **suspends** on a durable deferred named by the approval: no runner is held and
 * no timeout allows or denies it. Whoever answers — `harness approve ID`, `harness deny ID
 * --reason …`, {@link answer} in code, from any process reaching the database — writes the
 * answer once in the store and completes the deferred, and the conversation resumes on whatever
 * runner holds its shard, replays what it recorded (no model asked again, no call run again),
 * finds the answer and goes on. A runner killed while the call waits, while the answer arrives
 * or just after loses nothing: the approval stays in the store, parking it again gives it back,
 * and the answer is read from the store on every resume. A wake-up that is lost (the answering
 * process died after writing the answer) delays the answer only until the conversation's durable
 * clock comes round (`recheck`: 15 s, then 30 s, … at most 5 minutes between looks).
 *
 * @since 0.2.0
 */
import type { Approvals } from "@agent-harness/idempotency"
import { Parked, type Approver } from "@agent-harness/permission"
import { Context, Duration, Effect, Exit, Layer, Option, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { DurableClock, DurableDeferred, Workflow, WorkflowEngine } from "effect/workflow"
import * as PgApprovals from "./PgApprovals.ts"

const DurableApprovalsBase: Context.ServiceClass<
  DurableApprovals,
  "@agent-harness/durable/DurableApprovals",
  Approvals.Store
> = Context.Service<DurableApprovals, Approvals.Store>()("@agent-harness/durable/DurableApprovals")

/**
 * The approvals store durable conversations park their asked calls in: one every runner shares.
 * Without it, a call a rule asks about is denied (no one can be asked).
 *
 * @since 0.2.0
 */
export class DurableApprovals extends DurableApprovalsBase {}

/**
 * A store as the service.
 *
 * @since 0.2.0
 */
export const layer = (store: Approvals.Store): Layer.Layer<DurableApprovals> => Layer.succeed(DurableApprovals, store)

/**
 * The Postgres store (`PgApprovals.make`) as the service, in the engine's database.
 *
 * @since 0.2.0
 */
export const layerPg = (
  options?: PgApprovals.Options
): Layer.Layer<DurableApprovals, Approvals.ApprovalError, SqlClient.SqlClient> =>
  Layer.effect(DurableApprovals, PgApprovals.make(options))

/**
 * Where a parked call's conversation waits: its workflow's name and execution id, kept with the
 * approval (`Approval.wake`) so that whoever answers can wake it.
 *
 * @since 0.2.0
 */
export const Wake: Schema.Struct<{ readonly workflow: Schema.String; readonly execution_id: Schema.String }> =
  Schema.Struct({ workflow: Schema.String, execution_id: Schema.String })

/** Where a parked call's conversation waits. @since 0.2.0 */
export type Wake = typeof Wake.Type

const wakeText = Schema.encodeSync(Schema.fromJsonString(Wake))
const wakeOf = Schema.decodeUnknownOption(Schema.fromJsonString(Wake))

/** The durable deferred a conversation waits on for one approval. */
const deferredOf = (id: string): DurableDeferred.DurableDeferred<typeof Schema.Void> =>
  DurableDeferred.make(`approval/${id}`)

/**
 * Options of the approver of a running durable conversation.
 *
 * @since 0.2.0
 */
export interface Options {
  /** The store every runner shares. */
  readonly store: Approvals.Store
  /** The conversation's id: with the call id, it names the approval. */
  readonly session: string
  /** Told each time a call starts to wait (on every resume while it is unanswered). */
  readonly onParked?: ((approval: Approvals.Approval) => Effect.Effect<void>) | undefined
  /**
   * How long the conversation sleeps (a durable clock) before its `n`-th look at the store, from
   * 1, when no wake-up came: the fallback that takes an answer whose wake-up was lost (the
   * answering process died between writing the answer and waking the run). Default
   * {@link defaultRecheck}.
   */
  readonly recheck?: ((n: number) => Duration.Duration) | undefined
}

/**
 * The default wait before the `n`-th look at the store: 15 s × n, at most 5 minutes. A wake-up
 * normally comes at once; this bounds how long a lost one can delay an answer.
 *
 * @since 0.2.0
 */
export const defaultRecheck = (n: number): Duration.Duration => Duration.seconds(Math.min(15 * n, 300))

const Woken: Schema.Literals<readonly ["answered", "recheck"]> = Schema.Literals(["answered", "recheck"])

/**
 * The approver of the running workflow (build it inside the workflow: it keeps its instance):
 * parks the call, takes an answer already in the store, or suspends the workflow until one is
 * given.
 *
 * @since 0.2.0
 */
export const approver = (
  options: Options
): Effect.Effect<Approver.Approver, never, WorkflowEngine.WorkflowEngine | WorkflowEngine.WorkflowInstance> =>
  Effect.gen(function* () {
    const engine = yield* WorkflowEngine.WorkflowEngine
    const instance = yield* WorkflowEngine.WorkflowInstance
    const wake = wakeText({ workflow: instance.workflow._tag, execution_id: instance.executionId })
    const recheck = options.recheck ?? defaultRecheck
    const answeredIn = (id: string) =>
      Effect.map(
        Effect.mapError(options.store.get(id), (e) => e.message),
        (found) => (Option.isSome(found) && found.value.state !== "pending" ? found.value : undefined)
      )
    const wait = (approval: Approvals.Approval): Effect.Effect<Approvals.Approval, string> =>
      Effect.gen(function* () {
        for (let n = 1; ; n++) {
          // Answered while no run waited (the resume that brought us here, or none at all)?
          const now = yield* answeredIn(approval.id)
          if (now !== undefined) return now
          // Not yet: suspend until the answer completes the deferred, or a durable clock comes
          // round to look again (the run replays then, and looks). Each wait has its own name,
          // numbered in the order the body reaches them, so a replay takes the same path.
          const woken = yield* DurableDeferred.raceAll({
            name: `approval/${approval.id}/${n}`,
            success: Woken,
            error: Schema.Never,
            effects: [
              Effect.as(DurableDeferred.await(deferredOf(approval.id)), "answered" as const),
              Effect.as(
                DurableClock.sleep({
                  name: `approval/${approval.id}/recheck/${n}`,
                  duration: recheck(n),
                  inMemoryThreshold: Duration.zero
                }),
                "recheck" as const
              )
            ]
          }).pipe(
            Effect.provideService(WorkflowEngine.WorkflowEngine, engine),
            Effect.provideService(WorkflowEngine.WorkflowInstance, instance)
          )
          if (woken === "answered") {
            const after = yield* answeredIn(approval.id)
            if (after !== undefined) return after
            return yield* Effect.fail(
              `approval ${approval.id} was woken without an answer in ${options.store.location}`
            )
          }
        }
      })
    return Parked.approver({
      store: options.store,
      session: options.session,
      onParked: options.onParked,
      wait,
      wake
    })
  })

/**
 * What answering did: the approval as answered, and whether the waiting conversation was woken
 * (`false` when the approval names none, or waking it failed: it then takes the answer at its
 * next look at the store, within `recheck`'s wait; `problem` says why).
 *
 * @since 0.2.0
 */
export interface Answered {
  /** The approval, answered. */
  readonly approval: Approvals.Approval
  /** Whether the waiting conversation was told. */
  readonly woken: boolean
  /** Why it was not, when it was not. */
  readonly problem?: string | undefined
}

/**
 * Answers a parked call (exactly once: see `Approvals.Store.answer`) and wakes its conversation
 * through the engine (a client process is enough: the answer is a persisted message the runner
 * holding the conversation's shard takes, now or when it starts).
 *
 * @since 0.2.0
 */
export const answer = (
  store: Approvals.Store,
  id: string,
  given: Approvals.Answer
): Effect.Effect<Answered, Approvals.ApprovalError | Approvals.AnswerRefused, WorkflowEngine.WorkflowEngine> =>
  Effect.gen(function* () {
    const approval = yield* store.answer(id, given)
    return yield* wakeUp(approval)
  })

/**
 * Wakes the conversation an answered approval's call waits in (see {@link answer}).
 *
 * @since 0.2.0
 */
export const wakeUp = (approval: Approvals.Approval): Effect.Effect<Answered, never, WorkflowEngine.WorkflowEngine> =>
  Effect.gen(function* () {
    const where = approval.wake === undefined ? Option.none() : wakeOf(approval.wake)
    if (Option.isNone(where)) return { approval, woken: false, problem: "it names no conversation to wake" }
    // Only the workflow's name is read from it: a token needs nothing else.
    const workflow = Workflow.make(where.value.workflow, {
      payload: {},
      idempotencyKey: () => where.value.execution_id
    })
    const deferred = deferredOf(approval.id)
    const token = DurableDeferred.tokenFromExecutionId(deferred, {
      workflow,
      executionId: where.value.execution_id
    })
    const done = yield* Effect.exit(DurableDeferred.done(deferred, { token, exit: Exit.void }))
    return Exit.isSuccess(done)
      ? { approval, woken: true }
      : { approval, woken: false, problem: `the engine did not take the wake-up (${String(done.cause)})` }
  })
