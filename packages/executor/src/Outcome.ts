/**
 * What happened to one tool call, as a typed value: it was not executed (and why), it failed
 * while running (a typed tool error, a throw or defect, a timeout), or it succeeded. Each
 * outcome carries the exact text the model is shown.
 *
 * @since 0.1.0
 */
import { MessageCatalog, type ToolContent, type Violation } from "@agent-harness/tool-schema"
import * as Message from "./Message.ts"

/** The call failed its schema or named no tool: nothing ran. @since 0.1.0 */
export interface NotExecuted {
  /** Discriminates the outcome. */
  readonly _tag: "NotExecuted"
  /** The call's tool_use id. */
  readonly id: string
  /** The tool name the model sent. */
  readonly name: string
  /** Why it was not executed. */
  readonly violation: Violation.Violation
  /** What the model is shown (`not executed: <reason>`). */
  readonly content: string
}

/** The tool's own typed failure (its Effect's error channel). @since 0.1.0 */
export interface ToolError {
  /** Discriminates the failure. */
  readonly _tag: "ToolError"
  /** What the tool failed with. */
  readonly error: unknown
}

/** The tool threw, rejected, or died: anything that is not a typed failure. @since 0.1.0 */
export interface Defect {
  /** Discriminates the failure. */
  readonly _tag: "Defect"
  /** What was thrown, rejected or died with. */
  readonly defect: unknown
}

/** The call ran past its timeout and was interrupted: it may have partly run. @since 0.1.0 */
export interface TimedOut {
  /** Discriminates the failure. */
  readonly _tag: "TimedOut"
  /** The timeout it ran past, in milliseconds. */
  readonly millis: number
}

/** The tool interrupted itself (nobody interrupted the caller): it may have partly run. @since 0.1.0 */
export interface Interrupted {
  /** Discriminates the failure. */
  readonly _tag: "Interrupted"
}

/**
 * The backend answered with a failure status (the tool-response contract): the call
 * ran, and said it failed.
 *
 * @since 0.1.0
 */
export interface StatusError {
  /** Discriminates the failure. */
  readonly _tag: "StatusError"
  /** The envelope's `error_code` (or `UNKNOWN`). */
  readonly errorCode: string
  /** The envelope's content, as text (`""` when it has none). */
  readonly message: string
}

/**
 * A journal found that this call id started before a crash and never recorded an outcome: it may
 * or may not have run, so it is not run again.
 *
 * @since 0.1.0
 */
export interface OutcomeUnknown {
  /** Discriminates the failure. */
  readonly _tag: "OutcomeUnknown"
}

/** Why a call that ran (or may have run) did not succeed. @since 0.1.0 */
export type Failure = ToolError | Defect | TimedOut | Interrupted | StatusError | OutcomeUnknown

/** The call passed its schema and ran, but failed. @since 0.1.0 */
export interface Failed {
  /** Discriminates the outcome. */
  readonly _tag: "Failed"
  /** The call's tool_use id. */
  readonly id: string
  /** The tool's name. */
  readonly name: string
  /** Why it failed. */
  readonly failure: Failure
  /** What the model is shown (an error result). */
  readonly content: string
  /** Rich parts of the error (a failure made with `ToolContent.make`), said in `content` too. */
  readonly parts?: ReadonlyArray<ToolContent.Part> | undefined
  /**
   * The structured content of the error (JSON), when its `ToolContent` has any: a command's exit
   * code and streams, for a viewer; the model reads `content`.
   */
  readonly structured?: unknown
}

/** The call ran and returned. @since 0.1.0 */
export interface Succeeded {
  /** Discriminates the outcome. */
  readonly _tag: "Succeeded"
  /** The call's tool_use id. */
  readonly id: string
  /** The tool's name. */
  readonly name: string
  /** What the tool returned. */
  readonly value: unknown
  /** What the model is shown (the tool's `content` of the value). */
  readonly content: string
  /** Rich parts of the result (images, resources), each said in `content` too. */
  readonly parts?: ReadonlyArray<ToolContent.Part> | undefined
  /** The structured content of the result (JSON), when it has any. */
  readonly structured?: unknown
}

/**
 * A layer of the harness (a journal, a permission check) refused to run a call that passed its
 * schema: nothing ran. A permission gate's refusal is marked `denied: true` and reads
 * `not executed: denied: <reason>` (see {@link denied}).
 *
 * @since 0.1.0
 */
export interface Refused {
  /** Discriminates the outcome. */
  readonly _tag: "Refused"
  /** The call's tool_use id. */
  readonly id: string
  /** The tool's name. */
  readonly name: string
  /** Why the layer refused it. */
  readonly reason: string
  /** What the model is shown (`not executed: <reason>`). */
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
  /** Discriminates the outcome. */
  readonly _tag: "Replayed"
  /** The call's tool_use id. */
  readonly id: string
  /** The tool's name. */
  readonly name: string
  /** What the call's outcome was when it ran. */
  readonly original: "NotExecuted" | "Refused" | "Failed" | "Succeeded"
  /** Whether the recorded observation was an error (its `is_error`). */
  readonly isError: boolean
  /** The recorded observation, given again. */
  readonly content: string
  /** The recorded rich parts, given again. */
  readonly parts?: ReadonlyArray<ToolContent.Part> | undefined
  /** The recorded structured content, given again. */
  readonly structured?: unknown
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
 * The outcome of a call of a turn whose run was stopped (`interrupted`) before the call
 * started: `Refused`, nothing ran, and it reads `not executed: the run was stopped before this
 * call started` (the catalogue's `runStopped`). Every call of the turn keeps its one result.
 *
 * @since 0.2.0
 */
export const stopped = (
  call: { readonly id: string; readonly name: string },
  catalog: MessageCatalog.MessageCatalog = MessageCatalog.english
): Refused => {
  const reason = MessageCatalog.say(catalog, (c) => c.runStopped ?? MessageCatalog.english.runStopped ?? "")
  return {
    _tag: "Refused",
    id: call.id,
    name: call.name,
    reason,
    content: MessageCatalog.say(catalog, (c) => c.notExecuted(reason))
  }
}

/**
 * Whether a permission gate denied the call (nothing ran).
 *
 * @since 0.1.0
 */
export const isDenied = (outcome: Outcome): boolean => outcome._tag === "Refused" && outcome.denied === true

/**
 * The rich parts of an outcome (none for most).
 *
 * @since 0.1.0
 */
export const partsOf = (outcome: Outcome): ReadonlyArray<ToolContent.Part> =>
  (outcome._tag === "Succeeded" || outcome._tag === "Failed" || outcome._tag === "Replayed"
    ? outcome.parts
    : undefined) ?? []

/**
 * The structured content of an outcome, when it has any.
 *
 * @since 0.1.0
 */
export const structuredOf = (outcome: Outcome): unknown =>
  outcome._tag === "Succeeded" || outcome._tag === "Replayed" || outcome._tag === "Failed"
    ? outcome.structured
    : undefined

/**
 * The wire block the model reads: `{ type: "tool_result", tool_use_id, content, is_error }`,
 * with `parts` and `structured` when the outcome has them.
 *
 * @since 0.1.0
 */
export const toToolResult = (outcome: Outcome): Message.ToolResultBlock => {
  const parts = partsOf(outcome)
  const structured = structuredOf(outcome)
  return parts.length === 0 && structured === undefined
    ? Message.toolResult(outcome.id, outcome.content, isError(outcome))
    : Message.toolResult(outcome.id, outcome.content, isError(outcome), { parts, structured })
}
