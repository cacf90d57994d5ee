/**
 * A plan step (the plan-and-execute idea): an id, the tool and its arguments, the planner's stated success
 * condition, and — once executed — its result or error. A plan is an ordered list of steps;
 * consecutive steps with the same `group` are independent and run concurrently.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * A step, as JSON.
 *
 * @since 0.1.0
 */
export const Step: Schema.Struct<{
  readonly id: Schema.Int
  readonly tool_name: Schema.String
  readonly args: Schema.$Record<Schema.String, Schema.Unknown>
  readonly expected_outcome: Schema.String
  readonly group: Schema.optionalKey<Schema.String>
  readonly result: Schema.optionalKey<Schema.NullOr<Schema.String>>
  readonly error: Schema.optionalKey<Schema.NullOr<Schema.String>>
}> = Schema.Struct({
  /** Unique within a plan; monotonic within a revision. */
  id: Schema.Int,
  tool_name: Schema.String,
  args: Schema.Record(Schema.String, Schema.Unknown),
  /** A short sentence: what the step is supposed to achieve. Not enforced; shown and replanned on. */
  expected_outcome: Schema.String,
  /** Consecutive steps with the same group run concurrently. */
  group: Schema.optionalKey(Schema.String),
  /** The observation of a step that succeeded. */
  result: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** The observation of a step that failed. */
  error: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** A step, as JSON. @since 0.1.0 */
export type Step = typeof Step.Type

/**
 * A plan: the steps to run, in order.
 *
 * @since 0.1.0
 */
export const Plan: Schema.$Array<typeof Step> = Schema.Array(Step)

/** A plan: the steps to run, in order. @since 0.1.0 */
export type Plan = typeof Plan.Type

/**
 * A step to plan (without result or error).
 *
 * @since 0.1.0
 */
export const make = (
  id: number,
  toolName: string,
  args: Readonly<Record<string, unknown>>,
  expectedOutcome: string,
  group?: string
): Step => ({
  id,
  tool_name: toolName,
  args,
  expected_outcome: expectedOutcome,
  ...(group === undefined ? {} : { group })
})

/**
 * Why a plan is not a valid plan (duplicate ids), or `undefined`.
 *
 * @since 0.1.0
 */
export const problem = (plan: Plan): string | undefined => {
  const seen = new Set<number>()
  for (const step of plan) {
    if (seen.has(step.id)) return `step id ${step.id} appears twice in the plan`
    seen.add(step.id)
  }
  return undefined
}

/**
 * The plan split into runs: a lone step, or consecutive steps sharing a group.
 *
 * @since 0.1.0
 */
export const runs = (plan: Plan): ReadonlyArray<ReadonlyArray<Step>> => {
  const out: Array<Array<Step>> = []
  for (const step of plan) {
    const last = out[out.length - 1]
    const first = last?.[0]
    if (last !== undefined && step.group !== undefined && first?.group === step.group) last.push(step)
    else out.push([step])
  }
  return out
}
