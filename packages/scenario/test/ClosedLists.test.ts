/**
 * The scenario files and verdicts decode their closed lists through the one Schema each list
 * has: the loop's `StopReason` (a conversation's `outcome.stop`, a verdict's stop), the
 * planner's `SessionResult.Status`/`Reason` (a plan's `expect`). The words each field takes,
 * and the message for a word it does not take, are what they were.
 */
import { StopReason } from "@agent-harness/executor"
import { SessionResult } from "@agent-harness/planner"
import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { ScenarioFile, Verdict } from "../src/index.ts"

const problem = (result: Result.Result<unknown, Schema.SchemaError>): string =>
  Result.isFailure(result) ? result.failure.message : "(decoded)"

describe("a conversation's outcome.stop", () => {
  it("takes the loop's stop reasons a scenario can reach (no clock, no spend; a window with compaction)", () => {
    const stop = ScenarioFile.ConversationFile.fields.outcome.fields.stop
    assert.deepStrictEqual(stop.literals, ["end", "turn_cap", "context_window", "repeated_call"])
    for (const word of stop.literals) assert.isTrue(StopReason.is(word))
    assert.strictEqual(
      problem(Schema.decodeUnknownResult(stop)("time_budget", { reportInput: true })),
      `Expected "end" | "turn_cap" | "context_window" | "repeated_call", got "time_budget"`
    )
  })
})

describe("Verdict.Stop", () => {
  it("is every stop reason, and diverged", () => {
    assert.deepStrictEqual(Verdict.Stop.literals, [...StopReason.StopReason.literals, "diverged"])
    assert.isTrue(Schema.is(Verdict.Stop)("diverged"))
    assert.strictEqual(
      problem(Schema.decodeUnknownResult(Verdict.Stop)("finished", { reportInput: true })),
      `Expected "end" | "turn_cap" | "time_budget" | "token_budget" | "cost_budget" | "context_window" | "repeated_call" | "interrupted" | "diverged", got "finished"`
    )
  })
})

describe("a plan's expect", () => {
  it("takes the session's statuses and reasons, in the order its message has always named them", () => {
    const { status, reason } = ScenarioFile.PlanFile.fields.expect.fields
    assert.strictEqual(status, SessionResult.Status)
    // All but the spend's: a plan file's planner is a rule planner, it makes no model call to pay for.
    assert.sameMembers(
      [...reason.literals],
      SessionResult.Reason.literals.filter((r) => r !== "token_budget" && r !== "cost_budget")
    )
    assert.strictEqual(
      problem(Schema.decodeUnknownResult(reason)("done", { reportInput: true })),
      `Expected "goal_met" | "step_budget" | "replan_budget" | "no_plan" | "aborted" | "partial", got "done"`
    )
  })
})
