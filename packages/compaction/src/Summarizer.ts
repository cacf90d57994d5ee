/**
 * A summarizer that asks a model: the writer for `Strategy.summarize`. It sends the turns to be
 * summarized as one user message (each message's role and blocks as text: tool calls with their
 * arguments, tool results with their content, marked when they failed; reasoning left out) under a system message
 * of instructions, offers no tools, and answers the reply's text.
 *
 * Its call is counted against the run's spend (the strategy's `Context.spend`, which the loop's
 * compaction hook passes on): the call's worst case (its prompt's bound, `Spending.requestTokens`,
 * and the output cap at the dearest prices) is reserved first, the call is not made when that
 * does not fit (`Spend.Exhausted`: the run stops with `token_budget` or `cost_budget`), and the
 * reply's reported usage settles it (`spend.settled` with `purpose: "summary"`). A failed call is
 * the model's `Model.Failure`; a reply with no text is `EmptySummary`.
 *
 * @since 0.1.0
 */
import { Spend, SpendMeter } from "@agent-harness/budgets"
import { Message, Model, Spending } from "@agent-harness/executor"
import { type Tool, Toolset } from "@agent-harness/tool-schema"
import { type Cause, Data, Effect } from "effect"
import type { Context } from "./Strategy.ts"
import { safeJson } from "./internal/text.ts"

/**
 * The summarizer's system message when none is given.
 *
 * @since 0.1.0
 */
export const defaultInstructions: string = [
  "You summarize the earlier part of an agent's conversation so that it can go on without it.",
  "Keep every fact the agent may still need: what the user asked, decisions made, files, names, numbers and ids, what succeeded, what failed and why.",
  "Write plain prose, in the conversation's language, no preamble."
].join("\n")

/** Options of `make`. @since 0.1.0 */
export interface Options {
  /** The model that writes the summary (it may be the run's own). */
  readonly model: Model.Shape
  /** The most output tokens a summary may take (default: the model's `maxOutputTokens`; one of them is needed). */
  readonly maxOutputTokens?: number | undefined
  /** The system message (default {@link defaultInstructions}). */
  readonly instructions?: string | undefined
}

const EmptySummaryBase: new (args: {
  readonly turns: number
}) => Cause.YieldableError & {
  readonly _tag: "EmptySummary"
  /** How many messages it was asked to summarize. */
  readonly turns: number
} = Data.TaggedError("EmptySummary")

/**
 * The summarizer's model answered no text: a `Model.Failure` (the run fails with it rather than
 * replace turns by an empty summary).
 *
 * @since 0.1.0
 */
export class EmptySummary extends EmptySummaryBase {
  /** What came back. */
  override get message(): string {
    return `the summarizer's model answered no text for ${this.turns} message${this.turns === 1 ? "" : "s"}`
  }
}

const noTools: Toolset.Toolset<Tool.Any> = Toolset.make()

type Block = Message.ReplyBlock | Message.ToolResultBlock

/** A block as text; a reasoning block is left out (the summary is of what was said and done). */
const blockText = (block: Block): string | undefined => {
  switch (block.type) {
    case "text":
      return block.text
    case "tool_use":
      return `[called ${block.name} ${safeJson(block.input)}]`
    case "tool_result":
      return `[result${block.is_error ? " (failed)" : ""}: ${block.content}]`
    case "reasoning":
      return undefined
  }
}

/**
 * The text the summarizer is sent for `turns`: one paragraph per message, `role: blocks`.
 *
 * @since 0.1.0
 */
export const transcript = (turns: ReadonlyArray<Message.Message>): string =>
  turns
    .map((message) => {
      const content =
        typeof message.content === "string"
          ? message.content
          : message.content.flatMap((block: Block) => blockText(block) ?? []).join("\n")
      return `${message.role}: ${content}`
    })
    .join("\n\n")

/**
 * The messages the summarizer sends for `turns`.
 *
 * @since 0.1.0
 */
export const prompt = (
  turns: ReadonlyArray<Message.Message>,
  instructions: string = defaultInstructions
): ReadonlyArray<Message.Message> => [
  Message.system(instructions),
  Message.user([Message.text(`Summarize this part of the conversation:\n\n${transcript(turns)}`)])
]

const textOf = (response: Model.Response): string => {
  let text = ""
  for (const block of response.content) if (block.type === "text") text += block.text
  return text.trim()
}

/**
 * A summarizer for `Strategy.summarize` asking `options.model` (see the module). Throws a
 * `RangeError` when neither `maxOutputTokens` nor the model's is a whole number ≥ 1.
 *
 * @since 0.1.0
 */
export const make = (
  options: Options
): ((
  turns: ReadonlyArray<Message.Message>,
  context: Context
) => Effect.Effect<string, Spend.Exhausted | Model.Failure>) => {
  const cap = options.maxOutputTokens ?? options.model.maxOutputTokens
  if (cap === undefined || !Number.isSafeInteger(cap) || cap < 1) {
    throw new RangeError(
      `Summarizer.make: the summary's output cap must be a whole number ≥ 1 (maxOutputTokens, or the model's), got ${String(cap)}`
    )
  }
  return (turns, context) =>
    Effect.suspend(() => {
      const messages = prompt(turns, options.instructions)
      const asked = Model.ask(options.model, { messages, toolset: noTools, turn: context.turn })
      const spend = context.spend
      const call =
        spend === undefined
          ? asked
          : Effect.flatMap(spend.current, (now) =>
              SpendMeter.metered(
                spend,
                Spend.isLimited(now)
                  ? Spend.worstCase(now, Spending.requestTokens(messages, noTools), cap)
                  : Spend.zero,
                asked,
                (response) => response.usage ?? (Spend.isLimited(now) ? undefined : {}),
                (settled) =>
                  Spending.settled.record({
                    type: "spend.settled",
                    turn: context.turn ?? 0,
                    reported: settled.reported,
                    spent: Spending.wire(settled.spent),
                    total: Spending.wire(settled.total),
                    purpose: "summary"
                  })
              )
            )
      return Effect.flatMap(call, (response) => {
        const text = textOf(response)
        return text === "" ? Effect.fail(new EmptySummary({ turns: turns.length })) : Effect.succeed(text)
      })
    })
}
