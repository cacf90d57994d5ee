/**
 * A script: the opening messages, the model's replies in order, and before each next reply
 * the exact observations it must be shown. A turn whose reply calls a tool must say what its
 * results must be (`expect`), or say explicitly that they are not checked
 * (`expect: Script.unchecked`); `validate` refuses a script that leaves it out.
 *
 * @since 0.1.0
 */
import type { Message } from "@agent-harness/executor"
import { type Cause, Data, Result } from "effect"

/**
 * An observation the model must be shown. `content` is the exact text, or a pattern it must
 * match somewhere (`String.search`).
 *
 * @since 0.1.0
 */
export interface ExpectedResult {
  /** The call it answers. */
  readonly tool_use_id: string
  /** Whether it must be an error observation. */
  readonly is_error: boolean
  /** The exact text, or a pattern it must match somewhere. */
  readonly content: string | RegExp
}

/**
 * The explicit marker of a turn whose results are not checked: `expect: Script.unchecked`.
 * For replays where only the calls matter (a benchmark, a captured run replayed for its side
 * effects); a turn that calls a tool and has no `expect` at all is refused instead of silently
 * checking nothing.
 *
 * @since 0.1.0
 */
export const unchecked: unique symbol = Symbol.for("@agent-harness/scripted-model/Script/unchecked")

/**
 * The type of `unchecked`.
 *
 * @since 0.1.0
 */
export type Unchecked = typeof unchecked

/**
 * One model call: what it replies, and the results its tool calls must get (checked before
 * the next call, or when the loop stops). `expect` is required when the reply has a tool call:
 * the exact results, in order, or `unchecked`. A reply without tool calls may leave it out
 * (or give `[]`).
 *
 * @since 0.1.0
 */
export interface Turn {
  /** The model's reply: text and tool calls, in order. */
  readonly reply: ReadonlyArray<Message.ReplyBlock>
  /** The results its tool calls must get, in order, or `unchecked`. */
  readonly expect?: ReadonlyArray<ExpectedResult> | Unchecked | undefined
  /**
   * The turn's stream fails part-way: after `afterParts` parts of its reply (as `Chunking` cuts
   * it; all of them when it has fewer) it fails with `StreamCut`, as a connection cut mid-call
   * does. Its whole reply (`respond`) fails with `StreamCut` too. None of its calls run, so it
   * expects no results, and it is the script's last turn.
   */
  readonly cut?: Cut | undefined
}

/**
 * Where a turn's stream is cut: after how many of its parts (a whole number, 0 for before the
 * first).
 *
 * @since 0.2.0
 */
export interface Cut {
  /** The parts the stream gives before it fails. */
  readonly afterParts: number
}

/**
 * A whole script.
 *
 * @since 0.1.0
 */
export interface Script {
  /** The opening messages the model must be called with first. */
  readonly messages: ReadonlyArray<Message.Message>
  /** The model calls, in order. */
  readonly turns: ReadonlyArray<Turn>
}

/** An expected observation: `expected("t1", false, "done")`. @since 0.1.0 */
export const expected = (toolUseId: string, isError: boolean, content: string | RegExp): ExpectedResult => ({
  tool_use_id: toolUseId,
  is_error: isError,
  content
})

/**
 * Whether an observation is the expected one.
 *
 * @since 0.1.0
 */
export const matches = (expected: ExpectedResult, seen: Message.ToolResultBlock): boolean =>
  expected.tool_use_id === seen.tool_use_id &&
  expected.is_error === seen.is_error &&
  (typeof expected.content === "string"
    ? expected.content === seen.content
    : // `search` ignores `lastIndex`, so a /g or /y pattern gives the same answer every time.
      seen.content.search(expected.content) !== -1)

interface ScriptInvalidFields {
  /** The turn at fault, from 1; `undefined` for the script as a whole. */
  readonly turn: number | undefined
  /** What is wrong. */
  readonly problem: string
}

const ScriptInvalidBase: new (
  args: ScriptInvalidFields
) => Cause.YieldableError & { readonly _tag: "ScriptInvalid" } & Readonly<ScriptInvalidFields> =
  Data.TaggedError("ScriptInvalid")

/**
 * A script that cannot be played as it is: the problem names the turn (from 1) and what is
 * wrong. The player fails its first model call with it, before any tool runs.
 *
 * @since 0.1.0
 */
export class ScriptInvalid extends ScriptInvalidBase {
  /** `invalid script: turn N: <problem>`. */
  override get message(): string {
    return `invalid script: ${this.turn === undefined ? "" : `turn ${this.turn}: `}${this.problem}`
  }
}

interface StreamCutFields {
  /** The turn whose stream is cut, from 1. */
  readonly turn: number
  /** The parts it gave before failing. */
  readonly afterParts: number
}

const StreamCutBase: new (
  args: StreamCutFields
) => Cause.YieldableError & { readonly _tag: "StreamCut" } & Readonly<StreamCutFields> = Data.TaggedError("StreamCut")

/**
 * A turn's stream failed where the script cuts it (`Turn.cut`): a model failure, so none of
 * that turn's calls run.
 *
 * @since 0.2.0
 */
export class StreamCut extends StreamCutBase {
  /** `turn N: the script cuts the model's stream after K part(s)`. */
  override get message(): string {
    return `turn ${this.turn}: the script cuts the model's stream after ${this.afterParts} part(s)`
  }
}

/** An error as text, whatever it is. */
const describeError = (error: unknown): string => {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return "an error that cannot be shown"
  }
}

const typeName = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value

/** `value[key]`, or a `ScriptInvalid` when reading it throws. */
const field = (value: object, key: string, turn: number | undefined, what: string): unknown => {
  try {
    return (value as Record<string, unknown>)[key]
  } catch (error) {
    throw new ScriptInvalid({ turn, problem: `${what} cannot be read (${describeError(error)})` })
  }
}

/** Whether an expected content is a text or a matcher (a `RegExp`, or any `{ test(s): boolean }`). */
const isContent = (content: unknown): boolean =>
  typeof content === "string" ||
  (typeof content === "object" && content !== null && typeof (content as { test?: unknown }).test === "function")

const checkExpected = (entry: unknown, turn: number, i: number): void => {
  const at = `expect[${i}]`
  if (typeof entry !== "object" || entry === null) {
    throw new ScriptInvalid({ turn, problem: `${at} must be an expected result, got ${typeName(entry)}` })
  }
  const id = field(entry, "tool_use_id", turn, `${at}.tool_use_id`)
  if (typeof id !== "string") {
    throw new ScriptInvalid({ turn, problem: `${at}.tool_use_id must be a string, got ${typeName(id)}` })
  }
  const isError = field(entry, "is_error", turn, `${at}.is_error`)
  if (typeof isError !== "boolean") {
    throw new ScriptInvalid({ turn, problem: `${at}.is_error must be a boolean, got ${typeName(isError)}` })
  }
  const content = field(entry, "content", turn, `${at}.content`)
  if (!isContent(content)) {
    throw new ScriptInvalid({
      turn,
      problem: `${at}.content must be a string or a pattern, got ${typeName(content)}`
    })
  }
}

/** Whether the turn is cut (its `cut` well formed), `false` when it has none. */
const checkCut = (value: object, turn: number): boolean => {
  const cut = field(value, "cut", turn, "cut")
  if (cut === undefined) return false
  if (typeof cut !== "object" || cut === null || Array.isArray(cut)) {
    throw new ScriptInvalid({ turn, problem: `cut must be { afterParts }, got ${typeName(cut)}` })
  }
  const after = field(cut, "afterParts", turn, "cut.afterParts")
  if (typeof after !== "number" || !Number.isSafeInteger(after) || after < 0) {
    throw new ScriptInvalid({
      turn,
      problem: `cut.afterParts must be a whole number of at least 0, got ${typeof after === "number" ? String(after) : typeName(after)}`
    })
  }
  return true
}

const checkTurn = (value: unknown, turn: number): void => {
  if (typeof value !== "object" || value === null) {
    throw new ScriptInvalid({ turn, problem: `a turn must be an object with a reply, got ${typeName(value)}` })
  }
  const reply = field(value, "reply", turn, "reply")
  if (!Array.isArray(reply)) throw new ScriptInvalid({ turn, problem: `reply must be a list, got ${typeName(reply)}` })
  const calls: Array<string> = []
  for (const block of reply) {
    if (typeof block === "object" && block !== null && field(block, "type", turn, "a reply block") === "tool_use") {
      const id = field(block, "id", turn, "a tool_use id")
      calls.push(typeof id === "string" ? id : "?")
    }
  }
  const expect = field(value, "expect", turn, "expect")
  if (checkCut(value, turn)) {
    if (Array.isArray(expect) && expect.length > 0) {
      throw new ScriptInvalid({
        turn,
        problem: `its stream is cut, so none of its calls run, but it expects ${expect.length} result(s)`
      })
    }
    if (expect !== undefined && expect !== unchecked && !Array.isArray(expect)) {
      throw new ScriptInvalid({
        turn,
        problem: `expect must be a list of expected results or Script.unchecked, got ${typeName(expect)}`
      })
    }
    return
  }
  if (expect === unchecked) return
  if (expect === undefined) {
    if (calls.length === 0) return
    throw new ScriptInvalid({
      turn,
      problem: `its reply calls ${calls.length === 1 ? "a tool" : `${calls.length} tools`} (${calls.join(", ")}) but it has no expect: give the results the model must be shown, or expect: Script.unchecked to check nothing`
    })
  }
  if (!Array.isArray(expect)) {
    throw new ScriptInvalid({
      turn,
      problem: `expect must be a list of expected results or Script.unchecked, got ${typeName(expect)}`
    })
  }
  if (calls.length === 0 && expect.length > 0) {
    throw new ScriptInvalid({
      turn,
      problem: `it expects ${expect.length} result(s) but its reply calls no tool, so none would ever be checked`
    })
  }
  for (const [i, entry] of expect.entries()) checkExpected(entry, turn, i)
}

/**
 * The script if it can be played, or what is wrong with it: every turn that calls a tool has an
 * `expect` (a list, or `unchecked`), a turn without calls expects nothing, every expected result
 * has a string `tool_use_id`, a boolean `is_error` and a text or pattern `content`; a `cut` is
 * `{ afterParts }` with a whole number of at least 0, on the last turn, expecting no results.
 * Never throws: a throwing getter is a `ScriptInvalid` too.
 *
 * @since 0.1.0
 */
export const validate = (script: Script): Result.Result<Script, ScriptInvalid> => {
  try {
    if (typeof script !== "object" || script === null) {
      throw new ScriptInvalid({ turn: undefined, problem: `expected { messages, turns }, got ${typeName(script)}` })
    }
    const messages = field(script, "messages", undefined, "messages")
    if (!Array.isArray(messages)) {
      throw new ScriptInvalid({ turn: undefined, problem: `messages must be a list, got ${typeName(messages)}` })
    }
    const turns = field(script, "turns", undefined, "turns")
    if (!Array.isArray(turns)) {
      throw new ScriptInvalid({ turn: undefined, problem: `turns must be a list, got ${typeName(turns)}` })
    }
    for (const [i, turn] of turns.entries()) {
      checkTurn(turn, i + 1)
      if (i + 1 < turns.length && field(turn as object, "cut", i + 1, "cut") !== undefined) {
        throw new ScriptInvalid({
          turn: i + 2,
          problem: `it comes after turn ${i + 1}, whose stream is cut, so it would never be played`
        })
      }
    }
    return Result.succeed(script)
  } catch (error) {
    return Result.fail(
      error instanceof ScriptInvalid ? error : new ScriptInvalid({ turn: undefined, problem: describeError(error) })
    )
  }
}
