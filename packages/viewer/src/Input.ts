/**
 * The files a page is made of, and what each is. The kind of a file is told from its content,
 * never its name: the first line that is a conversation event makes a conversation trace, a
 * plan session event (or a `SessionResult`) a plan session, a test verdict a test report, a
 * `trials.case` (or other `trials.` report) line a trials report. Every test report given goes
 * into one report, side by side.
 *
 * @since 0.1.0
 */
import { Trace } from "@agent-harness/executor"
import * as ConversationTrace from "./ConversationTrace.ts"
import * as Lines from "./Lines.ts"
import type * as Model from "./Model.ts"
import * as PlanTrace from "./PlanTrace.ts"
import * as TestReport from "./TestReport.ts"
import * as TrialsReport from "./TrialsReport.ts"

/**
 * One input file: a name to show (its path, say) and its text.
 *
 * @since 0.1.0
 */
export interface Input {
  /** The name shown for it (its path, say). */
  readonly name: string
  /** Its content. */
  readonly text: string
}

/**
 * What a file is: a `conversation` trace, a `plan` session (JSON Lines, or `plan-result`: a
 * whole `SessionResult`), a test `report`, a `trials` report, or `unknown` (with why).
 *
 * @since 0.1.0
 */
export type Kind =
  | { readonly kind: "conversation" }
  | { readonly kind: "plan" }
  | { readonly kind: "plan-result"; readonly json: Model.Json }
  | { readonly kind: "report" }
  | { readonly kind: "trials" }
  | { readonly kind: "unknown"; readonly reason: string }

/**
 * How many readable lines are looked at to tell a file's kind.
 *
 * @since 0.1.0
 */
export const lookAhead = 100

/**
 * Tells what a file is from its lines (and, for a pretty-printed `SessionResult`, its text).
 *
 * @since 0.1.0
 */
export const detect = (text: string, read: Lines.Read): Kind => {
  if (text.trim() === "") return { kind: "unknown", reason: "the file is empty" }
  let annotated = false
  for (const line of read.lines.slice(0, lookAhead)) {
    const json = line.json
    if (!Lines.isObject(json)) continue
    if (typeof json.type === "string") {
      if (TrialsReport.types.has(json.type)) return { kind: "trials" }
      // Every `session.` event is a plan session's, `session.unencodable` of an old trace too.
      if (json.type.startsWith("session.")) return { kind: "plan" }
      const upgraded = Lines.json(Trace.upgrade(json))
      const type = Lines.isObject(upgraded) && typeof upgraded.type === "string" ? upgraded.type : json.type
      // A note (`trace.annotated`) may open either kind of trace: the next lines tell.
      if (type === "trace.annotated") annotated = true
      else if (ConversationTrace.types.has(type)) return { kind: "conversation" }
      if (PlanTrace.types.has(type)) return { kind: "plan" }
    }
    if (TestReport.isVerdict(json)) return { kind: "report" }
    if (PlanTrace.isSessionResult(json)) return { kind: "plan-result", json }
  }
  if (annotated) return { kind: "conversation" }
  const whole = Lines.whole(text)
  if (PlanTrace.isSessionResult(whole) && whole !== undefined) return { kind: "plan-result", json: whole }
  return {
    kind: "unknown",
    reason:
      read.lines.length === 0
        ? "no line is JSON"
        : `none of the first ${Math.min(read.lines.length, lookAhead)} JSON lines is a conversation trace event, a plan session event, a SessionResult, a test verdict or a trials report line`
  }
}

/**
 * The trace files the trials reports among some inputs link to (each report's failing trials',
 * from its folder: `DIR/traces/…jsonl` for `DIR/report.jsonl`) that are not inputs already:
 * the files to read and give `page` with them, so each bar of a chart opens its trace.
 *
 * @since 0.1.0
 */
export const linked = (inputs: ReadonlyArray<Input>): ReadonlyArray<string> => {
  const given = new Set(inputs.map((input) => input.name))
  const out = new Set<string>()
  for (const input of inputs) {
    const lines = Lines.read(input.text)
    if (detect(input.text, lines).kind !== "trials") continue
    for (const path of TrialsReport.linked(input.name, lines)) if (!given.has(path)) out.add(path)
  }
  return [...out]
}

/**
 * The page for some input files: one section per file (every test report in one), in the order
 * given. Never fails: what cannot be read is named in its section.
 *
 * @since 0.1.0
 */
export const page = (inputs: ReadonlyArray<Input>, title?: string): Model.Page => {
  const read = inputs.map((input, i) => {
    const lines = Lines.read(input.text)
    return { id: `f${i + 1}`, input, lines, kind: detect(input.text, lines) }
  })
  const traces = read
    .filter((r) => r.kind.kind !== "report" && r.kind.kind !== "trials" && r.kind.kind !== "unknown")
    .map((r) => ({ id: r.id, name: r.input.name }))
  const reports = read.filter((r) => r.kind.kind === "report")
  const files: Array<Model.File> = []
  for (const r of read) {
    const { id, input, lines, kind } = r
    switch (kind.kind) {
      case "conversation":
        files.push(ConversationTrace.fromLines(id, input.name, lines))
        break
      case "plan":
        files.push(PlanTrace.fromLines(id, input.name, lines))
        break
      case "plan-result":
        files.push(PlanTrace.fromResult(id, input.name, kind.json))
        break
      case "report":
        if (reports[0] === r) {
          files.push(
            TestReport.fromSources(
              id,
              reports.map((s) => ({ name: s.input.name, read: s.lines })),
              traces
            )
          )
        }
        break
      case "trials":
        files.push(TrialsReport.fromLines(id, input.name, lines, traces))
        break
      case "unknown":
        files.push({
          kind: "unknown",
          id,
          name: input.name,
          problems: [{ line: null, path: "(file)", message: kind.reason }, ...lines.problems]
        })
        break
    }
  }
  const names = inputs.map((input) => input.name)
  return { title: title ?? (names.length === 0 ? "harness view" : `harness view: ${names.join(", ")}`), files }
}
