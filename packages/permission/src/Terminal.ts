/**
 * The approver of a person at a terminal: it prints the call (the tool, the call id, its input
 * field by field, the rule that asks and why) and reads one line: `y` runs the call, `a` runs it
 * and every later call of that tool the same rule asks about, `n` or an empty line denies it
 * (Spanish: `s`, `t`, `n`). An answer that is none of these is asked again, `maxTries` times at
 * most, then the call is denied, saying so; the end of the input (Ctrl-D) denies. It reads the
 * streams it is given (the CLI passes `process.stdin` and `process.stderr`), so tests drive it
 * with in-memory streams, and it reads the input only while a question waits: every question of
 * a run is read, one after the other.
 *
 * What the person reads is what the call holds. A tool that runs a command (fields meaning
 * `program` and `arguments`, or `shell`) has it shown first as one line, each word quoted as a
 * shell would need it (`command: git push --force 'my branch'`). The input is shown field by
 * field, the fields that name a path first (`path`, `ruta`, `file`, `folder`, …), each cut on its
 * own with a marker saying how much was cut (a long path keeps its start and its end), so no long
 * field can push the path out of sight. Everything printed from the call goes through `Printable.line`: control,
 * bidi and invisible characters are shown escaped (`\u202e`), so a model cannot colour, move or
 * clear the terminal, forge a line of the question, or make a path read as another.
 *
 * @since 0.1.0
 */
import { Execute } from "@agent-harness/executor"
import { Localized, Render } from "@agent-harness/tool-schema"
import { Effect } from "effect"
import type { Readable, Writable } from "node:stream"
import type * as Approver from "./Approver.ts"
import * as Command from "./Command.ts"
import * as Messages from "./Messages.ts"
import * as Printable from "./Printable.ts"

/**
 * Where the question goes and where the answer comes from.
 *
 * @since 0.1.0
 */
export interface Streams {
  /** Where answers are read, one per line (`process.stdin`). */
  readonly input: Readable
  /** Where questions are written (`process.stderr`, so stdout stays the run's output). */
  readonly output: Writable
}

/**
 * How much of one field the question shows, in characters (a path field: its first and last
 * halves of this).
 *
 * @since 0.1.0
 */
export const maxField = 400

/**
 * How many fields of the input the question shows; the rest are counted.
 *
 * @since 0.1.0
 */
export const maxFields = 12

/**
 * How many answers that are none of the choices are asked again before the call is denied.
 *
 * @since 0.1.0
 */
export const maxTries = 3

/**
 * A text as it may be printed on one line: every control, bidi or invisible character escaped
 * (`\u001b`, `\u202e`); `Printable.line`.
 *
 * @since 0.1.0
 */
export const printable = (text: string): string => Printable.line(text)

/** The words of the question this module writes itself, by the catalogue's locale. */
const words = {
  en: {
    more: (n: number) => `… (${n} more characters)`,
    cut: (n: number) => ` … (${n} characters cut) … `,
    fields: (n: number) => `… and ${n} more ${n === 1 ? "field" : "fields"}`,
    unanswered: (tries: number, last: string) =>
      `the person asked answered ${tries} times with none of the choices (the last answer: ${last})`,
    denied: (reason: string) => `Denied: ${reason}.`,
    command: "command"
  },
  es: {
    more: (n: number) => `… (${n} caracteres más)`,
    cut: (n: number) => ` … (${n} caracteres cortados) … `,
    fields: (n: number) => `… y ${n} ${n === 1 ? "campo más" : "campos más"}`,
    unanswered: (tries: number, last: string) =>
      `la persona a la que se ha preguntado ha respondido ${tries} veces sin elegir ninguna opción (la última respuesta: ${last})`,
    denied: (reason: string) => `Denegada: ${reason}.`,
    command: "comando"
  }
} as const

type Words = (typeof words)[keyof typeof words]

const currentWords: Effect.Effect<Words> = Effect.map(Execute.harness, ({ catalog }) =>
  Localized.pick<Words>(words, catalog.locale)
)

/** Field names that name a path, a file or a folder (in the shipped locales), shown first. */
const pathLike =
  /^(path|paths|file|files|filename|filepath|folder|dir|directory|root|cwd|src|source|dest|destination|target|url|uri|ruta|rutas|fichero|archivo|carpeta|directorio|origen|destino)$|(path|file|folder|dir|ruta|fichero|archivo|carpeta)/i

/** A field's name as shown: as it is when it is a plain word, else quoted. */
const fieldName = (name: string): string => (/^[\p{L}\p{N}_-]{1,64}$/u.test(name) ? name : JSON.stringify(name))

/** `text` cut to `maxField` characters: its start, or for a path its start and its end. */
const cutField = (text: string, path: boolean, w: Words): string => {
  if (text.length <= maxField) return text
  if (!path) return `${text.slice(0, maxField)}${w.more(text.length - maxField)}`
  const half = maxField / 2
  return `${text.slice(0, half)}${w.cut(text.length - maxField)}${text.slice(-half)}`
}

const unreadable = (error: unknown): string => `[Unreadable: ${Render.messageOf(error) ?? "it threw"}]`

/** A field's value as shown: a string quoted (JSON), anything else rendered (`Render.value`). */
const valueText = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value)
  const rendered = Render.value(value)
  return rendered === "" ? "undefined" : rendered
}

/** The lines that show a call's input: path-like fields first, each cut on its own. */
const shownInput = (input: unknown, w: Words): ReadonlyArray<string> => {
  let names: ReadonlyArray<string>
  try {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return [Printable.line(cutField(valueText(input), false, w))]
    }
    names = Object.keys(input)
  } catch (error) {
    return [Printable.line(unreadable(error))]
  }
  if (names.length === 0) return ["{}"]
  const paths = names.filter((name) => pathLike.test(name))
  const ordered = paths.length === 0 ? names : [...paths, ...names.filter((name) => !pathLike.test(name))]
  const shown = ordered.slice(0, maxFields).map((name) => {
    let text: string
    try {
      text = valueText((input as Record<string, unknown>)[name])
    } catch (error) {
      text = unreadable(error)
    }
    return Printable.line(`${fieldName(name)}: ${cutField(text, pathLike.test(name), w)}`)
  })
  return ordered.length > maxFields ? [...shown, w.fields(ordered.length - maxFields)] : shown
}

/** The line that shows a call's command, when its tool runs one: each word quoted as a shell needs it. */
const shownCommand = (request: Approver.Request, w: Words): ReadonlyArray<string> => {
  const line = Command.display(request.input, request.fields)
  return line === undefined ? [] : [Printable.line(`${w.command}: ${cutField(line, false, w)}`)]
}

/**
 * Lines from a stream, read only while a question waits for one: the stream is resumed when a
 * question waits and paused when it has its line, so the process may exit between questions and
 * every question is read. Lines typed ahead are kept for the next question; an error of the
 * stream ends it (the calls still asked are denied).
 */
const lineReader = (input: Readable) => {
  const decoder = new TextDecoder()
  const lines: Array<string> = []
  let buffer = ""
  let ended = false
  let attached = false
  let wake: (() => void) | undefined
  const onData = (chunk: string | Uint8Array) => {
    buffer += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true })
    for (let i = buffer.indexOf("\n"); i !== -1; i = buffer.indexOf("\n")) {
      lines.push(buffer.slice(0, i).replace(/\r$/, ""))
      buffer = buffer.slice(i + 1)
    }
    wake?.()
  }
  const onEnd = () => {
    if (ended) return
    buffer += decoder.decode()
    if (buffer !== "") lines.push(buffer)
    buffer = ""
    ended = true
    wake?.()
  }
  const attach = () => {
    if (attached) return
    attached = true
    // Attached once and kept: an error or the end while no question waits is still seen.
    input.on("data", onData)
    input.on("end", onEnd)
    input.on("close", onEnd)
    input.on("error", onEnd)
  }
  const pause = () => {
    try {
      input.pause()
    } catch {
      // A stream that cannot be paused keeps flowing: its lines are kept for the next question.
    }
  }
  /** The next line, or `undefined` when the input has ended. */
  const next: Effect.Effect<string | undefined> = Effect.callback<string | undefined>((resume) => {
    if (lines.length > 0 || ended) return resume(Effect.succeed(lines.shift()))
    wake = () => {
      if (lines.length === 0 && !ended) return
      wake = undefined
      pause()
      resume(Effect.succeed(lines.shift()))
    }
    try {
      attach()
      // A stream paused after the last answer does not flow again by itself.
      input.resume()
    } catch {
      onEnd()
    }
    return Effect.sync(() => {
      wake = undefined
      pause()
    })
  })
  return next
}

/**
 * A terminal approver over `streams`. Writing to the output or reading the input never fails
 * the call: if the output cannot be written, or the input ends before an answer, the call is
 * denied and the reason says so.
 *
 * @example
 * ```ts
 * import { Approver, Terminal } from "@agent-harness/permission"
 * import { Effect } from "effect"
 *
 * const program = Effect.void // your loop
 * program.pipe(
 *   Effect.provideService(
 *     Approver.Approver,
 *     process.stdin.isTTY ? Terminal.make({ input: process.stdin, output: process.stderr }) : Approver.unattended
 *   )
 * )
 * ```
 *
 * @since 0.1.0
 */
export const make = (streams: Streams): Approver.Approver => {
  const next = lineReader(streams.input)
  const write = (text: string): boolean => {
    try {
      // A closed or destroyed output would swallow the question while the input waits forever.
      if (streams.output.writable === false) return false
      streams.output.write(text)
      return true
    } catch {
      return false
    }
  }
  return {
    ask: (request) =>
      Effect.gen(function* () {
        const messages = yield* Messages.current
        const w = yield* currentWords
        const name = printable(request.name)
        const question = messages.question(
          name,
          printable(request.id),
          [...shownCommand(request, w), ...shownInput(request.input, w)].join("\n  "),
          request.rule,
          request.reason === undefined ? undefined : printable(request.reason)
        )
        if (!write(`${question}\n`)) {
          return { answer: "no", reason: messages.approverFailed("the question could not be written") } as const
        }
        let last = ""
        for (let tries = 0; tries < maxTries; tries++) {
          if (tries > 0) write(`${messages.again}\n`)
          write(messages.choices(name))
          // A question given up on (a timeout, the run interrupted) ends its line: the next one starts clean.
          const line = yield* Effect.onInterrupt(next, () =>
            Effect.sync(() => {
              write("\n")
            })
          )
          if (line === undefined) {
            write(`\n${w.denied(messages.inputEnded)}\n`)
            return { answer: "no", reason: messages.inputEnded } as const
          }
          const said = line.trim().toLowerCase()
          if (messages.answers.yes.includes(said)) return { answer: "yes" } as const
          if (messages.answers.always.includes(said)) return { answer: "always" } as const
          if (said === "" || messages.answers.no.includes(said)) {
            return { answer: "no", reason: messages.refused } as const
          }
          last = line.trim()
        }
        const shownLast = JSON.stringify(last.length > 40 ? `${last.slice(0, 40)}…` : last)
        const reason = w.unanswered(maxTries, Printable.line(shownLast))
        write(`${w.denied(reason)}\n`)
        return { answer: "no", reason } as const
      })
  }
}
