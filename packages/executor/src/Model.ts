/**
 * The model as a service: given the history and the tools, it replies with text and tool calls.
 * The loop knows nothing else about it; a scripted model, an effect/ai `LanguageModel` or a
 * provider SDK plug in as layers.
 *
 * @since 0.1.0
 */
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { Context, Data, type Effect, Layer } from "effect"
import type * as Message from "./Message.ts"

/**
 * Why a model could not reply: a script divergence, a provider error. Any tagged value with a
 * message; packages define their own (the scripted model's divergences, provider failures).
 *
 * @since 0.1.0
 */
export interface Failure {
  readonly _tag: string
  readonly message: string
}

/**
 * A model failure seen by the loop: it belongs to no tool call, so it fails the loop's Effect.
 *
 * @since 0.1.0
 */
export class ModelError extends Data.TaggedError("ModelError")<{
  /** The model call that failed, from 1. */
  readonly turn: number
  /** What the model reported. */
  readonly reason: Failure
}> {
  override get message(): string {
    return `model call ${this.turn}: ${this.reason.message}`
  }
}

/**
 * The model's reply broke the contract of `Model.reply`: it is not a list of text and tool_use
 * blocks, or a tool_use has no id (no result could answer it) or no tool name. `message` says
 * which block and what is wrong.
 *
 * @since 0.1.0
 */
export class MalformedReply extends Data.TaggedError("MalformedReply")<{ readonly message: string }> {}

/**
 * The model failed with something that is not a `Failure` (`undefined`, a string, an object
 * without `_tag` and `message`), threw, or died. `defect` is what it failed or died with.
 *
 * @since 0.1.0
 */
export class ModelDefect extends Data.TaggedError("ModelDefect")<{
  readonly defect: unknown
  readonly message: string
}> {}

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
}

/**
 * A model.
 *
 * @since 0.1.0
 */
export interface Shape {
  /** One reply to the history. */
  readonly reply: (request: Request) => Effect.Effect<ReadonlyArray<Message.ReplyBlock>, Failure>
  /**
   * Called once when the loop stops, with the final history: a scripted model checks here that
   * no reply is left over and that the last results are the expected ones.
   */
  readonly complete?: ((messages: ReadonlyArray<Message.Message>) => Effect.Effect<void, Failure>) | undefined
}

/**
 * The model service the loop calls.
 *
 * @since 0.1.0
 */
export class Model extends Context.Service<Model, Shape>()("@agent-harness/executor/Model") {}

/**
 * A layer with a model.
 *
 * @since 0.1.0
 */
export const layer = (model: Shape): Layer.Layer<Model> => Layer.succeed(Model, model)
