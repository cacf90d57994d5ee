/**
 * A plan session as the page draws it, read from a plan session trace (what the planner's
 * `SessionTrace` writes): JSON Lines of the planner's `Event`, opened by an optional
 * `session.started` line (the goal and budgets) and closed by an optional `session.recorded` line
 * (the `SessionResult`, without its events, which are the lines above it). A `SessionResult` as
 * one JSON value (with its events) reads too. Lines are read with the planner's own schemas,
 * only for the fields the page draws.
 *
 * Each accepted plan is a revision: the diff that made it (drawn against what was left of the
 * old plan from the cursor: removed, added, revised with the argument changes, kept), the last
 * error that caused the replan, and every step's outcome. Refused plans sit between them.
 *
 * @since 0.1.0
 */
import { Trace } from "@agent-harness/executor"
import { Event, SessionResult, SessionTrace, type Step } from "@agent-harness/planner"
import { Result, Schema, Struct } from "effect"
import * as ArgDiff from "./ArgDiff.ts"
import * as Spending from "./internal/spend.ts"
import * as Lines from "./Lines.ts"
import type * as Model from "./Model.ts"

/**
 * The line that opens a plan session trace (the planner's `SessionTrace.Start`), read leniently:
 * a strategy this version does not know is shown as it is.
 *
 * @since 0.1.0
 */
export const Start: Schema.Struct<{
  readonly type: typeof SessionTrace.Start.fields.type
  readonly goal: typeof SessionTrace.Start.fields.goal
  readonly max_steps: typeof SessionTrace.Start.fields.max_steps
  readonly max_replans: typeof SessionTrace.Start.fields.max_replans
  readonly on_failure: Schema.optionalKey<Schema.String>
  readonly tools: typeof SessionTrace.Start.fields.tools
}> = SessionTrace.Start.mapFields((fields) => ({ ...fields, on_failure: Schema.optionalKey(Schema.String) }))

/** A plan session's `session.started` line as the viewer reads it (its `on_failure` optional). @since 0.1.0 */
export type Start = typeof Start.Type

/**
 * A `SessionResult` as recorded: the fields the page draws (fields a harness adds later are
 * ignored, not required), its events left out or not (a trace's lines are its events).
 *
 * @since 0.1.0
 */
export const Recorded: Schema.Struct<{
  readonly status: typeof SessionResult.SessionResult.fields.status
  readonly reason: typeof SessionResult.SessionResult.fields.reason
  readonly history: typeof SessionResult.SessionResult.fields.history
  readonly revisions: typeof SessionResult.SessionResult.fields.revisions
  readonly steps: typeof SessionResult.SessionResult.fields.steps
  readonly replans: typeof SessionResult.SessionResult.fields.replans
  readonly events: Schema.optionalKey<typeof SessionResult.SessionResult.fields.events>
}> = SessionResult.SessionResult.mapFields((fields) => ({
  ...Struct.pick(fields, ["status", "reason", "history", "revisions", "steps", "replans"]),
  events: Schema.optionalKey(fields.events)
}))

/**
 * The line that closes a plan session trace (the planner's `SessionTrace.Finish`), its result
 * read as `Recorded`.
 *
 * @since 0.1.0
 */
export const Finish: Schema.Struct<{
  readonly type: typeof SessionTrace.Finish.fields.type
  readonly result: typeof Recorded
}> = SessionTrace.Finish.mapFields((fields) => ({ ...fields, result: Recorded }))

/**
 * The event types of a plan session trace.
 *
 * @since 0.1.0
 */
export const types: ReadonlySet<string> = new Set([
  Start.fields.type.literal,
  Finish.fields.type.literal,
  ...Event.Event.members.map((member) => member.fields.type.literal)
])

/**
 * The events as the page reads them: each with the planner's own field schemas, but only the
 * fields it draws, so a trace from a harness that adds fields still reads.
 */
const Viewed = {
  "plan.created": Event.PlanCreated.mapFields(Struct.pick(["type", "revision", "plan"])),
  "step.started": Event.StepStarted.mapFields(Struct.pick(["type", "revision", "step"])),
  "step.succeeded": Event.StepSucceeded.mapFields(Struct.pick(["type", "revision", "id", "result"])),
  "step.failed": Event.StepFailed.mapFields(Struct.pick(["type", "revision", "id", "error", "not_executed"])),
  "step.cached": Event.StepCached.mapFields(Struct.pick(["type", "revision", "id", "result"])),
  "plan.diff": Event.PlanDiffed.mapFields(Struct.pick(["type", "revision", "last_error", "diff"])),
  "plan.rejected": Event.PlanRejected.mapFields((fields) => ({
    ...Struct.pick(fields, ["type", "detail", "plan"]),
    reason: Schema.String
  })),
  "session.finished": Event.SessionFinished.mapFields(Struct.pick(["type", "status", "reason"]))
} as const

type Viewed = { readonly [K in keyof typeof Viewed]: (typeof Viewed)[K]["Type"] }[keyof typeof Viewed]

const decodeStart = Lines.decode(Start)
const decodeFinish = Lines.decode(Finish)
const decodeEvent: {
  readonly [type: string]: (
    json: Model.Json
  ) => Result.Result<Viewed, { readonly path: string; readonly problem: string }>
} = Object.fromEntries(Object.entries(Viewed).map(([type, schema]) => [type, Lines.decode(schema)]))
const decodeWhole = Lines.decode(
  SessionResult.SessionResult.mapFields(
    Struct.pick(["status", "reason", "history", "revisions", "steps", "replans", "events"])
  )
)

const stepOf = (step: Step.Step): Model.Step => ({
  id: step.id,
  tool: step.tool_name,
  args: Lines.json(step.args),
  expected: step.expected_outcome,
  group: step.group ?? null
})

const placeholder = (id: number): Model.Step => ({
  id,
  tool: "?",
  args: null,
  expected: "(not in the plan)",
  group: null
})

/**
 * The diff drawn: the new plan in order, each step added, revised or kept, and each removed
 * step of the old plan where it stood.
 *
 * @since 0.1.0
 */
export const rows = (
  diff: {
    readonly removed: ReadonlyArray<number>
    readonly added: ReadonlyArray<number>
    readonly revised: ReadonlyArray<number>
  },
  before: ReadonlyArray<Model.Step>,
  after: ReadonlyArray<Model.Step>
): ReadonlyArray<Model.DiffRow> => {
  const removed = new Set(diff.removed)
  const added = new Set(diff.added)
  const revised = new Set(diff.revised)
  const oldIndex = new Map(before.map((step, i) => [step.id, i] as const))
  const out: Array<Model.DiffRow> = []
  const drawn = new Set<number>()
  let next = 0
  const removedUpTo = (end: number) => {
    for (; next < end; next++) {
      const old = before[next]
      if (old !== undefined && removed.has(old.id) && !drawn.has(old.id)) {
        drawn.add(old.id)
        out.push({ mark: "removed", step: old })
      }
    }
  }
  for (const step of after) {
    const i = oldIndex.get(step.id)
    if (i !== undefined && i >= next) removedUpTo(i + 1)
    const old = i === undefined ? undefined : before[i]
    if (added.has(step.id) || old === undefined) out.push({ mark: "added", step })
    else if (revised.has(step.id)) {
      const changes = [
        ...(old.tool === step.tool ? [] : [{ path: "(tool)", before: old.tool, after: step.tool }]),
        ...ArgDiff.changes(old.args, step.args)
      ]
      out.push({ mark: "revised", before: old, step, changes })
    } else out.push({ mark: "kept", step })
  }
  removedUpTo(before.length)
  // Ids the diff names as removed that the old plan as read does not hold.
  for (const id of diff.removed)
    if (!drawn.has(id) && !oldIndex.has(id)) out.push({ mark: "removed", step: placeholder(id) })
  return out
}

interface RevisionDraft {
  readonly type: "revision"
  readonly revision: number
  readonly line: number
  readonly replan: Model.Replan | null
  readonly plan: ReadonlyArray<Model.Step>
  readonly steps: Array<{ -readonly [K in keyof Model.StepRun]: Model.StepRun[K] }>
  cursor: Model.Replan["cursor"]
}

/**
 * Reads a plan session's lines (already parsed, with the problems found parsing them).
 *
 * @since 0.1.0
 */
export const fromLines = (id: string, name: string, given: Lines.Read): Model.Plan => {
  const read = Lines.upgraded(given)
  const problems: Array<Model.Problem> = [...read.problems]
  const entries: Array<Model.Entry | RevisionDraft> = []
  const history: Array<RevisionDraft["steps"][number]> = []
  const revisions: Array<Model.Replan["diff"]> = []
  let start: Start | undefined
  let recorded: typeof Recorded.Type | undefined
  let finished: Model.Plan["finished"] = null
  let current: RevisionDraft | undefined
  let pending: { readonly line: number; readonly event: (typeof Viewed)["plan.diff"]["Type"] } | undefined
  let created = 0
  let rejected = 0
  let started = 0
  let spend = null as Spending.Spend

  const other = (line: Lines.Line, problem?: string) =>
    entries.push({ type: "other", event: Lines.generic(line, problem) })
  const stepIn = (line: Lines.Line, revision: number, stepId: number) => {
    if (current === undefined || current.revision !== revision) {
      problems.push(Lines.problem(line, "revision", `revision ${revision} is not the current plan`))
      return undefined
    }
    const step = current.steps.find((s) => s.id === stepId)
    if (step === undefined) problems.push(Lines.problem(line, "id", `step ${stepId} is not in revision ${revision}`))
    return step
  }

  for (const line of read.lines) {
    const raw = line.json
    const type = Lines.isObject(raw) ? raw.type : undefined
    if (typeof type !== "string") {
      const path = Lines.isObject(raw) ? "type" : "(root)"
      const message = Lines.isObject(raw) ? "missing (the event type)" : "expected an object (an event)"
      problems.push(Lines.problem(line, path, message))
      other(line, `${path}: ${message}`)
      continue
    }
    if (type === "session.started" || type === "session.recorded") {
      const decoded: Result.Result<Start | typeof Finish.Type, { readonly path: string; readonly problem: string }> =
        type === "session.started" ? decodeStart(raw) : decodeFinish(raw)
      if (Result.isFailure(decoded)) {
        problems.push(Lines.problem(line, decoded.failure.path, decoded.failure.problem))
        other(line, `${decoded.failure.path}: ${decoded.failure.problem}`)
        continue
      }
      const value = decoded.success
      if (value.type === "session.started") start = value
      else recorded = value.result
      continue
    }
    if (type === "trace.annotated" && Lines.isObject(raw) && raw.key === Trace.unencodable) {
      // The recorder could not encode something: named, and drawn as it is.
      const value = Lines.isObject(raw.value) ? raw.value : {}
      const what = typeof value.event_type === "string" ? `a ${value.event_type} event` : "a line"
      const why = typeof value.error === "string" ? `: ${value.error}` : ""
      const message = `the recorder could not encode ${what}${why}`
      problems.push(Lines.problem(line, "(root)", message))
      other(line, message)
      continue
    }
    const decode = decodeEvent[type]
    if (decode === undefined) {
      // A planner's call settled or refused: the session's spend, and an entry of the timeline.
      if (Lines.isObject(raw)) spend = Spending.after(spend, type, raw)
      other(line)
      continue
    }
    const decoded = decode(raw)
    if (Result.isFailure(decoded)) {
      problems.push(Lines.problem(line, decoded.failure.path, decoded.failure.problem))
      other(line, `${decoded.failure.path}: ${decoded.failure.problem}`)
      continue
    }
    const event = decoded.success
    const n = line.line ?? 0
    switch (event.type) {
      case "plan.created": {
        created++
        const plan = event.plan.map(stepOf)
        let replan: Model.Replan | null = null
        if (pending !== undefined) {
          const previous = current
          const from = previous?.cursor === null || previous === undefined ? 0 : previous.cursor.position - 1
          const before = previous === undefined ? [] : previous.plan.slice(from)
          const diff = pending.event.diff
          replan = {
            line: pending.line,
            lastError: pending.event.last_error,
            cursor: previous?.cursor ?? null,
            diff,
            rows: rows(diff, before, plan)
          }
          if (pending.event.revision !== event.revision) {
            problems.push(
              Lines.problem(
                line,
                "revision",
                `revision ${event.revision} after a diff for revision ${pending.event.revision}`
              )
            )
          }
          revisions.push(diff)
          pending = undefined
        }
        current = {
          type: "revision",
          revision: event.revision,
          line: n,
          replan,
          plan,
          steps: plan.map((step) => ({ ...step, status: "not_reached", result: null, error: null })),
          cursor: null
        }
        entries.push(current)
        break
      }
      case "plan.diff":
        if (pending !== undefined)
          problems.push(Lines.problem(line, "type", "a second diff before the plan of the first"))
        pending = { line: n, event }
        break
      case "step.started": {
        started++
        const step = stepIn(line, event.revision, event.step.id)
        if (step !== undefined) {
          step.status = "started"
          history.push(step)
        }
        break
      }
      case "step.succeeded": {
        const step = stepIn(line, event.revision, event.id)
        if (step !== undefined) {
          step.status = "succeeded"
          step.result = event.result
        }
        break
      }
      case "step.failed": {
        const step = stepIn(line, event.revision, event.id)
        if (step !== undefined && current !== undefined) {
          step.status = event.not_executed ? "not_executed" : "failed"
          step.error = event.error
          if (current.cursor === null) {
            const position = current.plan.findIndex((s) => s.id === event.id) + 1
            current.cursor = { id: event.id, position, of: current.plan.length }
          }
        }
        break
      }
      case "step.cached": {
        const step = stepIn(line, event.revision, event.id)
        if (step !== undefined) {
          step.status = "cached"
          step.result = event.result
        }
        break
      }
      case "plan.rejected":
        rejected++
        entries.push({
          type: "rejected",
          line: n,
          reason: event.reason,
          detail: event.detail,
          steps: event.plan.map(stepOf)
        })
        break
      case "session.finished":
        finished = { status: event.status, reason: event.reason }
        break
    }
  }
  if (pending !== undefined) {
    problems.push({ line: pending.line, path: "type", message: "a diff with no plan after it" })
  }

  // Every planner answer but the first was a replan: accepted plans, refused plans, and the
  // empty plan that ends a session with `no_plan` (it has no event of its own).
  const answers = created + rejected + (finished?.reason === "no_plan" ? 1 : 0)
  const derivedReplans = Math.max(0, answers - 1)
  const runs = history.map((step): Model.StepRun => ({ ...step }))
  const result: Model.Result | null =
    recorded !== undefined
      ? {
          recorded: true,
          status: recorded.status,
          reason: recorded.reason,
          steps: recorded.steps,
          replans: recorded.replans,
          history: recorded.history.map((step, i): Model.StepRun => {
            const seen = runs[i]
            const status: Model.StepStatus =
              seen !== undefined && seen.id === step.id && (seen.status === "not_executed" || seen.status === "failed")
                ? seen.status
                : typeof step.error === "string"
                  ? "failed"
                  : typeof step.result === "string"
                    ? "succeeded"
                    : "started"
            return { ...stepOf(step), status, result: step.result ?? null, error: step.error ?? null }
          }),
          revisions: recorded.revisions
        }
      : finished !== null
        ? {
            recorded: false,
            status: finished.status,
            reason: finished.reason,
            steps: started,
            replans: derivedReplans,
            history: runs,
            revisions
          }
        : null
  return {
    kind: "plan",
    id,
    name,
    problems,
    goal: start?.goal ?? null,
    onFailure: start?.on_failure ?? null,
    budgets: {
      steps: recorded?.steps ?? started,
      maxSteps: start?.max_steps ?? null,
      replans: recorded?.replans ?? derivedReplans,
      maxReplans: start?.max_replans ?? null
    },
    spend,
    entries: entries.map(
      (entry): Model.Entry =>
        entry.type === "revision"
          ? {
              type: "revision",
              revision: entry.revision,
              line: entry.line,
              replan: entry.replan,
              steps: entry.steps.map((step) => ({ ...step }))
            }
          : entry
    ),
    finished,
    result
  }
}

/**
 * Whether a JSON value looks like a whole `SessionResult` (status, reason and events).
 *
 * @since 0.1.0
 */
export const isSessionResult = (json: Model.Json | undefined): boolean =>
  Lines.isObject(json) &&
  typeof json.status === "string" &&
  typeof json.reason === "string" &&
  Array.isArray(json.events)

/**
 * Reads a whole `SessionResult` (JSON, with its events): its events drawn, its fields as the
 * recorded result. A value that does not match names its JSON path.
 *
 * @since 0.1.0
 */
export const fromResult = (id: string, name: string, json: Model.Json): Model.Plan => {
  // Its events as written today (`Trace.upgrade`): a result saved before 0.2 reads as a new one.
  const events: ReadonlyArray<Model.Json> =
    Lines.isObject(json) && Array.isArray(json.events)
      ? json.events.map((event: Model.Json) => Lines.json(Trace.upgrade(event)))
      : []
  const decoded = decodeWhole(Lines.isObject(json) && Array.isArray(json.events) ? { ...json, events } : json)
  const lines: Array<Lines.Line> = events.map((event, i) => ({ line: null, at: `events[${i}]`, json: event }))
  if (Result.isSuccess(decoded)) {
    const { events: _events, ...rest } = decoded.success
    lines.push({
      line: null,
      at: "(root)",
      json: Lines.json(Schema.encodeSync(Finish)({ type: "session.recorded", result: rest }))
    })
    return fromLines(id, name, { lines, problems: [] })
  }
  const plan = fromLines(id, name, { lines, problems: [] })
  const path = decoded.failure.path
  // A bad event is already named by its own problem; any other bad field is named here.
  const named = path.startsWith("events[")
    ? plan.problems
    : [{ line: null, path, message: decoded.failure.problem }, ...plan.problems]
  return { ...plan, problems: named }
}
