/**
 * Any AI SDK `LanguageModelV4` (`anthropic("claude-…")`, `openai.chat("gpt-…")`, an
 * OpenAI-compatible server, …) as the loop's `Model`. Each turn is one `doGenerate` request
 * (`Loop.run`), or one `doStream` request whose parts the loop shows as they come
 * (`Loop.stream`, through `stream`): the provider never runs a tool and never validates a call;
 * the loop's executor does both, a streamed call only once its end has arrived whole.
 * The history goes out losslessly (`ProviderPrompt`), tool names as provider-safe aliases
 * (`ToolAliases`) with schemas the provider accepts (`ProviderSchema`: what was relaxed is
 * logged once per tool as a warning), OpenAI's strict mode on for every tool it costs nothing
 * (`strict`), each request is bounded by a timeout on the whole reply (`requestTimeout`),
 * and failed requests are retried within bounds (`Retry`) and otherwise fail typed
 * (`ProviderError`). Usage and finish reason of every reply reach the loop's turns and
 * trace; a reply cut off (`length`), filtered or ended by an error fails the run with
 * `IncompleteReply`. A streamed turn is retried only until its stream opens, never once it
 * has begun: an error event, a broken connection or the timeout mid-stream fail the turn, and
 * none of its calls run.
 *
 * @example
 * ```ts
 * import { AiSdkModel } from "@agent-harness/ai-sdk"
 * import { Loop, Message } from "@agent-harness/executor"
 * import { anthropic } from "@ai-sdk/anthropic"
 * import { Effect, Stream } from "effect"
 *
 * const run = Loop.run({ toolset, messages: [Message.user("What is in notes/?")] }).pipe(
 *   Effect.provide(AiSdkModel.layer(anthropic("claude-sonnet-4-5"), { maxOutputTokens: 4096 }))
 * )
 * // or, the text as it is written:
 * const shown = Loop.stream({ toolset, messages: [Message.user("What is in notes/?")] }).pipe(
 *   Stream.runForEach((event) =>
 *     event.type === "text.delta" ? Effect.sync(() => process.stdout.write(event.text)) : Effect.void
 *   ),
 *   Effect.provide(AiSdkModel.layer(anthropic("claude-sonnet-4-5"), { maxOutputTokens: 4096 }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { type Message, Model, type ReplyPart } from "@agent-harness/executor"
import type { LanguageModelV4, LanguageModelV4CallOptions, SharedV4Warning } from "@ai-sdk/provider"
import { type Duration, Effect, type Layer, Stream } from "effect"
import * as Backoff from "./Backoff.ts"
import { genAiProvider } from "./internal/genAiProvider.ts"
import * as StreamParts from "./internal/streamParts.ts"
import type * as ProviderError from "./ProviderError.ts"
import * as ProviderPrompt from "./ProviderPrompt.ts"
import type * as ProviderSchema from "./ProviderSchema.ts"
import * as Retry from "./Retry.ts"
import * as ToolAliases from "./ToolAliases.ts"

/**
 * The settings sent with every request (`maxOutputTokens`, `temperature`, `providerOptions`
 * such as Anthropic's `thinking`, `headers`, `toolChoice`…), how long a request may take, how
 * requests are retried, and how error results are sent (`ProviderPrompt.ErrorResults`; by
 * default from the provider id).
 *
 * @since 0.1.0
 */
export interface Options
  extends Partial<
    Omit<LanguageModelV4CallOptions, "prompt" | "tools" | "abortSignal" | "responseFormat" | "includeRawChunks">
  > {
  /** How failed requests are retried (see `Retry.Policy`); the default policy when not given. */
  readonly retry?: Retry.Policy | undefined
  /**
   * How long one request may take, from sending it to the last byte of the reply (10 minutes
   * when not given, see `Retry.defaultTimeout`; `Duration.infinity` for none). A request past it
   * is aborted and retried under `retry`; when the last attempt timed out, the turn fails with
   * `ProviderTimeout`. A streamed turn (`stream`) is bounded the same way, as a whole: from
   * sending the request to the stream's last part. Past it before the stream opened (no 2xx
   * answer yet), the request is aborted and retried; past it once the stream has begun, the
   * request is aborted and the turn fails with `ProviderTimeout` at once (a reply that had begun
   * is never sent again).
   */
  readonly requestTimeout?: Duration.Input | undefined
  /** How `is_error` tool results are sent; chosen from the provider id when not given. */
  readonly errorResults?: ProviderPrompt.ErrorResults | undefined
  /**
   * OpenAI's strict mode for tools (`ToolAliases.Strict`), `"auto"` when not given: with
   * OpenAI's own API (Chat Completions or Responses) a tool is sent `strict: true` when its
   * schema follows strict mode's rules at no cost (nothing relaxed, nothing the tool accepts
   * made impossible), so the model's arguments are guaranteed to match; any other tool goes
   * without, and a warning says once why. `true` sends every tool strict, `false` none. A
   * `null` the model sends for a property it left out (strict mode makes optional properties
   * required and nullable) reaches the executor as the property left out. Anthropic and other
   * OpenAI-compatible servers are not sent strict tools (except with `true`, for the latter).
   */
  readonly strict?: "auto" | boolean | undefined
  /** The schema rules tools are written for (`ProviderSchema.Target`); from the provider id when not given. */
  readonly schemaTarget?: ProviderSchema.Target | undefined
  /**
   * A pause shared with every other model given the same one (`Backoff.make()`): when any of
   * their requests is refused for rate or load (429, 503, 529), all of them wait out the hold
   * before their next attempt (see `Backoff`, and `Retry.send` for how it meets the retry
   * budget). Each request retries alone when not given.
   */
  readonly backoff?: Backoff.Backoff | undefined
}

/**
 * The model as the loop's `Model.Shape` has it, with its provider failures typed.
 *
 * @since 0.1.0
 */
export interface Shape extends Model.Shape {
  /** Sends one turn's request; fails with the typed `ProviderError` of the last attempt. */
  readonly respond: (request: Model.Request) => Effect.Effect<Model.Response, ProviderError.ProviderError>
  /**
   * Streams one turn's reply (`doStream`; absent when the model has none): the same request,
   * tool names and schemas as `respond`, its parts as they come. Fails with a typed
   * `ProviderError`: before the stream opened, as `respond` does (after the retries); after, at
   * once, never sent again: an error event (`ProviderUnavailable` with `cutOff`, or
   * `ProviderFailure`), a broken connection (`ProviderUnavailable` with `cutOff`), the request
   * timeout (`ProviderTimeout`). A stream that ends without its finish ends `interrupted`.
   */
  readonly stream?: ((request: Model.Request) => Stream.Stream<ReplyPart.Part, ProviderError.ProviderError>) | undefined
}

const describeWarning = (warning: SharedV4Warning): string => {
  switch (warning.type) {
    case "unsupported":
    case "compatibility":
      return `${warning.type} ${warning.feature}${warning.details === undefined ? "" : `: ${warning.details}`}`
    case "deprecated":
      return `deprecated ${warning.setting}: ${warning.message}`
    default:
      return "message" in warning && typeof warning.message === "string" ? warning.message : JSON.stringify(warning)
  }
}

/** The reply's calls with their arguments as the tools' own schemas expect them (`ProviderTools.restore`). */
const restored = (
  content: ReadonlyArray<Message.ReplyBlock>,
  declared: ToolAliases.ProviderTools
): ReadonlyArray<Message.ReplyBlock> =>
  content.map((block) =>
    block.type === "tool_use" ? { ...block, input: declared.restore(block.name, block.input) } : block
  )

/**
 * The loop's model over an AI SDK model. Throws a `TypeError` when `model` is not a
 * `LanguageModelV4`, a `RangeError` naming the option when the retry policy or the request
 * timeout is invalid, and a `TypeError` naming `backoff` when it is not a `Backoff`.
 *
 * @since 0.1.0
 */
export const make = (model: LanguageModelV4, options?: Options): Shape => {
  const version: unknown = (model as { readonly specificationVersion?: unknown } | undefined)?.specificationVersion
  if (version !== "v4" || typeof model.doGenerate !== "function") {
    throw new TypeError(
      `AiSdkModel: expected an AI SDK LanguageModelV4 (specificationVersion "v4", as @ai-sdk/* 4.x providers give), got ${version === undefined ? "no specificationVersion" : JSON.stringify(version)}`
    )
  }
  const { retry, errorResults, requestTimeout, strict, schemaTarget, backoff, ...settings } = options ?? {}
  const policy = Retry.resolve(retry)
  const timeout = Retry.timeoutOf(requestTimeout)
  Backoff.check(backoff, "AiSdkModel")
  const errors = errorResults ?? ProviderPrompt.errorResultsFor(model.provider)
  const media = ProviderPrompt.mediaResultsFor(model.provider)
  const provider = model.provider
  const declaring: ToolAliases.ProviderOptions = { target: schemaTarget, strict: strict ?? "auto" }
  /** Says each schema change and notice once per tool. */
  const report = ToolAliases.reporter()
  const warn = (warnings: ReadonlyArray<SharedV4Warning>) =>
    Effect.forEach(warnings, (warning) => Effect.logWarning(`${provider}: ${describeWarning(warning)}`), {
      discard: true
    })
  /** One turn's request as the provider is sent it, and the names and schemas to read its reply with. */
  const prepare = (request: Model.Request) => {
    const aliases = ToolAliases.of(request.toolset)
    const declared = ToolAliases.forProvider(request.toolset, provider, declaring)
    const call: LanguageModelV4CallOptions = {
      ...settings,
      prompt: ProviderPrompt.toPrompt(request.messages, aliases, errors, media),
      ...(declared.tools.length === 0 ? {} : { tools: [...declared.tools] })
    }
    return { aliases, declared, call }
  }
  const respond = (request: Model.Request): Effect.Effect<Model.Response, ProviderError.ProviderError> =>
    Effect.suspend(() => {
      const { aliases, declared, call } = prepare(request)
      const sent = Retry.send({
        provider,
        policy,
        turn: request.turn ?? 0,
        timeout,
        backoff,
        send: (abortSignal) => model.doGenerate({ ...call, abortSignal })
      }).pipe(
        Effect.tap((result) => warn(result.warnings ?? [])),
        Effect.map(
          (result): Model.Response => ({
            content: restored(ProviderPrompt.fromContent(result.content, aliases), declared),
            usage: ProviderPrompt.usageOf(result.usage),
            ...ProviderPrompt.finishOf(result.finishReason),
            ...(typeof result.response?.modelId === "string" ? { model: result.response.modelId } : {})
          })
        )
      )
      return Effect.andThen(report(declared), sent)
    })
  // The stream opens (`doStream` resolves) once the provider answers 2xx: failures until then are
  // retried as `respond`'s are; from then on nothing is sent again (see `Options.requestTimeout`).
  const stream = (request: Model.Request): Stream.Stream<ReplyPart.Part, ProviderError.ProviderError> =>
    Stream.unwrap(
      Effect.gen(function* () {
        const { aliases, declared, call } = prepare(request)
        yield* report(declared)
        // Aborted when the stream ends, fails or is interrupted: the request goes with it.
        const streamSignal = yield* Effect.abortSignal
        let attempts = 0
        let sentAt = 0
        const opened = yield* Retry.send({
          provider,
          policy,
          turn: request.turn ?? 0,
          timeout,
          backoff,
          send: (signal) => {
            attempts++
            sentAt = Date.now()
            return model.doStream({ ...call, abortSignal: AbortSignal.any([signal, streamSignal]) })
          }
        })
        return StreamParts.read({
          provider,
          opened,
          names: { aliases, restore: declared.restore },
          attempts,
          deadline: timeout === undefined ? undefined : sentAt + timeout,
          timeoutMs: timeout,
          warn
        })
      })
    )
  // The output cap the provider is sent is the loop's worst case of a call under a spend.
  const cap = typeof settings.maxOutputTokens === "number" ? { maxOutputTokens: settings.maxOutputTokens } : {}
  // Who answers, for the spans (`gen_ai.provider.name`, `gen_ai.request.model`).
  const named = {
    ...(genAiProvider(provider) === undefined ? {} : { provider: genAiProvider(provider) }),
    ...(typeof model.modelId === "string" ? { model: model.modelId } : {})
  }
  return typeof model.doStream === "function" ? { respond, stream, ...cap, ...named } : { respond, ...cap, ...named }
}

/**
 * A `Model` layer over an AI SDK model (see `make`).
 *
 * @since 0.1.0
 */
export const layer = (model: LanguageModelV4, options?: Options): Layer.Layer<Model.Model> =>
  Model.layer(make(model, options))
