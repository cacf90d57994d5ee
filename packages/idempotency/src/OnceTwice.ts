/**
 * The once-vs-twice check of the errors-as-observations idea's second cell: run a call once on one fresh copy of an
 * environment and twice on another, and compare. A call is idempotent when both copies end in
 * the same state. Use it to verify a tool's declared annotation: a tool declared idempotent that
 * is not fails the check with the state that differs.
 *
 * @since 0.1.0
 */
import { Execute, type Outcome } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { type Cause, type Context, Effect, Predicate, Schema } from "effect"
import { equalState } from "./internal/equalState.ts"

/**
 * How to get a fresh copy of an environment: the services its tools need, and how to read its
 * state.
 *
 * @since 0.1.0
 */
export interface Environment<S, R> {
  /** A fresh copy: the services its tools run with, and how to read its state. */
  readonly fresh: Effect.Effect<{ readonly context: Context.Context<R>; readonly state: Effect.Effect<S> }>
}

/**
 * One key of the state that differs between once and twice.
 *
 * @since 0.1.0
 */
export interface Difference {
  /** The key (a path, for file environments), or `(state)` when the state is not a record. */
  readonly key: string
  /** Its value after one run (`undefined` when absent). */
  readonly once: unknown
  /** Its value after two runs (`undefined` when absent). */
  readonly twice: unknown
}

/**
 * What the check found.
 *
 * @since 0.1.0
 */
export interface Report<S> {
  /** The tool's name. */
  readonly tool: string
  /** The call's input. */
  readonly input: unknown
  /** What running twice showed. */
  readonly idempotent: boolean
  /** What the tool's annotations say (read-only counts as idempotent). */
  readonly declared: boolean
  /** The state of the copy the call ran on once. */
  readonly once: S
  /** The state of the copy the call ran on twice. */
  readonly twice: S
  /** The keys that differ (none when the call is idempotent). */
  readonly differences: ReadonlyArray<Difference>
  /** The outcomes: the single run, then the two runs of the second copy. */
  readonly outcomes: readonly [Outcome.Outcome, Outcome.Outcome, Outcome.Outcome]
}

/** The key of the one difference of states that are not records. */
const stateKey = "(state)"

/** A value in a message: JSON, or `absent` for a key one of the states does not have. */
const show = (value: unknown): string => {
  if (value === undefined) return "absent"
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

const NotIdempotentBase: Schema.Class<
  NotIdempotent,
  Schema.TaggedStruct<
    "NotIdempotent",
    {
      readonly tool: Schema.String
      readonly input: Schema.Unknown
      readonly differences: Schema.$Array<
        Schema.Struct<{ readonly key: Schema.String; readonly once: Schema.Unknown; readonly twice: Schema.Unknown }>
      >
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<NotIdempotent>()("NotIdempotent", {
  tool: Schema.String,
  input: Schema.Unknown,
  differences: Schema.Array(Schema.Struct({ key: Schema.String, once: Schema.Unknown, twice: Schema.Unknown }))
})

/**
 * A tool declared idempotent that is not.
 *
 * @since 0.1.0
 */
export class NotIdempotent extends NotIdempotentBase {
  /** The tool, the input, and each key whose state differs once and twice. */
  override get message(): string {
    const shown = this.differences
      .map(
        (d) => `${d.key === stateKey ? "the state" : `'${d.key}'`} is ${show(d.once)} once and ${show(d.twice)} twice`
      )
      .join("; ")
    return `tool '${this.tool}' is declared idempotent, but running it twice with ${show(this.input)} leaves a different state than running it once: ${shown}`
  }
}

/**
 * The keys whose values differ between two states (structurally; key order does not matter).
 *
 * @since 0.1.0
 */
export const differences = (once: unknown, twice: unknown): ReadonlyArray<Difference> => {
  if (!Predicate.isObject(once) || !Predicate.isObject(twice)) {
    return equalState(once, twice) ? [] : [{ key: stateKey, once, twice }]
  }
  const keys = [...new Set([...Object.keys(once), ...Object.keys(twice)])].sort()
  return keys.flatMap((key) =>
    key in once && key in twice && equalState(once[key], twice[key])
      ? []
      : [{ key, once: once[key], twice: twice[key] }]
  )
}

/**
 * Runs `input` through `tool` once on a fresh environment and twice on another, and reports.
 *
 * @since 0.1.0
 */
export const check = <T extends Tool.Any, S>(
  tool: T,
  input: unknown,
  environment: Environment<S, Tool.Services<T>>
): Effect.Effect<Report<S>> =>
  Effect.gen(function* () {
    const toolset = Toolset.make(tool)
    const call = (id: string) => Execute.execute(toolset, { id, name: tool.name, input })
    const one = yield* environment.fresh
    const first = yield* Effect.provide(call("once"), one.context)
    const two = yield* environment.fresh
    const second = yield* Effect.provide(call("twice-1"), two.context)
    const third = yield* Effect.provide(call("twice-2"), two.context)
    const once = yield* one.state
    const twice = yield* two.state
    const diff = differences(once, twice)
    return {
      tool: tool.name,
      input,
      idempotent: diff.length === 0,
      declared: Tool.isIdempotent(tool),
      once,
      twice,
      differences: diff,
      outcomes: [first, second, third] as const
    }
  })

/**
 * The check, failing when the tool is declared idempotent and running twice says otherwise. A
 * tool not declared idempotent passes either way (declaring less than is true is safe).
 *
 * @since 0.1.0
 */
export const verify = <T extends Tool.Any, S>(
  tool: T,
  input: unknown,
  environment: Environment<S, Tool.Services<T>>
): Effect.Effect<Report<S>, NotIdempotent> =>
  Effect.filterOrFail(
    check(tool, input, environment),
    (report) => !report.declared || report.idempotent,
    (report) => new NotIdempotent({ tool: report.tool, input, differences: report.differences })
  )
