/**
 * The difference between two plans, by step id: which steps were removed, added or revised
 * when the planner replaced a plan. A diff is plain data (three sorted id lists) with a Schema,
 * so it can travel in a `plan.diff` event and be compared in scenario files.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { dual } from "effect/Function"

/**
 * The least a step must have to be diffed: its id, its tool and its args. A planner's step,
 * with its expected outcome, result and error, satisfies it structurally.
 *
 * @since 0.1.0
 */
export interface DiffableStep {
  readonly id: number
  readonly tool_name: string
  readonly args: unknown
}

/**
 * The schema of a diff: `removed` (ids only in the old plan), `added` (ids only in the new plan)
 * and `revised` (ids in both, with another tool or other args), each sorted ascending.
 * Its encoded form is the JSON object `{"removed":[...],"added":[...],"revised":[...]}`.
 *
 * @since 0.1.0
 */
export const PlanDiff = Schema.Struct({
  removed: Schema.Array(Schema.Int),
  added: Schema.Array(Schema.Int),
  revised: Schema.Array(Schema.Int)
})

/**
 * A diff between two plans.
 *
 * @since 0.1.0
 */
export type PlanDiff = typeof PlanDiff.Type

const ascending = (a: number, b: number): number => a - b

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null

/**
 * Structural equality over JSON-like values, in time linear in the size of the two values.
 *
 * - Object key order does not matter; key sets must be equal, so `null` differs from a missing
 *   key (and a key holding `undefined` is present, so it differs from a missing key too).
 * - Array order matters, and an array never equals an object.
 * - Primitives are compared by `===` and type: `1` differs from `"1"`. `NaN` equals `NaN`
 *   and `0` equals `-0`, as they would after a JSON round trip.
 * - Other objects are compared by their own enumerable string keys. Values must be acyclic.
 *
 * The comparison uses an explicit stack, so deeply nested args cannot overflow the call stack.
 *
 * @since 0.1.0
 */
export const equalArgs = (a: unknown, b: unknown): boolean => {
  const left: Array<unknown> = [a]
  const right: Array<unknown> = [b]
  while (left.length > 0) {
    const x = left.pop()
    const y = right.pop()
    if (x === y) continue
    if (typeof x === "number" && typeof y === "number") {
      if (Number.isNaN(x) && Number.isNaN(y)) continue
      return false
    }
    if (!isRecord(x) || !isRecord(y)) return false
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) {
        left.push(x[i])
        right.push(y[i])
      }
      continue
    }
    // Same number of own keys and every key of `x` present in `y`: the key sets are equal,
    // checked in linear time without sorting.
    const keys = Object.keys(x)
    if (keys.length !== Object.keys(y).length) return false
    for (const key of keys) {
      if (!Object.hasOwn(y, key)) return false
      left.push(x[key])
      right.push(y[key])
    }
  }
  return true
}

/** Indexes a plan by step id; when an id occurs more than once, the last occurrence wins. */
const byId = <S extends DiffableStep>(plan: Iterable<S>): Map<number, S> => {
  const map = new Map<number, S>()
  for (const step of plan) map.set(step.id, step)
  return map
}

const sameStep = (a: DiffableStep, b: DiffableStep): boolean => a.tool_name === b.tool_name && equalArgs(a.args, b.args)

/**
 * Diffs two plans by step id: `removed` = ids only in `before`, `added` = ids only in `after`,
 * `revised` = ids in both whose `tool_name` differs or whose args differ by {@link equalArgs}.
 * Id lists are sorted ascending.
 *
 * Duplicate ids within one plan: the last occurrence of an id is the step that plan holds
 * under that id (earlier ones are ignored), as when a plan is read into a map.
 *
 * Runs in time linear in the size of both plans and their args (plus sorting the ids, which
 * is linear when the plans list their ids in ascending order).
 *
 * @since 0.1.0
 */
export const diff: {
  (after: Iterable<DiffableStep>): (before: Iterable<DiffableStep>) => PlanDiff
  (before: Iterable<DiffableStep>, after: Iterable<DiffableStep>): PlanDiff
} = dual(2, (before: Iterable<DiffableStep>, after: Iterable<DiffableStep>): PlanDiff => {
  const old = byId(before)
  const next = byId(after)
  const removed: Array<number> = []
  const added: Array<number> = []
  const revised: Array<number> = []
  for (const [id, step] of old) {
    const other = next.get(id)
    if (other === undefined) removed.push(id)
    else if (!sameStep(step, other)) revised.push(id)
  }
  for (const id of next.keys()) {
    if (!old.has(id)) added.push(id)
  }
  return { removed: removed.sort(ascending), added: added.sort(ascending), revised: revised.sort(ascending) }
})

/**
 * Whether the diff records no change at all.
 *
 * @since 0.1.0
 */
export const isEmpty = (self: PlanDiff): boolean =>
  self.removed.length === 0 && self.added.length === 0 && self.revised.length === 0
