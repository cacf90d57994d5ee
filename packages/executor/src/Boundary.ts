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
import { Duration, Predicate, Schema } from "effect"
import * as Breaker from "./Breaker.ts"
import * as FinishReason from "./FinishReason.ts"
import * as Message from "./Message.ts"
import type * as Model from "./Model.ts"
import * as Usage from "./Usage.ts"

/**
 * A value as a message shows it (`Render.brief`): strings quoted, numbers as they are (`NaN`,
 * `-1`), `undefined` by name, anything else as `Render.value`, cut at 200 characters.
 *
 * @internal
 */
export const show: (u: unknown) => string = Render.brief

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

/**
 * The loop's options that are present, checked in declaration order: each gives its problem, or
 * the field of the option at fault and its problem (`breaker.after`).
 */
const optionChecks: ReadonlyArray<
  readonly [string, (u: unknown) => string | { readonly field: string; readonly problem: string } | undefined]
> = [
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
  ["onTurn", (u) => (u === undefined || typeof u === "function" ? undefined : `must be a function, got ${show(u)}`)],
  ["breaker", (u) => Breaker.problem(u)]
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
      if (typeof problem === "object")
        return { option: problem.field === "" ? option : `${option}.${problem.field}`, problem: problem.problem }
      if (problem !== undefined) return { option, problem }
    } catch (thrown) {
      return { option, problem: `cannot be read: ${Render.thrown(thrown)}` }
    }
  }
  return undefined
}

/** What is wrong with the fields of one block of a reply but its metadata, or `undefined`. */
const fieldsProblem = (b: Record<string, unknown>): string | undefined => {
  const type = b.type
  if (type === "text") return typeof b.text === "string" ? undefined : "(text) has no string text"
  if (type === "reasoning") return typeof b.text === "string" ? undefined : "(reasoning) has no string text"
  if (type === "tool_use") {
    const id = b.id
    if (typeof id !== "string" || id === "") return "(tool_use) has no id, so no result could answer it"
    return typeof b.name === "string" ? undefined : `(tool_use '${id}') has no tool name`
  }
  return `has an unknown type: ${show(type)}`
}

/** What is wrong with one block of a reply, or `undefined`. */
const blockProblem = (block: unknown): string | undefined => {
  if (!Predicate.isObject(block)) return `is not a block: ${show(block)}`
  const b = block as Record<string, unknown>
  const problem = fieldsProblem(b)
  if (problem !== undefined) return problem
  const metadata = b.provider_metadata
  return metadata === undefined || Predicate.isObject(metadata)
    ? undefined
    : `(${String(b.type)}) has provider_metadata that is not an object: ${show(metadata)}`
}

/**
 * What is wrong with a model's reply (not a list of text, tool_use and reasoning blocks, a
 * tool_use without an id or a name, provider metadata that is not an object), or `undefined`
 * when it is well formed.
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

const finishReasons: ReadonlySet<string> = new Set<string>(FinishReason.FinishReason.literals)

const usageKeys = Object.keys(Usage.wireKeys) as ReadonlyArray<keyof Usage.Usage>

/** The counts of a usage that are whole numbers of at least 0, read once. */
const usageOf = (u: unknown): Model.Usage | string => {
  if (!Predicate.isObject(u)) return `the usage is not an object: ${show(u)}`
  const usage: { -readonly [K in keyof Usage.Usage]?: number } = {}
  for (const key of usageKeys) {
    const n = (u as Record<string, unknown>)[key]
    if (n === undefined) continue
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
      return `the usage's ${key} is not a whole number of at least 0: ${show(n)}`
    }
    usage[key] = n
  }
  return usage
}

/**
 * A `Model.respond` answer read once into a plain value, or what is wrong with it (not an
 * object, a finish reason that is not one, a usage count that is not a count). The content is
 * checked afterwards like any reply (`replyProblem`).
 *
 * @internal
 */
export const readResponse = (u: unknown): Model.Response | string => {
  try {
    if (!Predicate.isObject(u)) return `the response is not an object: ${show(u)}`
    const { content, usage, finishReason, rawFinishReason, model } = u as Record<string, unknown>
    if (finishReason !== undefined && (typeof finishReason !== "string" || !finishReasons.has(finishReason))) {
      return `the finish reason is not one of ${[...finishReasons].join(", ")}: ${show(finishReason)}`
    }
    if (rawFinishReason !== undefined && typeof rawFinishReason !== "string") {
      return `the raw finish reason is not a string: ${show(rawFinishReason)}`
    }
    const counted = usage === undefined ? undefined : usageOf(usage)
    if (typeof counted === "string") return counted
    return {
      content: content as Model.Response["content"],
      ...(counted === undefined ? {} : { usage: counted }),
      ...(finishReason === undefined ? {} : { finishReason: finishReason as Model.FinishReason }),
      ...(rawFinishReason === undefined ? {} : { rawFinishReason }),
      // The answering model only names a span: a value that is not a string is left out.
      ...(typeof model === "string" ? { model } : {})
    }
  } catch (thrown) {
    return `the response cannot be read: ${Render.thrown(thrown)}`
  }
}
