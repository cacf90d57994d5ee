/**
 * The repeated-call breaker, an opt-in stop condition of the loop. Models get stuck calling the
 * same tool with the same input after the same error; the turn cap bounds that, but late. With a
 * breaker, once `after` identical calls (same tool, same input, same observation) fall within
 * `window` turns, the loop either tells the model plainly (`tell`: a line from the catalogue is
 * appended to that call's observation) or stops after that turn with the reason `repeated_call`
 * (`stop`). Either way, every call of the turn runs and gets its result: the breaker never
 * changes, drops or skips a call.
 *
 * Identical is decided on canonical texts (`Canonical.encode` of the input; the observation's
 * text and `is_error` as they are): key order does not matter, and an input that has no
 * canonical text (a cycle, `NaN`, a bigint, a getter that throws) is never identical to
 * anything, so it can never trip the breaker, nor hang it.
 *
 * @since 0.1.0
 */
import { Canonical, MessageCatalog } from "@agent-harness/tool-schema"
import { Result } from "effect"
import type * as Message from "./Message.ts"
import * as Outcome from "./Outcome.ts"

/**
 * What a tripped breaker does: `tell` the model (a line appended to the call's observation), or
 * `stop` the run after the turn, with the reason `repeated_call`.
 *
 * @since 0.1.0
 */
export type Action = "tell" | "stop"

/**
 * A breaker's settings: trip at the `after`-th identical call within `window` turns (the current
 * turn included), and do `action`.
 *
 * @example
 * ```ts
 * import { Breaker } from "@agent-harness/executor"
 *
 * const breaker: Breaker.Breaker = { after: 3, window: 5, action: "tell" }
 * ```
 *
 * @since 0.1.0
 */
export interface Breaker {
  /** How many identical calls within the window trip it: a whole number, at least 2. */
  readonly after: number
  /** How many turns the window spans, the current one included: a whole number, at least 1. */
  readonly window: number
  /** What it does when it trips. */
  readonly action: Action
}

/**
 * The actions, as `Breaker.action` spells them.
 *
 * @since 0.1.0
 */
export const actions: ReadonlyArray<Action> = ["tell", "stop"]

const wholeAtLeast = (u: unknown, least: number): boolean =>
  typeof u === "number" && Number.isSafeInteger(u) && u >= least

const shown = (u: unknown): string => {
  if (typeof u === "string") return JSON.stringify(u)
  if (typeof u === "object" && u !== null) return Array.isArray(u) ? "a list" : "an object"
  return String(u)
}

/**
 * What is wrong with a value given as a breaker (`undefined`, no breaker, is fine): the field and
 * the problem, in the words of `Loop.InvalidOption`. Never throws (a field that cannot be read is
 * a problem too).
 *
 * @since 0.1.0
 */
export const problem = (u: unknown): { readonly field: string; readonly problem: string } | undefined => {
  if (u === undefined) return undefined
  if (typeof u !== "object" || u === null || Array.isArray(u)) {
    return { field: "", problem: `must be { after, window, action }, got ${shown(u)}` }
  }
  const checks: ReadonlyArray<readonly [keyof Breaker, (v: unknown) => string | undefined]> = [
    [
      "after",
      (v) =>
        wholeAtLeast(v, 2)
          ? undefined
          : `must be a whole number of at least 2 (one call is no repetition), got ${shown(v)}`
    ],
    ["window", (v) => (wholeAtLeast(v, 1) ? undefined : `must be a whole number of at least 1 turn, got ${shown(v)}`)],
    ["action", (v) => (v === "tell" || v === "stop" ? undefined : `must be "tell" or "stop", got ${shown(v)}`)]
  ]
  for (const [field, check] of checks) {
    let value: unknown
    try {
      value = (u as Record<string, unknown>)[field]
    } catch {
      return { field, problem: "cannot be read" }
    }
    const wrong = check(value)
    if (wrong !== undefined) return { field, problem: wrong }
  }
  return undefined
}

/**
 * The identity of a call and its observation: the tool's name, the canonical text of its input,
 * and the observation's `is_error` and text, as one string; `undefined` when the input has no
 * canonical text (such a call is never identical to another).
 *
 * @since 0.1.0
 */
export const identity = (call: Message.ToolUseBlock, outcome: Outcome.Outcome): string | undefined => {
  const input = Canonical.encode(call.input)
  if (Result.isFailure(input)) return undefined
  return JSON.stringify([call.name, input.success, Outcome.isError(outcome), outcome.content])
}

/**
 * A call that tripped the breaker: the `count`-th identical call within the window.
 *
 * @since 0.1.0
 */
export interface Trip {
  /** The turn of the call, from 1. */
  readonly turn: number
  /** The call's place among the turn's calls, from 0. */
  readonly index: number
  /** The call's `tool_use_id`. */
  readonly id: string
  /** The tool's name. */
  readonly name: string
  /** The identical calls within the window, this one included (at least `after`). */
  readonly count: number
}

/**
 * A turn as the breaker leaves it: its outcomes in call order (under `tell`, those that tripped
 * with the catalogue's line appended to their text), and the calls that tripped, in call order.
 *
 * @since 0.1.0
 */
export interface Checked {
  /** The turn's outcomes in call order; under `tell`, a tripped call's text has the catalogue's line appended. */
  readonly outcomes: ReadonlyArray<Outcome.Outcome>
  /** The calls that tripped, in call order (empty when none did). */
  readonly trips: ReadonlyArray<Trip>
}

/**
 * A breaker at work over one run: `check` takes each turn's calls and outcomes, in turn order.
 *
 * @since 0.1.0
 */
export interface Watch {
  /** Checks one turn (turns in order): its calls and their outcomes, in call order. */
  readonly check: (
    turn: number,
    calls: ReadonlyArray<Message.ToolUseBlock>,
    outcomes: ReadonlyArray<Outcome.Outcome>
  ) => Checked
}

/**
 * The line appended to a tripped call's observation under `tell` (never throws: a catalogue
 * that cannot word it is replaced by English, `MessageCatalog.say`).
 *
 * @since 0.1.0
 */
export const note = (catalog: MessageCatalog.MessageCatalog, count: number, window: number): string =>
  MessageCatalog.say(catalog, (c) => c.repeatedCall(count, window))

/**
 * Starts watching a run with a breaker. The counts live in the watch; entries older than the
 * window are dropped as turns go by, so it holds at most the calls of `window` turns.
 *
 * @since 0.1.0
 */
export const watch = (breaker: Breaker, catalog: MessageCatalog.MessageCatalog): Watch => {
  /** The turns of the calls seen with each identity, oldest first, within the window. */
  const seen = new Map<string, Array<number>>()
  return {
    check: (turn, calls, outcomes) => {
      const oldest = turn - breaker.window + 1
      for (const [key, turns] of seen) {
        let gone = 0
        while (gone < turns.length && (turns[gone] ?? turn) < oldest) gone++
        if (gone === turns.length) seen.delete(key)
        else if (gone > 0) turns.splice(0, gone)
      }
      const trips: Array<Trip> = []
      const out: Array<Outcome.Outcome> = []
      for (let i = 0; i < outcomes.length; i++) {
        const outcome = outcomes[i] as Outcome.Outcome
        const call = calls[i]
        const key = call === undefined ? undefined : identity(call, outcome)
        if (key === undefined) {
          out.push(outcome)
          continue
        }
        const turns = seen.get(key) ?? []
        turns.push(turn)
        seen.set(key, turns)
        if (turns.length < breaker.after) {
          out.push(outcome)
          continue
        }
        trips.push({ turn, index: i, id: outcome.id, name: outcome.name, count: turns.length })
        out.push(
          breaker.action === "tell"
            ? { ...outcome, content: `${outcome.content}\n${note(catalog, turns.length, breaker.window)}` }
            : outcome
        )
      }
      return { outcomes: out, trips }
    }
  }
}
