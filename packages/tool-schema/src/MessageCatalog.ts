/**
 * The words the harness says to the model. Every text the model reads that the harness wrote
 * (not the tool) comes from a `MessageCatalog`, an Effect service with English as its default:
 * provide another one (Spanish ships here) or your own to change them.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Expected, Violation } from "./Violation.ts"

/**
 * The texts of a harness, as functions of what happened.
 *
 * @since 0.1.0
 */
export interface MessageCatalog {
  /** The language tag, for display (`en`, `es`). */
  readonly locale: string
  /** The observation for a call that did not run: `not executed: <reason>`. */
  readonly notExecuted: (reason: string) => string
  /** The reason a violation gives. */
  readonly violation: (violation: Violation) => string
  /** A tool threw or rejected with something that is not an `Error` (a string, `undefined`...). */
  readonly thrownValue: (rendered: string) => string
  /** A tool threw an `Error` with an empty message. */
  readonly emptyError: (name: string) => string
  /** A call ran past its timeout and was interrupted; it may have done part of its work. */
  readonly timedOut: (millis: number) => string
  /** A tool interrupted itself before it finished; it may have done part of its work. */
  readonly interrupted: string
  /** A backend answered with a failure status (the tool-response contract). */
  readonly statusError: (errorCode: string, message: string) => string
  /** A journal found the call started before a crash with no recorded outcome: it is not run again. */
  readonly outcomeUnknown: string
  /** What repeating a call would do, appended to an observation when retry notes are on. */
  readonly retryNote: (safety: RetryNote) => string
  /** An option of the harness is invalid (`value` rendered as JSON), so the call is refused. */
  readonly invalidOption: (option: string, value: string) => string
  /**
   * A permission gate denied the call: the reason `notExecuted` wraps (`not executed: denied:
   * <reason>`). Nothing ran.
   */
  readonly denied: (reason: string) => string
  /**
   * The loop's repeated-call breaker (`tell`): appended, on a line of its own, to the observation
   * of a call made `count` times within `window` turns with the same input and the same result.
   */
  readonly repeatedCall: (count: number, window: number) => string
  /**
   * The marker that ends an observation cut to the executor's `maxContent`: how many characters
   * were not shown (`… 12,345 more characters not shown`). Optional: a catalogue without it
   * says it in English.
   */
  readonly contentCut?: ((hidden: number) => string) | undefined
  /**
   * The line that replaces a rich part of a result (an image, a resource) the executor dropped:
   * `what` says which part (`image image/png`), `why` the reason, `limit` the byte limit it
   * passed. Optional: a catalogue without it says it in English.
   */
  readonly partDropped?: ((what: string, why: PartDropped, limit: number) => string) | undefined
  /**
   * The reason `notExecuted` wraps for a call of a turn whose run was stopped (interrupted)
   * before the call started: nothing ran. Optional: a catalogue without it says it in English.
   */
  readonly runStopped?: string | undefined
}

/**
 * Why a rich part of a result was dropped: bigger than the limit, data that is not base64, a
 * part that cannot be read (a throwing getter, an unknown type), or structured content that is
 * not JSON.
 *
 * @since 0.1.0
 */
export type PartDropped = "too_large" | "not_base64" | "unreadable" | "not_json"

/** A whole number with its thousands grouped by `separator` (`12,345`). */
const grouped = (n: number, separator: string): string =>
  Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, separator) : String(n)

/**
 * Why repeating a call is or is not safe, as the retry note says it.
 *
 * @since 0.1.0
 */
export type RetryNote = "did_not_run" | "idempotent" | "may_have_partly_run" | "ran" | "outcome_unknown"

const quoteList = (values: ReadonlyArray<string | number | boolean | null>): string =>
  values.map((v) => (typeof v === "string" ? `'${v}'` : String(v))).join(", ")

const englishExpected = (e: Expected): string => {
  switch (e.kind) {
    case "string":
      return "a string"
    case "number":
      return "a number"
    case "integer":
      return "an integer"
    case "boolean":
      return "a boolean"
    case "array":
      return "an array"
    case "object":
      return "an object"
    case "null":
      return "null"
    case "value":
      return "a valid value"
    case "literal":
      return e.values.length === 1 ? quoteList(e.values) : `one of ${quoteList(e.values)}`
    case "union":
      return e.members.map(englishExpected).join(" or ")
  }
}

const spanishExpected = (e: Expected): string => {
  switch (e.kind) {
    case "string":
      return "texto"
    case "number":
      return "un número"
    case "integer":
      return "un número entero"
    case "boolean":
      return "verdadero o falso"
    case "array":
      return "una lista"
    case "object":
      return "un objeto"
    case "null":
      return "null"
    case "value":
      return "un valor válido"
    case "literal":
      return e.values.length === 1 ? quoteList(e.values) : `uno de ${quoteList(e.values)}`
    case "union":
      return e.members.map(spanishExpected).join(" o ")
  }
}

/**
 * Effect Schema's refinement texts (`an integer`, `a value greater than 0`...) in Spanish; a text
 * it does not know stays as the schema wrote it.
 */
const spanishRefinement = (expected: string): string => {
  const fixed = spanishRefinements[expected]
  if (fixed !== undefined) return fixed
  const bound = /^a value (greater|less) than (or equal to )?(.+)$/.exec(expected)
  if (bound !== null) {
    const [, side, orEqual, value] = bound
    return `un valor ${side === "greater" ? "mayor" : "menor"} ${orEqual === undefined ? "que" : "o igual que"} ${value}`
  }
  const length = /^a value with a length of (at least|at most) (\d+)$/.exec(expected)
  if (length !== null) return `una longitud ${length[1] === "at least" ? "mínima" : "máxima"} de ${length[2]}`
  return expected
}

const spanishRefinements: Readonly<Record<string, string>> = {
  "an integer": "un número entero",
  "a finite number": "un número finito",
  "a safe integer": "un número entero seguro",
  "a valid date": "una fecha válida"
}

/**
 * The English catalogue, the default.
 *
 * @since 0.1.0
 */
export const english: MessageCatalog = {
  locale: "en",
  notExecuted: (reason) => `not executed: ${reason}`,
  violation: (v) => {
    switch (v._tag) {
      case "UnknownTool":
        return `unknown tool '${String(v.name)}'`
      case "InputNotObject":
        return "input must be an object"
      case "MissingField":
        return `missing field '${v.field}'`
      case "WrongType":
        return `field '${v.field}' must be ${englishExpected(v.expected)}`
      case "InvalidValue":
        return `field '${v.field}' must be ${v.expected}`
      case "UnexpectedField":
        return `unexpected field '${v.field}'`
      case "InvalidInput":
        return `invalid input: ${v.message}`
      case "UncheckableInput":
        return `the input could not be checked: ${v.message}`
    }
  },
  thrownValue: (rendered) => `the tool failed with ${rendered}`,
  emptyError: (name) => `the tool failed with ${name} and no message`,
  timedOut: (millis) => `timed out after ${millis} ms; the call may have partly run`,
  interrupted: "the tool was interrupted before it finished; the call may have partly run",
  statusError: (errorCode, message) => (message === "" ? errorCode : `${errorCode}: ${message}`),
  outcomeUnknown:
    "outcome unknown: this call started before a crash and its result was never recorded; it may or may not have run, and it will not be run again",
  retryNote: (safety) => {
    switch (safety) {
      case "did_not_run":
        return "(nothing ran: safe to repeat)"
      case "idempotent":
        return "(idempotent: safe to repeat)"
      case "may_have_partly_run":
        return "(may have partly run: do not repeat blindly)"
      case "ran":
        return "(it ran: repeating it does it again)"
      case "outcome_unknown":
        return "(outcome unknown: do not repeat blindly)"
    }
  },
  invalidOption: (option, value) => `the harness option '${option}' is invalid: ${value}`,
  denied: (reason) => `denied: ${reason}`,
  runStopped: "the run was stopped before this call started",
  repeatedCall: (count, window) =>
    `note: you have made this exact call (same tool, same input) ${count} times ${window === 1 ? "in this turn" : `in the last ${window} turns`}, with this same result each time; repeating it will not change it: try something else`,
  contentCut: (hidden) => `… ${grouped(hidden, ",")} more ${hidden === 1 ? "character" : "characters"} not shown`,
  partDropped: (what, why, limit) => {
    switch (why) {
      case "too_large":
        return `[${what}: not shown, more than the ${grouped(limit, ",")} bytes allowed]`
      case "not_base64":
        return `[${what}: not shown, its data is not base64]`
      case "unreadable":
        return `[${what}: not shown, it cannot be read]`
      case "not_json":
        return `[${what}: not shown, it is not JSON]`
    }
  }
}

/**
 * The Spanish catalogue (`no se ha ejecutado: falta el campo 'ruta'`).
 *
 * @since 0.1.0
 */
export const spanish: MessageCatalog = {
  locale: "es",
  notExecuted: (reason) => `no se ha ejecutado: ${reason}`,
  violation: (v) => {
    switch (v._tag) {
      case "UnknownTool":
        return `no existe la herramienta '${String(v.name)}'`
      case "InputNotObject":
        return "la entrada debe ser un objeto"
      case "MissingField":
        return `falta el campo '${v.field}'`
      case "WrongType":
        return `el campo '${v.field}' debe ser ${spanishExpected(v.expected)}`
      case "InvalidValue":
        return `el campo '${v.field}' no es válido: se esperaba ${spanishRefinement(v.expected)}`
      case "UnexpectedField":
        return `sobra el campo '${v.field}'`
      case "InvalidInput":
        return `la entrada no es válida: ${v.message}`
      case "UncheckableInput":
        return `no se ha podido comprobar la entrada: ${v.message}`
    }
  },
  thrownValue: (rendered) => `la herramienta ha fallado con ${rendered}`,
  emptyError: (name) => `la herramienta ha fallado con ${name} sin mensaje`,
  timedOut: (millis) => `se ha agotado el tiempo tras ${millis} ms; la llamada puede haberse ejecutado en parte`,
  interrupted: "la herramienta se ha interrumpido antes de terminar; la llamada puede haberse ejecutado en parte",
  statusError: (errorCode, message) => (message === "" ? errorCode : `${errorCode}: ${message}`),
  outcomeUnknown:
    "resultado desconocido: esta llamada empezó antes de una caída y su resultado no llegó a guardarse; puede haberse ejecutado o no, y no se volverá a ejecutar",
  retryNote: (safety) => {
    switch (safety) {
      case "did_not_run":
        return "(no se ha ejecutado nada: se puede repetir)"
      case "idempotent":
        return "(idempotente: se puede repetir)"
      case "may_have_partly_run":
        return "(puede haberse ejecutado en parte: no repetir sin mirar)"
      case "ran":
        return "(se ha ejecutado: repetirla lo vuelve a hacer)"
      case "outcome_unknown":
        return "(resultado desconocido: no repetir sin mirar)"
    }
  },
  invalidOption: (option, value) => `la opción '${option}' del harness no es válida: ${value}`,
  denied: (reason) => `permiso denegado: ${reason}`,
  runStopped: "la ejecución se detuvo antes de que empezara esta llamada",
  repeatedCall: (count, window) =>
    `nota: has hecho esta misma llamada (misma herramienta, misma entrada) ${count} veces ${window === 1 ? "en este turno" : `en los últimos ${window} turnos`}, con este mismo resultado cada vez; repetirla no lo cambiará: prueba otra cosa`,
  contentCut: (hidden) =>
    hidden === 1 ? "… falta 1 carácter por mostrar" : `… faltan ${grouped(hidden, ".")} caracteres por mostrar`,
  partDropped: (what, why, limit) => {
    switch (why) {
      case "too_large":
        return `[${what}: no se muestra, supera los ${grouped(limit, ".")} bytes permitidos]`
      case "not_base64":
        return `[${what}: no se muestra, sus datos no están en base64]`
      case "unreadable":
        return `[${what}: no se muestra, no se puede leer]`
      case "not_json":
        return `[${what}: no se muestra, no es JSON]`
    }
  }
}

/**
 * The catalogues that ship, by locale.
 *
 * @since 0.1.0
 */
export const byLocale: Readonly<Record<"en" | "es", MessageCatalog>> = { en: english, es: spanish }

/**
 * The catalogue in use. A `Context.Reference`: English unless you provide another, e.g.
 * `Effect.provideService(MessageCatalog, MessageCatalog.spanish)`.
 *
 * @since 0.1.0
 */
export const MessageCatalog: Context.Reference<MessageCatalog> = Context.Reference<MessageCatalog>(
  "@agent-harness/tool-schema/MessageCatalog",
  { defaultValue: () => english }
)

/** The last resort of `say`, when even English cannot word a text. */
const unworded = "the harness could not word this message"

/**
 * A text of a catalogue that never throws: `text(catalog)`, or, when that throws or gives
 * something other than a string (a custom catalogue with a bug, or one written before a text
 * existed), `text(english)`.
 *
 * @example
 * ```ts
 * import { MessageCatalog } from "@agent-harness/tool-schema"
 *
 * MessageCatalog.say(MessageCatalog.spanish, (c) => c.timedOut(1000))
 * ```
 *
 * @since 0.1.0
 */
export const say = (catalog: MessageCatalog, text: (catalog: MessageCatalog) => string): string => {
  try {
    const out: unknown = text(catalog)
    if (typeof out === "string") return out
  } catch {
    // The catalogue's bug is not the model's: English says it instead.
  }
  try {
    const out: unknown = text(english)
    if (typeof out === "string") return out
  } catch {
    // A violation whose fields no catalogue can word.
  }
  return unworded
}

/**
 * The full observation text for a refused call: `notExecuted(violation(v))`. Never throws (see
 * `say`).
 *
 * @since 0.1.0
 */
export const notExecuted = (catalog: MessageCatalog, violation: Violation): string => {
  try {
    const reason: unknown = catalog.violation(violation)
    if (typeof reason === "string") {
      const out: unknown = catalog.notExecuted(reason)
      if (typeof out === "string") return out
    }
  } catch {
    // Falls back to English below.
  }
  return say(english, (c) => c.notExecuted(c.violation(violation)))
}
