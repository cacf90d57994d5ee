/**
 * The model as a service: given the history and the tools, it `respond`s with text, tool calls
 * and reasoning, and what the provider said about the reply (usage, finish reason). The loop and
 * the model-backed planner know nothing else about it; a scripted model or a provider (the
 * ai-sdk edge: an AI SDK provider, an effect/ai `LanguageModel`) plugs in as a layer.
 *
 * @since 0.1.0
 */
import { Render, type Tool, type Toolset } from "@agent-harness/tool-schema"
import { type Cause, Context, Data, Effect, Layer, Stream } from "effect"
import type * as FinishReasons from "./FinishReason.ts"
import type * as Message from "./Message.ts"
import * as Spanning from "./internal/spans.ts"
import * as ReplyPart from "./ReplyPart.ts"
import type * as Usages from "./Usage.ts"

/**
 * Why a model could not reply: a script divergence, a provider error. Any tagged value with a
 * message; packages define their own (the scripted model's divergences, provider failures).
 *
 * @since 0.1.0
 */
export interface Failure {
  /** What kind of failure it is. */
  readonly _tag: string
  /** What went wrong, in words. */
  readonly message: string
}

const ModelErrorBase: new (args: {
  readonly turn: number
  readonly reason: Failure
}) => Cause.YieldableError & { readonly _tag: "ModelError"; readonly turn: number; readonly reason: Failure } =
  Data.TaggedError("ModelError")

/**
 * A model failure seen by the loop: it belongs to no tool call, so it fails the loop's Effect.
 * `turn` is the model call that failed, from 1; `reason` is what the model reported.
 *
 * @since 0.1.0
 */
export class ModelError extends ModelErrorBase {
  /** `model call <turn>: <the reason's message>`. */
  override get message(): string {
    return `model call ${this.turn}: ${this.reason.message}`
  }
}

const MalformedReplyBase: new (args: {
  readonly message: string
}) => Cause.YieldableError & { readonly _tag: "MalformedReply"; readonly message: string } =
  Data.TaggedError("MalformedReply")

/**
 * The model's reply broke the contract of `Model.respond`: it is not a list of text, tool_use and
 * reasoning blocks, or a tool_use has no id (no result could answer it) or no tool name.
 * `message` says which block and what is wrong.
 *
 * @since 0.1.0
 */
export class MalformedReply extends MalformedReplyBase {}

const ModelDefectBase: new (args: {
  readonly defect: unknown
  readonly message: string
}) => Cause.YieldableError & { readonly _tag: "ModelDefect"; readonly defect: unknown; readonly message: string } =
  Data.TaggedError("ModelDefect")

/**
 * The model failed with something that is not a `Failure` (`undefined`, a string, an object
 * without `_tag` and `message`), threw, or died. `defect` is what it failed or died with.
 *
 * @since 0.1.0
 */
export class ModelDefect extends ModelDefectBase {}

/**
 * Why a reply ended, in the AI SDK's unified words: `stop` (the model finished), `tool-calls`,
 * `length` (cut off by the token limit), `content-filter`, `error`, `interrupted` (the
 * provider's stream ended without a finish), `other`.
 *
 * @since 0.1.0
 */
export type FinishReason = FinishReasons.FinishReason

/**
 * The finish reasons of an incomplete reply: cut off by the token limit (`length`), ended by a
 * provider `error`, stopped by a `content-filter`, or `interrupted`.
 *
 * @since 0.1.0
 */
export type IncompleteFinishReason = FinishReasons.Incomplete

const incompleteReasons: Readonly<Record<IncompleteFinishReason, string>> = {
  length: "the reply was cut off by the token limit",
  error: "the provider ended the reply with an error",
  "content-filter": "a content filter stopped the reply",
  interrupted: "the provider's stream ended before the reply finished"
}

/**
 * Whether a finish reason means the reply did not finish (`length`, `error`,
 * `content-filter`, `interrupted`).
 *
 * @since 0.1.0
 */
export const isIncomplete = (reason: string): reason is IncompleteFinishReason =>
  Object.hasOwn(incompleteReasons, reason)

const IncompleteReplyBase: new (args: {
  readonly finishReason: IncompleteFinishReason
}) => Cause.YieldableError & { readonly _tag: "IncompleteReply"; readonly finishReason: IncompleteFinishReason } =
  Data.TaggedError("IncompleteReply")

/**
 * The model's reply did not finish normally (the errors-as-observations idea: "una respuesta cortada por la reserva"
 * is a model failure): it belongs to no tool call, so the loop fails with it, and nothing of
 * the partial reply runs.
 *
 * @since 0.1.0
 */
export class IncompleteReply extends IncompleteReplyBase {
  /** Why the reply did not finish, in words, with its finish reason. */
  override get message(): string {
    return `${incompleteReasons[this.finishReason]} (finish reason '${this.finishReason}')`
  }
}

/**
 * The tokens one model call used, as the provider reported them; a count it did not report is
 * absent.
 *
 * @since 0.1.0
 */
export type Usage = Usages.Usage

/**
 * A reply with what the provider said about it: the loop keeps `usage` and the finish reason
 * in its `Turn` and its trace, and fails the run with `IncompleteReply` when the reply did not
 * finish (`isIncomplete`).
 *
 * @since 0.1.0
 */
export interface Response {
  /** The reply's blocks, in order. */
  readonly content: ReadonlyArray<Message.ReplyBlock>
  /** The tokens the call used, when the provider reports them. */
  readonly usage?: Usage | undefined
  /** Why the reply ended, when the provider says. */
  readonly finishReason?: FinishReason | undefined
  /** The provider's own word for it (`end_turn`, `max_tokens`, `tool_calls`...). */
  readonly rawFinishReason?: string | undefined
  /** The model that answered, when the provider says (`gen_ai.response.model` on the call's span). */
  readonly model?: string | undefined
}

/**
 * What the model is asked for each turn.
 *
 * @since 0.1.0
 */
export interface Request {
  /** The whole history so far, opening messages first. */
  readonly messages: ReadonlyArray<Message.Message>
  /** The tools it may call. */
  readonly toolset: Toolset.Toolset<Tool.Any>
  /** The model call, from 1 (the loop gives it; a model may name it in what it traces). */
  readonly turn?: number | undefined
}

/**
 * A model: one interface, `respond`, for the loop and the planner, and `stream` when the model
 * can give its reply as it is written. A provider (an edge package: ai-sdk, the scripted
 * model, your own) implements `respond` (and `stream`); a function that gives only the blocks
 * becomes a model with {@link fromReply}, a function that gives parts one with {@link fromStream}.
 *
 * @since 0.1.0
 */
export interface Shape {
  /**
   * One reply to the history: its blocks, with the usage and the finish reason when the
   * provider reports them. The loop keeps them in its turns and its trace, and fails the run
   * with `IncompleteReply` when the reply did not finish (`isIncomplete`).
   */
  readonly respond: (request: Request) => Effect.Effect<Response, Failure>
  /**
   * The same reply as it is written, part by part (`ReplyPart`): what `Loop.stream` shows as it
   * comes. Folded (`ReplyPart.fold`) it is the response `respond` gives. A model without it
   * streams its whole response at once ({@link partsOf}).
   */
  readonly stream?: ((request: Request) => Stream.Stream<ReplyPart.Part, Failure>) | undefined
  /**
   * Called once when the loop stops, with the final history: a scripted model checks here that
   * no reply is left over and that the last results are the expected ones.
   */
  readonly complete?: ((messages: ReadonlyArray<Message.Message>) => Effect.Effect<void, Failure>) | undefined
  /**
   * The most output tokens one reply may have, as the model asks its provider for: the loop's
   * worst case of a call under a token or money budget (`Loop.Options.spend`).
   */
  readonly maxOutputTokens?: number | undefined
  /**
   * The provider, in the OpenTelemetry GenAI conventions' words (`anthropic`, `openai`,
   * `gcp.gemini`...): `gen_ai.provider.name` on each call's span (`Spans`).
   */
  readonly provider?: string | undefined
  /** The model asked for (`claude-sonnet-4-5`): `gen_ai.request.model`, and the span's name `chat {model}`. */
  readonly model?: string | undefined
}

/**
 * A function that gives a reply's blocks only (no usage, no finish reason), for
 * {@link fromReply}.
 *
 * @since 0.1.0
 */
export type Reply = (request: Request) => Effect.Effect<ReadonlyArray<Message.ReplyBlock>, Failure>

/**
 * A model from a function that gives only the reply's blocks: its `respond` answers those
 * blocks as the `content` of a `Response` with no usage and no finish reason. A throw or an
 * answer that is not an Effect reaches the loop as it is, and is reported as the model's
 * (`ModelDefect`).
 *
 * @example
 * ```ts
 * import { Message, Model } from "@agent-harness/executor"
 * import { Effect } from "effect"
 *
 * const echo = Model.layer(Model.fromReply(() => Effect.succeed([Message.text("hello")])))
 * ```
 *
 * @since 0.1.0
 */
export const fromReply = (reply: Reply, options?: { readonly complete?: Shape["complete"] }): Shape => ({
  respond: (request) => {
    const out = reply(request)
    // A hostile function's non-Effect goes on as it is: the loop names it.
    return Effect.isEffect(out) ? Effect.map(out, (content): Response => ({ content })) : out
  },
  ...(options?.complete === undefined ? {} : { complete: options.complete })
})

/**
 * A model from a function that streams its reply (`ReplyPart`): `stream` is that function and
 * `respond` its fold (`ReplyPart.fold`), so both give the same reply.
 *
 * @since 0.2.0
 */
export const fromStream = (
  stream: (request: Request) => Stream.Stream<ReplyPart.Part, Failure>,
  options?: { readonly complete?: Shape["complete"] }
): Shape => ({
  respond: (request) => ReplyPart.fold(stream(request)),
  stream,
  ...(options?.complete === undefined ? {} : { complete: options.complete })
})

const ModelBase: Context.ServiceClass<Model, "@agent-harness/executor/Model", Shape> = Context.Service<Model, Shape>()(
  "@agent-harness/executor/Model"
)

/**
 * The model service the loop calls.
 *
 * @since 0.1.0
 */
export class Model extends ModelBase {}

/**
 * A layer with a model.
 *
 * @since 0.1.0
 */
export const layer = (model: Shape): Layer.Layer<Model> => Layer.succeed(Model, model)

/**
 * A model's failure as the loop reports it: a `Failure` (a `_tag` and a `message`, both strings)
 * as it is, anything else as a `ModelDefect` saying what it was. Never throws.
 *
 * @since 0.1.0
 */
export const failureOf = (reason: unknown): Failure => {
  try {
    if (typeof reason === "object" && reason !== null) {
      const { _tag, message } = reason as { readonly _tag?: unknown; readonly message?: unknown }
      if (typeof _tag === "string" && typeof message === "string") return reason as Failure
    }
  } catch {
    // Described below.
  }
  return new ModelDefect({ defect: reason, message: `the model failed with ${Render.thrown(reason)}` })
}

/**
 * A model that threw or died, as a failure.
 *
 * @since 0.1.0
 */
export const defectOf = (defect: unknown): Failure =>
  new ModelDefect({ defect, message: `the model died: ${Render.thrown(defect)}` })

/**
 * Runs a call to a model (its `respond`, its `complete`) with every way that can go wrong a
 * typed `Failure`: a call that throws or dies, one that answers something that is not an
 * Effect, a failure that is not a `Failure`.
 *
 * @since 0.1.0
 */
export const guard = <A>(call: () => Effect.Effect<A, Failure>): Effect.Effect<A, Failure> =>
  Effect.suspend(() => {
    const out: unknown = call()
    return Effect.isEffect(out)
      ? (out as Effect.Effect<A, unknown>)
      : Effect.die(new TypeError(`the model answered ${Render.brief(out)} instead of an Effect`))
  }).pipe(
    Effect.catchDefect((defect) => Effect.fail(defectOf(defect))),
    Effect.mapError(failureOf)
  )

/**
 * Asks `model` to `respond` to `request` through {@link guard}: whatever goes wrong is a typed
 * `Failure`. The model-backed planner and the summarizer ask through it. The response itself is
 * not checked here (the loop checks its blocks and its finish reason). When spans are read
 * (`Spans.isTracedBy`), the call is a `chat {model}` span, as each of the loop's calls is.
 *
 * @since 0.1.0
 */
export const ask = (model: Shape, request: Request): Effect.Effect<Response, Failure> =>
  Effect.withFiber((fiber) => {
    const asking = guard(() => model.respond(request))
    const spanning = Spanning.spanningOf(fiber)
    return spanning.traced ? Spanning.chatResponse(model, request, spanning.content, asking) : asking
  })

/**
 * The parts of `model`'s reply to `request`: its `stream` when it has one, otherwise its whole
 * `respond` as parts (`ReplyPart.fromResponse`). Guarded as {@link guard} is: a `stream` that
 * throws, answers something that is not a Stream, fails with something that is not a
 * `Failure` or dies fails with a typed `Failure`.
 *
 * @since 0.2.0
 */
export const partsOf = (model: Shape, request: Request): Stream.Stream<ReplyPart.Part, Failure> => {
  const stream = model.stream
  if (stream === undefined) {
    return Stream.flatMap(Stream.fromEffect(guard(() => model.respond(request))), (response) =>
      Stream.fromIterable(ReplyPart.fromResponse(response))
    )
  }
  return Stream.suspend(() => {
    const out: unknown = stream.call(model, request)
    return Stream.isStream(out)
      ? (out as Stream.Stream<ReplyPart.Part, unknown>)
      : Stream.die(new TypeError(`the model's stream answered ${Render.brief(out)} instead of a Stream`))
  }).pipe(
    Stream.catchDefect((defect) => Stream.fail(defectOf(defect))),
    Stream.mapError(failureOf)
  )
}
