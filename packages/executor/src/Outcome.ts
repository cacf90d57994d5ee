/**
 * What happened to one tool call, as a typed value: it was not executed (and why), it failed
 * while running (a typed tool error, a throw or defect, a timeout), or it succeeded. Each
 * outcome carries the exact text the model is shown.
 *
 * @since 0.1.0
 */
import { MessageCatalog, type Violation } from "@agent-harness/tool-schema"
import * as Message from "./Message.ts"

/** The call failed its schema or named no tool: nothing ran. @since 0.1.0 */
export interface NotExecuted {
  readonly _tag: "NotExecuted"
  readonly id: string
  readonly name: string
  readonly violation: Violation.Violation
  readonly content: string
}

/** The tool's own typed failure (its Effect's error channel). @since 0.1.0 */
export interface ToolError {
  readonly _tag: "ToolError"
  readonly error: unknown
}

/** The tool threw, rejected, or died: anything that is not a typed failure. @since 0.1.0 */
export interface Defect {
  readonly _tag: "Defect"
  readonly defect: unknown
}

/** The call ran past its timeout and was interrupted: it may have partly run. @since 0.1.0 */
export interface TimedOut {
  readonly _tag: "TimedOut"
  readonly millis: number
}

/** The tool interrupted itself (nobody interrupted the caller): it may have partly run. @since 0.1.0 */
export interface Interrupted {
  readonly _tag: "Interrupted"
}

/**
 * The backend answered with a failure status (the tool-response contract of seed 003): the call
 * ran, and said it failed.
 *
 * @since 0.1.0
 */
export interface StatusError {
  readonly _tag: "StatusError"
  /** The envelope's `error_code` (or `UNKNOWN`). */
  readonly errorCode: string
  readonly message: string
}

/**
 * A journal found that this call id started before a crash and never recorded an outcome: it may
 * or may not have run, so it is not run again.
 *
 * @since 0.1.0
 */
export interface OutcomeUnknown {
  readonly _tag: "OutcomeUnknown"
}

/** Why a call that ran (or may have run) did not succeed. @since 0.1.0 */
export type Failure = ToolError | Defect | TimedOut | Interrupted | StatusError | OutcomeUnknown

/** The call passed its schema and ran, but failed. @since 0.1.0 */
export interface Failed {
  readonly _tag: "Failed"
  readonly id: string
  readonly name: string
  readonly failure: Failure
  readonly content: string
}

/** The call ran and returned. @since 0.1.0 */
export interface Succeeded {
  readonly _tag: "Succeeded"
  readonly id: string
  readonly name: string
  readonly value: unknown
  readonly content: string
}

/**
 * A layer of the harness (a journal, a permission check) refused to run a call that passed its
 * schema: nothing ran. A permission gate's refusal is marked `denied: true` and reads
 * `not executed: denied: <reason>` (see {@link denied}).
 *
 * @since 0.1.0
 */
export interface Refused {
  readonly _tag: "Refused"
  readonly id: string
  readonly name: string
  readonly reason: string
  readonly content: string
  /** `true` when a permission gate denied the call (its policy, or the person asked). */
  readonly denied?: boolean | undefined
}

/**
 * The call id already has a recorded outcome (a journal, after a restart): that observation is
 * given again and nothing runs.
 *
 * @since 0.1.0
 */
export interface Replayed {
  readonly _tag: "Replayed"
  readonly id: string
  readonly name: string
  /** What the call's outcome was when it ran. */
  readonly original: "NotExecuted" | "Refused" | "Failed" | "Succeeded"
  /** Whether the recorded observation was an error (its `is_error`). */
  readonly isError: boolean
  readonly content: string
}

/**
 * Every outcome of `execute`.
 *
 * @since 0.1.0
 */
export type Outcome = NotExecuted | Refused | Failed | Succeeded | Replayed

/**
 * Whether the model is shown an error (`is_error: true`).
 *
 * @since 0.1.0
 */
export const isError = (outcome: Outcome): boolean =>
  outcome._tag === "Replayed" ? outcome.isError : outcome._tag !== "Succeeded"

/**
 * Whether the call provably did not run (a refused call never starts).
 *
 * @since 0.1.0
 */
export const didNotRun = (outcome: Outcome): boolean =>
  outcome._tag === "NotExecuted" ||
  outcome._tag === "Refused" ||
  (outcome._tag === "Replayed" && (outcome.original === "NotExecuted" || outcome.original === "Refused"))

/**
 * The outcome of a call a permission gate denied: `Refused` with `denied: true`, nothing ran, and
 * the model reads `not executed: denied: <reason>` (Spanish: `no se ha ejecutado: permiso
 * denegado: <reason>`) from the catalogue, which never throws (`MessageCatalog.say`).
 *
 * @since 0.1.0
 */
export const denied = (
  call: { readonly id: string; readonly name: string },
  reason: string,
  catalog: MessageCatalog.MessageCatalog = MessageCatalog.english
): Refused => ({
  _tag: "Refused",
  id: call.id,
  name: call.name,
  reason,
  denied: true,
  content: MessageCatalog.say(catalog, (c) => c.notExecuted(c.denied(reason)))
})

/**
 * Whether a permission gate denied the call (nothing ran).
 *
 * @since 0.1.0
 */
export const isDenied = (outcome: Outcome): boolean => outcome._tag === "Refused" && outcome.denied === true

/**
 * The wire block the model reads: `{ type: "tool_result", tool_use_id, content, is_error }`.
 *
 * @since 0.1.0
 */
export const toToolResult = (outcome: Outcome): Message.ToolResultBlock =>
  Message.toolResult(outcome.id, outcome.content, isError(outcome))
