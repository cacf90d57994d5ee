/**
 * What a fake effect/ai `LanguageModel` needs to speak the loop's words: the tool results of
 * the last `tool` message of a prompt, as the model is shown them, and reply blocks as encoded
 * response parts. The scripted model's `LanguageModel` face (`ScriptedModel.languageModel`) is
 * built on them. (They were `LanguageModelAdapter.lastToolResults` and `toResponseParts` of
 * `@agent-harness/executor`.)
 *
 * @since 0.1.0
 */
import { Message, type ReplyPart } from "@agent-harness/executor"
import type { ToolContent } from "@agent-harness/tool-schema"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"

/** The images of a tool result's model output (base64 file parts), as rich parts. */
const imagesOf = (part: Prompt.ToolResultPart): ReadonlyArray<ToolContent.ImagePart> =>
  (part.modelOutput ?? []).flatMap((output) =>
    output.type === "file" && typeof output.data === "string" && output.mediaType.startsWith("image/")
      ? [{ type: "image" as const, mediaType: output.mediaType, data: output.data }]
      : []
  )

/**
 * The tool results of the last `tool` message of a prompt, as the model is shown them (with
 * the images of their model output as parts).
 *
 * @since 0.1.0
 */
export const lastToolResults = (prompt: Prompt.Prompt): ReadonlyArray<Message.ToolResultBlock> => {
  for (let i = prompt.content.length - 1; i >= 0; i--) {
    const message = prompt.content[i]
    if (message === undefined) continue
    if (message.role === "assistant") return []
    if (message.role === "tool") {
      return message.content.flatMap((part) =>
        part.type === "tool-result"
          ? [
              Message.toolResult(
                part.id,
                typeof part.result === "string" ? part.result : JSON.stringify(part.result),
                part.isFailure,
                { parts: imagesOf(part) }
              )
            ]
          : []
      )
    }
  }
  return []
}

/**
 * Reply blocks as encoded response parts, for models built with `LanguageModel.make`.
 *
 * @since 0.1.0
 */
export const toResponseParts = (reply: ReadonlyArray<Message.ReplyBlock>): Array<Response.PartEncoded> =>
  reply.map(
    (block): Response.PartEncoded =>
      block.type === "text"
        ? { type: "text", text: block.text }
        : block.type === "reasoning"
          ? { type: "reasoning", text: block.text }
          : { type: "tool-call", id: block.id, name: block.name, params: block.input }
  )

/**
 * A reply's stream parts (`ReplyPart`) as effect/ai's encoded stream parts, for models built
 * with `LanguageModel.make`: a text or reasoning block opens (`text-start`, `reasoning-start`)
 * at its first delta and closes at its `block-ended`; a call is `tool-params-start`, its
 * `tool-params-delta`s, then `tool-params-end` and the whole `tool-call` at its end. Usage and
 * finish parts (a script has none) and provider metadata are not carried, as `toResponseParts`
 * does not carry them.
 *
 * @since 0.2.0
 */
export const toStreamParts = (parts: ReadonlyArray<ReplyPart.Part>): Array<Response.StreamPartEncoded> => {
  const open = new Map<string, "text" | "reasoning">()
  const names = new Map<string, string>()
  const out: Array<Response.StreamPartEncoded> = []
  for (const part of parts) {
    switch (part.type) {
      case "text-delta":
      case "reasoning-delta": {
        const kind = part.type === "text-delta" ? "text" : "reasoning"
        const id = part.id ?? ""
        if (open.get(id) !== kind) {
          open.set(id, kind)
          out.push({ type: kind === "text" ? "text-start" : "reasoning-start", id })
        }
        out.push({ type: part.type, id, delta: part.text })
        break
      }
      case "block-ended": {
        const id = part.id ?? ""
        const kind = open.get(id)
        if (kind !== undefined) {
          open.delete(id)
          out.push({ type: kind === "text" ? "text-end" : "reasoning-end", id })
        }
        break
      }
      case "call-started":
        names.set(part.id, part.name)
        out.push({ type: "tool-params-start", id: part.id, name: part.name, providerExecuted: false })
        break
      case "call-delta":
        out.push({ type: "tool-params-delta", id: part.id, delta: part.delta })
        break
      case "call-ended": {
        const name = part.name ?? names.get(part.id) ?? ""
        if (names.has(part.id)) out.push({ type: "tool-params-end", id: part.id })
        out.push({ type: "tool-call", id: part.id, name, params: part.input, providerExecuted: false })
        break
      }
      default:
        // Usage and finish: a script has none.
        break
    }
  }
  return out
}
