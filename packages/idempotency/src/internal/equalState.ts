/**
 * Structural equality of two states, as the once-vs-twice check compares them. The same rules as
 * a JSON round trip would give:
 *
 * - Object key order does not matter; key sets must be equal, so `null` differs from a missing
 *   key, and a key holding `undefined` is present, so it differs from a missing key too.
 * - Array order matters, and an array never equals an object.
 * - Primitives are compared by `===` and type (`1` differs from `"1"`); `NaN` equals `NaN` and
 *   `0` equals `-0`.
 * - Other objects (a `Date`, a `Map`) are compared by their own enumerable string keys.
 *
 * It walks an explicit stack, so deeply nested states cannot overflow the call stack, and it
 * remembers the pairs it is comparing, so a cycle ends instead of looping.
 */
import { Predicate } from "effect"

const sameLeaf = (u: unknown, v: unknown): boolean =>
  u === v || (typeof u === "number" && typeof v === "number" && Number.isNaN(u) && Number.isNaN(v))

/** Whether `a` and `b` are structurally equal (see the module's rules). */
export const equalState = (a: unknown, b: unknown): boolean => {
  const left: Array<unknown> = [a]
  const right: Array<unknown> = [b]
  const seen = new Map<object, Set<object>>()
  while (left.length > 0) {
    const x = left.pop()
    const y = right.pop()
    if (sameLeaf(x, y)) continue
    if (!Predicate.isObjectOrArray(x) || !Predicate.isObjectOrArray(y)) return false
    const pairs = seen.get(x)
    if (pairs?.has(y)) continue
    if (pairs === undefined) seen.set(x, new Set([y]))
    else pairs.add(y)
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) {
        left.push(x[i])
        right.push(y[i])
      }
      continue
    }
    // Every own key of `x` present in `y`, and as many own keys in `y`: the key sets are equal.
    let count = 0
    for (const key in x) {
      if (!Object.hasOwn(x, key)) continue
      count++
      if (!Object.hasOwn(y, key)) return false
      left.push(x[key])
      right.push(y[key])
    }
    for (const key in y) {
      if (Object.hasOwn(y, key)) count--
    }
    if (count !== 0) return false
  }
  return true
}
