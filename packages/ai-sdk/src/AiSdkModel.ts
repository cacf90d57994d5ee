/**
 * Any AI SDK `LanguageModelV4` (`anthropic("claude-…")`, `openai.chat("gpt-…")`, an
 * OpenAI-compatible server, …) as the loop's `Model`. Each turn is one `doGenerate` request:
 * the provider never runs a tool and never validates a call; the loop's executor does both.
 * The history goes out losslessly (`ProviderPrompt`), tool names as provider-safe aliases
 * (`ToolAliases`) with schemas the provider accepts (`ProviderSchema`: what was relaxed is
 * logged once per tool as a warning), OpenAI's strict mode on for every tool it costs nothing
 * (`strict`), each request is bounded by a timeout on the whole reply (`requestTimeout`),
 * and failed requests are retried within bounds (`Retry`) and otherwise fail typed
 * (`ProviderError`). Usage and finish reason of every reply reach the loop's turns and
 * trace; a reply cut off (`length`), filtered or ended by an error fails the run with
 * `IncompleteReply`.
 *
 * @example
 * ```ts
 * import { AiSdkModel } from "@agent-harness/ai-sdk"
 * import { Loop, Message } from "@agent-harness/executor"
 * import { anthropic } from "@ai-sdk/anthropic"
 * import { Effect } from "effect"
 *
 * const run = Loop.run({ toolset, messages: [Message.user("What is in notes/?")] }).pipe(
 *   Effect.provide(AiSdkModel.layer(anthropic("claude-sonnet-4-5"), { maxOutputTokens: 4096 }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { type Message, Model } from "@agent-harness/executor"
import type { LanguageModelV4, LanguageModelV4CallOptions, SharedV4Warning } from "@ai-sdk/provider"
import { type Duration, Effect, type Layer } from "effect"
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
   * `ProviderTimeout`.
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
}

/**
 * The model as the loop's `Model.Shape` has it, with its provider failures typed.
 *
 * @since 0.1.0
 */
export interface Shape extends Model.Shape {
  /** Sends one turn's request; fails with the typed `ProviderError` of the last attempt. */
  readonly respond: (request: Model.Request) => Effect.Effect<Model.Response, ProviderError.ProviderError>
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
 * `LanguageModelV4` and a `RangeError` naming the option when the retry policy or the request
 * timeout is invalid.
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
  const { retry, errorResults, requestTimeout, strict, schemaTarget, ...settings } = options ?? {}
  const policy = Retry.resolve(retry)
  const timeout = Retry.timeoutOf(requestTimeout)
  const errors = errorResults ?? ProviderPrompt.errorResultsFor(model.provider)
  const media = ProviderPrompt.mediaResultsFor(model.provider)
  const provider = model.provider
  const declaring: ToolAliases.ProviderOptions = { target: schemaTarget, strict: strict ?? "auto" }
  /** Says each schema change and notice once per tool. */
  const report = ToolAliases.reporter()
  const respond = (request: Model.Request): Effect.Effect<Model.Response, ProviderError.ProviderError> =>
    Effect.suspend(() => {
      const aliases = ToolAliases.of(request.toolset)
      const declared = ToolAliases.forProvider(request.toolset, provider, declaring)
      const call: LanguageModelV4CallOptions = {
        ...settings,
        prompt: ProviderPrompt.toPrompt(request.messages, aliases, errors, media),
        ...(declared.tools.length === 0 ? {} : { tools: [...declared.tools] })
      }
      const sent = Retry.send({
        provider,
        policy,
        turn: request.turn ?? 0,
        timeout,
        send: (abortSignal) => model.doGenerate({ ...call, abortSignal })
      }).pipe(
        Effect.tap((result) =>
          Effect.forEach(result.warnings ?? [], (warning) =>
            Effect.logWarning(`${provider}: ${describeWarning(warning)}`)
          )
        ),
        Effect.map(
          (result): Model.Response => ({
            content: restored(ProviderPrompt.fromContent(result.content, aliases), declared),
            usage: ProviderPrompt.usageOf(result.usage),
            ...ProviderPrompt.finishOf(result.finishReason)
          })
        )
      )
      return Effect.andThen(report(declared), sent)
    })
  return { respond }
}

/**
 * A `Model` layer over an AI SDK model (see `make`).
 *
 * @since 0.1.0
 */
export const layer = (model: LanguageModelV4, options?: Options): Layer.Layer<Model.Model> =>
  Model.layer(make(model, options))
