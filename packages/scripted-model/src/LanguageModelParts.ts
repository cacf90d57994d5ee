/**
 * What a fake effect/ai `LanguageModel` needs to speak the loop's words: the tool results of
 * the last `tool` message of a prompt, as the model is shown them, and reply blocks as encoded
 * response parts. The scripted model's `LanguageModel` face (`ScriptedModel.languageModel`) is
 * built on them. (They were `LanguageModelAdapter.lastToolResults` and `toResponseParts` of
 * `@agent-harness/executor`.)
 *
 * @since 0.1.0
 */
import { Message } from "@agent-harness/executor"
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
