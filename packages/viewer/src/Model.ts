/**
 * What the page draws: plain JSON built in Node from the input files, embedded in the page and
 * read by its script. One `File` per input, each of one kind (a conversation trace, a plan
 * session, a test report, or a file that could not be read as any of them), with the problems
 * found on the way (the line and JSON path of every line that could not be read).
 *
 * This module has no imports and no values: the browser code shares these types.
 *
 * @since 0.1.0
 */

/**
 * Any JSON value.
 *
 * @since 0.1.0
 */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/**
 * Something that could not be read: where (a line of the file, from 1, or `null` for the whole
 * file) and the JSON path inside that line (`reply[0].input`, `(root)`, or `(line)` when the
 * line is not JSON at all), and what is wrong.
 *
 * @since 0.1.0
 */
export interface Problem {
  /** The file, when a page section reads several (test reports side by side). */
  readonly file?: string | undefined
  readonly line: number | null
  readonly path: string
  readonly message: string
}

/**
 * An event the viewer does not know (a newer harness's `usage` or `retry`, say) or could not
 * read: its type and fields as they are, drawn as a list of keys and values.
 *
 * @since 0.1.0
 */
export interface Generic {
  /** Where it is: `line 7`, or a JSON path inside a whole file (`events[3]`). */
  readonly where: string
  readonly type: string
  readonly fields: { readonly [key: string]: Json }
  /** Set when the event has a known type but did not match its schema. */
  readonly problem?: string | undefined
}

/**
 * How a tool call ended, as the page says it (in words and in colour):
 * `ok` (ran and returned), `failed` (ran and failed), `not_executed` (failed its schema or named
 * no tool: nothing ran), `denied` (a harness layer refused it: nothing ran), `unknown` (started
 * before a crash, never recorded: it may or may not have run), `replayed` (a recorded outcome
 * given again: nothing ran), `unanswered` (the trace has no observation for it).
 *
 * @since 0.1.0
 */
export type CallStatus = "ok" | "failed" | "not_executed" | "denied" | "unknown" | "replayed" | "unanswered"

/**
 * One tool call of a turn and its observation.
 *
 * @since 0.1.0
 */
export interface Call {
  readonly id: string
  readonly name: string
  readonly input: Json
  readonly status: CallStatus
  /** The observation's `outcome` tag as recorded (`Succeeded`, `Failed`...), or `null`. */
  readonly outcome: string | null
  /** What the model was shown, or `null` when there is no observation. */
  readonly content: string | null
  readonly isError: boolean | null
  /** A word on how the status was found, when it is not the outcome tag alone. */
  readonly note?: string | undefined
  /** The line of its observation (or of the reply, when there is none). */
  readonly line: number
}

/**
 * One model turn: the request, the reply (text, reasoning, calls), what happened to each call,
 * and every other event recorded for the turn.
 *
 * @since 0.1.0
 */
export interface Turn {
  readonly turn: number
  /** The line of the turn's first event. */
  readonly line: number
  /** Messages in the history the model was called with. */
  readonly messages: number | null
  readonly text: ReadonlyArray<string>
  readonly reasoning: ReadonlyArray<string>
  readonly calls: ReadonlyArray<Call>
  /** The model failed on this turn: its message. */
  readonly failed: string | null
  /** Reply blocks of kinds the viewer does not know, and unknown events of this turn. */
  readonly other: ReadonlyArray<Generic>
}

/**
 * A message of the opening history (`system`, `user`, `assistant`), as text.
 *
 * @since 0.1.0
 */
export interface Opening {
  readonly role: string
  readonly text: string
}

/**
 * Counts of calls by status.
 *
 * @since 0.1.0
 */
export type Counts = { readonly [S in CallStatus]: number }

/**
 * A conversation trace (JSON Lines of the executor's `Trace.Event`).
 *
 * @since 0.1.0
 */
export interface Conversation {
  readonly kind: "conversation"
  readonly id: string
  readonly name: string
  readonly problems: ReadonlyArray<Problem>
  readonly opening: ReadonlyArray<Opening>
  readonly tools: ReadonlyArray<string>
  readonly maxTurns: number | null
  readonly annotations: ReadonlyArray<{ readonly key: string; readonly value: Json }>
  readonly turns: ReadonlyArray<Turn>
  /** How the loop stopped (`end`, `turn_cap`, `time_budget`), or `null` when the trace has no stop. */
  readonly stop: { readonly reason: string; readonly text: string | null; readonly turns: number } | null
  readonly counts: Counts
  /** Every tool name called, sorted. */
  readonly called: ReadonlyArray<string>
  /** The numeric fields of every `usage` event, added up; `null` when there is none. */
  readonly usage: { readonly [key: string]: number } | null
  /** `retry` events. */
  readonly retries: number
  /** Unknown events outside any turn. */
  readonly other: ReadonlyArray<Generic>
}

/**
 * A plan step as the page shows it.
 *
 * @since 0.1.0
 */
export interface Step {
  readonly id: number
  readonly tool: string
  readonly args: Json
  readonly expected: string
  readonly group: string | null
}

/**
 * What happened to a step of a revision: it `succeeded`, `failed` (ran), was `not_executed`
 * (failed its schema), was `cached` (already succeeded with the same tool and args: not run
 * again), `started` with no outcome recorded, or was `not_reached`.
 *
 * @since 0.1.0
 */
export type StepStatus = "succeeded" | "failed" | "not_executed" | "cached" | "started" | "not_reached"

/**
 * A step of a revision with its outcome.
 *
 * @since 0.1.0
 */
export interface StepRun extends Step {
  readonly status: StepStatus
  readonly result: string | null
  readonly error: string | null
}

/**
 * One argument that differs between the old and the new form of a revised step; `before` or
 * `after` is absent when the key is only on one side.
 *
 * @since 0.1.0
 */
export interface ArgChange {
  /** A JSON path into the args (`path`, `files[1]`, `(args)` for the whole value). */
  readonly path: string
  readonly before?: Json | undefined
  readonly after?: Json | undefined
}

/**
 * A row of a drawn diff: a step removed (`<del>`), added (`<ins>`), revised (old and new form,
 * with the argument changes), or kept as it was.
 *
 * @since 0.1.0
 */
export type DiffRow =
  | { readonly mark: "removed"; readonly step: Step }
  | { readonly mark: "added"; readonly step: Step }
  | {
      readonly mark: "revised"
      readonly before: Step
      readonly step: Step
      readonly changes: ReadonlyArray<ArgChange>
    }
  | { readonly mark: "kept"; readonly step: Step }

/**
 * Why a revision was made: the last error, where the cursor stood in the old plan (the step
 * that failed), the diff by ids as recorded and drawn.
 *
 * @since 0.1.0
 */
export interface Replan {
  readonly line: number
  readonly lastError: string
  /** The step the cursor stood on (the first failed step of the old revision), or `null`. */
  readonly cursor: { readonly id: number; readonly position: number; readonly of: number } | null
  readonly diff: {
    readonly removed: ReadonlyArray<number>
    readonly added: ReadonlyArray<number>
    readonly revised: ReadonlyArray<number>
  }
  readonly rows: ReadonlyArray<DiffRow>
}

/**
 * An entry of a plan session's timeline: an accepted plan (a revision) with its steps'
 * outcomes, or a plan the session refused.
 *
 * @since 0.1.0
 */
export type Entry =
  | {
      readonly type: "revision"
      readonly revision: number
      readonly line: number
      readonly replan: Replan | null
      readonly steps: ReadonlyArray<StepRun>
    }
  | {
      readonly type: "rejected"
      readonly line: number
      readonly reason: string
      readonly detail: string
      readonly steps: ReadonlyArray<Step>
    }
  | { readonly type: "other"; readonly event: Generic }

/**
 * The `SessionResult` of a plan session: as recorded (a `session.result` line, or a whole
 * `SessionResult` file), or derived from the events when the trace has none.
 *
 * @since 0.1.0
 */
export interface Result {
  readonly recorded: boolean
  readonly status: string
  readonly reason: string
  readonly steps: number
  readonly replans: number
  readonly history: ReadonlyArray<StepRun>
  readonly revisions: ReadonlyArray<{
    readonly removed: ReadonlyArray<number>
    readonly added: ReadonlyArray<number>
    readonly revised: ReadonlyArray<number>
  }>
}

/**
 * A plan session (JSON Lines of the planner's `Event`, with an optional `session.start` line
 * and `session.result` line; or a `SessionResult` as JSON).
 *
 * @since 0.1.0
 */
export interface Plan {
  readonly kind: "plan"
  readonly id: string
  readonly name: string
  readonly problems: ReadonlyArray<Problem>
  readonly goal: string | null
  readonly onFailure: string | null
  /** The budgets: what was spent and, when the trace says, the limits. */
  readonly budgets: {
    readonly steps: number
    readonly maxSteps: number | null
    readonly replans: number
    readonly maxReplans: number | null
  }
  readonly entries: ReadonlyArray<Entry>
  readonly finished: { readonly status: string; readonly reason: string } | null
  readonly result: Result | null
}

/**
 * A verdict in one column of a report: `pass`, `fail`, `invalid` (the file could not be
 * read), with the failures in words.
 *
 * @since 0.1.0
 */
export interface Cell {
  readonly verdict: "pass" | "fail" | "invalid"
  readonly summary: string
  readonly failures: ReadonlyArray<string>
  /** Where its trace is: an in-page link (`#f2`) or a path as given. */
  readonly trace: string | null
}

/**
 * A row of a report: a scenario, or a case of a `response-cases` scenario, with a cell per
 * column (`null` where that column has no such row).
 *
 * @since 0.1.0
 */
export interface Row {
  readonly name: string
  readonly file: string
  readonly kind: string
  /** The case id, for a case of a `response-cases` scenario. */
  readonly case: string | null
  readonly role: string | null
  readonly cells: ReadonlyArray<Cell | null>
}

/**
 * A column of a report: one harness variant of one report file.
 *
 * @since 0.1.0
 */
export interface Column {
  readonly label: string
  readonly variant: string
  readonly file: string
  readonly passed: number
  readonly failed: number
  readonly invalid: number
  readonly reservedPassed: number
  readonly reservedFailed: number
}

/**
 * Test reports (`harness test --json`), side by side: one column per variant and file, the
 * reserved (held-out) rows apart.
 *
 * @since 0.1.0
 */
export interface Report {
  readonly kind: "report"
  readonly id: string
  readonly name: string
  readonly problems: ReadonlyArray<Problem>
  readonly columns: ReadonlyArray<Column>
  readonly rows: ReadonlyArray<Row>
  readonly reserved: ReadonlyArray<Row>
}

/**
 * A file that is none of the kinds the viewer reads: why.
 *
 * @since 0.1.0
 */
export interface Unknown {
  readonly kind: "unknown"
  readonly id: string
  readonly name: string
  readonly problems: ReadonlyArray<Problem>
}

/**
 * One input file as the page shows it.
 *
 * @since 0.1.0
 */
export type File = Conversation | Plan | Report | Unknown

/**
 * The whole page.
 *
 * @since 0.1.0
 */
export interface Page {
  readonly title: string
  readonly files: ReadonlyArray<File>
}
