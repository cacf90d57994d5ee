/**
 * The deterministic planner of `kind: plan` scenarios: rules tried in order,
 * the first whose `when` matches the last error wins; no rule gives the empty plan.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { Planner } from "./Planner.ts"
import type { Plan } from "./Step.ts"

/**
 * `null` matches only "no error yet"; a string matches as a substring of the last error; a
 * `RegExp` matches it as a pattern.
 *
 * @since 0.1.0
 */
export type When = null | string | RegExp

/**
 * One rule.
 *
 * @since 0.1.0
 */
export interface Rule {
  /** Which last error it answers. */
  readonly when: When
  /** The plan it proposes then. */
  readonly plan: Plan
}

/**
 * Whether a rule applies to the last error.
 *
 * @since 0.1.0
 */
export const matches = (when: When, lastError: string | null): boolean => {
  if (when === null) return lastError === null
  if (lastError === null) return false
  return typeof when === "string" ? lastError.includes(when) : lastError.search(when) !== -1
}

/**
 * A rule planner.
 *
 * @since 0.1.0
 */
export const make =
  (rules: ReadonlyArray<Rule>): Planner =>
  (request) =>
    Effect.succeed(rules.find((rule) => matches(rule.when, request.lastError))?.plan ?? [])
