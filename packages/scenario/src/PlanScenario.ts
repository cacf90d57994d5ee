/**
 * Runs a `plan` scenario: the English file tools over its files plus its scripted tools, its
 * rule planner, through the real session state machine; then the session compared with the
 * file's `expect`.
 *
 * @since 0.1.0
 */
import { Files, FileTools } from "@agent-harness/file-tools"
import { type Event, type Planner, RulePlanner, Session, type SessionResult, Step } from "@agent-harness/planner"
import { Toolset } from "@agent-harness/tool-schema"
import { Effect } from "effect"
import { differentFiles } from "./Conversation.ts"
import * as Pattern from "./Pattern.ts"
import type * as ScenarioFile from "./ScenarioFile.ts"
import * as ScriptedTools from "./ScriptedTools.ts"
import * as Variant from "./Variant.ts"
import * as Verdict from "./Verdict.ts"

/**
 * The scripted tools of a plan file: each takes any object, and its n-th call gets the n-th
 * result (calls past the end get the last). Counters are fresh for each call of this function.
 *
 * @since 0.1.0
 */
export const scriptedTools = (tools: NonNullable<ScenarioFile.PlanFile["tools"]>): Array<ScriptedTools.ScriptedTool> =>
  ScriptedTools.make(tools)

/**
 * The rule planner a plan file describes.
 *
 * @since 0.1.0
 */
export const planner = (file: ScenarioFile.PlanFile): Planner.Planner =>
  RulePlanner.make(
    file.planner.map((rule) => ({
      when: rule.when === null || typeof rule.when === "string" ? rule.when : Pattern.unsafeMake(rule.when.pattern),
      plan: rule.plan.map((s) => Step.make(s.id, s.tool_name, s.args, s.expected_outcome, s.group))
    }))
  )

/**
 * The tools a plan file's steps may call: the English file tools and its scripted tools.
 *
 * @since 0.1.0
 */
export const toolset = (
  file: ScenarioFile.PlanFile
): Toolset.Toolset<(typeof FileTools.english.tools)[number] | ScriptedTools.ScriptedTool> =>
  Toolset.merge(FileTools.english, Toolset.make(...scriptedTools(file.tools ?? {})))

const show = (value: unknown): string => JSON.stringify(value)

/**
 * Runs a plan scenario to its verdict under a harness variant: `onEvent` sees each event as it
 * happens and `onResult` the whole `SessionResult` (to record the session, say). Never fails.
 *
 * @since 0.1.0
 */
export const run = (
  scenario: ScenarioFile.Plan,
  file: string,
  options?: {
    readonly onEvent?: ((event: Event.Event) => Effect.Effect<void>) | undefined
    readonly onResult?: ((result: SessionResult.SessionResult) => Effect.Effect<void>) | undefined
    /** The harness variant (its response parser); default `fixed`. */
    readonly variant?: Variant.Variant | undefined
    /** The session's id (in every step's call id); default a fresh one. A durable engine gives its own. */
    readonly sessionId?: string | undefined
  }
): Effect.Effect<Verdict.Verdict<Verdict.PlanOutcome>> =>
  Effect.gen(function* () {
    const variant = options?.variant ?? Variant.defaultVariant
    const spec = scenario.file
    const files = Files.makeFiles(spec.files ?? {})
    const result: SessionResult.SessionResult = yield* Session.run({
      goal: spec.goal,
      sessionId: options?.sessionId,
      planner: planner(spec),
      toolset: toolset(spec),
      onFailure: spec.onFailure,
      maxSteps: spec.budgets.maxSteps,
      maxReplans: spec.budgets.maxReplans,
      onEvent: options?.onEvent
    }).pipe(Effect.provideService(Files.Files, files), Variant.provide(variant))
    if (options?.onResult !== undefined) yield* options.onResult(result)
    const finalFiles = yield* files.snapshot
    const outcome: Verdict.PlanOutcome = {
      status: result.status,
      reason: result.reason,
      executed: result.history.map((step) => step.id),
      revisions: result.revisions,
      steps: result.steps,
      replans: result.replans,
      files: finalFiles
    }
    const failures: Array<Verdict.Failure> = []
    const expected = spec.expect
    const compare = (kind: Verdict.Failure["kind"], label: string, want: unknown, got: unknown) => {
      if (show(want) === show(got)) return
      failures.push({
        kind,
        expected: show(want),
        seen: show(got),
        message: `${label}\n  expected: ${show(want)}\n  seen:     ${show(got)}`
      })
    }
    compare("status", "the status differs", expected.status, outcome.status)
    compare("reason", "the reason differs", expected.reason, outcome.reason)
    if (expected.executed !== undefined) {
      compare("executed", "the executed steps differ", expected.executed, outcome.executed)
    }
    if (expected.revisions !== undefined) {
      compare("revisions", "the revisions differ", expected.revisions, outcome.revisions)
    }
    if (expected.files !== undefined) {
      for (const path of differentFiles(expected.files, finalFiles)) {
        compare("files", `file '${path}' differs after the run`, expected.files[path] ?? null, finalFiles[path] ?? null)
      }
    }
    return Verdict.make(scenario, file, variant.name, outcome, failures)
  })
