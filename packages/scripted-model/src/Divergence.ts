/**
 * The ways a run can leave its script, as typed failures. Each message names the turn (and the
 * tool_use_id where there is one) and shows expected and seen side by side.
 *
 * @since 0.1.0
 */
import type { Message } from "@agent-harness/executor"
import { type Cause, Data } from "effect"
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

interface ScriptDivergenceFields {
  /** The turn whose results differ (its reply made the calls), from 1. */
  readonly turn: number
  /** The call whose observation differs, when one does. */
  readonly toolUseId: string | undefined
  /** What the script expects, as lines. */
  readonly expected: string
  /** What the model was shown, as lines. */
  readonly seen: string
  /** How they differ, in words. */
  readonly detail: string
}

const ScriptDivergenceBase: new (
  args: ScriptDivergenceFields
) => Cause.YieldableError & { readonly _tag: "ScriptDivergence" } & Readonly<ScriptDivergenceFields> =
  Data.TaggedError("ScriptDivergence")

/**
 * The model was shown something other than what the script expects.
 *
 * @since 0.1.0
 */
export class ScriptDivergence extends ScriptDivergenceBase {
  /** The turn (and tool_use_id), what differs, and expected and seen side by side. */
  override get message(): string {
    const where =
      this.toolUseId === undefined ? `turn ${this.turn}` : `turn ${this.turn}, tool_use_id ${this.toolUseId}`
    return `${where}: ${this.detail}\n  expected: ${this.expected}\n  seen:     ${this.seen}`
  }
}

interface ScriptExhaustedFields {
  /** The call past the end, from 1. */
  readonly turn: number
}

const ScriptExhaustedBase: new (
  args: ScriptExhaustedFields
) => Cause.YieldableError & { readonly _tag: "ScriptExhausted" } & Readonly<ScriptExhaustedFields> =
  Data.TaggedError("ScriptExhausted")

/**
 * The model was called more times than the script has turns.
 *
 * @since 0.1.0
 */
export class ScriptExhausted extends ScriptExhaustedBase {
  /** The call past the end, and how many turns the script has. */
  override get message(): string {
    return `turn ${this.turn}: the model was called again, but the script has only ${this.turn - 1} turn(s)`
  }
}

interface ScriptUnfinishedFields {
  /** Model calls made. */
  readonly used: number
  /** Turns the script has. */
  readonly total: number
}

const ScriptUnfinishedBase: new (
  args: ScriptUnfinishedFields
) => Cause.YieldableError & { readonly _tag: "ScriptUnfinished" } & Readonly<ScriptUnfinishedFields> =
  Data.TaggedError("ScriptUnfinished")

/**
 * The run stopped with replies left in the script.
 *
 * @since 0.1.0
 */
export class ScriptUnfinished extends ScriptUnfinishedBase {
  /** Model calls made, turns the script has, and how many are left over. */
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
