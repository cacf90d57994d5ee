/**
 * How many tokens a history takes, estimated. No tokenizer is maintained for Anthropic's
 * models (their tokenizer is not published), so this package ships none for any provider and
 * uses one documented approximation everywhere: each block counts `ceil(B / 4)` tokens, where
 * `B` is the UTF-8 bytes of its text (text and reasoning blocks, a system prompt, a user
 * string), of its tool name and JSON input (tool_use), or of its result content plus the JSON
 * of its parts and structured content (tool_result); each message adds a fixed overhead
 * (`messageOverhead`, 4 tokens by default) for its role and framing. `calibrated` corrects an
 * estimator with the input tokens a provider reported for a prompt it was estimated for.
 *
 * An estimate of a history is the sum of the estimates of its messages, so the strategies can
 * re-estimate only the messages they change.
 *
 * @since 0.1.0
 */
import type { Message } from "@agent-harness/executor"
import { safeJson, utf8Length } from "./internal/text.ts"

/**
 * The estimated tokens of one message; a history's estimate is the sum over its messages.
 *
 * @since 0.1.0
 */
export type Estimator = (message: Message.Message) => number

/** How the approximation counts. @since 0.1.0 */
export interface Options {
  /** Tokens added per message for its role and framing (a whole number ≥ 0; default 4). */
  readonly messageOverhead?: number | undefined
}

/** The tokens added per message when no `messageOverhead` is given. @since 0.1.0 */
export const defaultMessageOverhead: number = 4

/** Bytes per token of the approximation: a token is taken as 4 UTF-8 bytes. @since 0.1.0 */
export const bytesPerToken: number = 4

const overheadOf = (options: Options | undefined): number => {
  const overhead = options?.messageOverhead ?? defaultMessageOverhead
  if (!Number.isSafeInteger(overhead) || overhead < 0) {
    throw new RangeError(`Estimate options.messageOverhead must be a whole number ≥ 0, got ${String(overhead)}`)
  }
  return overhead
}

const quarter = (bytes: number): number => Math.ceil(bytes / bytesPerToken)

type Block = Message.ReplyBlock | Message.ToolResultBlock

const blockTokens = (block: Block): number => {
  switch (block.type) {
    case "text":
    case "reasoning":
      return quarter(utf8Length(block.text))
    case "tool_use":
      return quarter(utf8Length(block.name) + utf8Length(safeJson(block.input)))
    case "tool_result":
      return quarter(
        utf8Length(block.content) +
          (block.parts === undefined ? 0 : utf8Length(safeJson(block.parts))) +
          (block.structured === undefined ? 0 : utf8Length(safeJson(block.structured)))
      )
    default:
      return quarter(utf8Length(safeJson(block)))
  }
}

const raw = (message: Message.Message, overhead: number): number => {
  try {
    const content = message.content
    if (typeof content === "string") return overhead + quarter(utf8Length(content))
    let tokens = overhead
    for (const block of content as ReadonlyArray<Block>) tokens += blockTokens(block)
    return tokens
  } catch {
    // A value whose getters throw: only its overhead can be counted.
    return overhead
  }
}

/**
 * The approximation as an `Estimator` (see the module's documentation). Throws a `RangeError` naming the field when `messageOverhead` is not a whole number ≥ 0.
 *
 * @since 0.1.0
 */
export const estimator = (options?: Options): Estimator => {
  const overhead = overheadOf(options)
  return (message) => raw(message, overhead)
}

/**
 * The estimated tokens of one message by the approximation (no tokenizer is shipped for
 * Anthropic; see the module's documentation). Never throws on hostile content.
 *
 * @since 0.1.0
 */
export const message: Estimator = estimator()

/**
 * The estimated tokens of a history: `ceil(UTF-8 bytes / 4)` of each block's text, JSON input
 * or result content, plus `messageOverhead` per message. No maintained tokenizer is shipped
 * for Anthropic, so this documented approximation is what every estimate starts from.
 *
 * @since 0.1.0
 */
export const tokens = (messages: ReadonlyArray<Message.Message>, options?: Options): number => {
  const estimate = options === undefined ? message : estimator(options)
  let total = 0
  for (const m of messages) total += estimate(m)
  return total
}

/**
 * The sum of `estimate` over `messages`, with an estimate that is not a finite number ≥ 0
 * counted as `Infinity` (it can then never be taken as fitting a window).
 *
 * @since 0.1.0
 */
export const total = (messages: ReadonlyArray<Message.Message>, estimate: Estimator): number => {
  let sum = 0
  for (const m of messages) sum += sanitize(estimate(m))
  return sum
}

/**
 * An estimate as the strategies use it: a finite number ≥ 0 as it is, anything else `Infinity`.
 *
 * @since 0.1.0
 */
export const sanitize = (tokens: number): number =>
  typeof tokens === "number" && Number.isFinite(tokens) && tokens >= 0 ? tokens : Number.POSITIVE_INFINITY

const memos = new WeakSet<Estimator>()

/**
 * `estimate` remembering the estimate of each message object it is given (messages are
 * immutable values), so a message estimated again costs a lookup. Meant to live as long as one
 * compaction or one check of a history: it holds every message it saw. `compact` and `chain`
 * use one per call; memoizing a memoized estimator gives it back as it is.
 *
 * @since 0.1.0
 */
export const memoized = (estimate: Estimator): Estimator => {
  if (memos.has(estimate)) return estimate
  const known = new Map<Message.Message, number>()
  const memo: Estimator = (m) => {
    const cached = known.get(m)
    if (cached !== undefined) return cached
    const tokens = estimate(m)
    known.set(m, tokens)
    return tokens
  }
  memos.add(memo)
  return memo
}

/**
 * The correction factor from a provider's report: `reportedInputTokens / estimatedForThatPrompt`,
 * never below 1 (the approximation, one token per 4 bytes, is the floor: calibration only ever
 * raises an estimate), and 1 when either number is not finite and positive.
 *
 * @since 0.1.0
 */
export const ratio = (reportedInputTokens: number, estimatedForThatPrompt: number): number => {
  if (
    !Number.isFinite(reportedInputTokens) ||
    !Number.isFinite(estimatedForThatPrompt) ||
    reportedInputTokens <= 0 ||
    estimatedForThatPrompt <= 0
  ) {
    return 1
  }
  return Math.max(1, reportedInputTokens / estimatedForThatPrompt)
}

/**
 * `estimate` corrected by reported usage: the provider reported `reportedInputTokens` for a
 * prompt `estimate` put at `estimatedForThatPrompt`, so every message is scaled by their ratio
 * (rounded up). The ratio is never below 1, so a calibrated estimate is never below the raw
 * approximation's floor of one token per 4 bytes; a report that is missing or not a positive
 * number leaves `estimate` as it is.
 *
 * @since 0.1.0
 */
export const calibrated = (
  estimate: Estimator,
  reportedInputTokens: number,
  estimatedForThatPrompt: number
): Estimator => {
  const factor = ratio(reportedInputTokens, estimatedForThatPrompt)
  return factor === 1 ? estimate : (m) => Math.ceil(sanitize(estimate(m)) * factor)
}
