/**
 * The texts a mounted tool's failures show the model when the server, not the tool, is at
 * fault: it stopped, it could not be reached, it refused the call. English and Spanish ship;
 * the one used follows the `MessageCatalog`'s locale unless `Messages` is provided.
 *
 * @since 0.1.0
 */
import { Execute } from "@agent-harness/executor"
import { Context, Effect } from "effect"
import type * as StdioChild from "./StdioChild.ts"

/**
 * The texts, as functions of what happened.
 *
 * @since 0.1.0
 */
export interface Messages {
  /** A call to a server that had already stopped: nothing was sent. */
  readonly stopped: (server: string, how: string) => string
  /** The server stopped while the call was running. */
  readonly stoppedDuringCall: (server: string, how: string) => string
  /** The server closed the connection without exiting (or it is not a process). */
  readonly closed: string
  /** How a server process ended: its exit code or signal, and the last line of its stderr. */
  readonly ended: (ended: StdioChild.Ended) => string
  /** The server could not be reached (an HTTP server that is down). */
  readonly unreachable: (server: string, reason: string) => string
  /** The server answered the call with a protocol error instead of a result. */
  readonly refused: (server: string, message: string) => string
  /** The tool reported an error with no text. */
  readonly noMessage: string
}

/** `how`, with the last line the process wrote to stderr (300 characters at most). */
const withStderr = (how: string, ended: StdioChild.Ended): string => {
  const last = ended.stderr
    .split("\n")
    .filter((line) => line.trim() !== "")
    .at(-1)
  return last === undefined ? how : `${how}; stderr: ${last.trim().slice(0, 300)}`
}

/**
 * English.
 *
 * @since 0.1.0
 */
export const english: Messages = {
  stopped: (server, how) => `the MCP server '${server}' has stopped (${how}); the call was not sent`,
  stoppedDuringCall: (server, how) =>
    `the MCP server '${server}' stopped during the call (${how}); the call may have partly run`,
  closed: "it closed the connection",
  ended: (ended) => withStderr(ended.signal !== null ? `killed by ${ended.signal}` : `exit code ${ended.code}`, ended),
  unreachable: (server, reason) => `the MCP server '${server}' could not be reached: ${reason}`,
  refused: (server, message) => `the MCP server '${server}' refused the call: ${message}`,
  noMessage: "the tool reported an error without a message"
}

/**
 * Spanish.
 *
 * @since 0.1.0
 */
export const spanish: Messages = {
  stopped: (server, how) => `el servidor MCP '${server}' se ha detenido (${how}); la llamada no se ha enviado`,
  stoppedDuringCall: (server, how) =>
    `el servidor MCP '${server}' se ha detenido durante la llamada (${how}); la llamada puede haberse ejecutado en parte`,
  closed: "ha cerrado la conexión",
  ended: (ended) =>
    withStderr(ended.signal !== null ? `terminado por ${ended.signal}` : `código de salida ${ended.code}`, ended),
  unreachable: (server, reason) => `no se puede contactar con el servidor MCP '${server}': ${reason}`,
  refused: (server, message) => `el servidor MCP '${server}' ha rechazado la llamada: ${message}`,
  noMessage: "la herramienta ha informado de un error sin mensaje"
}

/**
 * The texts that ship, by locale.
 *
 * @since 0.1.0
 */
export const byLocale: Readonly<Record<"en" | "es", Messages>> = { en: english, es: spanish }

/**
 * The texts in use: when not provided, those of the `MessageCatalog`'s locale (English for a
 * locale that has none here).
 *
 * @since 0.1.0
 */
export const Messages: Context.Reference<Messages | undefined> = Context.Reference<Messages | undefined>(
  "@agent-harness/mcp/Messages",
  { defaultValue: () => undefined }
)

/**
 * The texts of the current fiber.
 *
 * @since 0.1.0
 */
export const current: Effect.Effect<Messages> = Effect.withFiber((fiber) => {
  const given = fiber.getRef(Messages)
  if (given !== undefined) return Effect.succeed(given)
  return Effect.map(Execute.harness, ({ catalog }) => (catalog.locale === "es" ? spanish : english))
})
