/**
 * What a served call logs, for its MCP client: a logger that sends each `Effect.log…` of the
 * call as `notifications/message` on the call's own stream (MCP's logging utility), at or above
 * the level the client set with `logging/setLevel`; nothing until it sets one (a tool's logs
 * are the server's own business unless the client asks). The server's own loggers (stderr)
 * still get every message.
 *
 * @internal
 */
import { Cause, Effect, Logger, type LogLevel } from "effect"

/** MCP's log levels, by severity. */
const levels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const

/** An MCP log level. */
export type Level = (typeof levels)[number]

/** Whether `u` is an MCP log level. */
export const isLevel = (u: unknown): u is Level =>
  typeof u === "string" && (levels as ReadonlyArray<string>).includes(u)

/** Effect's level as MCP's. */
export const fromEffect = (level: LogLevel.LogLevel): Level => {
  switch (level) {
    case "Fatal":
      return "critical"
    case "Error":
      return "error"
    case "Warn":
      return "warning"
    case "Info":
      return "info"
    default:
      return "debug"
  }
}

/** A message's text: strings as they are, anything else as JSON (or its `String`). */
const text = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts
    .map((part) => {
      if (typeof part === "string") return part
      try {
        return JSON.stringify(part) ?? String(part)
      } catch {
        return String(part)
      }
    })
    .join(" ")
}

/** How a notification reaches the client (the SDK's `extra.sendNotification`). */
export type Send = (notification: {
  readonly method: "notifications/message"
  readonly params: { readonly level: Level; readonly logger: string; readonly data: string }
}) => Promise<void>

/** The logger of a call of `tool`, sending at or above `minimum()` (none: nothing) to `send`. Never throws. */
export const logger = (tool: string, minimum: () => Level | undefined, send: Send): Logger.Logger<unknown, void> =>
  Logger.make(({ message, logLevel, cause }) => {
    try {
      const level = fromEffect(logLevel)
      const least = minimum()
      if (least === undefined || levels.indexOf(level) < levels.indexOf(least)) return
      const failure = cause.reasons.length === 0 ? "" : `\n${Cause.pretty(cause)}`
      send({
        method: "notifications/message",
        params: { level, logger: tool, data: `${text(message)}${failure}` }
      }).catch(() => undefined)
    } catch {
      // Logging never changes an outcome.
    }
  })

/** `effect` with `log` added to the loggers in use. */
export const withLogger = <A, E, R>(effect: Effect.Effect<A, E, R>, log: Logger.Logger<unknown, void>) =>
  Effect.withFiber((fiber) =>
    Effect.provideService(effect, Logger.CurrentLoggers, new Set([...fiber.getRef(Logger.CurrentLoggers), log]))
  )
