/**
 * Whether a call may be repeated blindly (the errors-as-observations idea): only when its tool is idempotent (read-only
 * counts) or when it provably did not run (it failed its schema, named no tool, or a layer of
 * the harness refused it: a journal, or a permission gate that denied it, `Outcome.isDenied`). A non-idempotent call that failed while running, timed out, or whose
 * outcome is unknown may have done part of its work; one that succeeded did all of it.
 *
 * @since 0.1.0
 */
import { type Execute, Outcome } from "@agent-harness/executor"
import { MessageCatalog, Tool, type Toolset } from "@agent-harness/tool-schema"
import { Effect } from "effect"

/**
 * The verdict, with its reason.
 *
 * @since 0.1.0
 */
export type RetrySafety =
  | { readonly _tag: "Safe"; readonly reason: "did_not_run" | "idempotent" }
  | { readonly _tag: "Unsafe"; readonly reason: "may_have_partly_run" | "ran" | "outcome_unknown" }

/** Whether the verdict is `Safe`. @since 0.1.0 */
export const isSafe = (safety: RetrySafety): boolean => safety._tag === "Safe"

/**
 * The retry safety of an observed outcome, given the tool's annotations (`undefined` for a name
 * that is no tool: such a call never runs).
 *
 * @since 0.1.0
 */
export const of = (annotations: Tool.Annotations | undefined, outcome: Outcome.Outcome): RetrySafety => {
  if (Outcome.didNotRun(outcome)) return { _tag: "Safe", reason: "did_not_run" }
  if (annotations !== undefined && (annotations.readOnly || annotations.idempotent)) {
    return { _tag: "Safe", reason: "idempotent" }
  }
  if (outcome._tag === "Failed") {
    return outcome.failure._tag === "OutcomeUnknown"
      ? { _tag: "Unsafe", reason: "outcome_unknown" }
      : { _tag: "Unsafe", reason: "may_have_partly_run" }
  }
  if (outcome._tag === "Replayed" && outcome.original === "Failed")
    return { _tag: "Unsafe", reason: "may_have_partly_run" }
  return { _tag: "Unsafe", reason: "ran" }
}

/**
 * The retry safety of an outcome of a call to `tool`.
 *
 * @since 0.1.0
 */
export const ofTool = (tool: Tool.Any | undefined, outcome: Outcome.Outcome): RetrySafety =>
  of(tool?.annotations, outcome)

/**
 * The note the model reads (`(nothing ran: safe to repeat)`), from the message catalogue.
 *
 * @since 0.1.0
 */
export const note = (catalog: MessageCatalog.MessageCatalog, safety: RetrySafety): string =>
  catalog.retryNote(safety.reason)

/**
 * A middleware that appends the retry note to every error observation of calls that passed their
 * schema (off unless you provide it, so the ideas' exact texts stay exact). Refused calls
 * (`not executed: ...` from a schema check) never reach a middleware; use `annotate` on their
 * outcomes if you want a note there too.
 *
 * @since 0.1.0
 */
export const notes: Execute.Middleware = <R>(
  _call: Toolset.RawCall,
  tool: Tool.Any,
  run: Effect.Effect<Outcome.Outcome, never, R>
): Effect.Effect<Outcome.Outcome, never, R> =>
  Effect.flatMap(run, (outcome) =>
    Effect.map(Effect.service(MessageCatalog.MessageCatalog), (c) => annotate(c, tool, outcome))
  )

/**
 * An outcome with the retry note appended to its content, when it is an error.
 *
 * @since 0.1.0
 */
export const annotate = (
  catalog: MessageCatalog.MessageCatalog,
  tool: Tool.Any | undefined,
  outcome: Outcome.Outcome
): Outcome.Outcome =>
  Outcome.isError(outcome)
    ? { ...outcome, content: `${outcome.content} ${note(catalog, ofTool(tool, outcome))}` }
    : outcome

/**
 * One row of the idea's table: what repeating a call to the tool is after a schema error and
 * after an error while running.
 *
 * @since 0.1.0
 */
export interface Row {
  /** The tool's name. */
  readonly tool: string
  /** Whether its annotations say it is idempotent (read-only counts). */
  readonly idempotent: boolean
  /** Repeating a call that failed its schema. */
  readonly afterSchemaError: RetrySafety
  /** Repeating a call that failed while running. */
  readonly afterExecutionError: RetrySafety
}

/**
 * The idea's table for some tools.
 *
 * @since 0.1.0
 */
export const table = (tools: ReadonlyArray<Tool.Any>): ReadonlyArray<Row> =>
  tools.map((tool) => {
    const notExecuted: Outcome.Outcome = {
      _tag: "NotExecuted",
      id: "x",
      name: tool.name,
      violation: { _tag: "InputNotObject" },
      content: ""
    }
    const failed: Outcome.Outcome = {
      _tag: "Failed",
      id: "x",
      name: tool.name,
      failure: { _tag: "Defect", defect: undefined },
      content: ""
    }
    return {
      tool: tool.name,
      idempotent: Tool.isIdempotent(tool),
      afterSchemaError: ofTool(tool, notExecuted),
      afterExecutionError: ofTool(tool, failed)
    }
  })
