/**
 * Trials reports (`harness test --trials N --json`, or `DIR/report.jsonl`): one `trials.case`
 * line per case and variant, `trials.comparison` lines when two variants ran, a
 * `trials.summary` line last. Read strictly on the fields drawn (a number that is missing, not
 * finite or out of range refuses its line, named), leniently on the rest (fields a newer
 * harness adds are ignored). Drawn as SVG charts in the page's HTML (see `TrialsChart`), each
 * bar linked to the trace of a failing trial, which the page holds when `linked` named it.
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"
import * as Lines from "./Lines.ts"
import type * as Model from "./Model.ts"

/**
 * The line types of a trials report.
 *
 * @since 0.1.0
 */
export const types: ReadonlySet<string> = new Set(["trials.case", "trials.comparison", "trials.summary"])

/**
 * Whether a JSON value is a line of a trials report (its `type` is one of `types`).
 *
 * @since 0.1.0
 */
export const isLine = (json: Model.Json): boolean =>
  Lines.isObject(json) && typeof json.type === "string" && types.has(json.type)

const Failing = Schema.Struct({
  index: Schema.Finite,
  stop: Schema.NullOr(Schema.String),
  failures: Schema.Array(Schema.Struct({ kind: Schema.String, message: Schema.String })),
  trace: Schema.optionalKey(Schema.String),
  scenario: Schema.optionalKey(Schema.String),
  captureError: Schema.optionalKey(Schema.String)
})

const CaseLine = Schema.Struct({
  file: Schema.String,
  name: Schema.String,
  variant: Schema.String,
  reserved: Schema.Boolean,
  trials: Schema.Finite,
  passes: Schema.Finite,
  rate: Schema.Struct({
    passes: Schema.Finite,
    n: Schema.Finite,
    rate: Schema.Finite,
    low: Schema.Finite,
    high: Schema.Finite
  }),
  confidence: Schema.Finite,
  passHatK: Schema.Array(Schema.Finite),
  threshold: Schema.Struct({
    minPassRate: Schema.optionalKey(Schema.Finite),
    minLowerBound: Schema.optionalKey(Schema.Finite)
  }),
  met: Schema.Boolean,
  failing: Schema.Array(Failing),
  usage: Schema.Record(Schema.String, Schema.Unknown),
  cost: Schema.optionalKey(Schema.Finite),
  durationMs: Schema.Finite
})

const ComparisonLine = Schema.Struct({
  file: Schema.NullOr(Schema.String),
  name: Schema.String,
  a: Schema.String,
  b: Schema.String,
  n: Schema.Finite,
  aRate: Schema.Finite,
  bRate: Schema.Finite,
  difference: Schema.Finite,
  interval: Schema.Struct({ low: Schema.Finite, high: Schema.Finite }),
  confidence: Schema.Finite,
  pValue: Schema.Finite,
  verdict: Schema.String
})

const SummaryLine = Schema.Struct({ model: Schema.String })

/**
 * How many failing trials' traces one report links (and the page loads); the others are named
 * by path only.
 *
 * @since 0.1.0
 */
export const maxLinked = 200

/** The folder part of a path (`a/b/report.jsonl` → `a/b/`), or `""`. */
const folderOf = (path: string): string => {
  const at = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"))
  return at === -1 ? "" : path.slice(0, at + 1)
}

/**
 * Where a trace named in a report is, from where the report is: the report's folder joined
 * with the relative path; `null` for a path that is absolute, has a `..` segment, a control
 * character or is empty (a report names files in its own folder only).
 *
 * @since 0.1.0
 */
export const resolve = (report: string, trace: string): string | null => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused in a path.
  if (trace === "" || /[\u0000-\u001f]/.test(trace)) return null
  if (/^[\\/]/.test(trace) || /^[a-z]:/i.test(trace)) return null
  const segments = trace.split(/[\\/]/)
  if (segments.some((s) => s === "..")) return null
  return `${folderOf(report)}${segments.filter((s) => s !== "." && s !== "").join("/")}`
}

/**
 * The traces a trials report links to (its failing trials', resolved with `resolve`), each
 * once, at most `maxLinked`: the files to give the page with the report so its bars open them.
 *
 * @since 0.1.0
 */
export const linked = (name: string, read: Lines.Read): ReadonlyArray<string> => {
  const out = new Set<string>()
  for (const line of read.lines) {
    const json = line.json
    if (!Lines.isObject(json) || json.type !== "trials.case" || !Array.isArray(json.failing)) continue
    for (const f of json.failing as ReadonlyArray<Model.Json>) {
      if (out.size >= maxLinked) return [...out]
      const trace = Lines.isObject(f) ? f.trace : undefined
      const path = typeof trace === "string" ? resolve(name, trace) : null
      if (path !== null) out.add(path)
    }
  }
  return [...out]
}

const unit = (value: number): boolean => value >= 0 && value <= 1

/** What is wrong with a decoded case line's numbers, as a JSON path and a message, or `undefined`. */
const caseProblem = (c: typeof CaseLine.Type): { readonly path: string; readonly problem: string } | undefined => {
  const r = c.rate
  if (!Number.isInteger(c.trials) || c.trials < 0) return { path: "trials", problem: "not a whole number ≥ 0" }
  if (!Number.isInteger(c.passes) || c.passes < 0 || c.passes > c.trials)
    return { path: "passes", problem: `not a whole number from 0 to trials (${c.trials})` }
  if (r.n !== c.trials || r.passes !== c.passes)
    return {
      path: "rate",
      problem: `rate.passes/rate.n (${r.passes}/${r.n}) is not passes/trials (${c.passes}/${c.trials})`
    }
  for (const key of ["rate", "low", "high"] as const)
    if (!unit(r[key])) return { path: `rate.${key}`, problem: `${r[key]} is not in [0, 1]` }
  if (!(r.low <= r.rate && r.rate <= r.high))
    return { path: "rate", problem: `not low ≤ rate ≤ high (${r.low} ≤ ${r.rate} ≤ ${r.high})` }
  if (!(c.confidence > 0 && c.confidence < 1)) return { path: "confidence", problem: "not in (0, 1)" }
  const bad = c.passHatK.findIndex((p) => !unit(p))
  if (bad !== -1) return { path: `passHatK[${bad}]`, problem: `${c.passHatK[bad]} is not in [0, 1]` }
  for (const key of ["minPassRate", "minLowerBound"] as const) {
    const t = c.threshold[key]
    if (t !== undefined && !unit(t)) return { path: `threshold.${key}`, problem: `${t} is not in [0, 1]` }
  }
  if (c.durationMs < 0) return { path: "durationMs", problem: "negative" }
  return undefined
}

const comparisonProblem = (
  c: typeof ComparisonLine.Type
): { readonly path: string; readonly problem: string } | undefined => {
  if (!unit(c.aRate)) return { path: "aRate", problem: `${c.aRate} is not in [0, 1]` }
  if (!unit(c.bRate)) return { path: "bRate", problem: `${c.bRate} is not in [0, 1]` }
  for (const [path, v] of [
    ["difference", c.difference],
    ["interval.low", c.interval.low],
    ["interval.high", c.interval.high]
  ] as const)
    if (!(v >= -1 && v <= 1)) return { path, problem: `${v} is not in [−1, 1]` }
  if (!(c.interval.low <= c.interval.high))
    return { path: "interval", problem: `low ${c.interval.low} is above high ${c.interval.high}` }
  return undefined
}

/**
 * A reader of one line type: the line decoded with `schema`, then its numbers checked with
 * `check`; or the problem naming the line, the JSON path, and `type` before what is wrong.
 */
const reader = <S extends Schema.ConstraintDecoder<unknown>>(
  type: string,
  schema: S,
  check: (decoded: S["Type"]) => { readonly path: string; readonly problem: string } | undefined
): ((line: Lines.Line) => Result.Result<S["Type"], Model.Problem>) => {
  const decode = Lines.decode(schema)
  return (line) => {
    const refuse = (why: { readonly path: string; readonly problem: string }) =>
      Result.fail(Lines.problem(line, why.path, `${type}: ${why.problem}`))
    const decoded = decode(line.json)
    if (Result.isFailure(decoded)) return refuse(decoded.failure)
    const why = check(decoded.success)
    return why === undefined ? Result.succeed(decoded.success) : refuse(why)
  }
}

const readCase = reader("trials.case", CaseLine, caseProblem)
const readComparison = reader("trials.comparison", ComparisonLine, comparisonProblem)
const readSummary = reader("trials.summary", SummaryLine, () => undefined)

/** Every numeric usage field named `…Tokens`, added up; `null` when there is none. */
const tokensOf = (usage: { readonly [key: string]: unknown }): number | null => {
  let sum: number | null = null
  for (const [key, value] of Object.entries(usage)) {
    if (key.endsWith("Tokens") && typeof value === "number" && Number.isFinite(value)) sum = (sum ?? 0) + value
  }
  return sum
}

/**
 * Reads a trials report. `traces` are the other inputs of the page (their ids and names): a
 * failing trial links to the one named as `resolve` gives its trace. Never fails: a line that
 * cannot be read is a problem naming its line and JSON path, and the rest is drawn.
 *
 * @since 0.1.0
 */
export const fromLines = (
  id: string,
  name: string,
  read: Lines.Read,
  traces: ReadonlyArray<{ readonly id: string; readonly name: string }>
): Model.Trials => {
  const problems: Array<Model.Problem> = [...read.problems]
  const cases: Array<Model.TrialsCase> = []
  const comparisons: Array<Model.TrialsComparison> = []
  let model: string | null = null
  const byName = new Map(traces.map((t) => [t.name, t.id]))
  for (const line of read.lines) {
    const json = line.json
    const type = Lines.isObject(json) ? json.type : undefined
    if (type === "trials.case") {
      const decoded = readCase(line)
      if (Result.isFailure(decoded)) {
        problems.push(decoded.failure)
        continue
      }
      const c = decoded.success
      cases.push({
        file: c.file,
        name: c.name,
        variant: c.variant,
        reserved: c.reserved,
        trials: c.trials,
        passes: c.passes,
        rate: c.rate.rate,
        low: c.rate.low,
        high: c.rate.high,
        confidence: c.confidence,
        passHatK: c.passHatK,
        minPassRate: c.threshold.minPassRate ?? null,
        minLowerBound: c.threshold.minLowerBound ?? null,
        met: c.met,
        failing: c.failing.map((f) => {
          const tracePath = f.trace === undefined ? null : (resolve(name, f.trace) ?? f.trace)
          const traceId = tracePath === null ? undefined : byName.get(tracePath)
          return {
            index: f.index,
            stop: f.stop,
            failures: f.failures.map((x) => `${x.kind}: ${x.message}`),
            tracePath,
            trace: traceId === undefined ? null : `#${traceId}`,
            scenario: f.scenario ?? null,
            captureError: f.captureError ?? null
          }
        }),
        tokens: tokensOf(c.usage),
        cost: c.cost ?? null,
        durationMs: c.durationMs
      })
    } else if (type === "trials.comparison") {
      const decoded = readComparison(line)
      if (Result.isFailure(decoded)) {
        problems.push(decoded.failure)
        continue
      }
      const c = decoded.success
      comparisons.push({
        file: c.file,
        name: c.name,
        a: c.a,
        b: c.b,
        n: c.n,
        aRate: c.aRate,
        bRate: c.bRate,
        difference: c.difference,
        low: c.interval.low,
        high: c.interval.high,
        confidence: c.confidence,
        pValue: c.pValue,
        verdict: c.verdict
      })
    } else if (type === "trials.summary") {
      const decoded = readSummary(line)
      if (Result.isSuccess(decoded)) model = decoded.success.model
      else problems.push(decoded.failure)
    } else {
      problems.push(
        Lines.problem(line, "type", "not a line of a trials report (trials.case, trials.comparison, trials.summary)")
      )
    }
  }
  return { kind: "trials", id, name, problems, model, cases, comparisons }
}
