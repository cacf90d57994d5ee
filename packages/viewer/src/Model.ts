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
  /** The line, from 1; `null` for the whole file. */
  readonly line: number | null
  /** The JSON path inside the line: `reply[0].input`, `(root)`, or `(line)` when the line is not JSON. */
  readonly path: string
  /** What is wrong. */
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
  /** The event's `type` as written; `(no type)` when it has none. */
  readonly type: string
  /** Its other fields, as they are. */
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
  /** The tool_use id. */
  readonly id: string
  /** The tool the model named. */
  readonly name: string
  /** The input as the model sent it. */
  readonly input: Json
  /** How it ended (see `CallStatus`). */
  readonly status: CallStatus
  /** The observation's `outcome` tag as recorded (`Succeeded`, `Failed`...), or `null`. */
  readonly outcome: string | null
  /** What the model was shown, or `null` when there is no observation. */
  readonly content: string | null
  /** The observation's `is_error`, or `null` when there is none. */
  readonly isError: boolean | null
  /** A word on how the status was found, when it is not the outcome tag alone. */
  readonly note?: string | undefined
  /** A command's exit code and output, when its observation carries a command's report. */
  readonly command?: CommandReport | undefined
  /** The line of its observation (or of the reply, when there is none). */
  readonly line: number
}

/**
 * What a command (the `command` tool of `@agent-harness/command`) reported, read from its
 * observation's structured content: the exit code (or the signal that ended it, or that it timed
 * out) and each stream as kept, with its whole size and whether it was cut or binary.
 *
 * @since 0.2.0
 */
export interface CommandReport {
  /** The exit code, or `null` when a signal ended it. */
  readonly exitCode: number | null
  /** The signal that ended it, or `null`. */
  readonly signal: string | null
  /** Whether it ran past its timeout and was killed. */
  readonly timedOut: boolean
  /** Standard output as kept. */
  readonly stdout: CommandStream
  /** Standard error as kept. */
  readonly stderr: CommandStream
}

/**
 * One stream of a command, as its report keeps it.
 *
 * @since 0.2.0
 */
export interface CommandStream {
  /** The text kept (empty for a binary stream). */
  readonly text: string
  /** Its whole size in bytes. */
  readonly bytes: number
  /** Whether only its first bytes were kept. */
  readonly truncated: boolean
  /** Whether it was binary (not shown). */
  readonly binary: boolean
}

/**
 * One model turn: the request, the reply (text, reasoning, calls), what happened to each call,
 * and every other event recorded for the turn.
 *
 * @since 0.1.0
 */
export interface Turn {
  /** The model call, from 1. */
  readonly turn: number
  /** The line of the turn's first event. */
  readonly line: number
  /** Messages in the history the model was called with. */
  readonly messages: number | null
  /** The reply's text blocks, in order. */
  readonly text: ReadonlyArray<string>
  /** The reply's reasoning blocks, in order. */
  readonly reasoning: ReadonlyArray<string>
  /** The reply's tool calls, in order, each with its outcome. */
  readonly calls: ReadonlyArray<Call>
  /** The model failed on this turn: its message. */
  readonly failed: string | null
  /** The reply came as a stream (`Loop.stream`: its `model.replied` says `streamed: true`). */
  readonly streamed: boolean
  /** Reply blocks of kinds the viewer does not know, and unknown events of this turn. */
  readonly other: ReadonlyArray<Generic>
}

/**
 * A message of the opening history (`system`, `user`, `assistant`), as text.
 *
 * @since 0.1.0
 */
export interface Opening {
  /** `system`, `user` or `assistant`. */
  readonly role: string
  /** Its content as text (tool calls and results written out). */
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
  /** Discriminates the file. */
  readonly kind: "conversation"
  /** The file's id in the page (`f1`, `f2`...): its anchor. */
  readonly id: string
  /** The name it was given (its path, say). */
  readonly name: string
  /** What could not be read, line by line. */
  readonly problems: ReadonlyArray<Problem>
  /** The opening messages of the `run.started` event. */
  readonly opening: ReadonlyArray<Opening>
  /** The tools offered, by name. */
  readonly tools: ReadonlyArray<string>
  /** The turn cap of the `run.started` event, or `null` without one. */
  readonly maxTurns: number | null
  /** The runner's `trace.annotated` events (locale, files...), in order. */
  readonly annotations: ReadonlyArray<{ readonly key: string; readonly value: Json }>
  /** The model turns, in order. */
  readonly turns: ReadonlyArray<Turn>
  /** How the loop stopped (one of the executor's `StopReason`s, or whatever the trace says), or `null` without a stop. */
  readonly stop: { readonly reason: string; readonly text: string | null; readonly turns: number } | null
  /** How many calls ended in each status. */
  readonly counts: Counts
  /** Every tool name called, sorted. */
  readonly called: ReadonlyArray<string>
  /** The numeric fields of every `usage` event, added up; `null` when there is none. */
  readonly usage: { readonly [key: string]: number } | null
  /** `retry` events. */
  readonly retries: number
  /**
   * What the run spent (its last `spend.settled` event's total: tokens in and out, USD) and,
   * when a call was refused for a budget, its `spend.refused` in words; `null` without either.
   */
  readonly spend: {
    readonly inputTokens: number
    readonly outputTokens: number
    readonly cost: number
    readonly refused: string | null
  } | null
  /** Unknown events outside any turn. */
  readonly other: ReadonlyArray<Generic>
}

/**
 * A plan step as the page shows it.
 *
 * @since 0.1.0
 */
export interface Step {
  /** The step's id in its plan. */
  readonly id: number
  /** The tool it calls. */
  readonly tool: string
  /** Its arguments. */
  readonly args: Json
  /** What the planner expected it to give. */
  readonly expected: string
  /** Its parallel group, or `null` when it runs alone. */
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
  /** What happened to it (see `StepStatus`). */
  readonly status: StepStatus
  /** What it returned, as text, or `null`. */
  readonly result: string | null
  /** Why it failed, or `null`. */
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
  /** The old value; absent when the key is new. */
  readonly before?: Json | undefined
  /** The new value; absent when the key was removed. */
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
  /** The line of the revision's event. */
  readonly line: number
  /** The error that made the planner revise the plan. */
  readonly lastError: string
  /** The step the cursor stood on (the first failed step of the old revision), or `null`. */
  readonly cursor: { readonly id: number; readonly position: number; readonly of: number } | null
  /** The step ids removed, added and revised, as recorded. */
  readonly diff: {
    readonly removed: ReadonlyArray<number>
    readonly added: ReadonlyArray<number>
    readonly revised: ReadonlyArray<number>
  }
  /** The diff drawn step by step, in the new plan's order. */
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
 * The `SessionResult` of a plan session: as recorded (a `session.recorded` line, or a whole
 * `SessionResult` file), or derived from the events when the trace has none.
 *
 * @since 0.1.0
 */
export interface Result {
  /** Whether the trace recorded it (`false`: derived from the events). */
  readonly recorded: boolean
  /** How the session ended (`completed` or `failed`). */
  readonly status: string
  /** Why it ended. */
  readonly reason: string
  /** Steps executed. */
  readonly steps: number
  /** Replans accepted. */
  readonly replans: number
  /** Every step run, in order, with its outcome. */
  readonly history: ReadonlyArray<StepRun>
  /** The diff of each revision against the plan before it. */
  readonly revisions: ReadonlyArray<{
    readonly removed: ReadonlyArray<number>
    readonly added: ReadonlyArray<number>
    readonly revised: ReadonlyArray<number>
  }>
}

/**
 * A plan session (JSON Lines of the planner's `Event`, with an optional `session.started` line
 * and `session.recorded` line; or a `SessionResult` as JSON).
 *
 * @since 0.1.0
 */
export interface Plan {
  /** Discriminates the file. */
  readonly kind: "plan"
  /** The file's id in the page (`f1`, `f2`...): its anchor. */
  readonly id: string
  /** The name it was given (its path, say). */
  readonly name: string
  /** What could not be read, line by line. */
  readonly problems: ReadonlyArray<Problem>
  /** The session's goal, when the trace has a `session.started` line. */
  readonly goal: string | null
  /** What the session does when a step fails (`replan`, `skip`, `abort`), when the trace says. */
  readonly onFailure: string | null
  /** The budgets: what was spent and, when the trace says, the limits. */
  readonly budgets: {
    readonly steps: number
    readonly maxSteps: number | null
    readonly replans: number
    readonly maxReplans: number | null
  }
  /**
   * What the session's planner calls spent (the last `spend.settled` total) and the refusal
   * that ended it, in words; `null` without a spend.
   */
  readonly spend: Conversation["spend"]
  /** The timeline: revisions with their steps, refused plans, unknown events. */
  readonly entries: ReadonlyArray<Entry>
  /** The `session.finished` event's status and reason, or `null` without one. */
  readonly finished: { readonly status: string; readonly reason: string } | null
  /** The session's result, recorded or derived; `null` when neither is possible. */
  readonly result: Result | null
}

/**
 * A verdict in one column of a report: `pass`, `fail`, `invalid` (the file could not be
 * read), with the failures in words.
 *
 * @since 0.1.0
 */
export interface Cell {
  /** `pass`, `fail`, or `invalid` when the scenario file could not be read. */
  readonly verdict: "pass" | "fail" | "invalid"
  /** The outcome in a few words (the stop reason and turns, a case's purpose...). */
  readonly summary: string
  /** Each failure, in words; empty when it passed. */
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
  /** The scenario's name. */
  readonly name: string
  /** The scenario file. */
  readonly file: string
  /** The scenario's kind (`conversation`, `plan`, `response-cases`), or `(unknown)`. */
  readonly kind: string
  /** The case id, for a case of a `response-cases` scenario. */
  readonly case: string | null
  /** The case's role (`regression`, `control`, `reserved`) for a case row; `null` for a scenario. */
  readonly role: string | null
  /** One cell per column, `null` where that column has no such row. */
  readonly cells: ReadonlyArray<Cell | null>
}

/**
 * A column of a report: one harness variant of one report file.
 *
 * @since 0.1.0
 */
export interface Column {
  /** Its heading: the variant, with the file when two files have that variant. */
  readonly label: string
  /** The harness variant (`before`, `fixed`; `fixed` when the line names none). */
  readonly variant: string
  /** The report file it comes from. */
  readonly file: string
  /** Scenarios that passed. */
  readonly passed: number
  /** Scenarios that failed, invalid files included. */
  readonly failed: number
  /** Scenario files that could not be read. */
  readonly invalid: number
  /** Reserved (held-out) scenarios and cases that passed. */
  readonly reservedPassed: number
  /** Reserved (held-out) scenarios and cases that failed. */
  readonly reservedFailed: number
}

/**
 * Test reports (`harness test --json`), side by side: one column per variant and file, the
 * reserved (held-out) rows apart.
 *
 * @since 0.1.0
 */
export interface Report {
  /** Discriminates the file. */
  readonly kind: "report"
  /** Its id in the page (`f1`...): its anchor. */
  readonly id: string
  /** The report files' names, joined by ` + `. */
  readonly name: string
  /** What could not be read, each naming its file and line. */
  readonly problems: ReadonlyArray<Problem>
  /** One column per variant of each report file. */
  readonly columns: ReadonlyArray<Column>
  /** The rows that are not reserved. */
  readonly rows: ReadonlyArray<Row>
  /** The reserved (held-out) rows, drawn apart. */
  readonly reserved: ReadonlyArray<Row>
}

/**
 * A failing trial of a trials report: its index, how it stopped, its failures in words, its
 * trace (an in-page link when the page holds it) and the captured scenario that replays it.
 *
 * @since 0.1.0
 */
export interface TrialFailure {
  /** The trial's index, from 0. */
  readonly index: number
  /** How the trial's loop stopped, or `null`. */
  readonly stop: string | null
  /** Each failure, in words. */
  readonly failures: ReadonlyArray<string>
  /** The trace's path (the report's folder joined with `failing[].trace`; as written when it is outside the folder), or `null` without one. */
  readonly tracePath: string | null
  /** An in-page link to the trace (`#f3`) when the page holds it, else `null`. */
  readonly trace: string | null
  /** The captured scenario's path (relative to the report's folder), or `null` when capture was refused. */
  readonly scenario: string | null
  /** Why the trial could not be captured as a scenario, or `null`. */
  readonly captureError: string | null
}

/**
 * One case under one variant of a trials report (`trials.case`): its pass rate and interval,
 * threshold, pass^k and failing trials.
 *
 * @since 0.1.0
 */
export interface TrialsCase {
  /** The case file. */
  readonly file: string
  /** The case's name. */
  readonly name: string
  /** The harness variant. */
  readonly variant: string
  /** Whether the case is reserved (held out). */
  readonly reserved: boolean
  /** Trials run. */
  readonly trials: number
  /** Trials that passed. */
  readonly passes: number
  /** `passes / trials`, in `[0, 1]`. */
  readonly rate: number
  /** The interval's lower bound, in `[0, 1]`. */
  readonly low: number
  /** The interval's upper bound, in `[0, 1]`. */
  readonly high: number
  /** The interval's confidence level (0.95). */
  readonly confidence: number
  /** pass^k for k = 1..n: the chance that k trials all pass. */
  readonly passHatK: ReadonlyArray<number>
  /** The threshold's minimum pass rate, or `null`. */
  readonly minPassRate: number | null
  /** The threshold's minimum lower bound of the interval, or `null`. */
  readonly minLowerBound: number | null
  /** Whether the case met its threshold. */
  readonly met: boolean
  /** The failing trials. */
  readonly failing: ReadonlyArray<TrialFailure>
  /** Tokens spent (every numeric `usage` field ending in `Tokens`, added up), or `null`. */
  readonly tokens: number | null
  /** USD its priced trials cost (the line's `cost`), or `null` when the run had no price. */
  readonly cost: number | null
  /** Milliseconds spent. */
  readonly durationMs: number
}

/**
 * Two variants compared on the same trials (`trials.comparison`): one case, or all cases
 * (`file: null`).
 *
 * @since 0.1.0
 */
export interface TrialsComparison {
  /** The case file, or `null` for all cases. */
  readonly file: string | null
  /** The case's name, or `all cases`. */
  readonly name: string
  /** The first variant. */
  readonly a: string
  /** The second variant. */
  readonly b: string
  /** Paired trials. */
  readonly n: number
  /** `a`'s pass rate. */
  readonly aRate: number
  /** `b`'s pass rate. */
  readonly bRate: number
  /** `bRate − aRate`, in `[−1, 1]`. */
  readonly difference: number
  /** The difference's interval, lower bound. */
  readonly low: number
  /** The difference's interval, upper bound. */
  readonly high: number
  /** The interval's confidence level. */
  readonly confidence: number
  /** The exact McNemar p-value. */
  readonly pValue: number
  /** `better`, `worse` or `within noise`. */
  readonly verdict: string
}

/**
 * A trials report (`harness test --trials N`: `trials.case`, `trials.comparison` and
 * `trials.summary` lines), drawn as charts in the page's HTML (no script needed) and a table.
 *
 * @since 0.1.0
 */
export interface Trials {
  /** Discriminates the file. */
  readonly kind: "trials"
  /** Its id in the page (`f1`...): its anchor. */
  readonly id: string
  /** The report file's name. */
  readonly name: string
  /** What could not be read, line by line. */
  readonly problems: ReadonlyArray<Problem>
  /** The model the trials ran against (`PROVIDER:MODEL`), or `null` without a summary line. */
  readonly model: string | null
  /** Every (case, variant), in the order of the file. */
  readonly cases: ReadonlyArray<TrialsCase>
  /** The comparisons, in the order of the file. */
  readonly comparisons: ReadonlyArray<TrialsComparison>
}

/**
 * A file that is none of the kinds the viewer reads: why.
 *
 * @since 0.1.0
 */
export interface Unknown {
  /** Discriminates the file. */
  readonly kind: "unknown"
  /** Its id in the page (`f1`...): its anchor. */
  readonly id: string
  /** The name it was given (its path, say). */
  readonly name: string
  /** Why it is none of the kinds the viewer reads. */
  readonly problems: ReadonlyArray<Problem>
}

/**
 * One input file as the page shows it.
 *
 * @since 0.1.0
 */
export type File = Conversation | Plan | Report | Trials | Unknown

/**
 * The whole page.
 *
 * @since 0.1.0
 */
export interface Page {
  /** The page's title. */
  readonly title: string
  /** Every input file, in the order given. */
  readonly files: ReadonlyArray<File>
}
