/**
 * A live case's pass criterion: the checks a file writes before running (their Schema, checked
 * one by one with their JSON paths), and judging one trial by them. Judging is pure and never
 * throws: a hostile value (a throwing getter, a cycle, a huge text) fails its check in words.
 */
import { type Loop, Outcome, StopReason } from "@agent-harness/executor"
import { Predicate, Result, Schema, type SchemaAST, type SchemaIssue, SchemaParser } from "effect"
import * as Pattern from "../Pattern.ts"
import type * as Verdict from "../Verdict.ts"

/** Exact text, or `{ "pattern": regex }` matched somewhere in it. */
export const Matcher: Schema.Union<readonly [Schema.String, Schema.Struct<{ readonly pattern: Schema.String }>]> =
  Schema.Union([Schema.String, Schema.Struct({ pattern: Schema.String })]).annotate({
    expected: `a string or { "pattern": regex }`
  })

/** A text or a pattern. */
export type Matcher = typeof Matcher.Type

/** `{ "text": Matcher }`: the final reply's text. */
export const TextCheck: Schema.Struct<{ readonly text: typeof Matcher }> = Schema.Struct({ text: Matcher })

/** `{ "file", "content": Matcher }` or `{ "file", "absent": true }`: a file after the run. */
export const FileCheck: Schema.Struct<{
  readonly file: Schema.String
  readonly content: Schema.optionalKey<typeof Matcher>
  readonly absent: Schema.optionalKey<Schema.Literal<true>>
}> = Schema.Struct({
  file: Schema.String.check(Schema.isMinLength(1)),
  content: Schema.optionalKey(Matcher),
  absent: Schema.optionalKey(Schema.Literal(true))
})

/** `{ "observation": { "content"?, "is_error"? }, "seen": boolean }`: some observation seen, or none. */
export const ObservationCheck: Schema.Struct<{
  readonly observation: Schema.Struct<{
    readonly content: Schema.optionalKey<typeof Matcher>
    readonly is_error: Schema.optionalKey<Schema.Boolean>
  }>
  readonly seen: Schema.Boolean
}> = Schema.Struct({
  observation: Schema.Struct({ content: Schema.optionalKey(Matcher), is_error: Schema.optionalKey(Schema.Boolean) }),
  seen: Schema.Boolean
})

const JsonObject: Schema.$Record<Schema.String, Schema.Unknown> = Schema.Record(Schema.String, Schema.Unknown).annotate(
  { expected: "an object" }
)

/** `{ "call": { "name", "input"? }, "made": boolean }`: a call made at least once, or never. */
export const CallCheck: Schema.Struct<{
  readonly call: Schema.Struct<{ readonly name: Schema.String; readonly input: Schema.optionalKey<typeof JsonObject> }>
  readonly made: Schema.Boolean
}> = Schema.Struct({
  call: Schema.Struct({ name: Schema.String.check(Schema.isMinLength(1)), input: Schema.optionalKey(JsonObject) }),
  made: Schema.Boolean
})

/** `{ "stop": reason }`: how the loop stopped. */
export const StopCheck: Schema.Struct<{ readonly stop: typeof StopReason.StopReason }> = Schema.Struct({
  stop: StopReason.StopReason
})

/** Any check of a pass criterion. */
export const Check: Schema.Union<
  readonly [typeof TextCheck, typeof FileCheck, typeof ObservationCheck, typeof CallCheck, typeof StopCheck]
> = Schema.Union([TextCheck, FileCheck, ObservationCheck, CallCheck, StopCheck])

/** A decoded check. */
export type Check = typeof Check.Type

const Rate: Schema.Finite = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))

/** The pass rate a live case must reach over its trials: the rate, the Wilson lower bound, or both. */
export const Threshold: Schema.Struct<{
  readonly minPassRate: Schema.optionalKey<Schema.Finite>
  readonly minLowerBound: Schema.optionalKey<Schema.Finite>
}> = Schema.Struct({ minPassRate: Schema.optionalKey(Rate), minLowerBound: Schema.optionalKey(Rate) })

/** A decoded threshold. */
export type Threshold = typeof Threshold.Type

/** Where a file is wrong and what is wrong there. */
export interface Problem {
  /** The JSON path of the bad field. */
  readonly path: string
  /** What is wrong there. */
  readonly problem: string
}

/** Why a live case must have a criterion. */
export const needsCriterion =
  "a live case needs a criterion written before running (a list of checks that must all hold)"

const checkKinds = {
  text: TextCheck,
  file: FileCheck,
  observation: ObservationCheck,
  call: CallCheck,
  stop: StopCheck
} as const

type CheckKind = keyof typeof checkKinds

/** The key a check is known by, from the keys it has (`content` alone is a file check without its file). */
const companions: ReadonlyArray<readonly [string, CheckKind]> = [
  ["content", "file"],
  ["absent", "file"],
  ["seen", "observation"],
  ["made", "call"]
]

const kindList = `"text", "file", "observation", "call" or "stop"`

const decoders: {
  readonly [K in CheckKind]: (u: unknown, options: SchemaAST.ParseOptions) => Result.Result<Check, SchemaIssue.Issue>
} = {
  text: SchemaParser.decodeUnknownResult(TextCheck),
  file: SchemaParser.decodeUnknownResult(FileCheck),
  observation: SchemaParser.decodeUnknownResult(ObservationCheck),
  call: SchemaParser.decodeUnknownResult(CallCheck),
  stop: SchemaParser.decodeUnknownResult(StopCheck)
} as const

const join = (at: string, path: string): string =>
  path === "(root)" ? at : `${at}${path.startsWith("[") ? "" : "."}${path}`

const patternOf = (matcher: Matcher | undefined): string | undefined =>
  matcher === undefined || typeof matcher === "string" ? undefined : matcher.pattern

/** What a decoded check must be beyond its Schema: one of content and absent; patterns that compile. */
const checkDecoded = (at: string, check: Check): Problem | undefined => {
  const patterns: Array<readonly [string, string | undefined]> = []
  if ("text" in check) patterns.push([`${at}.text.pattern`, patternOf(check.text)])
  if ("file" in check) {
    if ((check.content === undefined) === (check.absent === undefined)) {
      return {
        path: at,
        problem: `a file check gives "content" (a string or { "pattern": regex }) or "absent": true, one of the two`
      }
    }
    patterns.push([`${at}.content.pattern`, patternOf(check.content)])
  }
  if ("observation" in check) patterns.push([`${at}.observation.content.pattern`, patternOf(check.observation.content)])
  for (const [path, pattern] of patterns) {
    if (pattern === undefined) continue
    const made = Pattern.make(pattern)
    if (Result.isFailure(made)) return { path, problem: made.failure }
  }
  return undefined
}

/**
 * The `pass` of a live case's raw JSON, checked one check at a time before the file's Schema
 * runs, so that a problem is named at its check (`pass[1].file: missing`) rather than as a
 * union's: present (unless not `required`: a conversation's `pass` is optional) and not empty,
 * each check an object with one kind's key, decoded by that kind's Schema, its patterns
 * compiling. `describe` words a Schema issue (`ScenarioFile`'s).
 */
export const checkPass = (
  json: { readonly [key: string]: unknown },
  options: SchemaAST.ParseOptions,
  describe: (issue: SchemaIssue.Issue) => Problem,
  required: boolean = true
): Problem | undefined => {
  if (!("pass" in json)) return required ? { path: "pass", problem: `missing: ${needsCriterion}` } : undefined
  const pass = json.pass
  if (!Array.isArray(pass)) return undefined // the Schema says what it is instead
  if (pass.length === 0) {
    return {
      path: "pass",
      problem: required ? `empty: ${needsCriterion}` : `empty: give at least one check, or leave "pass" out`
    }
  }
  for (const [i, check] of pass.entries()) {
    const at = `pass[${i}]`
    if (!Predicate.isObject(check) || Array.isArray(check)) {
      return { path: at, problem: `expected a check: an object with ${kindList}` }
    }
    const named = Object.keys(checkKinds).filter((k) => k in check) as Array<CheckKind>
    if (named.length > 1) {
      return {
        path: at,
        problem: `a check checks one thing: ${named.map((k) => `"${k}"`).join(" and ")} are ${named.length} checks, write each as its own`
      }
    }
    const kind = named[0] ?? companions.find(([key]) => key in check)?.[1]
    if (kind === undefined) {
      return { path: at, problem: `expected a check: an object with ${kindList}` }
    }
    const decoded = decoders[kind](check, options)
    if (Result.isFailure(decoded)) {
      const { path, problem } = describe(decoded.failure)
      return { path: join(at, path), problem }
    }
    const wrong = checkDecoded(at, decoded.success)
    if (wrong !== undefined) return wrong
  }
  return undefined
}

/** A threshold names at least one bound. */
export const checkThreshold = (threshold: Threshold | undefined): Problem | undefined =>
  threshold !== undefined && threshold.minPassRate === undefined && threshold.minLowerBound === undefined
    ? { path: "threshold", problem: `empty: give "minPassRate", "minLowerBound" or both (each from 0 to 1)` }
    : undefined

/** What the checks read of a finished run: how it stopped, its final text, each turn's reply and outcomes. */
export interface Ended {
  /** Why the loop stopped. */
  readonly stop: Loop.RunResult["stop"]
  /** The final reply's text, if any. */
  readonly text: string | undefined
  /** Every model call: its number, its reply, and the outcome of each call of it. */
  readonly turns: ReadonlyArray<Pick<Loop.Turn, "turn" | "reply" | "outcomes">>
}

/**
 * What one trial gave: how the loop ended (or what it failed with: a model failure is a failed
 * trial), and the files after it. Judging reads only `Ended` of the result (a trace gives that).
 */
export interface Run<R extends Ended = Loop.RunResult> {
  /** The loop's result, or the failure that ended the trial. */
  readonly ended: Result.Result<R, { readonly _tag: string; readonly message: string }>
  /** The files after the trial. */
  readonly files: Readonly<Record<string, string>>
}

/** One check that did not hold. */
export interface CheckFailure {
  /** The check's index in `pass`; absent when the trial failed as a whole (the model failed). */
  readonly check?: number | undefined
  /** What the check asks for, in words. */
  readonly expected: string
  /** What the trial did, in words. */
  readonly seen: string
  /** The whole explanation (`pass[2]: …`). */
  readonly message: string
}

/** A trial judged: passed when every check held. */
export interface Judged {
  /** Whether every check held. */
  readonly passed: boolean
  /** Each check that did not hold, in `pass` order. */
  readonly failures: ReadonlyArray<CheckFailure>
}

/** The longest a value is shown in a failure. */
export const shownChars = 200

/** A value in a failure's words: JSON, cut at `shownChars` characters, never throwing. */
export const show = (value: unknown): string => {
  let text: string
  try {
    text = value === undefined ? "undefined" : (JSON.stringify(value) ?? String(value))
  } catch (error) {
    text = `(a value that cannot be shown: ${error instanceof Error ? error.message : "unknown"})`
  }
  return text.length <= shownChars ? text : `${text.slice(0, shownChars)}… (${text.length} characters)`
}

const matcherText = (matcher: Matcher): string =>
  typeof matcher === "string" ? show(matcher) : `text matching /${matcher.pattern}/`

/** Whether `text` is the matcher's, or why the matcher cannot be used (a hand-made case). */
const matches = (matcher: Matcher, text: string): Result.Result<boolean, string> => {
  if (typeof matcher === "string") return Result.succeed(text === matcher)
  const made = Pattern.make(matcher.pattern)
  return Result.isFailure(made)
    ? Result.fail(`the pattern /${matcher.pattern}/ cannot be used: ${made.failure}`)
    : Result.succeed(made.success.test(text))
}

const isPlain = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** The deepest input compared (deeper: not a match). */
const maxDepth = 128

/** Whether `value` has everything `subset` has: objects key by key (more keys allowed), arrays element by element, the rest equal. */
export const isSubset = (subset: unknown, value: unknown, depth = 0): boolean => {
  if (depth > maxDepth) return false
  if (Array.isArray(subset)) {
    return (
      Array.isArray(value) &&
      value.length === subset.length &&
      subset.every((item, i) => isSubset(item, value[i], depth + 1))
    )
  }
  if (isPlain(subset)) {
    return (
      isPlain(value) &&
      Object.keys(subset).every((key) => Object.hasOwn(value, key) && isSubset(subset[key], value[key], depth + 1))
    )
  }
  return Object.is(subset, value)
}

const describeObservation = (o: (typeof ObservationCheck.Type)["observation"]): string => {
  const parts = [
    ...(o.content === undefined ? [] : [`content ${matcherText(o.content)}`]),
    ...(o.is_error === undefined ? [] : [`is_error ${o.is_error}`])
  ]
  return parts.length === 0 ? "any observation" : `an observation with ${parts.join(" and ")}`
}

const describeCall = (c: (typeof CallCheck.Type)["call"]): string =>
  `a call to '${c.name}'${c.input === undefined ? "" : ` with input containing ${show(c.input)}`}`

/** Judges one check over a finished run; `undefined` when it holds. */
const judge = (
  check: Check,
  result: Ended,
  files: Readonly<Record<string, string>>
): { readonly expected: string; readonly seen: string; readonly why: string } | undefined => {
  if ("text" in check) {
    const expected = matcherText(check.text)
    if (result.text === undefined)
      return { expected, seen: "(no final text)", why: "the run ended without a final text" }
    const matched = matches(check.text, result.text)
    if (Result.isFailure(matched)) return { expected, seen: show(result.text), why: matched.failure }
    return matched.success ? undefined : { expected, seen: show(result.text), why: "the final text differs" }
  }
  if ("file" in check) {
    const content = Object.hasOwn(files, check.file) ? files[check.file] : undefined
    if (check.absent === true) {
      return content === undefined
        ? undefined
        : {
            expected: "(no such file)",
            seen: show(content),
            why: `file '${check.file}' should not exist after the run`
          }
    }
    const matcher = check.content ?? ""
    const expected = matcherText(matcher)
    if (content === undefined) return { expected, seen: "(no such file)", why: `file '${check.file}' does not exist` }
    const matched = matches(matcher, content)
    if (Result.isFailure(matched)) return { expected, seen: show(content), why: matched.failure }
    return matched.success ? undefined : { expected, seen: show(content), why: `file '${check.file}' differs` }
  }
  if ("observation" in check) {
    const wanted = check.observation
    let found: { readonly turn: number; readonly outcome: Outcome.Outcome } | undefined
    for (const turn of result.turns) {
      for (const outcome of turn.outcomes) {
        if (wanted.is_error !== undefined && Outcome.isError(outcome) !== wanted.is_error) continue
        if (wanted.content !== undefined) {
          const matched = matches(wanted.content, outcome.content)
          if (Result.isFailure(matched))
            return { expected: describeObservation(wanted), seen: "", why: matched.failure }
          if (!matched.success) continue
        }
        found = { turn: turn.turn, outcome }
        break
      }
      if (found !== undefined) break
    }
    const expected = `${check.seen ? "" : "never "}${describeObservation(wanted)}`
    if (check.seen && found === undefined) {
      const count = result.turns.reduce((n, t) => n + t.outcomes.length, 0)
      return { expected, seen: `none of the ${count} observation(s)`, why: "no observation matched" }
    }
    if (!check.seen && found !== undefined) {
      const { turn, outcome } = found
      const seen = `turn ${turn}, tool_use_id ${show(outcome.id)}: ${show(outcome.content)}`
      return { expected, seen, why: "an observation matched" }
    }
    return undefined
  }
  if ("call" in check) {
    const wanted = check.call
    let found: { readonly turn: number; readonly id: string; readonly input: unknown } | undefined
    for (const turn of result.turns) {
      for (const block of turn.reply) {
        if (block.type !== "tool_use" || block.name !== wanted.name) continue
        if (wanted.input !== undefined && !isSubset(wanted.input, block.input)) continue
        found = { turn: turn.turn, id: block.id, input: block.input }
        break
      }
      if (found !== undefined) break
    }
    const expected = `${check.made ? "" : "never "}${describeCall(wanted)}`
    if (check.made && found === undefined) return { expected, seen: "no such call", why: "the call was never made" }
    if (!check.made && found !== undefined) {
      const seen = `turn ${found.turn}, id ${show(found.id)}, input ${show(found.input)}`
      return { expected, seen, why: "the call was made" }
    }
    return undefined
  }
  return result.stop === check.stop
    ? undefined
    : { expected: check.stop, seen: result.stop, why: `the run stopped with '${result.stop}'` }
}

/**
 * Judges one trial by the checks: each that does not hold is a failure naming its index, what
 * it asks for and what the trial did. A trial that failed as a whole (the model failed) fails
 * with that, whatever the checks. A check whose values cannot be read fails, saying so.
 */
export const evaluate = (checks: ReadonlyArray<Check>, run: Run<Ended>): Judged => {
  try {
    return evaluateRun(checks, run)
  } catch (error) {
    // A run whose result itself cannot be read (a getter that throws, a proxy): a failed trial.
    const why = error instanceof Error ? error.message : "unknown"
    return {
      passed: false,
      failures: [
        { expected: "a trial whose result can be read", seen: why, message: `the trial could not be judged (${why})` }
      ]
    }
  }
}

const evaluateRun = (checks: ReadonlyArray<Check>, run: Run<Ended>): Judged => {
  if (Result.isFailure(run.ended)) {
    const error = run.ended.failure
    let message: string
    try {
      message = String(error.message)
    } catch {
      message = "(a failure whose message cannot be read)"
    }
    return {
      passed: false,
      failures: [
        { expected: "a run that ends", seen: message, message: `the trial failed: ${message} (a failed trial)` }
      ]
    }
  }
  const result = run.ended.success
  const failures: Array<CheckFailure> = []
  for (const [i, check] of checks.entries()) {
    let failed: ReturnType<typeof judge>
    try {
      failed = judge(check, result, run.files)
    } catch (error) {
      const why = error instanceof Error ? error.message : "unknown"
      failed = { expected: "a run whose values can be read", seen: why, why: `the check could not be judged (${why})` }
    }
    if (failed === undefined) continue
    failures.push({
      check: i,
      expected: failed.expected,
      seen: failed.seen,
      message: `pass[${i}]: ${failed.why}\n  expected: ${failed.expected}\n  seen:     ${failed.seen}`
    })
  }
  return { passed: failures.length === 0, failures }
}

/**
 * A judged run's failures as a verdict's: each of kind `pass`, with the check's words (what it
 * asks for, what the run did, the whole explanation) as a live trial gives them.
 */
export const verdictFailures = (judged: Judged): ReadonlyArray<Verdict.Failure> =>
  judged.failures.map((f) => ({ kind: "pass", expected: f.expected, seen: f.seen, message: f.message }))
