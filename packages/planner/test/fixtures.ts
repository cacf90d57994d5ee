/**
 * Scripted tools and helpers for the planner tests.
 */
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { Clock, type Duration, Effect, Schema } from "effect"
import type { Event, Planner, SessionResult } from "../src/index.ts"
import { Step } from "../src/index.ts"

/** One scripted answer of a tool: a success with its content, or a failure with its message. */
export type Scripted = { readonly ok: string } | { readonly error: string }

export const ok = (content: string): Scripted => ({ ok: content })
export const fail = (message: string): Scripted => ({ error: message })

/** A call a scripted tool received. */
export interface Call {
  readonly input: Readonly<Record<string, unknown>>
  /** TestClock time when the call started and finished. */
  readonly startedAt: number
  readonly finishedAt: number
}

/** A scripted tool and what it saw. */
export interface ScriptedTool {
  readonly tool: Tool.Any
  /** Every call, in the order they finished. */
  readonly calls: Array<Call>
}

/**
 * A tool taking any args whose n-th call gets the n-th scripted answer (calls past the end get
 * the last one), optionally sleeping first; not read-only unless `readOnly` (MCP's defaults).
 */
export const scriptedTool = (
  name: string,
  script: ReadonlyArray<Scripted>,
  options?: { readonly sleep?: Duration.Input; readonly readOnly?: boolean }
): ScriptedTool => {
  const calls: Array<Call> = []
  let n = 0
  const tool = Tool.make(name, {
    description: `the scripted tool ${name}`,
    parameters: Schema.Record(Schema.String, Schema.Unknown),
    annotations: options?.readOnly === true ? { readOnly: true, destructive: false, idempotent: true } : {},
    run: (input: Readonly<Record<string, unknown>>) =>
      Effect.gen(function* () {
        const answer = script[Math.min(n, script.length - 1)] ?? { ok: "" }
        n++
        const startedAt = yield* Clock.currentTimeMillis
        if (options?.sleep !== undefined) yield* Effect.sleep(options.sleep)
        const finishedAt = yield* Clock.currentTimeMillis
        calls.push({ input, startedAt, finishedAt })
        return "ok" in answer ? answer.ok : yield* Effect.fail({ message: answer.error })
      })
  })
  return { tool, calls }
}

/** A toolset of scripted tools. */
export const toolsetOf = (...tools: ReadonlyArray<ScriptedTool>): Toolset.Toolset<Tool.Any> =>
  Toolset.make(...tools.map((t) => t.tool))

/** A planned step. */
export const step = (
  id: number,
  tool: string,
  args: Readonly<Record<string, unknown>> = {},
  group?: string
): Step.Step => Step.make(id, tool, args, `step ${id} does its job`, group)

/** A planner recording every request it gets. */
export const recording = <E, R>(
  planner: Planner.Planner<E, R>
): { readonly planner: Planner.Planner<E, R>; readonly requests: Array<Planner.Request> } => {
  const requests: Array<Planner.Request> = []
  return {
    requests,
    planner: (request) =>
      Effect.suspend(() => {
        requests.push(request)
        return planner(request)
      })
  }
}

export const types = (events: ReadonlyArray<Event.Event>): ReadonlyArray<string> => events.map((e) => e.type)

/** The ids of the started steps, in order. */
export const startedIds = (events: ReadonlyArray<Event.Event>): ReadonlyArray<number> =>
  events.flatMap((e) => (e.type === "step.started" ? [e.step.id] : []))

export const historyIds = (result: SessionResult.SessionResult): ReadonlyArray<number> =>
  result.history.map((s) => s.id)
