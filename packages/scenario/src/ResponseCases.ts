/**
 * Runs a `response-cases` scenario: every case's tool response through the variant's
 * response parser (with the file's contract fields), and what it made of it compared with the
 * case's `expected`, written from the contract. Every case runs and counts, reserved ones
 * included; the scenario passes only when all of them do.
 *
 * @since 0.1.0
 */
import type { ResponseContract } from "@agent-harness/tool-schema"
import { Effect, Predicate } from "effect"
import type * as ScenarioFile from "./ScenarioFile.ts"
import * as Variant from "./Variant.ts"
import * as Verdict from "./Verdict.ts"

/**
 * A JSON value with every object's keys sorted and undefined fields dropped, so that two values
 * that differ only in key order compare equal.
 *
 * @since 0.1.0
 */
export const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : canonical(v)))
  if (Predicate.isObject(value)) {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) {
      const v = value[key]
      if (v !== undefined) out[key] = canonical(v)
    }
    return out
  }
  return value
}

/**
 * Whether two JSON values are equal, whatever the order of their keys.
 *
 * @since 0.1.0
 */
export const sameJson = (a: unknown, b: unknown): boolean =>
  JSON.stringify(canonical(a)) === JSON.stringify(canonical(b))

/**
 * A value as one line of JSON (`undefined` when there is nothing).
 *
 * @since 0.1.0
 */
export const show = (value: unknown): string => JSON.stringify(value) ?? "undefined"

/**
 * The envelope fields a file's `contract` names (the defaults for the fields it leaves out).
 *
 * @since 0.1.0
 */
export const fields = (contract: ScenarioFile.ResponseCasesFile["contract"]): Partial<ResponseContract.Fields> => ({
  ...(contract?.status === undefined ? {} : { status: contract.status }),
  ...(contract?.ok === undefined ? {} : { ok: contract.ok }),
  ...(contract?.error_code === undefined ? {} : { errorCode: contract.error_code }),
  ...(contract?.content === undefined ? {} : { content: contract.content })
})

/**
 * One case under a parser.
 *
 * @since 0.1.0
 */
export const runCase = (parser: ResponseContract.Parser, c: ScenarioFile.Case): Verdict.CaseVerdict => {
  let seen: unknown
  try {
    seen = parser(c.response)
  } catch (error) {
    seen = `the parser threw: ${error instanceof Error ? error.message : String(error)}`
  }
  return {
    id: c.id,
    role: c.role,
    ...(c.purpose === undefined ? {} : { purpose: c.purpose }),
    passed: sameJson(c.expected, seen),
    expected: c.expected,
    seen
  }
}

/**
 * The failure of a case that did not pass.
 *
 * @since 0.1.0
 */
export const failure = (c: Verdict.CaseVerdict): Verdict.Failure => ({
  kind: "case",
  case_id: c.id,
  expected: show(c.expected),
  seen: show(c.seen),
  message: `case ${c.id} (${c.role}): the parser's reading differs\n  expected: ${show(c.expected)}\n  seen:     ${show(c.seen)}`
})

/**
 * Runs every case under a variant (default `fixed`). Never fails.
 *
 * @since 0.1.0
 */
export const run = (
  scenario: ScenarioFile.ResponseCases,
  file: string,
  options?: { readonly variant?: Variant.Variant | undefined }
): Effect.Effect<Verdict.Verdict<Verdict.CasesOutcome>> =>
  Effect.sync(() => {
    const variant = options?.variant ?? Variant.defaultVariant
    const parser = variant.parser(fields(scenario.file.contract))
    const cases = scenario.file.cases.map((c) => runCase(parser, c))
    const failures = cases.filter((c) => !c.passed).map(failure)
    return Verdict.make(scenario, file, variant.name, { cases }, failures)
  })
