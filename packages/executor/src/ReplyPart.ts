/**
 * A streamed reply, part by part: text and reasoning as they are written, a tool call's start,
 * the pieces of its arguments and its end, the usage and the finish. A model that streams
 * (`Model.Shape.stream`) gives a turn as a `Stream` of these; the loop shows them as they come
 * and folds them (`fold`, `Folder`) into the same `Model.Response` an unstreamed reply is.
 *
 * The fold is where the streaming guarantees live: a call becomes a `tool_use` block only when
 * its end arrives with its whole, decoded `input`; a stream that ends with a call still open is
 * `IncompleteStream` (nothing of that turn runs), and so is a part that names a call that was
 * never started, or one that is not a part at all.
 *
 * @since 0.2.0
 */
import { Render } from "@agent-harness/tool-schema"
import { type Cause, Data, Effect, Predicate, Stream } from "effect"
import type * as FinishReasons from "./FinishReason.ts"
import type * as Message from "./Message.ts"
import type { Response } from "./Model.ts"
import type * as Usages from "./Usage.ts"

/**
 * A piece of the reply's text. Consecutive pieces with the same `id` (or none) make one text
 * block; another `id`, or another kind of block in between, starts a new one.
 *
 * @since 0.2.0
 */
export interface TextDelta {
  /** Discriminates the part. */
  readonly type: "text-delta"
  /** The block it belongs to, when the provider names blocks. */
  readonly id?: string | undefined
  /** The piece of text. */
  readonly text: string
}

/**
 * A piece of the model's reasoning (never part of the reply's text), grouped into blocks as
 * text is.
 *
 * @since 0.2.0
 */
export interface ReasoningDelta {
  /** Discriminates the part. */
  readonly type: "reasoning-delta"
  /** The block it belongs to, when the provider names blocks. */
  readonly id?: string | undefined
  /** The piece of reasoning. */
  readonly text: string
}

/**
 * A text or reasoning block is complete; `provider_metadata` (Anthropic's thinking signature,
 * OpenAI's item id) is kept on the block as it came.
 *
 * @since 0.2.0
 */
export interface BlockEnded {
  /** Discriminates the part. */
  readonly type: "block-ended"
  /** The block that ended (the last text or reasoning block without an id when none). */
  readonly id?: string | undefined
  /** What the provider attached to the block, kept on it as it came. */
  readonly provider_metadata?: Message.ProviderMetadata | undefined
}

/**
 * The model started writing a tool call: its id and the tool's name. It is not a call yet.
 *
 * @since 0.2.0
 */
export interface CallStarted {
  /** Discriminates the part. */
  readonly type: "call-started"
  /** The call's tool_use id. */
  readonly id: string
  /** The tool's name. */
  readonly name: string
}

/**
 * A piece of a call's arguments, as the provider sent it (JSON text cut anywhere, inside a
 * string or an escape). For showing only: the call runs with the `input` of its end.
 *
 * @since 0.2.0
 */
export interface CallDelta {
  /** Discriminates the part. */
  readonly type: "call-delta"
  /** The call's tool_use id. */
  readonly id: string
  /** The piece of its arguments' text. */
  readonly delta: string
}

/**
 * A tool call is complete: `input` is its whole input, decoded (the arguments' JSON parsed, or
 * the text as it came when it is not JSON, which the executor answers `not executed`). A call
 * that was not started by a `call-started` starts and ends here, with its `name`.
 *
 * @since 0.2.0
 */
export interface CallEnded {
  /** Discriminates the part. */
  readonly type: "call-ended"
  /** The call's tool_use id. */
  readonly id: string
  /** The tool's name; needed when no `call-started` came first. */
  readonly name?: string | undefined
  /** The call's whole input, decoded: what it runs with. */
  readonly input: unknown
  /** What the provider attached to the call, kept on its block as it came. */
  readonly provider_metadata?: Message.ProviderMetadata | undefined
}

/**
 * The tokens the call used, as the provider reported them (the last report wins).
 *
 * @since 0.2.0
 */
export interface UsageReported {
  /** Discriminates the part. */
  readonly type: "usage"
  /** The counts the provider reported. */
  readonly usage: Usages.Usage
}

/**
 * Why the reply ended. A stream without one folds into a response without a finish reason.
 *
 * @since 0.2.0
 */
export interface Finished {
  /** Discriminates the part. */
  readonly type: "finish"
  /** Why the reply ended, in the unified words. */
  readonly finishReason?: FinishReasons.FinishReason | undefined
  /** The provider's own word for it. */
  readonly rawFinishReason?: string | undefined
}

/**
 * One part of a streamed reply.
 *
 * @since 0.2.0
 */
export type Part =
  | TextDelta
  | ReasoningDelta
  | BlockEnded
  | CallStarted
  | CallDelta
  | CallEnded
  | UsageReported
  | Finished

const IncompleteStreamBase: new (args: {
  readonly detail: string
}) => Cause.YieldableError & { readonly _tag: "IncompleteStream"; readonly detail: string } =
  Data.TaggedError("IncompleteStream")

/**
 * A streamed reply that cannot be folded into a reply: it ended with a tool call still open
 * (its arguments never completed), named a call that was never started, started one twice, or
 * sent something that is not a part. A model failure: none of that turn's calls run.
 *
 * @since 0.2.0
 */
export class IncompleteStream extends IncompleteStreamBase {
  /** `the model's stream <detail>`. */
  override get message(): string {
    return `the model's stream ${this.detail}`
  }
}

type OpenBlock =
  | {
      readonly kind: "text" | "reasoning"
      readonly id: string | undefined
      text: string
      meta?: Message.ProviderMetadata
    }
  | { readonly kind: "call"; readonly id: string; readonly name: string; args: string; ended?: Message.ToolUseBlock }

/**
 * An incremental fold of one reply's parts: `add` each part as it comes (a problem stops the
 * fold: nothing of the reply is used), then `finish` for the response. Reads every part
 * defensively: a hostile part (a throwing getter, a proxy) is a problem, never a throw.
 *
 * @since 0.2.0
 */
export interface Folder {
  /** Takes one part; `IncompleteStream` when it cannot belong to the reply. */
  readonly add: (part: Part) => IncompleteStream | undefined
  /** The reply so far as a response, or `IncompleteStream` when a call is still open. */
  readonly finish: () => Response | IncompleteStream
  /** The text written so far (all text blocks, in order): what is kept when a turn is interrupted. */
  readonly text: () => string
}

const str = (u: unknown): u is string => typeof u === "string"
const idOf = (u: unknown): string | undefined => (str(u) ? u : undefined)

/**
 * A fresh fold of one reply.
 *
 * @since 0.2.0
 */
export const folder = (): Folder => {
  const blocks: Array<OpenBlock> = []
  const calls = new Map<string, Extract<OpenBlock, { kind: "call" }>>()
  let usage: Usages.Usage | undefined
  let finishReason: FinishReasons.FinishReason | undefined
  let rawFinishReason: string | undefined
  let broken: IncompleteStream | undefined
  const fail = (detail: string): IncompleteStream => {
    broken = new IncompleteStream({ detail })
    return broken
  }
  const addText = (kind: "text" | "reasoning", id: string | undefined, text: string) => {
    const last = blocks.at(-1)
    if (last !== undefined && last.kind === kind && last.id === id) last.text += text
    else blocks.push({ kind, id, text })
  }
  const addUnsafe = (part: Part): IncompleteStream | undefined => {
    if (!Predicate.isObject(part)) return fail(`sent ${Render.brief(part)} instead of a reply part`)
    switch (part.type) {
      case "text-delta":
      case "reasoning-delta": {
        const { text } = part
        if (!str(text)) return fail(`sent a ${part.type} whose text is ${Render.brief(text)}`)
        addText(part.type === "text-delta" ? "text" : "reasoning", idOf(part.id), text)
        return undefined
      }
      case "block-ended": {
        const id = idOf(part.id)
        let block: OpenBlock | undefined
        for (let i = blocks.length - 1; i >= 0 && block === undefined; i--) {
          const b = blocks[i]
          if (b !== undefined && b.kind !== "call" && b.id === id) block = b
        }
        if (block !== undefined && block.kind !== "call" && Predicate.isObject(part.provider_metadata)) {
          block.meta = part.provider_metadata
        }
        return undefined
      }
      case "call-started": {
        const { id, name } = part
        if (!str(id) || !str(name)) return fail(`started a tool call without an id and a name`)
        if (calls.has(id)) return fail(`started tool call '${id}' twice`)
        const call = { kind: "call" as const, id, name, args: "" }
        calls.set(id, call)
        blocks.push(call)
        return undefined
      }
      case "call-delta": {
        const { id, delta } = part
        const call = str(id) ? calls.get(id) : undefined
        if (call === undefined) return fail(`sent arguments for tool call ${Render.brief(id)}, which was never started`)
        if (call.ended !== undefined) return fail(`sent arguments for tool call '${call.id}' after its end`)
        if (!str(delta)) return fail(`sent arguments for tool call '${call.id}' that are ${Render.brief(delta)}`)
        call.args += delta
        return undefined
      }
      case "call-ended": {
        const { id } = part
        if (!str(id)) return fail(`ended a tool call without an id`)
        let call = calls.get(id)
        if (call === undefined) {
          const name = part.name
          if (!str(name)) return fail(`ended tool call '${id}', which was never started and has no name`)
          call = { kind: "call", id, name, args: "" }
          calls.set(id, call)
          blocks.push(call)
        }
        if (call.ended !== undefined) return fail(`ended tool call '${id}' twice`)
        const meta = part.provider_metadata
        call.ended = {
          type: "tool_use",
          id,
          name: call.name,
          input: part.input,
          ...(Predicate.isObject(meta) ? { provider_metadata: meta } : {})
        }
        return undefined
      }
      case "usage":
        usage = part.usage
        return undefined
      case "finish":
        finishReason = part.finishReason
        rawFinishReason = idOf(part.rawFinishReason)
        return undefined
      default:
        return fail(`sent a part of unknown type ${Render.brief((part as { readonly type?: unknown }).type)}`)
    }
  }
  return {
    add: (part) => {
      if (broken !== undefined) return broken
      try {
        return addUnsafe(part)
      } catch (thrown) {
        return fail(`sent a part that cannot be read (${Render.thrown(thrown)})`)
      }
    },
    text: () => blocks.flatMap((b) => (b.kind === "text" ? [b.text] : [])).join(""),
    finish: () => {
      if (broken !== undefined) return broken
      const content: Array<Message.ReplyBlock> = []
      for (const block of blocks) {
        if (block.kind === "call") {
          if (block.ended === undefined) {
            return fail(`ended inside tool call '${block.id}' (${block.name}) before its arguments were complete`)
          }
          content.push(block.ended)
        } else {
          content.push({
            type: block.kind,
            text: block.text,
            ...(block.meta === undefined ? {} : { provider_metadata: block.meta })
          })
        }
      }
      return {
        content,
        ...(usage === undefined ? {} : { usage }),
        ...(finishReason === undefined ? {} : { finishReason }),
        ...(rawFinishReason === undefined ? {} : { rawFinishReason })
      }
    }
  }
}

/**
 * A whole stream of parts folded into its response; fails with the stream's own failure, or
 * with `IncompleteStream`.
 *
 * @since 0.2.0
 */
export const fold = <E, R>(parts: Stream.Stream<Part, E, R>): Effect.Effect<Response, E | IncompleteStream, R> =>
  Effect.suspend(() => foldInto(parts, folder()))

/**
 * A stream of parts folded into `into` (whose `text` says what was written so far, while it
 * runs), each part passed to `onPart` once the fold took it; the response at the end. Fails as
 * {@link fold} does, or as `onPart` does.
 *
 * @since 0.2.0
 */
export const foldInto = <E, R, E2 = never>(
  parts: Stream.Stream<Part, E, R>,
  into: Folder,
  onPart?: (part: Part) => Effect.Effect<void, E2>
): Effect.Effect<Response, E | E2 | IncompleteStream, R> =>
  Stream.runForEach(parts, (part): Effect.Effect<void, E2 | IncompleteStream> => {
    const problem = into.add(part)
    if (problem !== undefined) return Effect.fail(problem)
    return onPart === undefined ? Effect.void : onPart(part)
  }).pipe(
    Effect.flatMap(() => {
      const done = into.finish()
      return done instanceof IncompleteStream ? Effect.fail(done) : Effect.succeed(done)
    })
  )

/**
 * A whole response as the parts a stream would have given: one delta per text and reasoning
 * block (then its end, with its metadata), a start and an end per call (its arguments as one
 * piece of JSON), the usage, the finish. `fold` of these gives the response back.
 *
 * @since 0.2.0
 */
export const fromResponse = (response: Response): ReadonlyArray<Part> => {
  const parts: Array<Part> = []
  response.content.forEach((block, index) => {
    const id = `${index}`
    if (block.type === "tool_use") {
      parts.push({ type: "call-started", id: block.id, name: block.name })
      const args = argumentsText(block.input)
      if (args !== "") parts.push({ type: "call-delta", id: block.id, delta: args })
      parts.push({
        type: "call-ended",
        id: block.id,
        input: block.input,
        ...(block.provider_metadata === undefined ? {} : { provider_metadata: block.provider_metadata })
      })
    } else {
      parts.push({ type: block.type === "text" ? "text-delta" : "reasoning-delta", id, text: block.text })
      parts.push({
        type: "block-ended",
        id,
        ...(block.provider_metadata === undefined ? {} : { provider_metadata: block.provider_metadata })
      })
    }
  })
  if (response.usage !== undefined) parts.push({ type: "usage", usage: response.usage })
  if (response.finishReason !== undefined || response.rawFinishReason !== undefined) {
    parts.push({
      type: "finish",
      ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
      ...(response.rawFinishReason === undefined ? {} : { rawFinishReason: response.rawFinishReason })
    })
  }
  return parts
}

/**
 * A call's input as the JSON text of its arguments (what a provider streams); a string as it is,
 * a value that cannot be written as JSON (a cycle, a BigInt, a throwing getter) as `""`.
 *
 * @since 0.2.0
 */
export const argumentsText = (input: unknown): string => {
  if (typeof input === "string") return input
  try {
    return JSON.stringify(input) ?? ""
  } catch {
    return ""
  }
}
