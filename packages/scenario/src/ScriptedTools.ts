/**
 * Scripted tools of scenario files (plan files, and conversation files as an extension): each
 * takes any object, and its n-th call gets the n-th result (calls past the end get the last).
 *
 * @since 0.1.0
 */
import { Tool } from "@agent-harness/tool-schema"
import { type Cause, Effect, Predicate, Schema } from "effect"

const ScriptedFailureBase: Schema.Class<
  ScriptedFailure,
  Schema.TaggedStruct<"ScriptedFailure", { readonly message: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<ScriptedFailure>()("ScriptedFailure", { message: Schema.String })

/**
 * A scripted tool's failure, for a result `{ "error": string }`: its message is what the
 * observation (or the step's error) reads.
 *
 * @since 0.1.0
 */
export class ScriptedFailure extends ScriptedFailureBase {}

/**
 * A scripted tool: any object as input, its script's results as answers, `ScriptedFailure` as
 * its typed failure, no services.
 *
 * @since 0.1.0
 */
export type ScriptedTool = Tool.Tool<
  string,
  Schema.$Record<Schema.String, Schema.Unknown>,
  unknown,
  ScriptedFailure,
  never
>

/**
 * What a scripted tool is: its results, and optionally a description and whether its results
 * are status envelopes.
 *
 * @since 0.1.0
 */
export interface Spec {
  /** What the model reads about it; `scripted tool '<name>'` when not given. */
  readonly description?: string | undefined
  /**
   * Each result is the backend's raw answer (any JSON value), read by the harness's
   * `ResponseParser`. Otherwise each result is `{ "ok": string }` or `{ "error": string }`.
   */
  readonly envelope?: boolean | undefined
  /** The answers, in call order (at least one): the n-th call gets the n-th, calls past the end the last. */
  readonly results: ReadonlyArray<unknown>
}

/**
 * The tools of a `tools` map, in its order. Counters are fresh for each call of this function,
 * so call it once per run.
 *
 * @since 0.1.0
 */
export const make = (tools: Readonly<Record<string, Spec>>): Array<ScriptedTool> =>
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
          if (Predicate.isObject(result) && typeof result.ok === "string") return Effect.succeed(result.ok)
          if (Predicate.isObject(result) && typeof result.error === "string") {
            return Effect.fail(new ScriptedFailure({ message: result.error }))
          }
          return Effect.die(
            new Error(`scripted tool '${name}': result ${index} is neither { "ok": string } nor { "error": string }`)
          )
        })
    })
  })
