/**
 * Checks at the harness's boundary, where values from callers and models come in: the loop's
 * options, the model's replies and failures, durations, and how a bad value is shown in the
 * message that names it. Each check reads the value inside a guard, so a hostile value gives a
 * problem to report, never a throw.
 *
 * @internal
 */
import { Budget } from "@agent-harness/budgets"
import { Render, Toolset } from "@agent-harness/tool-schema"
import { Duration, Schema } from "effect"
import * as Message from "./Message.ts"
import * as Model from "./Model.ts"

/** Values in messages are cut here: a message names the problem, it does not dump the value. */
const maxShown = 200

/**
 * A value as a message shows it: strings quoted, numbers as they are (`NaN`, `-1`), `undefined`
 * by name, anything else as `Render.value`.
 *
 * @internal
 */
export const show = (u: unknown): string => {
  const shown =
    typeof u === "string"
      ? JSON.stringify(u)
      : typeof u === "number" || typeof u === "bigint" || u === undefined
        ? String(u)
        : Render.value(u)
  return shown.length > maxShown ? `${shown.slice(0, maxShown)}…` : shown
}

/**
 * The milliseconds of a duration option (`Duration.Input`), or `undefined` when it is not a
 * duration (`"banana"`, `NaN`, a negative amount). Never throws.
 *
 * @internal
 */
export const millis = (input: unknown): number | undefined => {
  if (typeof input === "number" && Number.isNaN(input)) return undefined
  let out: number
  try {
    out = Duration.toMillis(Duration.fromInputUnsafe(input as Duration.Input))
  } catch {
    return undefined
  }
  return out >= 0 ? out : undefined
}

/**
 * A problem with an option of `Loop.run`: the option and what is wrong with it.
 *
 * @internal
 */
export interface OptionProblem {
  readonly option: string
  readonly problem: string
}

const isMessage = Schema.is(Message.Message)
const isBudget = Schema.is(Budget.Budget)

const wholeAtLeast = (u: unknown, least: number): boolean =>
  typeof u === "number" && Number.isSafeInteger(u) && u >= least

/** The loop's options that are present, checked in declaration order. */
const optionChecks: ReadonlyArray<readonly [string, (u: unknown) => string | undefined]> = [
  ["toolset", (u) => (Toolset.isToolset(u) ? undefined : "must be a toolset (Toolset.make)")],
  [
    "messages",
    (u) => {
      if (!Array.isArray(u)) return `must be a list of messages, got ${show(u)}`
      for (let i = 0; i < u.length; i++) {
        if (!isMessage(u[i])) return `must be a list of messages; message ${i + 1} is not a message: ${show(u[i])}`
      }
      return undefined
    }
  ],
  [
    "maxTurns",
    (u) => (u === undefined || wholeAtLeast(u, 0) ? undefined : `must be a whole number of at least 0, got ${show(u)}`)
  ],
  [
    "turns",
    (u) =>
      u === undefined || (isBudget(u) && u.kind === "turns")
        ? undefined
        : `must be a turns budget (Budget.turns), got ${show(u)}`
  ],
  [
    "timeLimit",
    (u) => {
      if (u === undefined) return undefined
      const ms = millis(u)
      return ms !== undefined && Number.isSafeInteger(Math.ceil(ms))
        ? undefined
        : `must be a finite duration of at least zero, got ${show(u)}`
    }
  ],
  [
    "concurrency",
    (u) =>
      u === undefined || u === "unbounded" || wholeAtLeast(u, 1)
        ? undefined
        : `must be a whole number of at least 1 or "unbounded", got ${show(u)}`
  ],
  [
    "timeout",
    (u) => {
      if (u === undefined) return undefined
      const ms = millis(u)
      return ms !== undefined && ms > 0 ? undefined : `must be a duration longer than zero, got ${show(u)}`
    }
  ],
  ["onTurn", (u) => (u === undefined || typeof u === "function" ? undefined : `must be a function, got ${show(u)}`)]
]

/**
 * The first problem with the options of `Loop.run`, or `undefined` when they are valid.
 *
 * @internal
 */
export const optionProblem = (options: unknown): OptionProblem | undefined => {
  if (typeof options !== "object" || options === null) {
    return { option: "options", problem: `must be an object, got ${show(options)}` }
  }
  for (const [option, check] of optionChecks) {
    try {
      const problem = check((options as Record<string, unknown>)[option])
      if (problem !== undefined) return { option, problem }
    } catch (thrown) {
      return { option, problem: `cannot be read: ${Render.thrown(thrown)}` }
    }
  }
  return undefined
}

/** What is wrong with one block of a reply, or `undefined`. */
const blockProblem = (block: unknown): string | undefined => {
  if (typeof block !== "object" || block === null || Array.isArray(block)) return `is not a block: ${show(block)}`
  const b = block as Record<string, unknown>
  const type = b.type
  if (type === "text") return typeof b.text === "string" ? undefined : "(text) has no string text"
  if (type === "tool_use") {
    const id = b.id
    if (typeof id !== "string" || id === "") return "(tool_use) has no id, so no result could answer it"
    return typeof b.name === "string" ? undefined : `(tool_use '${id}') has no tool name`
  }
  return `has an unknown type: ${show(type)}`
}

/**
 * What is wrong with a model's reply (not a list of text and tool_use blocks, a tool_use
 * without an id or a name), or `undefined` when it is well formed.
 *
 * @internal
 */
export const replyProblem = (reply: unknown): string | undefined => {
  try {
    if (!Array.isArray(reply)) return `the reply is not a list of blocks: ${show(reply)}`
    for (let i = 0; i < reply.length; i++) {
      const problem = blockProblem(reply[i])
      if (problem !== undefined) return `block ${i + 1} ${problem}`
    }
    return undefined
  } catch (thrown) {
    return `the reply cannot be read: ${Render.thrown(thrown)}`
  }
}

/**
 * A model's failure as the loop reports it: a `Model.Failure` (a `_tag` and a `message`, both
 * strings) as it is, anything else as a `ModelDefect` saying what it was.
 *
 * @internal
 */
export const failureOf = (reason: unknown): Model.Failure => {
  try {
    if (typeof reason === "object" && reason !== null) {
      const { _tag, message } = reason as { readonly _tag?: unknown; readonly message?: unknown }
      if (typeof _tag === "string" && typeof message === "string") return reason as Model.Failure
    }
  } catch {
    // Described below.
  }
  return new Model.ModelDefect({ defect: reason, message: `the model failed with ${Render.thrown(reason)}` })
}

/**
 * A model that threw or died, as a failure.
 *
 * @internal
 */
export const defectOf = (defect: unknown): Model.Failure =>
  new Model.ModelDefect({ defect, message: `the model died: ${Render.thrown(defect)}` })
