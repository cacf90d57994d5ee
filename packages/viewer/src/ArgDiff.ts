/**
 * The argument diff of a revised step: every JSON path where the old and the new args differ,
 * with the value on each side (a key only on one side has the other absent). Objects are
 * compared key by key and arrays index by index; anything else, or values of different kinds,
 * is one change at its path.
 *
 * @since 0.1.0
 */
import { PlanDiff } from "@agent-harness/diff"
import { ScenarioFile } from "@agent-harness/scenario"
import * as Lines from "./Lines.ts"
import type * as Model from "./Model.ts"

const at = (path: ReadonlyArray<string | number>): string =>
  path.length === 0 ? "(args)" : ScenarioFile.pathText(path)

/**
 * The changes from `before` to `after`, in key order (the old keys first, then the new ones).
 *
 * @since 0.1.0
 */
export const changes = (before: Model.Json, after: Model.Json): ReadonlyArray<Model.ArgChange> => {
  const out: Array<Model.ArgChange> = []
  const walk = (a: Model.Json, b: Model.Json, path: ReadonlyArray<string | number>): void => {
    if (PlanDiff.equalArgs(a, b)) return
    if (Array.isArray(a) && Array.isArray(b)) {
      const left: ReadonlyArray<Model.Json> = a
      const right: ReadonlyArray<Model.Json> = b
      for (let i = 0; i < Math.max(left.length, right.length); i++) {
        if (i >= right.length) out.push({ path: at([...path, i]), before: left[i] ?? null })
        else if (i >= left.length) out.push({ path: at([...path, i]), after: right[i] ?? null })
        else walk(left[i] ?? null, right[i] ?? null, [...path, i])
      }
      return
    }
    if (Lines.isObject(a) && Lines.isObject(b)) {
      for (const key of Object.keys(a)) {
        const value = a[key] ?? null
        if (Object.hasOwn(b, key)) walk(value, b[key] ?? null, [...path, key])
        else out.push({ path: at([...path, key]), before: value })
      }
      for (const key of Object.keys(b)) {
        if (!Object.hasOwn(a, key)) out.push({ path: at([...path, key]), after: b[key] ?? null })
      }
      return
    }
    out.push({ path: at(path), before: a, after: b })
  }
  walk(before, after, [])
  return out
}
