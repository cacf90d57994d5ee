/**
 * A plan file's steps in today's spelling: a step names its tool `tool_name` (as a plan step does
 * everywhere else, and as the plan-and-execute idea writes it); files written before that say
 * `tool`, which still reads. Run before the Schema, so the Schema knows one spelling and its
 * problems keep their paths.
 */
import { Predicate, Result } from "effect"
import type { Problem } from "./checks.ts"

/** A step's tool under its old key, in files written before `tool_name`. */
export const oldKey = "tool"

/** A step's tool under its one key. */
export const key = "tool_name"

const isPlain = (u: unknown): u is Record<string, unknown> => {
  if (!Predicate.isObject(u) || Array.isArray(u)) return false
  const prototype: unknown = Object.getPrototypeOf(u)
  return prototype === Object.prototype || prototype === null
}

/** The step with `tool` renamed `tool_name` in its place; the step itself when it has no `tool`. */
const renamed = (path: string, step: unknown): Result.Result<unknown, Problem> => {
  if (!isPlain(step) || !Object.hasOwn(step, oldKey)) return Result.succeed(step)
  if (Object.hasOwn(step, key)) {
    return Result.fail({
      path: `${path}.${oldKey}`,
      problem: `a step names its tool once: "${key}" (its old spelling "${oldKey}" also reads, but not both)`
    })
  }
  const tool = step[oldKey]
  if (typeof tool !== "string") {
    // Said at the file's own spelling, in the Schema's words.
    return Result.fail({ path: `${path}.${oldKey}`, problem: `expected string, got ${JSON.stringify(tool)}` })
  }
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(step)) out[k === oldKey ? key : k] = step[k]
  return Result.succeed(out)
}

/**
 * The plan file `json` with every step's `tool` spelt `tool_name`, or the problem of a step that
 * has both. A value that is not shaped like a plan file comes back as it is (the Schema says
 * what is wrong with it); so does one whose fields cannot be read.
 */
export const normalize = (json: object): Result.Result<unknown, Problem> => {
  try {
    const planner = "planner" in json ? json.planner : undefined
    if (!Array.isArray(planner)) return Result.succeed(json)
    let changed = false
    const rules: Array<unknown> = []
    for (const [r, rule] of planner.entries()) {
      const plan: unknown = isPlain(rule) ? rule.plan : undefined
      if (!isPlain(rule) || !Array.isArray(plan)) {
        rules.push(rule)
        continue
      }
      const steps: Array<unknown> = []
      for (const [i, step] of plan.entries()) {
        const next = renamed(`planner[${r}].plan[${i}]`, step)
        if (Result.isFailure(next)) return next
        if (next.success !== step) changed = true
        steps.push(next.success)
      }
      rules.push({ ...rule, plan: steps })
    }
    return Result.succeed(changed ? { ...json, planner: rules } : json)
  } catch {
    return Result.succeed(json)
  }
}
