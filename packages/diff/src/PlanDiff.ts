/**
 * The difference between two plans, by step id: which steps were removed, added or revised
 * when the planner replaced a plan. A diff is plain data (three sorted id lists) with a Schema,
 * so it can travel in a `plan.diff` event and be compared in scenario files.
 *
 * @since 0.1.0
 */
import { Predicate, Schema } from "effect"
import { dual } from "effect/Function"

/**
 * The least a step must have to be diffed: its id, its tool and its args. A planner's step,
 * with its expected outcome, result and error, satisfies it structurally.
 *
 * @since 0.1.0
 */
export interface DiffableStep {
  /** The step's id in its plan: steps of two plans are matched by it. */
  readonly id: number
  /** The tool the step calls; another tool makes the step revised. */
  readonly tool_name: string
  /** The step's arguments, compared structurally (key order does not matter). */
  readonly args: unknown
}

/**
 * The schema of a diff: `removed` (ids only in the old plan), `added` (ids only in the new plan)
 * and `revised` (ids in both, with another tool or other args), each sorted ascending.
 * Its encoded form is the JSON object `{"removed":[...],"added":[...],"revised":[...]}`.
 *
 * @since 0.1.0
 */
export const PlanDiff: Schema.Struct<{
  readonly removed: Schema.$Array<Schema.Int>
  readonly added: Schema.$Array<Schema.Int>
  readonly revised: Schema.$Array<Schema.Int>
}> = Schema.Struct({
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
export const equalArgs = (a: unknown, b: unknown): boolean => equalAt(a, b, 0)

/** Nesting compared by recursion, without allocating; deeper values go to the explicit stack. */
const maxRecursion = 32

const equalAt = (x: unknown, y: unknown, depth: number): boolean => {
  if (x === y) return true
  if (typeof x === "number" && typeof y === "number") return Number.isNaN(x) && Number.isNaN(y)
  if (!Predicate.isObjectOrArray(x) || !Predicate.isObjectOrArray(y)) return false
  if (depth >= maxRecursion) return equalDeep(x, y)
  if (Array.isArray(x) || Array.isArray(y)) {
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false
    for (let i = 0; i < x.length; i++) {
      if (!equalAt(x[i], y[i], depth + 1)) return false
    }
    return true
  }
  // Every own key of `x` present in `y`, and as many own keys in `y`: the key sets are equal,
  // checked in linear time without sorting (and without allocating key lists).
  let count = 0
  for (const key in x) {
    if (!hasOwn(x, key)) continue
    count++
    if (!hasOwn(y, key) || !equalAt(x[key], y[key], depth + 1)) return false
  }
  for (const key in y) {
    if (hasOwn(y, key)) count--
  }
  return count === 0
}

/** The same comparison over an explicit stack, for values nested deeper than `maxRecursion`. */
const equalDeep = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  // The stacks are only allocated for nested objects and arrays: flat args compare in place.
  let left: Array<unknown> | undefined
  let right: Array<unknown> | undefined
  let x: unknown = a
  let y: unknown = b
  while (true) {
    if (x !== y) {
      if (typeof x === "number" && typeof y === "number") {
        if (!(Number.isNaN(x) && Number.isNaN(y))) return false
      } else if (!Predicate.isObjectOrArray(x) || !Predicate.isObjectOrArray(y)) {
        return false
      } else if (Array.isArray(x) || Array.isArray(y)) {
        if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false
        for (let i = 0; i < x.length; i++) {
          const u: unknown = x[i]
          const v: unknown = y[i]
          if (u === v || sameLeaf(u, v)) continue
          if (!Predicate.isObjectOrArray(u) || !Predicate.isObjectOrArray(v)) return false
          left ??= []
          right ??= []
          left.push(u)
          right.push(v)
        }
      } else {
        // Every own key of `x` present in `y`, and as many own keys in `y`: the key sets are
        // equal, checked in linear time without sorting (and without allocating key lists).
        let count = 0
        for (const key in x) {
          if (!hasOwn(x, key)) continue
          count++
          if (!hasOwn(y, key)) return false
          const u = x[key]
          const v = y[key]
          if (u === v || sameLeaf(u, v)) continue
          if (!Predicate.isObjectOrArray(u) || !Predicate.isObjectOrArray(v)) return false
          left ??= []
          right ??= []
          left.push(u)
          right.push(v)
        }
        for (const key in y) {
          if (hasOwn(y, key)) count--
        }
        if (count !== 0) return false
      }
    }
    if (left === undefined || right === undefined || left.length === 0) return true
    x = left.pop()
    y = right.pop()
  }
}

const hasOwn = Object.hasOwn

/** Two values that are not `===` but equal as leaves: only NaN and NaN. */
const sameLeaf = (u: unknown, v: unknown): boolean =>
  typeof u === "number" && typeof v === "number" && Number.isNaN(u) && Number.isNaN(v)

/** Indexes a plan by step id; when an id occurs more than once, the last occurrence wins. */
const byId = <S extends DiffableStep>(plan: ReadonlyArray<S>): Map<number, S> => {
  const map = new Map<number, S>()
  for (const step of plan) map.set(step.id, step)
  return map
}

const sameStep = (a: DiffableStep, b: DiffableStep): boolean => a.tool_name === b.tool_name && equalArgs(a.args, b.args)

/**
 * The diff of two plans that both list their steps by strictly increasing finite id (the usual
 * case: each id once, in order), walked side by side; `undefined` as soon as either plan is not.
 */
const mergeSorted = (before: ReadonlyArray<DiffableStep>, after: ReadonlyArray<DiffableStep>): PlanDiff | undefined => {
  const removed: Array<number> = []
  const added: Array<number> = []
  const revised: Array<number> = []
  let i = 0
  let j = 0
  let lastX = Number.NEGATIVE_INFINITY
  let lastY = Number.NEGATIVE_INFINITY
  while (i < before.length || j < after.length) {
    const x = before[i]
    const y = after[j]
    if (x !== undefined && !(x.id > lastX && x.id < Number.POSITIVE_INFINITY)) return undefined
    if (y !== undefined && !(y.id > lastY && y.id < Number.POSITIVE_INFINITY)) return undefined
    // `+ 0` turns -0 into 0, as a Map key would.
    if (y === undefined || (x !== undefined && x.id < y.id)) {
      const step = x as DiffableStep
      removed.push(step.id + 0)
      lastX = step.id
      i++
    } else if (x === undefined || y.id < x.id) {
      added.push(y.id + 0)
      lastY = y.id
      j++
    } else {
      if (!sameStep(x, y)) revised.push(x.id + 0)
      lastX = x.id
      lastY = y.id
      i++
      j++
    }
  }
  return { removed, added, revised }
}

const diffImpl = (before: Iterable<DiffableStep>, after: Iterable<DiffableStep>): PlanDiff => {
  const old = Array.isArray(before) ? (before as ReadonlyArray<DiffableStep>) : Array.from(before)
  const next = Array.isArray(after) ? (after as ReadonlyArray<DiffableStep>) : Array.from(after)
  const sorted = mergeSorted(old, next)
  if (sorted !== undefined) return sorted
  const removed: Array<number> = []
  const added: Array<number> = []
  const revised: Array<number> = []
  const oldById = byId(old)
  const nextById = byId(next)
  for (const [id, step] of oldById) {
    const other = nextById.get(id)
    if (other === undefined) removed.push(id)
    else if (!sameStep(step, other)) revised.push(id)
  }
  for (const id of nextById.keys()) {
    if (!oldById.has(id)) added.push(id)
  }
  return { removed: removed.sort(ascending), added: added.sort(ascending), revised: revised.sort(ascending) }
}

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
} = dual(2, diffImpl)

/**
 * Whether the diff records no change at all.
 *
 * @since 0.1.0
 */
export const isEmpty = (self: PlanDiff): boolean =>
  self.removed.length === 0 && self.added.length === 0 && self.revised.length === 0
