/**
 * A tiny scripted model for the loop tests: canned replies in order, every request recorded.
 */
import { Effect, type Layer } from "effect"
import { type Message, Model } from "../src/index.ts"

/** One scripted step: a reply, or a failure of the model call. */
export type Step = ReadonlyArray<Message.ReplyBlock> | { readonly fail: Model.Failure }

export interface Scripted {
  readonly layer: Layer.Layer<Model.Model>
  /** Every request the model got, in order (a copy of the history at that call). */
  readonly requests: Array<Model.Request>
  /** Every history `complete` was called with. */
  readonly completed: Array<ReadonlyArray<Message.Message>>
}

export const scripted = (steps: ReadonlyArray<Step>, options?: { readonly complete?: boolean }): Scripted => {
  const queue = [...steps]
  const requests: Array<Model.Request> = []
  const completed: Array<ReadonlyArray<Message.Message>> = []
  const reply: Model.Reply = (request) =>
    Effect.suspend(() => {
      requests.push({ messages: [...request.messages], toolset: request.toolset })
      const next = queue.shift()
      if (next === undefined) return Effect.fail({ _tag: "ScriptExhausted", message: "no reply left" })
      return "fail" in next ? Effect.fail(next.fail) : Effect.succeed(next)
    })
  const layer = Model.layer(
    Model.fromReply(
      reply,
      options?.complete === false
        ? undefined
        : { complete: (messages) => Effect.sync(() => void completed.push([...messages])) }
    )
  )
  return { layer, requests, completed }
}
