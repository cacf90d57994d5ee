/**
 * A plan session's spans (`Spans` of @agent-harness/executor), opened only when spans are read
 * (`Spans.traced`): `invoke_workflow plan` for the session (the conventions' workflow
 * operation), `plan` and `replan` for each planner call (this toolkit's own names: the
 * conventions have no planning term), each step an `execute_tool` span of the executor inside
 * the session's. Revisions, rejections and budget stops are span events.
 *
 * @internal
 */
import { Spans } from "@agent-harness/executor"
import { Effect } from "effect"
import type { Event } from "../Event.ts"

const A = Spans.Attribute

/** The span name of a session: `invoke_workflow plan`. */
export const sessionName = `${Spans.Operation.invokeWorkflow} plan`

/** The attributes a session's span starts with. */
export const sessionAttributes = (sessionId: string): Record<string, unknown> => ({
  [A.operationName]: Spans.Operation.invokeWorkflow,
  [A.workflowName]: "plan",
  [A.conversationId]: sessionId
})

/** The attributes a session's span ends with: why it stopped, its steps and replans. */
export const sessionEnd = (
  reason: string,
  status: string,
  steps: number,
  replans: number
): Record<string, unknown> => ({
  [A.stopReason]: reason,
  "agent_harness.plan.status": status,
  "agent_harness.plan.steps_run": steps,
  [A.replans]: replans
})

/** Opens a planner call's span: `plan` for the first plan, `replan` after a failure. */
export const plannerCall = <A, E, R>(
  first: boolean,
  revision: number,
  asking: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.withSpan(asking, first ? "plan" : "replan", {
    kind: "internal",
    attributes: { [A.planRevision]: revision }
  })

/** The span event of a session event, when it is one: revisions, rejections, budget stops. */
const eventOf = (event: Event): { readonly name: string; readonly attributes: Record<string, unknown> } | undefined => {
  switch (event.type) {
    case "plan.diff":
      return {
        name: Spans.Event.planDiff,
        attributes: {
          [A.planRevision]: event.revision,
          "agent_harness.plan.removed": event.diff.removed.length,
          "agent_harness.plan.added": event.diff.added.length,
          "agent_harness.plan.revised": event.diff.revised.length
        }
      }
    case "plan.rejected":
      return { name: "agent_harness.plan.rejected", attributes: { "agent_harness.reason": event.reason } }
    case "spend.refused":
      return {
        name: Spans.Event.spendRefused,
        attributes: { "agent_harness.reason": event.reason, "agent_harness.kind": event.kind }
      }
    case "plan.created":
      return {
        name: "agent_harness.plan.created",
        attributes: { [A.planRevision]: event.revision, [A.planSteps]: event.plan.length }
      }
    default:
      return undefined
  }
}

/** Puts a session event's span event (if it has one) on the current span. */
export const spanEvent = (event: Event): Effect.Effect<void> => {
  const found = eventOf(event)
  if (found === undefined) return Effect.void
  return Effect.catchCause(
    Effect.clockWith((clock) =>
      Effect.flatMap(Effect.currentSpan, (span) =>
        Effect.sync(() => span.event(found.name, clock.currentTimeNanosUnsafe(), found.attributes))
      )
    ),
    () => Effect.void
  )
}
