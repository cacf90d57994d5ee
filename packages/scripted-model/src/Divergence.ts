/**
 * The ways a run can leave its script, as typed failures. Each message names the turn (and the
 * tool_use_id where there is one) and shows expected and seen side by side.
 *
 * @since 0.1.0
 */
import type { Message } from "@agent-harness/executor"
import { Data } from "effect"
import type { ExpectedResult } from "./Script.ts"

const showContent = (content: string | RegExp): string =>
  typeof content === "string" ? JSON.stringify(content) : `/${content.source}/${content.flags}`

/**
 * One observation as a line: `is_error=true "text"`.
 *
 * @since 0.1.0
 */
export const showResult = (result: ExpectedResult | Message.ToolResultBlock | undefined): string =>
  result === undefined
    ? "(nothing)"
    : `${result.tool_use_id} is_error=${result.is_error} ${showContent(result.content)}`

/**
 * The model was shown something other than what the script expects.
 *
 * @since 0.1.0
 */
export class ScriptDivergence extends Data.TaggedError("ScriptDivergence")<{
  /** The turn whose results differ (its reply made the calls), from 1. */
  readonly turn: number
  /** The call whose observation differs, when one does. */
  readonly toolUseId: string | undefined
  readonly expected: string
  readonly seen: string
  readonly detail: string
}> {
  override get message(): string {
    const where =
      this.toolUseId === undefined ? `turn ${this.turn}` : `turn ${this.turn}, tool_use_id ${this.toolUseId}`
    return `${where}: ${this.detail}\n  expected: ${this.expected}\n  seen:     ${this.seen}`
  }
}

/**
 * The model was called more times than the script has turns.
 *
 * @since 0.1.0
 */
export class ScriptExhausted extends Data.TaggedError("ScriptExhausted")<{
  /** The call past the end, from 1. */
  readonly turn: number
}> {
  override get message(): string {
    return `turn ${this.turn}: the model was called again, but the script has only ${this.turn - 1} turn(s)`
  }
}

/**
 * The run stopped with replies left in the script.
 *
 * @since 0.1.0
 */
export class ScriptUnfinished extends Data.TaggedError("ScriptUnfinished")<{
  /** Model calls made. */
  readonly used: number
  /** Turns the script has. */
  readonly total: number
}> {
  override get message(): string {
    return `the run stopped after ${this.used} model call(s), but the script has ${this.total} turn(s): ${this.total - this.used} left over`
  }
}

/**
 * Any way of leaving the script.
 *
 * @since 0.1.0
 */
export type Divergence = ScriptDivergence | ScriptExhausted | ScriptUnfinished

/**
 * Whether a model failure is one of the script's.
 *
 * @since 0.1.0
 */
export const isDivergence = (u: { readonly _tag: string }): u is Divergence =>
  u._tag === "ScriptDivergence" || u._tag === "ScriptExhausted" || u._tag === "ScriptUnfinished"
