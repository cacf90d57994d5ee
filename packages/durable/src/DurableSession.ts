/**
 * A plan session as an effect/workflow `Workflow`: the session's state machine (`Session.run`,
 * the same planner, budgets, events and `SessionResult` as in-process) runs as the workflow's
 * body, each step an activity named by its call id (`DurableJournal`) and each planner answer an
 * activity (`plan/<n>`), so a model planner is asked once even when the body runs again.
 *
 * The workflow's execution is keyed by the session id: starting a session id that already ran
 * joins it (its recorded result, or the run in progress) instead of starting another. When the
 * runner running it dies, the runner that takes its shard runs the body again: recorded plans
 * and steps are replayed (nothing runs), a non-idempotent step that was running is reported
 * outcome unknown (the planner reads it as any failure), an idempotent one runs again, and the
 * rest runs. The events of that run (and `onEvent`) include the replayed part again; the result
 * is the one an uninterrupted session would have given, with the unknown step(s) as failures.
 *
 * @since 0.1.0
 */
import { Execute, type Outcome } from "@agent-harness/executor"
import { type Event, Planner, Session, SessionResult, Step } from "@agent-harness/planner"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { type Cause, Effect, type Layer, type Option, Schema } from "effect"
import { Activity, type Workflow as W, Workflow, WorkflowEngine } from "effect/workflow"
import * as DurableJournal from "./DurableJournal.ts"

const PlannerFailedBase: Schema.Class<
  PlannerFailed,
  Schema.TaggedStruct<"PlannerFailed", { readonly message: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<PlannerFailed>()("PlannerFailed", { message: Schema.String })

/**
 * The planner failed with an error that is not about the plan (a provider error): the session
 * ends with it, as `Session.run` fails with it in-process. Recorded like any planner answer.
 *
 * @since 0.1.0
 */
export class PlannerFailed extends PlannerFailedBase {}

/**
 * What starts a session: its id (the workflow's key; not empty) and its goal.
 *
 * @since 0.1.0
 */
export const Payload: Schema.Struct<{ readonly session_id: Schema.String; readonly goal: Schema.String }> =
  Schema.Struct({ session_id: Schema.String, goal: Schema.String })

/** What starts a session. @since 0.1.0 */
export type Payload = typeof Payload.Type

/**
 * What every runner knows of a kind of session: the code, the same on each runner.
 *
 * @since 0.1.0
 */
export interface Definition<T extends Tool.Any, E, R> {
  /** The tools the steps call. */
  readonly toolset: Toolset.Toolset<T>
  /** Proposes the plans. Its answers are recorded, so it is asked once per plan. */
  readonly planner: Planner.Planner<E, R>
  /** Default `replan`. */
  readonly onFailure?: Session.Strategy | undefined
  /** Steps executed at most (a `steps` budget). */
  readonly maxSteps: number
  /** Replans accepted at most (a `replans` budget). */
  readonly maxReplans: number
  /** Per-step timeout. */
  readonly timeout?: Execute.Options["timeout"]
  /** Sees each event of each run of the body, on the runner running it. */
  readonly onEvent?: ((event: Event.Event) => Effect.Effect<void>) | undefined
  /** Sees each step's outcome as the session gets it (ran, replayed, outcome unknown), with the session id. */
  readonly onOutcome?: ((outcome: Outcome.Outcome, sessionId: string) => Effect.Effect<void>) | undefined
}

/**
 * A kind of durable session: its workflow, the layer that registers it on a runner, and how to
 * start, run and poll sessions (from any process of the cluster).
 *
 * @since 0.1.0
 */
export interface DurableSession<Name extends string, T extends Tool.Any, R> {
  /** The effect/workflow workflow, named `Name`: the session as its body. */
  readonly workflow: W.Workflow<Name, typeof Payload, typeof SessionResult.SessionResult, typeof PlannerFailed>
  /** Registers the workflow on a runner (every runner of the cluster registers it). */
  readonly layer: Layer.Layer<
    never,
    never,
    WorkflowEngine.WorkflowEngine | DurableJournal.DurableJournal | R | Tool.Services<T>
  >
  /** Runs a session (or joins the one with that id) to its result. */
  readonly run: (
    payload: Payload
  ) => Effect.Effect<SessionResult.SessionResult, PlannerFailed, WorkflowEngine.WorkflowEngine>
  /** Starts a session (or finds the one with that id) without waiting; gives its execution id. */
  readonly start: (payload: Payload) => Effect.Effect<string, never, WorkflowEngine.WorkflowEngine>
  /** The result of a session, once it has one. */
  readonly poll: (
    sessionId: string
  ) => Effect.Effect<
    Option.Option<W.Result<SessionResult.SessionResult, PlannerFailed>>,
    never,
    WorkflowEngine.WorkflowEngine
  >
}

/** A session id must be a non-empty string, as `Session.run` requires. */
const checked = (payload: Payload): Effect.Effect<Payload> =>
  typeof payload.session_id === "string" && payload.session_id.trim() !== ""
    ? Effect.succeed(payload)
    : Effect.die(
        new RangeError(
          `a durable session needs a session id, a non-empty string, got ${JSON.stringify(payload.session_id)}`
        )
      )

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === "string" ? error : (JSON.stringify(error) ?? String(error))

/**
 * A kind of durable session named `name` (the workflow's name: the same on every runner, and
 * unique in the cluster).
 *
 * @since 0.1.0
 */
export const make = <const Name extends string, T extends Tool.Any, E, R>(
  name: Name,
  definition: Definition<T, E, R>
): DurableSession<Name, T, R> => {
  const workflow = Workflow.make(name, {
    payload: Payload,
    success: SessionResult.SessionResult,
    error: PlannerFailed,
    idempotencyKey: (payload) => payload.session_id
  })
  const layer = workflow.toLayer((payload) =>
    Effect.gen(function* () {
      const engine = yield* WorkflowEngine.WorkflowEngine
      const instance = yield* WorkflowEngine.WorkflowInstance
      const onOutcome = definition.onOutcome
      const middleware = yield* DurableJournal.middleware({
        onOutcome: onOutcome === undefined ? undefined : (outcome) => onOutcome(outcome, payload.session_id)
      })
      let asked = 0
      const planner: Planner.Planner<PlannerFailed, R> = (request) =>
        Activity.make({
          name: `plan/${asked++}`,
          success: Step.Plan,
          error: Schema.Union([Planner.InvalidPlan, PlannerFailed]),
          execute: definition
            .planner(request)
            .pipe(
              Effect.mapError((error) =>
                error instanceof Planner.InvalidPlan ? error : new PlannerFailed({ message: messageOf(error) })
              )
            )
        }).pipe(
          Effect.provideService(WorkflowEngine.WorkflowEngine, engine),
          Effect.provideService(WorkflowEngine.WorkflowInstance, instance)
        )
      return yield* Session.run({
        goal: payload.goal,
        sessionId: payload.session_id,
        planner,
        toolset: definition.toolset,
        onFailure: definition.onFailure,
        maxSteps: definition.maxSteps,
        maxReplans: definition.maxReplans,
        timeout: definition.timeout,
        onEvent: definition.onEvent
      }).pipe(Effect.provideService(Execute.Middleware, middleware))
    })
  )
  return {
    workflow,
    layer,
    run: (payload) => Effect.flatMap(checked(payload), (p) => workflow.execute(p)),
    start: (payload) => Effect.flatMap(checked(payload), (p) => workflow.execute(p, { discard: true })),
    poll: (sessionId) =>
      Effect.flatMap(workflow.executionId({ session_id: sessionId, goal: "" }), (id) => workflow.poll(id))
  }
}
