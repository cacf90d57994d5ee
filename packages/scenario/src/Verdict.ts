/**
 * What running a scenario found: passed or not, how the run ended, and each failure in words a
 * person can act on (which turn, which tool_use_id, expected and seen side by side).
 *
 * @since 0.1.0
 */
import { StopReason } from "@agent-harness/executor"
import { Schema } from "effect"

/**
 * How a scenario's conversation stopped: one of the loop's stop reasons (`StopReason`), or
 * `diverged` when the run left the script.
 *
 * @since 0.1.0
 */
export const Stop: Schema.Literals<
  readonly [
    "end",
    "turn_cap",
    "time_budget",
    "token_budget",
    "cost_budget",
    "context_window",
    "repeated_call",
    "interrupted",
    "diverged"
  ]
> = Schema.Literals([...StopReason.StopReason.literals, "diverged"])

/** How a scenario's conversation stopped: a stop reason or `diverged`. @since 0.1.0 */
export type Stop = typeof Stop.Type

/**
 * One reason a scenario failed.
 *
 * @since 0.1.0
 */
export interface Failure {
  /**
   * What differs: an observation, the script's length, or the outcome; or `mcp`: a declared
   * server was not mounted; or `permission`: the declared policy could not be enforced, or the
   * run left its scripted approvals; or `root`: the declared root folder could not be copied;
   * or `commands`: the declared command tool could not be made (no sandbox here); or `pass`: a
   * check of the scenario's pass criterion did not hold (a live trial's words).
   */
  readonly kind:
    | "divergence"
    | "script_exhausted"
    | "script_unfinished"
    | "stop"
    | "text"
    | "files"
    | "status"
    | "reason"
    | "executed"
    | "revisions"
    | "case"
    | "invalid"
    | "mcp"
    | "permission"
    | "root"
    | "commands"
    | "pass"
  /** The turn (model call, from 1) where it happened, for a conversation. */
  readonly turn?: number | undefined
  /** The call it is about, when it is about one. */
  readonly tool_use_id?: string | undefined
  /** The case of a `response-cases` scenario that failed. */
  readonly case_id?: string | undefined
  /** What the scenario file says, in words. */
  readonly expected: string
  /** What the run did, in words. */
  readonly seen: string
  /** The whole explanation, as printed. */
  readonly message: string
}

/**
 * How a conversation ended, when it ended at all (a divergence stops it early).
 *
 * @since 0.1.0
 */
export interface ConversationOutcome {
  /** Why the loop stopped, or `diverged` when the run left the script. */
  readonly stop: Stop
  /** The final reply's text, when the loop ended with one. */
  readonly text?: string | undefined
  /** The files at the end of the run. */
  readonly files?: Readonly<Record<string, string>> | undefined
  /** Model calls made. */
  readonly turns: number
}

/**
 * How a plan session ended.
 *
 * @since 0.1.0
 */
export interface PlanOutcome {
  /** Whether the session completed or failed. */
  readonly status: "completed" | "failed"
  /** Why it ended (`goal_met`, `step_budget`, `replan_budget`...). */
  readonly reason: string
  /** Ids of every started step, in execution order across revisions. */
  readonly executed: ReadonlyArray<number>
  /** One diff per accepted replan. */
  readonly revisions: ReadonlyArray<{
    readonly removed: ReadonlyArray<number>
    readonly added: ReadonlyArray<number>
    readonly revised: ReadonlyArray<number>
  }>
  /** Steps executed. */
  readonly steps: number
  /** Replans accepted. */
  readonly replans: number
  /** The files at the end of the session. */
  readonly files: Readonly<Record<string, string>>
}

/**
 * The verdict on one case of a `response-cases` scenario: what the variant's parser made of the
 * response (`seen`) against what the contract says (`expected`), compared as JSON values (key
 * order does not matter; an undefined field is absent).
 *
 * @since 0.1.0
 */
export interface CaseVerdict {
  /** The case's id. */
  readonly id: string
  /** The case's role: the failure it pins down, a control, or held out. */
  readonly role: "regression" | "control" | "reserved"
  /** What the case is for, as the file says. */
  readonly purpose?: string | undefined
  /** Whether the parser's reading equals the expected one. */
  readonly passed: boolean
  /** What the contract says the parser must make of the response. */
  readonly expected: unknown
  /** What the variant's parser made of it. */
  readonly seen: unknown
}

/**
 * How a `response-cases` scenario ended: every case, in file order.
 *
 * @since 0.1.0
 */
export interface CasesOutcome {
  /** Every case's verdict, in file order. */
  readonly cases: ReadonlyArray<CaseVerdict>
}

/**
 * How any scenario ended.
 *
 * @since 0.1.0
 */
export type Outcome = ConversationOutcome | PlanOutcome | CasesOutcome

/**
 * The verdict on one scenario; `--json` prints it as it is.
 *
 * @since 0.1.0
 */
export interface Verdict<O extends Outcome = Outcome> {
  /** The scenario's name. */
  readonly name: string
  /** The scenario file, as given. */
  readonly file: string
  /** The scenario's kind (`conversation`, `plan`, `response-cases`). */
  readonly kind: string
  /** The harness variant it ran under (`fixed`, `before`). */
  readonly variant: string
  /** Whether nothing failed. */
  readonly passed: boolean
  /** Whether the scenario is held out. */
  readonly reserved: boolean
  /** How the run ended. */
  readonly outcome: O
  /** Every failure, in words; empty when it passed. */
  readonly failures: ReadonlyArray<Failure>
  /**
   * Why the scenario did not run at all, when it did not (a live case in a run without a live
   * model: `needs --model`): it neither passed nor failed, and reports count it as skipped.
   */
  readonly notRun?: string | undefined
}

/**
 * The verdict on a scenario that ran: passed exactly when nothing failed.
 *
 * @since 0.1.0
 */
export const make = <O extends Outcome>(
  scenario: { readonly name: string; readonly kind: string; readonly reserved: boolean },
  file: string,
  variant: string,
  outcome: O,
  failures: ReadonlyArray<Failure>
): Verdict<O> => ({
  name: scenario.name,
  file,
  kind: scenario.kind,
  variant,
  reserved: scenario.reserved,
  passed: failures.length === 0,
  outcome,
  failures
})
