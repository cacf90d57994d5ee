/**
 * What running a scenario found: passed or not, how the run ended, and each failure in words a
 * person can act on (which turn, which tool_use_id, expected and seen side by side).
 *
 * @since 0.1.0
 */

/**
 * One reason a scenario failed.
 *
 * @since 0.1.0
 */
export interface Failure {
  /**
   * What differs: an observation, the script's length, or the outcome; or `mcp`: a declared
   * server was not mounted; or `permission`: the declared policy could not be enforced, or the
   * run left its scripted approvals.
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
  readonly turn?: number | undefined
  readonly tool_use_id?: string | undefined
  /** The case of a `response-cases` scenario that failed. */
  readonly case_id?: string | undefined
  readonly expected: string
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
  readonly stop: "end" | "turn_cap" | "time_budget" | "repeated_call" | "diverged"
  readonly text?: string | undefined
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
  readonly status: "completed" | "failed"
  readonly reason: string
  /** Ids of every started step, in execution order across revisions. */
  readonly executed: ReadonlyArray<number>
  /** One diff per accepted replan. */
  readonly revisions: ReadonlyArray<{
    readonly removed: ReadonlyArray<number>
    readonly added: ReadonlyArray<number>
    readonly revised: ReadonlyArray<number>
  }>
  readonly steps: number
  readonly replans: number
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
  readonly id: string
  readonly role: "regression" | "control" | "reserved"
  readonly purpose?: string | undefined
  readonly passed: boolean
  readonly expected: unknown
  readonly seen: unknown
}

/**
 * How a `response-cases` scenario ended: every case, in file order.
 *
 * @since 0.1.0
 */
export interface CasesOutcome {
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
  readonly name: string
  readonly file: string
  readonly kind: string
  /** The harness variant it ran under (`fixed`, `before`). */
  readonly variant: string
  readonly passed: boolean
  readonly reserved: boolean
  readonly outcome: O
  readonly failures: ReadonlyArray<Failure>
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
