/**
 * How the scripted model cuts a reply into the parts of a stream (`ReplyPart`): text and
 * reasoning in pieces of at most `textChars` characters, a call's arguments (their JSON text,
 * `ReplyPart.argumentsText`) in pieces of at most `argumentChars`. Characters are code points,
 * so a piece never ends between the two halves of a surrogate pair; an argument piece can end
 * inside a string or an escape, as a provider's fragments do. The cut is a pure function of the
 * reply and the chunking: the same script gives the same parts every time.
 *
 * @since 0.2.0
 */
import { type Message, Model, ReplyPart } from "@agent-harness/executor"
import { Render } from "@agent-harness/tool-schema"
import { type Cause, Data, Predicate, Result } from "effect"

/**
 * A chunking, every field optional: {@link defaults} fill what is left out.
 *
 * @since 0.2.0
 */
export interface Chunking {
  /** Characters of text (and of reasoning) per delta; a whole number of at least 1 (default 8). */
  readonly textChars?: number | undefined
  /** Characters of a call's JSON arguments per delta; a whole number of at least 1 (default 5). */
  readonly argumentChars?: number | undefined
}

/**
 * A chunking with every field given.
 *
 * @since 0.2.0
 */
export interface Resolved {
  /** Characters of text (and of reasoning) per delta. */
  readonly textChars: number
  /** Characters of a call's JSON arguments per delta. */
  readonly argumentChars: number
}

/**
 * The chunking when none is given: 8 characters of text or reasoning, 5 of arguments per delta.
 *
 * @since 0.2.0
 */
export const defaults: Resolved = { textChars: 8, argumentChars: 5 }

interface InvalidChunkingFields {
  /** The field at fault: `chunking`, `chunking.textChars`, `chunking.argumentChars`. */
  readonly field: string
  /** What is wrong with it, and what was given. */
  readonly problem: string
}

const InvalidChunkingBase: new (
  args: InvalidChunkingFields
) => Cause.YieldableError & { readonly _tag: "InvalidChunking" } & Readonly<InvalidChunkingFields> =
  Data.TaggedError("InvalidChunking")

/**
 * A chunking that cannot be used: `field` names what is wrong (`chunking.textChars`...). The
 * scripted model fails each model call with it, before any reply.
 *
 * @since 0.2.0
 */
export class InvalidChunking extends InvalidChunkingBase {
  /** `invalid chunking: <field> <problem>`. */
  override get message(): string {
    return `invalid chunking: ${this.field} ${this.problem}`
  }
}

const whole = (chunking: object, key: keyof Chunking): number => {
  let value: unknown
  try {
    value = (chunking as Record<string, unknown>)[key]
  } catch (thrown) {
    throw new InvalidChunking({ field: `chunking.${key}`, problem: `cannot be read (${Render.thrown(thrown)})` })
  }
  if (value === undefined) return defaults[key]
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidChunking({
      field: `chunking.${key}`,
      problem: `must be a whole number of at least 1, got ${Render.brief(value)}`
    })
  }
  return value
}

/**
 * The chunking with its defaults, or what is wrong with it (a field that is not a whole number
 * of at least 1, a chunking that is not an object, a getter that throws). Never throws.
 *
 * @since 0.2.0
 */
export const resolve = (chunking?: Chunking | undefined): Result.Result<Resolved, InvalidChunking> => {
  if (chunking === undefined) return Result.succeed(defaults)
  try {
    if (!Predicate.isObject(chunking) || Array.isArray(chunking)) {
      throw new InvalidChunking({ field: "chunking", problem: `must be an object, got ${Render.brief(chunking)}` })
    }
    return Result.succeed({ textChars: whole(chunking, "textChars"), argumentChars: whole(chunking, "argumentChars") })
  } catch (error) {
    return Result.fail(
      error instanceof InvalidChunking
        ? error
        : new InvalidChunking({ field: "chunking", problem: `cannot be read (${Render.thrown(error)})` })
    )
  }
}

/**
 * `text` in pieces of at most `size` code points (a surrogate pair is never split), in order;
 * the empty text is one empty piece.
 *
 * @since 0.2.0
 */
export const pieces = (text: string, size: number): ReadonlyArray<string> => {
  const out: Array<string> = []
  let start = 0
  while (start < text.length) {
    let end = start
    for (let count = 0; count < size && end < text.length; count++) {
      const unit = text.charCodeAt(end)
      const next = end + 1 < text.length ? text.charCodeAt(end + 1) : 0
      // A high surrogate followed by a low one is one character: both go in the same piece.
      end += unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1
    }
    out.push(text.slice(start, end))
    start = end
  }
  return out.length === 0 ? [""] : out
}

/** Whether the metadata of a block is absent or an object. */
const metadataOf = (block: object): Message.ProviderMetadata | undefined | string => {
  const meta: unknown = (block as { readonly provider_metadata?: unknown }).provider_metadata
  if (meta === undefined) return undefined
  return Predicate.isObject(meta) ? (meta as Message.ProviderMetadata) : `has provider_metadata ${Render.brief(meta)}`
}

/** A block's parts, or what is wrong with it (a block that cannot be cut). */
const blockParts = (
  block: unknown,
  index: number,
  chunking: Resolved,
  into: Array<ReplyPart.Part>
): string | undefined => {
  if (!Predicate.isObject(block)) return `is not a block: ${Render.brief(block)}`
  const { type } = block as { readonly type?: unknown }
  const meta = metadataOf(block)
  if (typeof meta === "string") return meta
  const ended = meta === undefined ? {} : { provider_metadata: meta }
  if (type === "tool_use") {
    const { id, name, input } = block as { readonly id?: unknown; readonly name?: unknown; readonly input?: unknown }
    if (typeof id !== "string" || id === "") return "(tool_use) has no id, so no result could answer it"
    if (typeof name !== "string") return `(tool_use '${id}') has no tool name`
    into.push({ type: "call-started", id, name })
    const args = ReplyPart.argumentsText(input)
    if (args !== "")
      for (const delta of pieces(args, chunking.argumentChars)) into.push({ type: "call-delta", id, delta })
    into.push({ type: "call-ended", id, input, ...ended })
    return undefined
  }
  if (type !== "text" && type !== "reasoning") return `has an unknown type: ${Render.brief(type)}`
  const { text } = block as { readonly text?: unknown }
  if (typeof text !== "string") return `(${type}) has no string text`
  const id = `${index}`
  const delta = type === "text" ? "text-delta" : "reasoning-delta"
  for (const piece of pieces(text, chunking.textChars)) into.push({ type: delta, id, text: piece })
  into.push({ type: "block-ended", id, ...ended })
  return undefined
}

/**
 * A reply as the parts of its stream: per text or reasoning block (named by its position) its
 * pieces then its end (with its `provider_metadata`); per call `call-started`, its arguments'
 * pieces (`call-delta`), `call-ended` with the call's input as it is (and its metadata).
 * `ReplyPart.fold` of them gives the reply back. A reply that cannot be cut (a block that is
 * not text, reasoning or a tool_use with an id and a name, a getter that throws) is a
 * `MalformedReply` naming the block, never a throw.
 *
 * @since 0.2.0
 */
export const parts = (
  reply: ReadonlyArray<Message.ReplyBlock>,
  chunking: Resolved
): Result.Result<ReadonlyArray<ReplyPart.Part>, Model.MalformedReply> => {
  const into: Array<ReplyPart.Part> = []
  try {
    if (!Array.isArray(reply)) {
      return Result.fail(
        new Model.MalformedReply({ message: `the reply is not a list of blocks: ${Render.brief(reply)}` })
      )
    }
    for (let i = 0; i < reply.length; i++) {
      const problem = blockParts(reply[i], i, chunking, into)
      if (problem !== undefined) return Result.fail(new Model.MalformedReply({ message: `block ${i + 1} ${problem}` }))
    }
  } catch (thrown) {
    return Result.fail(new Model.MalformedReply({ message: `the reply cannot be read: ${Render.thrown(thrown)}` }))
  }
  return Result.succeed(into)
}
