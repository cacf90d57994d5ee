/**
 * A conversation (the loop) as an effect/workflow `Workflow`: `Loop.run` as the workflow's body,
 * each model turn an activity (`turn/<n>`: the reply, with its usage and finish reason, or the
 * model's failure) and each tool call recorded by the journal (`DurableJournal`, with the
 * journal's ids under the conversation's id, since a model's call ids are only unique within
 * its conversation). A conversation that runs again — after a restart, on another
 * runner — replays the replies it has (the model is not asked again) and the calls it has
 * (nothing runs again); a non-idempotent call that was running is reported outcome unknown and
 * the model reads that, as with the local journal.
 *
 * The model is the `Model` service the runner provides (a real provider, a scripted model).
 *
 * @since 0.1.0
 */
import {
  Ended,
  Execute,
  FinishReason,
  Loop,
  Message,
  Model,
  type Outcome,
  Spans,
  type StopReason,
  Usage
} from "@agent-harness/executor"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { type Price, Spend } from "@agent-harness/budgets"
import type { Approvals } from "@agent-harness/idempotency"
import { Approver, Gate, Policy } from "@agent-harness/permission"
import { type Cause, type Duration, Effect, type Layer, Option, Result as R, Schema } from "effect"
import { Activity, type Workflow as W, Workflow, WorkflowEngine } from "effect/workflow"
import * as DurableApprovals from "./DurableApprovals.ts"
import * as DurableJournal from "./DurableJournal.ts"

/**
 * What starts a conversation: its id (the workflow's key; not empty) and the opening messages.
 *
 * @since 0.1.0
 */
export const Payload: Schema.Struct<{
  readonly conversation_id: Schema.String
  readonly messages: Schema.$Array<typeof Message.Message>
}> = Schema.Struct({ conversation_id: Schema.String, messages: Schema.Array(Message.Message) })

/** What starts a conversation. @since 0.1.0 */
export type Payload = typeof Payload.Type

/**
 * What a conversation spent: tokens in and out, and USD (0 without a price).
 *
 * @since 0.2.0
 */
export const Spent: Schema.Struct<{
  readonly input_tokens: Schema.Finite
  readonly output_tokens: Schema.Finite
  readonly cost: Schema.Finite
}> = Schema.Struct({
  input_tokens: Schema.Finite,
  output_tokens: Schema.Finite,
  cost: Schema.Finite
})

/**
 * How a conversation ended: the loop's one JSON form of how a run ended (`Ended`: the stop
 * reason, the number of model calls) with the final text (`null` rather than absent when
 * there is none, as records have always held it) and the whole history (every tool result in
 * it).
 *
 * @since 0.1.0
 */
export const Result: Schema.Struct<{
  readonly stop: typeof StopReason.StopReason
  readonly text: Schema.NullOr<Schema.String>
  readonly messages: Schema.$Array<typeof Message.Message>
  readonly turns: Schema.Int
  readonly spent: Schema.optionalKey<typeof Spent>
}> = Schema.Struct({
  stop: Ended.Ended.fields.stop,
  text: Schema.NullOr(Schema.String),
  messages: Schema.Array(Message.Message),
  turns: Ended.Ended.fields.turns,
  /** What the conversation spent, when its kind has a `spend` (rebuilt from the recorded turns on every run). */
  spent: Schema.optionalKey(Spent)
})

/** How a conversation ended (`spent` with a `spend`). @since 0.1.0 */
export type Result = typeof Result.Type

const ConversationFailedBase: Schema.Class<
  ConversationFailed,
  Schema.TaggedStruct<
    "ConversationFailed",
    { readonly kind: Schema.Literals<readonly ["model", "option"]>; readonly message: Schema.String }
  >,
  Cause.YieldableError
> = Schema.TaggedError<ConversationFailed>()("ConversationFailed", {
  kind: Schema.Literals(["model", "option"]),
  message: Schema.String
})

/**
 * The loop failed: its model failed (`model`, the `ModelError`'s message, naming the turn) or
 * an option is invalid (`option`). Recorded as the conversation's result.
 *
 * @since 0.1.0
 */
export class ConversationFailed extends ConversationFailedBase {}

/**
 * A model reply as recorded (the `Model.Response`).
 *
 * @since 0.1.0
 */
export const Response: Schema.Struct<{
  readonly content: Schema.$Array<typeof Message.ReplyBlock>
  readonly usage: Schema.optional<typeof Usage.Usage>
  readonly finishReason: Schema.optional<typeof FinishReason.FinishReason>
  readonly rawFinishReason: Schema.optional<Schema.String>
}> = Schema.Struct({
  content: Schema.Array(Message.ReplyBlock),
  usage: Schema.optional(Usage.Usage),
  finishReason: Schema.optional(FinishReason.FinishReason),
  rawFinishReason: Schema.optional(Schema.String)
})

/**
 * A model's failure as recorded (`Model.Failure`).
 *
 * @since 0.1.0
 */
export const ModelFailure: Schema.Struct<{ readonly _tag: Schema.String; readonly message: Schema.String }> =
  Schema.Struct({ _tag: Schema.String, message: Schema.String })

/**
 * The model, each reply an activity of the running workflow (`turn/<n>`, n from 1 in the order
 * the body asks): a reply that is recorded is given again without asking the model.
 *
 * @since 0.1.0
 */
export const journaledModel = (
  model: Model.Shape
): Effect.Effect<Model.Shape, never, WorkflowEngine.WorkflowEngine | WorkflowEngine.WorkflowInstance> =>
  Effect.gen(function* () {
    const engine = yield* WorkflowEngine.WorkflowEngine
    const instance = yield* WorkflowEngine.WorkflowInstance
    let asked = 0
    const respond = (request: Model.Request): Effect.Effect<Model.Response, Model.Failure> => {
      const turn = ++asked
      // Whether the model was asked this time: a reply given from the journal was not.
      let ran = false
      return Activity.make({
        name: `turn/${turn}`,
        success: Response,
        error: ModelFailure,
        execute: Effect.suspend(() => {
          ran = true
          return Effect.mapError(model.respond(request), (failure) => ({
            _tag: failure._tag,
            message: failure.message
          }))
        })
      }).pipe(
        Effect.provideService(WorkflowEngine.WorkflowEngine, engine),
        Effect.provideService(WorkflowEngine.WorkflowInstance, instance),
        // A replayed reply is an event of its call's span (when spans are read).
        Effect.onExit(() => (ran ? Effect.void : replayedEvent(turn)))
      )
    }
    return {
      respond,
      complete: model.complete,
      ...(model.maxOutputTokens === undefined ? {} : { maxOutputTokens: model.maxOutputTokens }),
      ...(model.provider === undefined ? {} : { provider: model.provider }),
      ...(model.model === undefined ? {} : { model: model.model })
    }
  })

/** `journal.replayed` on the current span (the turn's `chat` span), when there is one. */
const replayedEvent = (turn: number): Effect.Effect<void> =>
  Effect.flatMap(Spans.traced, (traced) =>
    traced
      ? Effect.catchCause(
          Effect.clockWith((clock) =>
            Effect.flatMap(Effect.currentSpan, (span) =>
              Effect.sync(() =>
                span.event(Spans.Event.replayed, clock.currentTimeNanosUnsafe(), { [Spans.Attribute.turn]: turn })
              )
            )
          ),
          () => Effect.void
        )
      : Effect.void
  )

/**
 * What every runner knows of a kind of conversation.
 *
 * @since 0.1.0
 */
export interface Definition<T extends Tool.Any> {
  /** The tools the model may call (each call recorded by the journal). */
  readonly toolset: Toolset.Toolset<T>
  /** Model calls at most; default `Loop.defaultMaxTurns`. */
  readonly maxTurns?: number | undefined
  /** How many calls of one turn run at once (each recorded by the journal). Default 1. */
  readonly concurrency?: number | "unbounded" | undefined
  /** Per-call timeout. */
  readonly timeout?: Execute.Options["timeout"]
  /** Sees each call's outcome as the loop gets it (ran, replayed, outcome unknown), with the conversation id. */
  readonly onOutcome?: ((outcome: Outcome.Outcome, conversationId: string) => Effect.Effect<void>) | undefined
  /**
   * The permission gate every call goes through, in front of the journal (a denied call is
   * never journaled nor run). A call a rule asks about is parked in the `DurableApprovals` store
   * the runner provides and the conversation suspends until someone answers it
   * (`DurableApprovals.answer`): no runner is held, no timeout decides. Without that store, no
   * one can be asked and such a call is denied. The policy is checked when the kind is made.
   */
  readonly permission?:
    | {
        readonly policy: Policy.Policy
        /** Mark tool output as untrusted data (the gate's `untrustedOutput`). */
        readonly untrustedOutput?: boolean | undefined
        /** Told each time a call starts to wait for an answer, with the conversation id. */
        readonly onParked?: ((approval: Approvals.Approval, conversationId: string) => Effect.Effect<void>) | undefined
        /** How long a waiting call sleeps before each look at the store (`DurableApprovals.Options.recheck`). */
        readonly recheck?: ((n: number) => Duration.Duration) | undefined
      }
    | undefined
  /**
   * Token and money limits for each conversation (`Loop.Options.spend`), with the price and the
   * per-reply output cap its worst case counts. The turns are recorded with their usage, so a
   * conversation run again (a restart, another runner) settles the same usage in the same order:
   * what it spent is rebuilt, never reset nor counted twice.
   */
  readonly spend?:
    | {
        readonly limits: Spend.Limits
        readonly price?: Price.Price | undefined
        readonly maxOutputTokens: number
      }
    | undefined
}

/**
 * A kind of durable conversation: its workflow, the layer that registers it on a runner (with
 * the runner's `Model`), and how to run, start and poll conversations.
 *
 * @since 0.1.0
 */
export interface DurableLoop<Name extends string, T extends Tool.Any> {
  /** The effect/workflow workflow, named `Name`: the loop as its body. */
  readonly workflow: W.Workflow<Name, typeof Payload, typeof Result, typeof ConversationFailed>
  /** Registers the workflow on a runner. */
  readonly layer: Layer.Layer<
    never,
    never,
    WorkflowEngine.WorkflowEngine | DurableJournal.DurableJournal | Model.Model | Tool.Services<T>
  >
  /** Runs a conversation (or joins the one with that id) to its end. */
  readonly run: (payload: Payload) => Effect.Effect<Result, ConversationFailed, WorkflowEngine.WorkflowEngine>
  /** Starts a conversation (or finds the one with that id) without waiting; gives its execution id. */
  readonly start: (payload: Payload) => Effect.Effect<string, never, WorkflowEngine.WorkflowEngine>
  /** The result of a conversation, once it has one. */
  readonly poll: (
    conversationId: string
  ) => Effect.Effect<Option.Option<W.Result<Result, ConversationFailed>>, never, WorkflowEngine.WorkflowEngine>
}

const checked = (payload: Payload): Effect.Effect<Payload> =>
  typeof payload.conversation_id === "string" && payload.conversation_id.trim() !== ""
    ? Effect.succeed(payload)
    : Effect.die(
        new RangeError(
          `a durable conversation needs a conversation id, a non-empty string, got ${JSON.stringify(payload.conversation_id)}`
        )
      )

/**
 * The gate of a conversation's run and its approver: parked in the runner's `DurableApprovals`
 * (the workflow suspends on an unanswered one), or no one when the runner has no store.
 */
const gateOf = (
  permission: Definition<Tool.Any>["permission"],
  conversationId: string
): Effect.Effect<
  { readonly gate: Execute.Middleware; readonly approver: Approver.Approver } | undefined,
  never,
  WorkflowEngine.WorkflowEngine | WorkflowEngine.WorkflowInstance
> =>
  Effect.gen(function* () {
    if (permission === undefined) return undefined
    // Checked by `make`: an invalid policy never gets here.
    const gate = yield* Effect.orDie(
      Gate.make({ policy: permission.policy, untrustedOutput: permission.untrustedOutput, approvalTimeout: Infinity })
    )
    const store = yield* Effect.serviceOption(DurableApprovals.DurableApprovals)
    if (Option.isNone(store)) return { gate, approver: Approver.unattended }
    const onParked = permission.onParked
    const approver = yield* DurableApprovals.approver({
      store: store.value,
      session: conversationId,
      onParked: onParked === undefined ? undefined : (approval) => onParked(approval, conversationId),
      recheck: permission.recheck
    })
    return { gate, approver }
  })

/**
 * A kind of durable conversation named `name` (the workflow's name, unique in the cluster).
 *
 * @since 0.1.0
 */
export const make = <const Name extends string, T extends Tool.Any>(
  name: Name,
  definition: Definition<T>
): DurableLoop<Name, T> => {
  const permission = definition.permission
  if (permission !== undefined) {
    const compiled = Policy.compile(permission.policy)
    if (R.isFailure(compiled))
      throw new RangeError(`durable conversation ${name}: the policy: ${compiled.failure.message}`)
  }
  const workflow = Workflow.make(name, {
    payload: Payload,
    success: Result,
    error: ConversationFailed,
    idempotencyKey: (payload) => payload.conversation_id
  })
  const layer = workflow.toLayer((payload) =>
    Effect.gen(function* () {
      const model = yield* journaledModel(yield* Model.Model)
      const onOutcome = definition.onOutcome
      const journal = yield* DurableJournal.middleware({
        scope: payload.conversation_id,
        onOutcome: onOutcome === undefined ? undefined : (outcome) => onOutcome(outcome, payload.conversation_id)
      })
      const guarded = yield* gateOf(permission, payload.conversation_id)
      const middleware = guarded === undefined ? journal : Execute.compose(guarded.gate, journal)
      const approver = guarded?.approver ?? Approver.unattended
      const result = yield* Loop.run({
        toolset: definition.toolset,
        messages: payload.messages,
        maxTurns: definition.maxTurns,
        concurrency: definition.concurrency,
        timeout: definition.timeout,
        ...(definition.spend === undefined
          ? {}
          : {
              spend: Spend.make(definition.spend.limits, { price: definition.spend.price }),
              maxOutputTokens: definition.spend.maxOutputTokens
            })
      }).pipe(
        Effect.provideService(Model.Model, model),
        Effect.provideService(Execute.Middleware, middleware),
        Effect.provideService(Approver.Approver, approver),
        Effect.mapError(
          (error) =>
            new ConversationFailed({ kind: error._tag === "ModelError" ? "model" : "option", message: error.message })
        )
      )
      const ended: Result = {
        stop: result.stop,
        text: result.text ?? null,
        messages: result.messages,
        turns: result.turns.length,
        ...(result.spend === undefined
          ? {}
          : {
              spent: {
                input_tokens: result.spend.spent.inputTokens,
                output_tokens: result.spend.spent.outputTokens,
                cost: result.spend.spent.cost
              }
            })
      }
      return ended
    })
  )
  return {
    workflow,
    layer,
    run: (payload) => Effect.flatMap(checked(payload), (p) => workflow.execute(p)),
    start: (payload) => Effect.flatMap(checked(payload), (p) => workflow.execute(p, { discard: true })),
    poll: (conversationId) =>
      Effect.flatMap(workflow.executionId({ conversation_id: conversationId, messages: [] }), (id) => workflow.poll(id))
  }
}
