/**
 * The texts a mounted tool's failures show the model when the server, not the tool, is at
 * fault. Each says what is known: the call never arrived (nothing ran), it ran and failed, or
 * its outcome is unknown (it was sent and the connection broke, or the answer is not MCP).
 * English and Spanish ship; the one used follows the `MessageCatalog`'s locale unless
 * `Messages` is provided.
 *
 * @since 0.1.0
 */
import { Execute } from "@agent-harness/executor"
import { Localized } from "@agent-harness/tool-schema"
import { type Context, Effect } from "effect"
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
  /** The call never reached the server, provably (connection refused, no such host, an HTTP status that proves it did not run). */
  readonly notSent: (server: string, reason: string) => string
  /** The server received the call and answered a JSON-RPC error instead of a result: it ran and failed. */
  readonly failed: (server: string, code: number, message: string) => string
  /** The call was sent and the connection broke before an answer: outcome unknown. */
  readonly connectionLost: (server: string, reason: string) => string
  /** The server answered an HTTP status that does not say whether the call ran (a 500): outcome unknown. */
  readonly httpStatus: (server: string, status: number, text: string) => string
  /** The server answered with something that is not an MCP answer: outcome unknown. */
  readonly offSpec: (server: string, problem: string) => string
  /** A Streamable HTTP session ended (the server restarted) and a new one could not be started. */
  readonly sessionLost: (server: string, reason: string) => string
  /** The call's message is larger than the limit both sides read: it was not sent. */
  readonly callTooLarge: (server: string, bytes: number, limit: number) => string
  /** The server's answer is larger than the limit: it was not read, whether the call ran is unknown. */
  readonly answerTooLarge: (server: string, bytes: number, limit: number) => string
  /** The tool reported an error with no text. */
  readonly noMessage: string
}

/** A size in bytes, and in MiB when it is that large. */
const size = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${bytes} bytes (${(bytes / (1024 * 1024)).toFixed(1)} MiB)` : `${bytes} bytes`

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
  notSent: (server, reason) => `the call never reached the MCP server '${server}' (${reason}); nothing ran`,
  failed: (server, code, message) =>
    `the MCP server '${server}' received the call and failed it with error ${code}: ${message}`,
  connectionLost: (server, reason) =>
    `the call was sent to the MCP server '${server}' and the connection broke before an answer (${reason}); whether it ran is unknown`,
  httpStatus: (server, status, text) =>
    `the MCP server '${server}' answered the call with HTTP ${status} (${text}); whether it ran is unknown`,
  offSpec: (server, problem) =>
    `the MCP server '${server}' answered the call off-spec (${problem}); whether it ran is unknown`,
  sessionLost: (server, reason) =>
    `the MCP server '${server}' had ended its session and a new one could not be started (${reason}); nothing ran`,
  callTooLarge: (server, bytes, limit) =>
    `the call was not sent to the MCP server '${server}': its message is ${size(bytes)}, more than the limit of ${size(limit)}; nothing ran (send less at once)`,
  answerTooLarge: (server, bytes, limit) =>
    `the MCP server '${server}' answered with a message of ${size(bytes)}, more than the limit of ${size(limit)}, so it was not read; whether the call ran is unknown`,
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
  notSent: (server, reason) =>
    `la llamada no ha llegado al servidor MCP '${server}' (${reason}); no se ha ejecutado nada`,
  failed: (server, code, message) =>
    `el servidor MCP '${server}' ha recibido la llamada y ha fallado con el error ${code}: ${message}`,
  connectionLost: (server, reason) =>
    `la llamada se ha enviado al servidor MCP '${server}' y la conexión se ha cortado antes de la respuesta (${reason}); no se sabe si se ha ejecutado`,
  httpStatus: (server, status, text) =>
    `el servidor MCP '${server}' ha contestado a la llamada con HTTP ${status} (${text}); no se sabe si se ha ejecutado`,
  offSpec: (server, problem) =>
    `el servidor MCP '${server}' ha contestado fuera del protocolo (${problem}); no se sabe si la llamada se ha ejecutado`,
  sessionLost: (server, reason) =>
    `el servidor MCP '${server}' había terminado su sesión y no se ha podido abrir otra (${reason}); no se ha ejecutado nada`,
  callTooLarge: (server, bytes, limit) =>
    `la llamada no se ha enviado al servidor MCP '${server}': su mensaje ocupa ${size(bytes)}, más que el límite de ${size(limit)}; no se ha ejecutado nada (envía menos de una vez)`,
  answerTooLarge: (server, bytes, limit) =>
    `el servidor MCP '${server}' ha contestado con un mensaje de ${size(bytes)}, más que el límite de ${size(limit)}, y no se ha leído; no se sabe si la llamada se ha ejecutado`,
  noMessage: "la herramienta ha informado de un error sin mensaje"
}

/**
 * The texts that ship, by locale.
 *
 * @since 0.1.0
 */
export const byLocale: Localized.ByLocale<Messages> = { en: english, es: spanish }

/**
 * The texts in use: when not provided, those of the `MessageCatalog`'s locale (English for a
 * locale that has none here).
 *
 * @since 0.1.0
 */
export const Messages: Context.Reference<Messages | undefined> =
  Localized.reference<Messages>("@agent-harness/mcp/Messages")

/**
 * The texts of the current fiber.
 *
 * @since 0.1.0
 */
export const current: Effect.Effect<Messages> = Localized.current(
  Messages,
  byLocale,
  Effect.map(Execute.harness, ({ catalog }) => catalog.locale)
)

/**
 * The longest text of a server (an error message, an HTTP body) put into a failure's text, in
 * characters.
 *
 * @since 0.1.0
 */
export const maxServerText = 500

/**
 * `text` cut to `max` characters (default `maxServerText`), with a marker saying how much was
 * left out: `…(1234 more characters)`. Line breaks become spaces, so it stays one line.
 *
 * @since 0.1.0
 */
export const bounded = (text: string, max: number = maxServerText): string => {
  const line = text.replace(/\s*[\r\n]+\s*/g, " ").trim()
  return line.length <= max ? line : `${line.slice(0, max)}…(${line.length - max} more characters)`
}
