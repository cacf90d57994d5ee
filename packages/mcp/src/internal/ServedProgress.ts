/**
 * The progress of one served call, for its MCP client: a `Progress.Reporter` that sends
 * `notifications/progress` with the request's `progressToken`, only when the client sent one,
 * only for this call's id, and only increasing values (MCP: progress must increase with each
 * notification; one that does not is dropped).
 *
 * @internal
 */
import type { Progress } from "@agent-harness/executor"
import { Effect } from "effect"

/** A progress token, as MCP allows it. */
export type Token = string | number

/** The `progressToken` of a request's `_meta`, when it is a string or a finite number. */
export const tokenOf = (meta: unknown): Token | undefined => {
  try {
    if (typeof meta !== "object" || meta === null) return undefined
    const token: unknown = (meta as Record<string, unknown>).progressToken
    return typeof token === "string" || (typeof token === "number" && Number.isFinite(token)) ? token : undefined
  } catch {
    return undefined
  }
}

/** How a notification reaches the client (the SDK's `extra.sendNotification`). */
export type Send = (notification: {
  readonly method: "notifications/progress"
  readonly params: {
    readonly progressToken: Token
    readonly progress: number
    readonly total?: number
    readonly message?: string
  }
}) => Promise<void>

/**
 * The reporter of the call `id`, sending to `send` with `token`. A failed send is dropped:
 * progress never changes an outcome.
 */
export const reporter = (id: string, token: Token, send: Send): Progress.Reporter => {
  let last = Number.NEGATIVE_INFINITY
  return (reported, update) => {
    if (reported !== id || !(update.progress > last)) return Effect.void
    last = update.progress
    return Effect.ignore(
      Effect.tryPromise(() =>
        send({
          method: "notifications/progress",
          params: {
            progressToken: token,
            progress: update.progress,
            ...(update.total === undefined ? {} : { total: update.total }),
            ...(update.message === undefined ? {} : { message: update.message })
          }
        })
      )
    )
  }
}
