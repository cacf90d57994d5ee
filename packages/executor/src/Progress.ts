/**
 * Progress of a running tool call: a tool reports how far it is (`Progress.report`), and whoever
 * runs it decides where that goes. The loop records it in the trace (`call.progressed`), `Serve`
 * sends it to the MCP client as `notifications/progress`, a mounted MCP tool passes on its
 * server's. Nobody listening costs nothing: the default reporter drops every update.
 *
 * Progress is for people watching; it never reaches the model and never changes an outcome.
 *
 * @since 0.1.0
 */
import { Context, Effect } from "effect"

/**
 * One progress update, with the meanings of MCP's `notifications/progress`: `progress` grows
 * with each update; `total`, when known, is where it ends.
 *
 * @since 0.1.0
 */
export interface Update {
  /** How far the call is; grows with each update. */
  readonly progress: number
  /** Where `progress` ends, when known. */
  readonly total?: number | undefined
  /** What is happening now, for people. */
  readonly message?: string | undefined
}

/**
 * Where updates go: given the call's `tool_use_id` (a tool has it as `CallContext.id`) and the
 * update. Must not fail; a reporter that throws or dies is ignored.
 *
 * @since 0.1.0
 */
export type Reporter = (id: string, update: Update) => Effect.Effect<void>

/** A reporter that drops every update. @since 0.1.0 */
export const none: Reporter = (): Effect.Effect<void> => Effect.void

/**
 * The reporter in use: `none` unless provided (`Effect.provideService(Progress.Reporter, r)`).
 *
 * @since 0.1.0
 */
export const Reporter: Context.Reference<Reporter> = Context.Reference<Reporter>(
  "@agent-harness/executor/Progress/Reporter",
  { defaultValue: () => none }
)

/**
 * An update as given, checked: `progress` a finite number, `total` a finite number or absent,
 * `message` a string or absent (a long message is cut at 200 characters). Anything else, or a
 * value whose getters throw, is `undefined`.
 *
 * @since 0.1.0
 */
export const check = (update: unknown): Update | undefined => {
  try {
    if (typeof update !== "object" || update === null) return undefined
    const { progress, total, message } = update as Record<string, unknown>
    if (typeof progress !== "number" || !Number.isFinite(progress)) return undefined
    if (total !== undefined && (typeof total !== "number" || !Number.isFinite(total))) return undefined
    if (message !== undefined && typeof message !== "string") return undefined
    return {
      progress,
      ...(total === undefined ? {} : { total }),
      ...(message === undefined ? {} : { message: message.length > 200 ? `${message.slice(0, 199)}…` : message })
    }
  } catch {
    return undefined
  }
}

/**
 * Reports progress of the call `id` to the reporter in use. Never fails: an update that is not
 * a finite `progress` (with an optional finite `total` and string `message`) is dropped, and so
 * is a reporter's failure or defect.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool } from "@agent-harness/tool-schema"
 * import { Progress } from "@agent-harness/executor"
 *
 * const Slow = Tool.make("slow", {
 *   description: "Counts to three",
 *   parameters: Schema.Struct({}),
 *   run: (_, { id }) =>
 *     Effect.gen(function* () {
 *       for (let step = 1; step <= 3; step++) yield* Progress.report(id, { progress: step, total: 3 })
 *       return "done"
 *     })
 * })
 * ```
 *
 * @since 0.1.0
 */
export const report = (id: string, update: Update): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    const reporter = fiber.getRef(Reporter)
    if (reporter === none) return Effect.void
    const checked = check(update)
    if (checked === undefined) return Effect.void
    // Defects only: an interruption of the caller passes through.
    return Effect.catchDefect(
      Effect.suspend(() => reporter(id, checked)),
      () => Effect.void
    )
  })
