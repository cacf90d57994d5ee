/**
 * Token counts from OpenAI's own encodings (gpt-tokenizer, a maintained pure-JavaScript port
 * of tiktoken), as an `Estimate.Estimator` for `Compactor.make({ window, estimate })` of
 * @agent-harness/compaction. Anthropic publishes no tokenizer for its current models, so none
 * is given for them (`estimator` gives `undefined`): the compactor keeps its documented
 * approximation there, corrected by the usage each response reports.
 *
 * The convention, OpenAI's chat format as its cookbook counts it ("How to count tokens with
 * tiktoken"): every message costs `perMessage` (3) tokens of framing plus its role's tokens
 * plus its content's. Text and reasoning blocks count their text; a tool call counts its
 * name and its arguments' JSON (sent as a JSON string); each tool result is a message of its
 * own on the wire (role `tool`: framing, role, content, and the JSON of its parts and
 * structured content), so a user message of results alone adds no framing of its own. What
 * a request adds once (the 3 tokens that prime the reply, the tools' definitions) is no
 * message's: the compactor's threshold and its calibration by reported usage cover it.
 * Special-token strings (`<|endoftext|>`) in a message count as the text they are.
 *
 * @since 0.1.0
 */
import { Estimate } from "@agent-harness/compaction"
import { type Cause, Effect, Schema } from "effect"
import { modelToEncodingMap } from "gpt-tokenizer/mapping"
import { chatEnabledModels } from "gpt-tokenizer/modelsChatEnabled.gen"
import { countMessage, perMessage as framing } from "./internal/count.ts"
import { load } from "./internal/encodings.ts"

/**
 * An encoding shipped here: `o200k_base` (GPT-4o, GPT-4.1, GPT-5, the o-series) or
 * `cl100k_base` (GPT-4, GPT-3.5 Turbo).
 *
 * @since 0.1.0
 */
export type Encoding = "o200k_base" | "cl100k_base"

/** Tokens of each message's framing (`<|start|>`, the separator after the role, `<|end|>`). @since 0.1.0 */
export const perMessage: number = framing

const listed: ReadonlyMap<string, string> = new Map(Object.entries(modelToEncodingMap))
const chat: ReadonlySet<string> = new Set<string>(chatEnabledModels)

// Names gpt-tokenizer does not list yet (a new dated snapshot) by their family.
const o200kFamily = /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o)([-.:]|$)/
const cl100kFamily = /^(gpt-4|gpt-3\.5-turbo)([-:]|$)/

/**
 * The encoding of an OpenAI model: gpt-tokenizer's own model map first (`cl100k_base` for
 * GPT-4 and GPT-3.5 Turbo; the chat models it lists otherwise use `o200k_base`), then the
 * families of names it may not list yet (`gpt-4o*`, `gpt-4.1*`, `gpt-5*`, `o1*`, `o3*`, `o4*`,
 * `chatgpt-4o*` → `o200k_base`; `gpt-4-*`, `gpt-3.5-turbo*` → `cl100k_base`). `undefined` for
 * anything else: another provider's model, or an OpenAI model of an encoding not shipped here
 * (gpt-oss's `o200k_harmony`, the old completion models).
 *
 * @since 0.1.0
 */
export const encodingFor = (model: string): Encoding | undefined => {
  if (typeof model !== "string") return undefined
  const mapped = listed.get(model)
  if (mapped !== undefined) return mapped === "cl100k_base" || mapped === "o200k_base" ? mapped : undefined
  if (chat.has(model)) return "o200k_base"
  if (o200kFamily.test(model)) return "o200k_base"
  if (cl100kFamily.test(model)) return "cl100k_base"
  return undefined
}

const LoadFailedBase: Schema.Class<
  LoadFailed,
  Schema.TaggedStruct<"LoadFailed", { readonly encoding: Schema.String; readonly reason: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<LoadFailed>()("LoadFailed", { encoding: Schema.String, reason: Schema.String })

/**
 * An encoding's rank table could not be loaded (its module is missing or failed to run): the
 * encoding's name and why.
 *
 * @since 0.1.0
 */
export class LoadFailed extends LoadFailedBase {
  /** `the o200k_base encoding could not be loaded: <why>`. */
  override get message(): string {
    return `the ${this.encoding} encoding could not be loaded: ${this.reason}`
  }
}

/**
 * Counts messages with `encoding`, loading it first (its rank table is loaded on the first
 * call for it, once per process). The estimator never throws: a message whose content cannot
 * be read (throwing getters) is counted by the approximation (`Estimate.message`). Fails with
 * `LoadFailed` when the encoding cannot be loaded.
 *
 * @since 0.1.0
 */
export const forEncoding = (encoding: Encoding): Effect.Effect<Estimate.Estimator, LoadFailed> =>
  Effect.map(
    Effect.tryPromise({
      try: () => load(encoding),
      catch: (error) => new LoadFailed({ encoding, reason: error instanceof Error ? error.message : String(error) })
    }),
    (count): Estimate.Estimator =>
      (message) => {
        try {
          return countMessage(count, message)
        } catch {
          return Estimate.message(message)
        }
      }
  )

/**
 * The estimator of an OpenAI `model` (`encodingFor`), its encoding loaded when it is asked for;
 * `undefined` when no tokenizer is known for the model (Anthropic's: none is published), or
 * when its encoding cannot be loaded: the caller keeps the approximation.
 *
 * @since 0.1.0
 */
export const estimator = (model: string): Effect.Effect<Estimate.Estimator | undefined> => {
  const encoding = encodingFor(model)
  return encoding === undefined
    ? Effect.undefined
    : Effect.catch(forEncoding(encoding), () => Effect.succeed(undefined))
}
