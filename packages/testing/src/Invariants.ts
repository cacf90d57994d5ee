/**
 * The invariants every harness needs, as checks for your own tests: every tool call answered
 * exactly once (in the next user message, in call order), no call id executed twice, and a
 * typed stop reason. Each check returns a typed `Check` listing every violation; each `assert*`
 * variant throws an `InvariantError` (named `AssertionError`) whose message lists them. No test
 * framework is needed: they work with a `Loop.RunResult`, a raw message array, or trace events.
 *
 * @since 0.1.0
 */
import { type Loop, type Message, StopReason, type Trace } from "@agent-harness/executor"

/**
 * What a history check reads: the loop's result, or the messages themselves.
 *
 * @since 0.1.0
 */
export type History = ReadonlyArray<Message.Message> | { readonly messages: ReadonlyArray<Message.Message> }

/**
 * The result of a check: `ok`, or every violation found, in history order.
 *
 * @since 0.1.0
 */
export type Check<V> =
  | { readonly ok: true; readonly violations: readonly [] }
  | { readonly ok: false; readonly violations: readonly [V, ...Array<V>] }

/**
 * A failed invariant: `name` is `AssertionError` (as test runners show it), `invariant` says
 * which one, `violations` holds each problem; the message is the invariant, then one line per
 * violation.
 *
 * @since 0.1.0
 */
export class InvariantError extends Error {
  /** `AssertionError`, so test runners show it as a failed assertion. */
  override readonly name = "AssertionError"
  /** The invariant that failed, in words (`every tool call must be answered exactly once`). */
  readonly invariant: string
  /** Each problem found, in history order; its `message` is one line of the error's message. */
  readonly violations: ReadonlyArray<{ readonly message: string }>
  /** The error of a failed `invariant`: its message is the invariant, then one line per violation. */
  constructor(invariant: string, violations: ReadonlyArray<{ readonly message: string }>) {
    super([invariant, ...violations.map((v) => `  ${v.message}`)].join("\n"))
    this.invariant = invariant
    this.violations = violations
  }
}

const checkOf = <V>(violations: ReadonlyArray<V>): Check<V> => {
  const [first, ...rest] = violations
  return first === undefined ? { ok: true, violations: [] } : { ok: false, violations: [first, ...rest] }
}

const orThrow = <V extends { readonly message: string }>(invariant: string, check: Check<V>): void => {
  if (!check.ok) throw new InvariantError(invariant, check.violations)
}

const messagesOf = (history: History): ReadonlyArray<Message.Message> =>
  "messages" in history ? history.messages : history

const times = (n: number): string => `${n} time${n === 1 ? "" : "s"}`

const count = (ids: ReadonlyArray<string>, id: string): number => ids.filter((x) => x === id).length

const resultIdsOf = (message: Message.Message | undefined): ReadonlyArray<string> =>
  message === undefined || message.role !== "user" || typeof message.content === "string"
    ? []
    : message.content.flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : []))

const callIdsOf = (message: Message.Message | undefined): ReadonlyArray<string> =>
  message === undefined || message.role !== "assistant"
    ? []
    : message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []))

/** `turn 2`, or `before the first model call` for a message that precedes every reply. */
const at = (turn: number): string => (turn === 0 ? "before the first model call" : `turn ${turn}`)

// ---------------------------------------------------------------------------------------------
// Every tool call answered exactly once
// ---------------------------------------------------------------------------------------------

/**
 * What is wrong with how a call is answered:
 * - `missing`: the next user message has no tool_result for it (or fewer than its calls);
 * - `duplicated`: it is answered more than once (in the next message, or again later);
 * - `out_of_order`: the results of the turn are not in call order;
 * - `wrong_message`: it is answered, but in another message than the next one;
 * - `unknown`: a tool_result whose id no tool_use of the history has.
 *
 * @since 0.1.0
 */
export type AnswerViolationKind = "missing" | "duplicated" | "out_of_order" | "wrong_message" | "unknown"

/**
 * One violation of "every tool call answered exactly once".
 *
 * @since 0.1.0
 */
export interface AnswerViolation {
  /** What is wrong: `missing`, `duplicated`, `out_of_order`, `wrong_message` or `unknown`. */
  readonly kind: AnswerViolationKind
  /** The tool_use id at fault. */
  readonly id: string
  /**
   * The model call (from 1) that made the call; for `unknown`, the turn whose results carry the
   * stray tool_result (0 before the first model call).
   */
  readonly turn: number
  /**
   * Where in the history: the assistant message of the call, or, for a stray or repeated
   * tool_result (`unknown`, `duplicated` in a later message), the user message that carries it.
   */
  readonly index: number
  /** The explanation, as printed. */
  readonly message: string
}

/**
 * Checks that each assistant `tool_use` is answered by exactly one `tool_result` in the next
 * user message, in call order, and that no tool_result answers a call that does not exist.
 *
 * @since 0.1.0
 */
export const answeredOnce = (history: History): Check<AnswerViolation> => {
  const messages = messagesOf(history)
  const violations: Array<AnswerViolation> = []
  // turnOf[i]: model calls made up to and including message i.
  const turnOf: Array<number> = []
  const callTurn = new Map<string, { readonly turn: number; readonly index: number }>()
  let turn = 0
  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant") {
      turn++
      for (const id of callIdsOf(message)) if (!callTurn.has(id)) callTurn.set(id, { turn, index })
    }
    turnOf.push(turn)
  }
  const answers: Array<{ readonly id: string; readonly index: number }> = []
  for (const [index, message] of messages.entries()) {
    for (const id of resultIdsOf(message)) answers.push({ id, index })
  }
  const add = (kind: AnswerViolationKind, id: string, t: number, index: number, message: string) =>
    violations.push({ kind, id, turn: t, index, message })

  for (const [index, message] of messages.entries()) {
    const t = turnOf[index] ?? 0
    if (message.role === "assistant") {
      const calls = callIdsOf(message)
      if (calls.length === 0) continue
      const results = resultIdsOf(messages[index + 1])
      const before = violations.length
      for (const id of new Set(calls)) {
        const want = count(calls, id)
        const got = count(results, id)
        if (got === 0) {
          const elsewhere = answers.find((a) => a.id === id && a.index !== index + 1)
          if (elsewhere === undefined) {
            add("missing", id, t, index, `turn ${t}: tool_use '${id}' has no tool_result in the next user message`)
          } else {
            add(
              "wrong_message",
              id,
              t,
              index,
              `turn ${t}: tool_use '${id}' is answered in messages[${elsewhere.index}], not in the next user message (messages[${index + 1}])`
            )
          }
        } else if (got < want) {
          add(
            "missing",
            id,
            t,
            index,
            `turn ${t}: tool_use '${id}' is called ${times(want)} but answered ${times(got)}`
          )
        } else if (got > want) {
          add(
            "duplicated",
            id,
            t,
            index,
            want === 1
              ? `turn ${t}: tool_use '${id}' is answered ${times(got)} in the next user message`
              : `turn ${t}: tool_use '${id}' is called ${times(want)} but answered ${times(got)}`
          )
        }
      }
      if (violations.length > before) continue
      const inOrder = results.filter((id) => calls.includes(id))
      const wrong = calls.findIndex((id, position) => inOrder[position] !== id)
      const id = calls[wrong]
      if (id !== undefined) {
        add(
          "out_of_order",
          id,
          t,
          index,
          `turn ${t}: tool_result for '${id}' is out of call order (calls: ${calls.join(", ")}; results: ${inOrder.join(", ")})`
        )
      }
    } else {
      const previous = messages[index - 1]
      const own = previous?.role === "assistant" ? callIdsOf(previous) : []
      for (const id of resultIdsOf(message)) {
        if (own.includes(id)) continue
        const call = callTurn.get(id)
        if (call === undefined) {
          add("unknown", id, t, index, `${at(t)}: tool_result for '${id}' (messages[${index}]) answers no tool_use`)
          continue
        }
        const answeredInPlace = resultIdsOf(messages[call.index + 1]).includes(id)
        const first = answers.find((a) => a.id === id && a.index !== call.index + 1)
        // Not answered in place and this is its first answer: reported above as `wrong_message`.
        if (!answeredInPlace && first?.index === index) continue
        add(
          "duplicated",
          id,
          call.turn,
          index,
          `turn ${call.turn}: tool_use '${id}' is answered again in messages[${index}]`
        )
      }
    }
  }
  return checkOf(violations)
}

/**
 * Throws an `InvariantError` unless every tool call is answered exactly once.
 *
 * @since 0.1.0
 */
export const assertAnsweredOnce = (history: History): void =>
  orThrow("every tool call must be answered exactly once", answeredOnce(history))

// ---------------------------------------------------------------------------------------------
// No call id executed twice
// ---------------------------------------------------------------------------------------------

/**
 * One id used twice: in two calls (`called_twice`), or with two observations
 * (`observed_twice`).
 *
 * @since 0.1.0
 */
export interface DuplicateId {
  /** Whether the id names two calls (`called_twice`) or gets two observations (`observed_twice`). */
  readonly kind: "called_twice" | "observed_twice"
  /** The tool_use id used twice. */
  readonly id: string
  /** The turn of each occurrence, in order. */
  readonly turns: ReadonlyArray<number>
  /** The explanation, as printed. */
  readonly message: string
}

const duplicates = (
  calls: ReadonlyArray<{ readonly id: string; readonly turn: number }>,
  observations: ReadonlyArray<{ readonly id: string; readonly turn: number }>
): Check<DuplicateId> => {
  const group = (items: ReadonlyArray<{ readonly id: string; readonly turn: number }>) => {
    const byId = new Map<string, Array<number>>()
    for (const { id, turn } of items) byId.set(id, [...(byId.get(id) ?? []), turn])
    return [...byId].filter(([, turns]) => turns.length > 1)
  }
  const list = (turns: ReadonlyArray<number>) => `turns ${turns.join(", ")}`
  return checkOf([
    ...group(calls).map(
      ([id, turns]): DuplicateId => ({
        kind: "called_twice",
        id,
        turns,
        message: `tool_use id '${id}' is called ${times(turns.length)} (${list(turns)})`
      })
    ),
    ...group(observations).map(
      ([id, turns]): DuplicateId => ({
        kind: "observed_twice",
        id,
        turns,
        message: `tool_use id '${id}' gets ${turns.length} observations (${list(turns)})`
      })
    )
  ])
}

/**
 * Checks that across the whole history no tool_use id appears in two calls and none gets two
 * tool_results. A turn of a tool_result is the model call whose results it carries.
 *
 * @since 0.1.0
 */
export const uniqueCallIds = (history: History): Check<DuplicateId> => {
  const calls: Array<{ id: string; turn: number }> = []
  const observations: Array<{ id: string; turn: number }> = []
  let turn = 0
  for (const message of messagesOf(history)) {
    if (message.role === "assistant") turn++
    for (const id of callIdsOf(message)) calls.push({ id, turn })
    for (const id of resultIdsOf(message)) observations.push({ id, turn })
  }
  return duplicates(calls, observations)
}

/**
 * Throws an `InvariantError` if a tool_use id is called twice or observed twice in the history.
 *
 * @since 0.1.0
 */
export const assertUniqueCallIds = (history: History): void =>
  orThrow("no tool call id may be executed twice", uniqueCallIds(history))

/**
 * The same check over a trace (`Trace.memory`, or a JSON Lines file decoded with
 * `Trace.Event`): `call.started` events have unique ids, and `call.answered` events unique tool_use ids.
 *
 * @since 0.1.0
 */
export const uniqueTraceCallIds = (events: ReadonlyArray<Trace.Event>): Check<DuplicateId> =>
  duplicates(
    events.flatMap((event) => (event.type === "call.started" ? [{ id: event.tool_use_id, turn: event.turn }] : [])),
    events.flatMap((event) =>
      event.type === "call.answered" ? [{ id: event.result.tool_use_id, turn: event.turn }] : []
    )
  )

/**
 * Throws an `InvariantError` if a trace executes or observes a tool_use id twice.
 *
 * @since 0.1.0
 */
export const assertUniqueTraceCallIds = (events: ReadonlyArray<Trace.Event>): void =>
  orThrow("no tool call id may be executed twice", uniqueTraceCallIds(events))

// ---------------------------------------------------------------------------------------------
// A typed stop reason
// ---------------------------------------------------------------------------------------------

/**
 * Every reason the loop stops with (the literals of the executor's `StopReason` Schema).
 *
 * @since 0.1.0
 */
export const stopReasons: ReadonlyArray<Loop.StopReason> = StopReason.StopReason.literals

/**
 * Whether a value is one of the loop's stop reasons (decoded through `StopReason`).
 *
 * @since 0.1.0
 */
export const isStopReason = (u: unknown): u is Loop.StopReason => StopReason.is(u)

/**
 * How a run ended, as a `Loop.RunResult` or a trace's `run.ended` event has it.
 *
 * @since 0.1.0
 */
export interface Stopped {
  /** The stop reason (one of `StopReason`'s: `end`, `turn_cap`, `time_budget`, `token_budget`, `cost_budget`, `context_window`, `repeated_call`, `interrupted`), or whatever a trace says. */
  readonly stop: string
  /**
   * The final text; a run that stops with `end` has one, an `interrupted` one may have the text
   * its cut-off reply had written, the others none.
   */
  readonly text?: string | undefined
}

/**
 * What is wrong with a stop: a reason the loop does not have, `end` without its final text, or
 * another reason with a text.
 *
 * @since 0.1.0
 */
export interface StopViolation {
  /** What is wrong: a reason the loop does not have, `end` without text, or text with another reason. */
  readonly kind: "unknown_reason" | "missing_text" | "unexpected_text"
  /** The stop reason as found. */
  readonly stop: string
  /** The explanation, as printed. */
  readonly message: string
}

/**
 * Checks that `stop` is one of the loop's stop reasons (`stopReasons`), and that `text` is present
 * exactly when the stop is `end`.
 *
 * @since 0.1.0
 */
export const stopReason = (result: Stopped): Check<StopViolation> => {
  const { stop, text } = result
  if (!isStopReason(stop)) {
    const known = stopReasons.map((reason) => `'${reason}'`).join(", ")
    return checkOf([{ kind: "unknown_reason", stop, message: `stop reason '${stop}' is not one of ${known}` }])
  }
  if (stop === "end" && text === undefined) {
    return checkOf([{ kind: "missing_text", stop, message: `stop 'end' comes without the final text` }])
  }
  if (stop !== "end" && stop !== "interrupted" && text !== undefined) {
    return checkOf([
      {
        kind: "unexpected_text",
        stop,
        message: `stop '${stop}' comes with text ${JSON.stringify(text)}; only 'end' has a final text (and 'interrupted' the text written so far)`
      }
    ])
  }
  return checkOf([])
}

/**
 * Throws an `InvariantError` unless the stop reason is a known one with text exactly at `end`.
 *
 * @since 0.1.0
 */
export const assertStopReason = (result: Stopped): void =>
  orThrow("the loop must stop with a known reason", stopReason(result))

/**
 * A result narrowed to one stop reason: at `end` the final text is a string; otherwise there is
 * none.
 *
 * @since 0.1.0
 */
export type StoppedWith<R extends Stopped, S extends Loop.StopReason> = R &
  (S extends "end" ? { readonly stop: "end"; readonly text: string } : { readonly stop: S; readonly text?: undefined })

/**
 * Throws an `InvariantError` unless the result stopped with `reason` (and is a valid stop);
 * returns it narrowed, so `expectStop(result, "end").text` is a `string`.
 *
 * @since 0.1.0
 */
export const expectStop = <R extends Stopped, S extends Loop.StopReason>(result: R, reason: S): StoppedWith<R, S> => {
  const invariant = `the loop must stop with '${reason}'`
  const valid = stopReason(result)
  if (!valid.ok) throw new InvariantError(invariant, valid.violations)
  if (result.stop !== reason) {
    throw new InvariantError(invariant, [{ message: `it stopped with '${result.stop}'` }])
  }
  return result as StoppedWith<R, S>
}

// ---------------------------------------------------------------------------------------------
// All of them
// ---------------------------------------------------------------------------------------------

/**
 * Every invariant of a loop result at once: answered once, unique call ids, a typed stop.
 * Throws the first `InvariantError`.
 *
 * @since 0.1.0
 */
export const assertLoopResult = (result: Loop.RunResult): void => {
  assertAnsweredOnce(result)
  assertUniqueCallIds(result)
  assertStopReason(result)
}
