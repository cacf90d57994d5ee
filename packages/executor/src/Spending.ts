/**
 * What the loop spends in tokens and money (`Loop.Options.spend`, a `Spend` of
 * @agent-harness/budgets): before each model call it reserves the call's worst case, and
 * refuses the call (stop `token_budget` or `cost_budget`) when that does not fit; after it, the
 * reported usage settles the reservation. The worst case of a call is its prompt's bound
 * ({@link requestTokens}: no tokenizer makes more tokens than the request has UTF-8 bytes, plus a
 * fixed allowance for the provider's framing) and the model's output cap, at the dearest
 * prices. Each settlement and each refusal is a trace event (`spend.settled`, `spend.refused`).
 *
 * @since 0.2.0
 */
import { JsonSchema, type Tool, type Toolset } from "@agent-harness/tool-schema"
import { Schema } from "effect"
import type * as Message from "./Message.ts"
import * as Trace from "./Trace.ts"

/**
 * Tokens allowed for what a provider adds to every request (its tool-use system prompt, the
 * framing of the tools' definitions): 1,024.
 *
 * @since 0.2.0
 */
export const requestOverhead = 1024

/**
 * Tokens allowed for the framing of each message (role markers, block separators): 16.
 *
 * @since 0.2.0
 */
export const messageOverhead = 16

const encoder = new TextEncoder()

/** The UTF-8 length of a value's JSON; a value JSON cannot write (a cycle, a BigInt) by its text. */
const jsonBytes = (value: unknown): number => {
  try {
    return encoder.encode(JSON.stringify(value) ?? "").length
  } catch {
    try {
      return encoder.encode(String(value)).length * 2
    } catch {
      return 0
    }
  }
}

const messageBytes = new WeakMap<object, number>()
const toolsetBytes = new WeakMap<object, number>()

/** A message's UTF-8 JSON length, computed once per message object. */
const bytesOf = (message: Message.Message): number => {
  const known = messageBytes.get(message)
  if (known !== undefined) return known
  const bytes = jsonBytes(message)
  messageBytes.set(message, bytes)
  return bytes
}

/**
 * The most input tokens a request of these messages and tools can be counted as: the UTF-8
 * bytes of the messages' and the tools' definitions' JSON (a token covers at least one byte, and
 * JSON only adds bytes), plus {@link requestOverhead} and {@link messageOverhead} per message.
 * An upper bound, not an estimate: what a reservation needs.
 *
 * @since 0.2.0
 */
export const requestTokens = (messages: ReadonlyArray<Message.Message>, toolset: Toolset.Toolset<Tool.Any>): number => {
  let tools = toolsetBytes.get(toolset)
  if (tools === undefined) {
    tools = jsonBytes(JsonSchema.anthropicTools(toolset))
    toolsetBytes.set(toolset, tools)
  }
  let bytes = tools + requestOverhead
  for (const message of messages) bytes += bytesOf(message) + messageOverhead
  return bytes
}

/**
 * An amount in a trace: tokens in and out, and USD.
 *
 * @since 0.2.0
 */
export const Amount: Schema.Struct<{
  readonly input_tokens: Schema.Finite
  readonly output_tokens: Schema.Finite
  readonly cost: Schema.Finite
}> = Schema.Struct({
  input_tokens: Schema.Finite,
  output_tokens: Schema.Finite,
  cost: Schema.Finite
})

/**
 * The trace event of a settled call: its turn, what it spent (`spent`: the reported usage, or
 * its whole reservation when none was reported: `reported: false`) and the run's total so far.
 *
 * @since 0.2.0
 */
export const Settled: Schema.Struct<{
  readonly type: Schema.Literal<"spend.settled">
  readonly turn: Schema.Int
  readonly reported: Schema.Boolean
  readonly spent: typeof Amount
  readonly total: typeof Amount
  readonly purpose: Schema.optionalKey<Schema.Literals<readonly ["summary"]>>
}> = Schema.Struct({
  type: Schema.Literal("spend.settled"),
  turn: Schema.Int,
  reported: Schema.Boolean,
  spent: Amount,
  total: Amount,
  /** What the call was for when it was not the turn's reply: `summary`, a compaction's summarizer before it. */
  purpose: Schema.optionalKey(Schema.Literals(["summary"]))
})

/**
 * The trace event of a call refused before it was made: its turn, the limit it did not fit
 * (`kind`, `limit`), what was spent or reserved, and what the call needed at most.
 *
 * @since 0.2.0
 */
export const Refused: Schema.Struct<{
  readonly type: Schema.Literal<"spend.refused">
  readonly turn: Schema.Int
  readonly reason: Schema.Literals<readonly ["token_budget", "cost_budget"]>
  readonly kind: Schema.Literals<readonly ["input_tokens", "output_tokens", "total_tokens", "cost"]>
  readonly limit: Schema.Finite
  readonly committed: Schema.Finite
  readonly requested: Schema.Finite
}> = Schema.Struct({
  type: Schema.Literal("spend.refused"),
  turn: Schema.Int,
  reason: Schema.Literals(["token_budget", "cost_budget"]),
  kind: Schema.Literals(["input_tokens", "output_tokens", "total_tokens", "cost"]),
  limit: Schema.Finite,
  committed: Schema.Finite,
  requested: Schema.Finite
})

/** `spend.settled`, declared. @since 0.2.0 */
export const settled: Trace.Declared<typeof Settled> = Trace.declare(Settled)

/** `spend.refused`, declared. @since 0.2.0 */
export const refused: Trace.Declared<typeof Refused> = Trace.declare(Refused)

/**
 * An amount in the trace's words (`input_tokens`, `output_tokens`, `cost`).
 *
 * @since 0.2.0
 */
export const wire = (amount: {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cost: number
}): typeof Amount.Type => ({
  input_tokens: amount.inputTokens,
  output_tokens: amount.outputTokens,
  cost: amount.cost
})
