/**
 * effect/ai's stream parts (`LanguageModel.streamText`) as the loop's reply parts
 * (`ReplyPart.Part`), for `LanguageModelAdapter`'s `stream`.
 *
 * @internal
 */
import type { Model, ReplyPart } from "@agent-harness/executor"
import { Render } from "@agent-harness/tool-schema"
import * as AiError from "effect/ai/AiError"
import type * as Response from "effect/ai/Response"
import type * as AiTool from "effect/ai/Tool"

/** A streamed part of a reply whose tool calls are left unresolved and unvalidated. */
export type StreamPart = Response.StreamPart<Record<string, AiTool.Any>, "deferred">

/** What one effect/ai part becomes: the loop's parts, or the failure an error part is. */
export type Mapped = ReadonlyArray<ReplyPart.Part> | AiError.AiError

/** An `error` part's error as the stream's failure: an `AiError` as it is, anything else described. */
const failureOf = (error: unknown): AiError.AiError =>
  AiError.isAiError(error)
    ? error
    : AiError.make({
        module: "LanguageModelAdapter",
        method: "stream",
        reason: new AiError.UnknownError({ description: `the model's stream sent an error: ${Render.thrown(error)}` })
      })

/**
 * A fresh mapping of one reply's effect/ai parts: text and reasoning deltas and ends, a tool
 * call's params start and deltas (`call-started`, `call-delta`) and its `tool-call`
 * (`call-ended`, its params as they came), the `finish` as usage then finish (`usage`,
 * `finishReason` as `respond` reads them); an `error` part is the stream's failure. A call the
 * provider executed itself is not the loop's, and parts with nothing for the loop (sources,
 * files, metadata, tool results) are dropped.
 */
export const mapper = (
  usageOf: (usage: Response.Usage) => Model.Usage,
  finishOf: (reason: Response.FinishReason) => Model.FinishReason | undefined
): ((part: StreamPart) => Mapped) => {
  const providerExecuted = new Set<string>()
  return (part) => {
    switch (part.type) {
      case "text-delta":
      case "reasoning-delta":
        return [{ type: part.type, id: part.id, text: part.delta }]
      case "text-end":
      case "reasoning-end":
        return [{ type: "block-ended", id: part.id }]
      case "tool-params-start":
        if (part.providerExecuted) {
          providerExecuted.add(part.id)
          return []
        }
        return [{ type: "call-started", id: part.id, name: part.name }]
      case "tool-params-delta":
        return providerExecuted.has(part.id) ? [] : [{ type: "call-delta", id: part.id, delta: part.delta }]
      case "tool-call":
        return part.providerExecuted ? [] : [{ type: "call-ended", id: part.id, name: part.name, input: part.params }]
      case "finish":
        return [
          { type: "usage", usage: usageOf(part.usage) },
          { type: "finish", finishReason: finishOf(part.reason), rawFinishReason: part.reason }
        ]
      case "error":
        return failureOf(part.error)
      default:
        return []
    }
  }
}
