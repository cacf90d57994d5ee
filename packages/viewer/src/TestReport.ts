/**
 * Test reports (`harness test --json`: one verdict per scenario per line, or the same object
 * with `valid: false` for a file that could not be read) as the page draws them: a table with a
 * column per harness variant and report file (`before` and `fixed` side by side), a row per
 * scenario and per case of a `response-cases` scenario, the reserved (held-out) rows in a table
 * of their own, and each row linked to its trace when one is given.
 *
 * @since 0.1.0
 */
import { Report, type Verdict } from "@agent-harness/scenario"
import { Result, Schema } from "effect"
import * as Lines from "./Lines.ts"
import type * as Model from "./Model.ts"

const Failure = Schema.Struct({ kind: Schema.String, message: Schema.String })

const Case = Schema.Struct({
  id: Schema.String,
  role: Schema.String,
  purpose: Schema.optionalKey(Schema.String),
  passed: Schema.Boolean,
  expected: Schema.optionalKey(Schema.Unknown),
  seen: Schema.optionalKey(Schema.Unknown)
})

/**
 * One line of `harness test --json`, as the viewer reads it (fields it does not name are
 * ignored). `trace` is where the scenario's trace was written, when the runner says.
 *
 * @since 0.1.0
 */
export const Line: Schema.Struct<{
  readonly name: Schema.String
  readonly file: Schema.String
  readonly kind: Schema.NullOr<Schema.String>
  readonly variant: Schema.optionalKey<Schema.String>
  readonly passed: Schema.Boolean
  readonly reserved: Schema.Boolean
  readonly valid: Schema.optionalKey<Schema.Boolean>
  readonly outcome: Schema.Unknown
  readonly failures: Schema.$Array<Schema.Struct<{ readonly kind: Schema.String; readonly message: Schema.String }>>
  readonly trace: Schema.optionalKey<Schema.String>
}> = Schema.Struct({
  name: Schema.String,
  file: Schema.String,
  kind: Schema.NullOr(Schema.String),
  variant: Schema.optionalKey(Schema.String),
  passed: Schema.Boolean,
  reserved: Schema.Boolean,
  valid: Schema.optionalKey(Schema.Boolean),
  outcome: Schema.Unknown,
  failures: Schema.Array(Failure),
  trace: Schema.optionalKey(Schema.String)
})

/** One line of `harness test --json` as the viewer reads it. @since 0.1.0 */
export type Line = typeof Line.Type

const decodeLine = Lines.decode(Line)
const decodeCases = Lines.decode(Schema.Struct({ cases: Schema.Array(Case) }))

/**
 * Whether a JSON value is a test verdict line (it has a `name` and a boolean `passed`).
 *
 * @since 0.1.0
 */
export const isVerdict = (json: Model.Json): boolean =>
  Lines.isObject(json) && typeof json.name === "string" && typeof json.passed === "boolean"

/** Whether an outcome has the shape `Report.summary` reads. */
const isOutcome = (u: unknown): u is Verdict.Outcome => {
  const o = Lines.json(u)
  if (!Lines.isObject(o)) return false
  if (Array.isArray(o.cases)) return true
  if (typeof o.stop === "string") return typeof o.turns === "number"
  return (
    typeof o.status === "string" &&
    typeof o.reason === "string" &&
    typeof o.steps === "number" &&
    typeof o.replans === "number"
  )
}

const show = (value: unknown): string => JSON.stringify(value) ?? "undefined"

/**
 * A report file to read: its name and its lines.
 *
 * @since 0.1.0
 */
export interface Source {
  /** The file's name, as shown. */
  readonly name: string
  /** Its lines as `Lines.read` gives them. */
  readonly read: Lines.Read
}

/** The last path segment without its extension: `a/b/salmorejo.json` → `salmorejo`. */
const stem = (path: string): string => {
  const base = path.split(/[\\/]/).pop() ?? path
  const dot = base.lastIndexOf(".")
  return dot > 0 ? base.slice(0, dot) : base
}

interface Draft {
  readonly name: string
  readonly file: string
  readonly kind: string
  readonly case: string | null
  readonly role: string | null
  readonly reserved: boolean
  readonly cells: Array<Model.Cell | null>
}

/**
 * Reads report files into one report, side by side. `traces` are the other inputs of the page
 * (their page ids and names): a row links to the one its line's `trace` names (or to that path
 * as given), or else to the only trace whose name has the scenario file's stem
 * (`salmorejo.jsonl` for `salmorejo.json`) when no other scenario file has that stem.
 *
 * @since 0.1.0
 */
export const fromSources = (
  id: string,
  sources: ReadonlyArray<Source>,
  traces: ReadonlyArray<{ readonly id: string; readonly name: string }>
): Model.Report => {
  const problems: Array<Model.Problem> = []
  const columns: Array<Model.Column> = []
  const rows = new Map<string, Draft>()
  const order: Array<string> = []

  // Scenario files by stem: a trace is matched by stem only when both sides are unambiguous.
  const files = new Map<string, Set<string>>()
  for (const source of sources) {
    for (const line of source.read.lines) {
      const file = Lines.isObject(line.json) ? line.json.file : undefined
      if (typeof file !== "string") continue
      const same = files.get(stem(file)) ?? new Set<string>()
      same.add(file)
      files.set(stem(file), same)
    }
  }
  const traceOf = (line: Line): string | null => {
    if (line.trace !== undefined) {
      const named = traces.find((t) => t.name === line.trace || t.name.endsWith(`/${line.trace}`))
      return named === undefined ? line.trace : `#${named.id}`
    }
    const same = traces.filter((t) => stem(t.name) === stem(line.file))
    const only = same.length === 1 && (files.get(stem(line.file))?.size ?? 0) === 1 ? same[0] : undefined
    return only === undefined ? null : `#${only.id}`
  }
  const rowOf = (key: string, make: () => Omit<Draft, "cells">): Draft => {
    let row = rows.get(key)
    if (row === undefined) {
      row = { ...make(), cells: [] }
      rows.set(key, row)
      order.push(key)
    }
    return row
  }

  for (const source of sources) {
    for (const problem of source.read.problems) problems.push({ file: source.name, ...problem })
    /** This file's columns by variant, in the order met. */
    const mine = new Map<
      string,
      {
        readonly index: number
        readonly verdicts: Array<Verdict.Verdict>
        invalid: number
        unread: { passed: number; failed: number }
      }
    >()
    for (const line of source.read.lines) {
      const decoded = decodeLine(line.json)
      if (Result.isFailure(decoded)) {
        problems.push({ file: source.name, ...Lines.problem(line, decoded.failure.path, decoded.failure.problem) })
        continue
      }
      const v = decoded.success
      const variant = v.variant ?? "fixed"
      let column = mine.get(variant)
      if (column === undefined) {
        column = { index: columns.length, verdicts: [], invalid: 0, unread: { passed: 0, failed: 0 } }
        mine.set(variant, column)
        columns.push({
          label: variant,
          variant,
          file: source.name,
          passed: 0,
          failed: 0,
          invalid: 0,
          reservedPassed: 0,
          reservedFailed: 0
        })
      }
      const index = column.index
      const put = (row: Draft, cell: Model.Cell) => {
        while (row.cells.length < index) row.cells.push(null)
        row.cells[index] = cell
      }
      const kind = v.kind ?? "(unknown)"
      const scenario = rowOf(`${v.file}\u0000${v.name}`, () => ({
        name: v.name,
        file: v.file,
        kind,
        case: null,
        role: null,
        reserved: v.reserved
      }))
      const trace = traceOf(v)
      if (v.valid === false) {
        column.invalid++
        put(scenario, {
          verdict: "invalid",
          summary: "invalid file",
          failures: v.failures.map((f) => f.message),
          trace
        })
        continue
      }
      if (v.kind !== null && isOutcome(v.outcome)) {
        const verdict: Verdict.Verdict = {
          name: v.name,
          file: v.file,
          kind: v.kind,
          variant,
          passed: v.passed,
          reserved: v.reserved,
          outcome: v.outcome,
          failures: []
        }
        column.verdicts.push(verdict)
      } else {
        v.passed ? column.unread.passed++ : column.unread.failed++
        problems.push({
          file: source.name,
          ...Lines.problem(line, "outcome", "not the outcome of a conversation, a plan or response cases")
        })
      }
      put(scenario, {
        verdict: v.passed ? "pass" : "fail",
        summary: isOutcome(v.outcome) ? Report.summary(v.outcome) : "",
        failures: v.failures.map((f) => f.message),
        trace
      })
      const cases = decodeCases(Lines.json(v.outcome))
      if (Result.isSuccess(cases)) {
        for (const c of cases.success.cases) {
          const row = rowOf(`${v.file}\u0000${v.name}\u0000${c.id}`, () => ({
            name: v.name,
            file: v.file,
            kind,
            case: c.id,
            role: c.role,
            reserved: v.reserved || c.role === "reserved"
          }))
          put(row, {
            verdict: c.passed ? "pass" : "fail",
            summary: c.purpose ?? c.role,
            failures: c.passed ? [] : [`expected: ${show(c.expected)}\nseen:     ${show(c.seen)}`],
            trace
          })
        }
      }
    }
    for (const { index, verdicts, invalid, unread } of mine.values()) {
      const totals = Report.totals(verdicts, invalid)
      const column = columns[index]
      if (column !== undefined) {
        // Lines whose outcome could not be read still passed or failed: count them as the line says.
        columns[index] = {
          ...column,
          ...totals,
          passed: totals.passed + unread.passed,
          failed: totals.failed + unread.failed
        }
      }
    }
  }
  // The same variant from two files: name the file too.
  const labels = columns.map((c) => c.variant)
  const shown = columns.map((c) =>
    labels.filter((l) => l === c.variant).length > 1 ? { ...c, label: `${c.variant} (${c.file})` } : c
  )
  const finish = (draft: Draft): Model.Row => {
    const cells = [...draft.cells]
    while (cells.length < shown.length) cells.push(null)
    return { name: draft.name, file: draft.file, kind: draft.kind, case: draft.case, role: draft.role, cells }
  }
  const all = order.flatMap((key) => {
    const draft = rows.get(key)
    return draft === undefined ? [] : [draft]
  })
  return {
    kind: "report",
    id,
    name: sources.map((s) => s.name).join(" + "),
    problems,
    columns: shown,
    rows: all.filter((r) => !r.reserved).map(finish),
    reserved: all.filter((r) => r.reserved).map(finish)
  }
}
