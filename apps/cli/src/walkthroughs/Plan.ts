/**
 * `harness demo plan`: the plan-and-execute idea's paths for a person — each plan, each step and
 * failure, each revision's diff drawn (removed struck through, added highlighted), and the
 * final SessionResult — played from the shipped plan scenarios and judged by them.
 *
 * @since 0.1.0
 */
import { Render } from "@agent-harness/diff"
import type { Event, Step } from "@agent-harness/planner"
import { PlanScenario, Report, type ScenarioFile } from "@agent-harness/scenario"
import { Console, Effect, type FileSystem } from "effect"
import * as ExitCode from "../common/ExitCode.ts"
import * as Style from "../printing/Style.ts"
import * as Package from "../common/Package.ts"
import * as Shipped from "./Shipped.ts"

/**
 * The paths the walkthrough shows, in order: shipped scenario files under `scenarios/plan/`.
 *
 * @since 0.1.0
 */
export const paths = [
  "linear-success",
  "replan-once",
  "replan-twice",
  "replan-exhaustion",
  "step-budget",
  "exact-budget",
  "exact-budget-plus-one",
  "no-plan",
  "abort",
  "skip",
  "parallel-group",
  "parallel-group-replan"
] as const

/** @since 0.1.0 */
export const planFile = (name: string): string => Package.file(`scenarios/plan/${name}.json`)

const args = (value: unknown): string => JSON.stringify(value)

const stepLine = (step: Step.Step): string =>
  `${String(step.id).padStart(3)} ${step.tool_name} ${args(step.args)}${step.group === undefined ? "" : `  [group ${step.group}]`}  → ${step.expected_outcome}`

/**
 * What the walkthrough remembers between events: the current plan, the steps left of it from
 * the first failure (what a revision is compared with), and a diff waiting for its new plan.
 */
interface Memory {
  plan: Step.Plan
  remaining: Step.Plan | undefined
  diff: Extract<Event.Event, { readonly type: "plan.diff" }> | undefined
}

/**
 * The lines that show one event to a person. A `plan.diff` is drawn with the plan that follows
 * it (`plan.created`), old steps struck through and new ones highlighted.
 *
 * @since 0.1.0
 */
const lines = (event: Event.Event, memory: Memory, style: Report.Style, color: boolean): ReadonlyArray<string> => {
  switch (event.type) {
    case "plan.created": {
      const diff = memory.diff
      const drawn =
        diff === undefined
          ? []
          : [
              style.dim(`replan ${diff.revision} after: ${diff.last_error}`),
              `diff ${Render.json(diff.diff)}:`,
              Render.render(diff.diff, memory.remaining ?? [], event.plan, { color })
            ]
      memory.plan = event.plan
      memory.remaining = undefined
      memory.diff = undefined
      return [...drawn, style.dim(`plan, revision ${event.revision}:`), ...event.plan.map(stepLine)]
    }
    case "plan.diff":
      memory.diff = event
      return []
    case "step.started":
      return [`  run  ${event.step.id} ${event.step.tool_name}`]
    case "step.succeeded":
      return [`  ${style.pass("ok")}   ${event.id}: ${event.result}`]
    case "step.failed":
      if (memory.remaining === undefined)
        memory.remaining = memory.plan.slice(memory.plan.findIndex((s) => s.id === event.id))
      return [`  ${style.fail("fail")} ${event.id}: ${event.error}${event.not_executed ? style.dim(" (not run)") : ""}`]
    case "step.cached":
      return [`  ${style.dim("kept")} ${event.id}: ${event.result} ${style.dim("(already succeeded; not run again)")}`]
    case "plan.rejected":
      return [`${style.fail("plan refused")} (${event.reason}): ${event.detail}`, ...event.plan.map(stepLine)]
    case "spend.settled":
      return [
        style.dim(
          `  spent ${event.spent.input_tokens + event.spent.output_tokens} tokens${event.spent.cost > 0 ? ` ($${event.spent.cost.toFixed(4)})` : ""} planning revision ${event.revision}`
        )
      ]
    case "spend.refused":
      return [
        `${style.fail(event.reason)}: the planner's call for revision ${event.revision} needs up to ${event.requested} more ${event.kind === "cost" ? "USD" : event.kind.replace("_", " ")}, ${event.committed} of ${event.limit} spent or reserved`
      ]
    case "session.finished":
      return [`${event.status === "completed" ? style.pass(event.status) : style.fail(event.status)}: ${event.reason}`]
  }
}

/**
 * Walks through one plan scenario.
 *
 * @since 0.1.0
 */
export const walkthrough = (scenario: ScenarioFile.Plan, file: string) =>
  Effect.gen(function* () {
    const style = Style.current()
    const color = Style.useColor()
    const memory: Memory = { plan: [], remaining: undefined, diff: undefined }
    const spec = scenario.file
    yield* Console.log(style.dim(`=== ${scenario.name}`))
    yield* Console.log(
      `goal: ${spec.goal} · on failure: ${spec.onFailure ?? "replan"} · max_steps ${spec.budgets.maxSteps}, max_replans ${spec.budgets.maxReplans}`
    )
    const onEvent = (event: Event.Event) =>
      Effect.forEach(lines(event, memory, style, color), (line) => Console.log(line), { discard: true })
    const verdict = yield* PlanScenario.run(scenario, file, { onEvent })
    const o = verdict.outcome
    const result = {
      status: o.status,
      reason: o.reason,
      executed: o.executed,
      revisions: o.revisions,
      steps: o.steps,
      replans: o.replans
    }
    yield* Console.log(`${style.dim("SessionResult:")} ${JSON.stringify(result)}`)
    yield* Console.log(Report.verdict(verdict, style))
    yield* Console.log("")
    return verdict
  })

/**
 * Every path, one after another; exit 1 if any scenario's expectations fail.
 *
 * @since 0.1.0
 */
export const plan: Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> = Effect.gen(function* () {
  let failed = 0
  for (const name of paths) {
    const file = planFile(name)
    const scenario = yield* Shipped.load(file, "plan")
    const verdict = yield* walkthrough(scenario, file)
    if (!verdict.passed) failed++
  }
  if (failed > 0) return yield* ExitCode.failed
})
