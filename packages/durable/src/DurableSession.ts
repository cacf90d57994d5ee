/**
 * A plan session as an effect/workflow `Workflow`: the session's state machine (`Session.run`,
 * the same planner, budgets, events and `SessionResult` as in-process) runs as the workflow's
 * body, each step recorded by the journal under its call id (`DurableJournal`) and each planner
 * answer an activity (`plan/<n>`), so a model planner is asked once even when the body runs
 * again.
 *
 * The workflow's execution is keyed by the session id: starting a session id that already ran
 * joins it (its recorded result, or the run in progress) instead of starting another. When the
 * runner running it dies, the runner that takes its shard runs the body again: recorded plans
 * and steps are replayed (nothing runs), a non-idempotent step that was running is reported
 * outcome unknown (the planner reads it as any failure), an idempotent one runs again, and the
 * rest runs. The events of that run (and `onEvent`) include the replayed part again; the result
 * is the one an uninterrupted session would have given, with the unknown step(s) as failures.
 *
 * With a `spend`, the planner's calls draw from it as in-process (`Session.Options.spend`), and
 * each recorded planner answer keeps what its call spent (or the refusal): a body run again
 * counts the recorded amounts as it replays them, so a resumed session continues from what it
 * had spent, never from zero and never twice. (A planner call cut off by a crash before its
 * answer was recorded is made again; what the first one cost is not known to the journal.)
 *
 * @since 0.1.0
 */
import { type Price, Spend, SpendMeter } from "@agent-harness/budgets"
import { Execute, type Outcome, Spending } from "@agent-harness/executor"
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
  /**
   * Token and money limits for each session's planner calls (`Session.Options.spend`), with the
   * price; journaled with each planner answer (see the module).
   */
  readonly spend?:
    | {
        /** The limits. */
        readonly limits: Spend.Limits
        /** The model's price (needed for a `cost` limit). */
        readonly price?: Price.Price | undefined
      }
    | undefined
}

/**
 * A planner answer as the journal keeps it with a spend: the plan, or the reason it was not one,
 * or the refusal of the call, with what the call spent.
 *
 * @since 0.2.0
 */
export const Answer: Schema.Union<
  readonly [
    Schema.TaggedStruct<"Planned", { readonly plan: typeof Step.Plan; readonly spent: typeof Spending.Amount }>,
    Schema.TaggedStruct<"NotAPlan", { readonly reason: Schema.String; readonly spent: typeof Spending.Amount }>,
    Schema.TaggedStruct<
      "Refused",
      {
        readonly kind: (typeof Spending.Refused.fields)["kind"]
        readonly limit: Schema.Finite
        readonly committed: Schema.Finite
        readonly requested: Schema.Finite
      }
    >
  ]
> = Schema.Union([
  Schema.TaggedStruct("Planned", { plan: Step.Plan, spent: Spending.Amount }),
  Schema.TaggedStruct("NotAPlan", { reason: Schema.String, spent: Spending.Amount }),
  Schema.TaggedStruct("Refused", {
    kind: Spending.Refused.fields.kind,
    limit: Schema.Finite,
    committed: Schema.Finite,
    requested: Schema.Finite
  })
])

/** A planner answer as the journal keeps it with a spend. @since 0.2.0 */
export type Answer = typeof Answer.Type

const difference = (after: Spend.Amount, before: Spend.Amount): typeof Spending.Amount.Type =>
  Spending.wire({
    inputTokens: after.inputTokens - before.inputTokens,
    outputTokens: after.outputTokens - before.outputTokens,
    cost: after.cost - before.cost
  })

const amountOf = (spent: typeof Spending.Amount.Type): Spend.Amount => ({
  inputTokens: spent.input_tokens,
  outputTokens: spent.output_tokens,
  cost: spent.cost
})

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
      const inWorkflow = <A, E2, R2>(effect: Effect.Effect<A, E2, R2>) =>
        effect.pipe(
          Effect.provideService(WorkflowEngine.WorkflowEngine, engine),
          Effect.provideService(WorkflowEngine.WorkflowInstance, instance)
        )
      const toFailed = (error: unknown) =>
        error instanceof Planner.InvalidPlan ? error : new PlannerFailed({ message: messageOf(error) })
      /** With a spend: the answer and what it spent recorded together; a replayed one counted again. */
      const spentPlanner: Planner.Planner<PlannerFailed | Spend.Exhausted, R> = (request) => {
        const meter = request.spend
        if (meter === undefined) return Effect.die(new Error("DurableSession: a spend session's planner got no meter"))
        let ran = false
        const execute = Effect.gen(function* () {
          ran = true
          const before = (yield* meter.current).spent
          const answered = yield* Effect.result(definition.planner(request))
          const spent = difference((yield* meter.current).spent, before)
          if (answered._tag === "Success") return { _tag: "Planned", plan: answered.success, spent } as const
          const error: unknown = answered.failure
          if (error instanceof Spend.Exhausted) {
            const { kind, limit, committed, requested } = error
            return { _tag: "Refused", kind, limit, committed, requested } as const
          }
          if (error instanceof Planner.InvalidPlan) return { _tag: "NotAPlan", reason: error.reason, spent } as const
          return yield* Effect.fail(new PlannerFailed({ message: messageOf(error) }))
        })
        return Effect.flatMap(
          inWorkflow(Activity.make({ name: `plan/${asked++}`, success: Answer, error: PlannerFailed, execute })),
          (answer): Effect.Effect<Step.Plan, Planner.InvalidPlan | PlannerFailed | Spend.Exhausted> => {
            const replayed =
              ran || answer._tag === "Refused" ? Effect.void : Effect.asVoid(meter.count(amountOf(answer.spent)))
            switch (answer._tag) {
              case "Planned":
                return Effect.as(replayed, answer.plan)
              case "NotAPlan":
                return Effect.andThen(replayed, Effect.fail(new Planner.InvalidPlan({ reason: answer.reason })))
              case "Refused":
                return Effect.fail(
                  new Spend.Exhausted({
                    kind: answer.kind,
                    limit: answer.limit,
                    committed: answer.committed,
                    requested: answer.requested
                  })
                )
            }
          }
        )
      }
      const plainPlanner: Planner.Planner<PlannerFailed, R> = (request) =>
        inWorkflow(
          Activity.make({
            name: `plan/${asked++}`,
            success: Step.Plan,
            error: Schema.Union([Planner.InvalidPlan, PlannerFailed]),
            execute: Effect.mapError(definition.planner(request), toFailed)
          })
        )
      return yield* Session.run({
        goal: payload.goal,
        sessionId: payload.session_id,
        planner: definition.spend === undefined ? plainPlanner : spentPlanner,
        ...(definition.spend === undefined
          ? {}
          : {
              spend: SpendMeter.makeUnsafe(Spend.make(definition.spend.limits, { price: definition.spend.price }))
            }),
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
