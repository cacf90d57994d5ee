/**
 * An AI SDK stream (`doStream`'s `LanguageModelV4StreamPart`s) as the loop's reply parts
 * (`ReplyPart.Part`), and the reading of it:
 *
 * - text and reasoning deltas as they come (empty ones, such as Chat Completions' opening
 *   `content: ""` or Anthropic's signature delta, show nothing), each block's end with the
 *   provider metadata its start, deltas and end carried (Anthropic's thinking signature,
 *   OpenAI's item ids), so the folded block is the one `doGenerate` gives;
 * - a call's start under the tool's own name, its argument deltas, its end with the input
 *   parsed as `ProviderPrompt.parseInput` parses it (limits included) and restored to the
 *   tool's schema (`ProviderTools.restore`); calls the provider ran itself are left out, as
 *   `ProviderPrompt.fromContent` leaves them out;
 * - the finish as the usage and the finish reason (`ProviderPrompt.usageOf`, `finishOf`); a
 *   stream that ends without one ends with the finish `interrupted` (Anthropic sends none when
 *   the body ends early), which the loop fails as an incomplete reply;
 * - an `error` part fails the stream there with a typed `ProviderError`: nothing after it is
 *   used (on Chat Completions, `@ai-sdk/openai` still flushes the half-written call after the
 *   error), and nothing of a reply that had begun is sent again. So does a read that breaks
 *   (the connection cut) and the request timeout running out.
 *
 * @internal
 */
import type { ReplyPart } from "@agent-harness/executor"
import type { Message } from "@agent-harness/executor"
import type { LanguageModelV4StreamPart, SharedV4ProviderMetadata, SharedV4Warning } from "@ai-sdk/provider"
import { Cause, Effect, Stream } from "effect"
import * as ProviderError from "../ProviderError.ts"
import * as ProviderPrompt from "../ProviderPrompt.ts"
import type * as ToolAliases from "../ToolAliases.ts"

/** What the mapping needs from the turn's request: names back to the tools', inputs back to their schemas. */
export interface Names {
  readonly aliases: ToolAliases.Aliases
  readonly restore: (name: string, input: unknown) => unknown
}

/** An `error` part: the provider ended the stream with an error, the reply not whole. */
export interface ErrorPart {
  readonly _tag: "ErrorPart"
  readonly error: unknown
}

/** One provider part mapped: the loop's parts for it (maybe none), or the error that ends the stream. */
export type Mapped = ReadonlyArray<ReplyPart.Part> | ErrorPart

/** The stateful mapping of one stream: `add` each provider part in order, then `end`. */
export interface Mapper {
  readonly add: (part: LanguageModelV4StreamPart) => Mapped
  /** The parts that close the stream: a finish `interrupted` when the provider sent no finish. */
  readonly end: () => ReadonlyArray<ReplyPart.Part>
}

const none: ReadonlyArray<ReplyPart.Part> = []

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Metadata merged provider by provider (a later key wins), as a block's start, deltas and end carry it. */
const merge = (
  into: Record<string, Record<string, unknown>> | undefined,
  metadata: SharedV4ProviderMetadata | undefined
): Record<string, Record<string, unknown>> | undefined => {
  if (!isObject(metadata)) return into
  let out = into
  for (const provider of Object.keys(metadata)) {
    const value = metadata[provider]
    if (!isObject(value)) continue
    out ??= {}
    out[provider] = { ...out[provider], ...value }
  }
  return out
}

/** A mapping for one turn's stream. */
export const mapper = (names: Names): Mapper => {
  /** The metadata of each open text or reasoning block, by id. */
  const metadata = new Map<string, Record<string, Record<string, unknown>> | undefined>()
  /** Calls the provider runs itself: their deltas are not the client's. */
  const providerRun = new Set<string>()
  let finished = false
  const note = (id: string, meta: SharedV4ProviderMetadata | undefined) => {
    metadata.set(id, merge(metadata.get(id), meta))
  }
  const add = (part: LanguageModelV4StreamPart): Mapped => {
    switch (part.type) {
      case "text-start":
      case "reasoning-start":
        note(part.id, part.providerMetadata)
        return none
      case "text-delta":
      case "reasoning-delta": {
        note(part.id, part.providerMetadata)
        if (typeof part.delta !== "string" || part.delta === "") return none
        return [{ type: part.type, id: part.id, text: part.delta }]
      }
      case "text-end":
      case "reasoning-end": {
        const meta = merge(metadata.get(part.id), part.providerMetadata)
        metadata.delete(part.id)
        const provider_metadata =
          meta === undefined || Object.keys(meta).length === 0 ? undefined : (meta as Message.ProviderMetadata)
        return [{ type: "block-ended", id: part.id, ...(provider_metadata === undefined ? {} : { provider_metadata }) }]
      }
      case "tool-input-start":
        if (part.providerExecuted === true) {
          providerRun.add(part.id)
          return none
        }
        return [{ type: "call-started", id: part.id, name: names.aliases.fromProvider(part.toolName) }]
      case "tool-input-delta":
        return providerRun.has(part.id) ? none : [{ type: "call-delta", id: part.id, delta: part.delta }]
      case "tool-call": {
        if (part.providerExecuted === true || providerRun.has(part.toolCallId)) return none
        const name = names.aliases.fromProvider(part.toolName)
        const meta = part.providerMetadata
        return [
          {
            type: "call-ended",
            id: part.toolCallId,
            name,
            input: names.restore(name, ProviderPrompt.parseInput(part.input)),
            ...(isObject(meta) && Object.keys(meta).length > 0
              ? { provider_metadata: meta as Message.ProviderMetadata }
              : {})
          }
        ]
      }
      case "finish": {
        finished = true
        const usage = ProviderPrompt.usageOf(part.usage)
        return [
          ...(usage === undefined ? [] : [{ type: "usage" as const, usage }]),
          { type: "finish", ...ProviderPrompt.finishOf(part.finishReason) }
        ]
      }
      case "error":
        return { _tag: "ErrorPart", error: part.error }
      default:
        // stream-start, response-metadata, ping, raw, custom, sources, files, provider-run results.
        return none
    }
  }
  return {
    add,
    end: () => (finished ? none : [{ type: "finish", finishReason: "interrupted" }])
  }
}

const fieldOf = (u: unknown, key: string): unknown => {
  try {
    return isObject(u) ? u[key] : undefined
  } catch {
    return undefined
  }
}

const textOf = (u: unknown): string | undefined => (typeof u === "string" && u !== "" ? u : undefined)

/** What an `error` part says: its type (or code) and message, read without throwing. */
export const describeError = (error: unknown): string => {
  const kind = textOf(fieldOf(error, "type")) ?? textOf(fieldOf(error, "code"))
  const message = textOf(fieldOf(error, "message")) ?? textOf(fieldOf(fieldOf(error, "error"), "message"))
  if (message !== undefined) return kind === undefined || kind === "error" ? message : `${kind}: ${message}`
  if (typeof error === "string") return error
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    return "an unreadable error"
  }
}

const notAgain = "the reply had begun streaming, so it was not sent again"

/**
 * The typed failure of an `error` part: `ProviderUnavailable` (the reply cut off) when the SDK
 * says the error is one to try again later (an overload, a server error), else `ProviderFailure`.
 */
export const errorPartFailure = (provider: string, attempts: number, error: unknown): ProviderError.ProviderError => {
  const detail = `an error event mid-stream (${describeError(error)}); ${notAgain}`
  return fieldOf(error, "isRetryable") === true
    ? new ProviderError.ProviderUnavailable({ provider, status: undefined, attempts, detail, cutOff: true })
    : new ProviderError.ProviderFailure({ provider, detail, cause: error })
}

/** The typed failure of a read that broke: a final `ProviderError` as it is, a transient one as the reply cut off. */
export const readFailure = (provider: string, attempts: number, error: unknown): ProviderError.ProviderError => {
  const classified = ProviderError.classify(provider, error, Date.now())
  if (classified._tag !== "Transient") return classified
  return new ProviderError.ProviderUnavailable({
    provider,
    status: undefined,
    attempts,
    detail: `the stream broke (${classified.detail}); ${notAgain}`,
    cutOff: true
  })
}

/** What `read` reads: the opened stream and what its failures say. */
export interface Reading {
  readonly provider: string
  /** What `doStream` resolved to, as the provider gave it (its `stream` is read). */
  readonly opened: unknown
  readonly names: Names
  /** The requests made for this turn (retries before the stream opened included). */
  readonly attempts: number
  /** When the request timeout runs out (epoch milliseconds), and the timeout; none when `undefined`. */
  readonly deadline: number | undefined
  readonly timeoutMs: number | undefined
  /** Says the warnings of the stream's `stream-start`. */
  readonly warn: (warnings: ReadonlyArray<SharedV4Warning>) => Effect.Effect<void>
}

type Reader = { readonly read: () => PromiseLike<unknown>; readonly cancel?: () => unknown }

type Parts = readonly [ReplyPart.Part, ...Array<ReplyPart.Part>]

const isErrorPart = (mapped: Mapped): mapped is ErrorPart => !Array.isArray(mapped)

/**
 * The loop's parts of an opened stream, read one provider part at a time; fails with a typed
 * `ProviderError` at an `error` part, a read that breaks or throws, a part that cannot be read,
 * and the request timeout. The reader is cancelled when the stream ends, fails or is
 * interrupted; aborting the request is the caller's (`AiSdkModel`'s scoped abort signal).
 */
export const read = (reading: Reading): Stream.Stream<ReplyPart.Part, ProviderError.ProviderError> =>
  // Each run of the stream has its own reader, timer and state.
  Stream.suspend(() => readOnce(reading))

const readOnce = (reading: Reading): Stream.Stream<ReplyPart.Part, ProviderError.ProviderError> => {
  const { provider, attempts, deadline, timeoutMs } = reading
  const failure = (detail: string, cause?: unknown) => new ProviderError.ProviderFailure({ provider, detail, cause })
  const open = Effect.try({
    try: () => (fieldOf(reading.opened, "stream") as ReadableStream<LanguageModelV4StreamPart>).getReader() as Reader,
    catch: (error) => failure(`its doStream gave no stream that can be read (${describeError(error)})`, error)
  })
  // Cancelled when the stream ends, fails or is interrupted (a provider that is not fetch-backed
  // stops too); a cancel that throws or rejects changes nothing.
  const cancel = (reader: Reader) =>
    Effect.sync(() => {
      try {
        Promise.resolve(reader.cancel?.()).catch(() => undefined)
      } catch {
        // Nothing more to stop.
      }
    })
  // One timer for the whole stream, not one per read (a timer and a race per chunk cost more
  // than the rest of the chunk's way to the loop): when it runs out the reader is cancelled,
  // the pending read ends, and the stream fails with `ProviderTimeout`.
  let timedOut = false
  let timer: ReturnType<typeof setTimeout> | undefined
  const acquire = Effect.map(open, (reader) => {
    if (deadline !== undefined && timeoutMs !== undefined) {
      timer = setTimeout(
        () => {
          timedOut = true
          Effect.runSync(cancel(reader))
        },
        Math.max(0, deadline - Date.now())
      )
      // A pending timer does not keep the process alive (Node; elsewhere a timer is a number).
      ;(timer as { unref?: () => unknown }).unref?.()
    }
    return reader
  })
  const release = (reader: Reader) =>
    Effect.andThen(
      Effect.sync(() => clearTimeout(timer)),
      cancel(reader)
    )
  const timeoutFailure = () =>
    new ProviderError.ProviderTimeout({ provider, timeoutMs: timeoutMs ?? 0, attempts, detail: notAgain })
  return Stream.unwrap(
    Effect.map(Effect.acquireRelease(acquire, release), (reader) => {
      const map = mapper(reading.names)
      let ended = false
      const next = Effect.tryPromise({
        try: () => reader.read(),
        catch: (error) => (timedOut ? timeoutFailure() : readFailure(provider, attempts, error))
      })
      /** One read's result: the parts it maps to, another read when none, the end, or the stream's failure. */
      const handle = (result: unknown): Effect.Effect<Parts, ProviderError.ProviderError | Cause.Done> => {
        if (!isObject(result)) return Effect.fail(failure(`its stream's reader gave ${describeError(result)}`))
        if (result.done === true) {
          ended = true
          const last = map.end()
          return last.length === 0 ? Cause.done() : Effect.succeed(last as Parts)
        }
        const part = result.value
        if (isObject(part) && part.type === "stream-start") {
          const warnings = part.warnings
          return Effect.andThen(reading.warn(Array.isArray(warnings) ? warnings : []), pull)
        }
        const mapped = map.add(part as LanguageModelV4StreamPart)
        if (isErrorPart(mapped)) {
          ended = true
          return Effect.fail(errorPartFailure(provider, attempts, mapped.error))
        }
        return mapped.length === 0 ? pull : Effect.succeed(mapped as Parts)
      }
      const pull: Effect.Effect<Parts, ProviderError.ProviderError | Cause.Done> = Effect.suspend(() =>
        ended
          ? Cause.done()
          : Effect.flatMap(next, (result) => {
              if (timedOut) {
                ended = true
                return Effect.fail(timeoutFailure())
              }
              try {
                return handle(result)
              } catch (error) {
                ended = true
                return Effect.fail(
                  failure(`its stream sent a part that cannot be read (${describeError(error)})`, error)
                )
              }
            })
      )
      return Stream.fromPull(Effect.succeed(pull))
    })
  )
}
