/**
 * Scripted tools of scenario files (plan files, and conversation files as an extension): each
 * takes any object, and its n-th call gets the n-th result (calls past the end get the last).
 *
 * @since 0.1.0
 */
import { Tool } from "@agent-harness/tool-schema"
import { Effect, Schema } from "effect"

/** A scripted tool's failure: its message is what the observation (or the step's error) reads. */
class ScriptedFailure extends Schema.TaggedError<ScriptedFailure>()("ScriptedFailure", { message: Schema.String }) {}

/**
 * What a scripted tool is: its results, and optionally a description and whether its results
 * are status envelopes.
 *
 * @since 0.1.0
 */
export interface Spec {
  readonly description?: string | undefined
  /**
   * Each result is the backend's raw answer (any JSON value), read by the harness's
   * `ResponseParser`. Otherwise each result is `{ "ok": string }` or `{ "error": string }`.
   */
  readonly envelope?: boolean | undefined
  readonly results: ReadonlyArray<unknown>
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The tools of a `tools` map, in its order. Counters are fresh for each call of this function,
 * so call it once per run.
 *
 * @since 0.1.0
 */
export const make = (tools: Readonly<Record<string, Spec>>) =>
  Object.entries(tools).map(([name, spec]) => {
    let calls = 0
    const envelope = spec.envelope ?? false
    return Tool.make(name, {
      description: spec.description ?? `scripted tool '${name}'`,
      parameters: Schema.Record(Schema.String, Schema.Unknown),
      envelope,
      run: () =>
        Effect.suspend((): Effect.Effect<unknown, ScriptedFailure> => {
          const index = Math.min(calls, spec.results.length - 1)
          const result = spec.results[index]
          calls++
          if (envelope) return Effect.succeed(result)
          if (isRecord(result) && typeof result.ok === "string") return Effect.succeed(result.ok)
          if (isRecord(result) && typeof result.error === "string") {
            return Effect.fail(new ScriptedFailure({ message: result.error }))
          }
          return Effect.die(
            new Error(`scripted tool '${name}': result ${index} is neither { "ok": string } nor { "error": string }`)
          )
        })
    })
  })
