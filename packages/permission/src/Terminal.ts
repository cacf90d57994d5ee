/**
 * The approver of a person at a terminal: it prints the call (the tool, the call id, its input,
 * the rule that asks and why) and reads one line: `y` runs the call, `a` runs it and every later
 * call of that tool the same rule asks about, `n` or an empty line denies it (Spanish: `s`, `t`,
 * `n`). It reads the streams it is given (the CLI passes `process.stdin` and `process.stderr`),
 * so tests drive it with in-memory streams. Everything printed from the call has its control
 * characters escaped: a model cannot colour, move or clear the terminal, or forge a line of the
 * question.
 *
 * @since 0.1.0
 */
import { Render } from "@agent-harness/tool-schema"
import { Effect } from "effect"
import type { Readable, Writable } from "node:stream"
import type * as Approver from "./Approver.ts"
import * as Messages from "./Messages.ts"

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
 * How much of a call's input the question shows, in characters.
 *
 * @since 0.1.0
 */
export const maxShown = 2000

/**
 * How many answers that are none of the choices are asked again before the call is denied.
 *
 * @since 0.1.0
 */
export const maxTries = 3

/** C0 and C1 control characters, DEL, and the Unicode line and paragraph separators. */
const isControl = (code: number): boolean =>
  code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029

/**
 * A text as it may be printed on one line: every control character as `\u001b`.
 *
 * @since 0.1.0
 */
export const printable = (text: string): string => {
  let out = ""
  let from = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (!isControl(code)) continue
    out += `${text.slice(from, i)}\\u${code.toString(16).padStart(4, "0")}`
    from = i + 1
  }
  return from === 0 ? text : out + text.slice(from)
}

const shown = (input: unknown): string => {
  const rendered = Render.value(input)
  return printable(
    rendered.length > maxShown
      ? `${rendered.slice(0, maxShown)}… (${rendered.length - maxShown} more characters)`
      : rendered
  )
}

/** Lines from a stream, read only while a question waits for one. */
const lineReader = (input: Readable) => {
  const decoder = new TextDecoder()
  const lines: Array<string> = []
  let buffer = ""
  let ended = false
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
    if (buffer !== "") lines.push(buffer)
    buffer = ""
    ended = true
    wake?.()
  }
  const attach = () => {
    input.on("data", onData)
    input.on("end", onEnd)
    input.on("error", onEnd)
  }
  const detach = () => {
    input.removeListener("data", onData)
    input.removeListener("end", onEnd)
    input.removeListener("error", onEnd)
    // Unread input stays in the stream until the next question; the process may exit meanwhile.
    input.pause()
  }
  /** The next line, or `undefined` when the input has ended. */
  const next: Effect.Effect<string | undefined> = Effect.callback<string | undefined>((resume) => {
    const check = () => {
      if (lines.length > 0 || ended) {
        wake = undefined
        detach()
        resume(Effect.succeed(lines.shift()))
      }
    }
    if (lines.length > 0 || ended) return check()
    wake = check
    attach()
    return Effect.sync(() => {
      wake = undefined
      detach()
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
        const name = printable(request.name)
        const question = messages.question(
          name,
          printable(request.id),
          shown(request.input),
          request.rule,
          request.reason === undefined ? undefined : printable(request.reason)
        )
        if (!write(`${question}\n`)) {
          return { answer: "no", reason: messages.approverFailed("the question could not be written") } as const
        }
        for (let tries = 0; tries < maxTries; tries++) {
          write(messages.choices(name))
          const line = yield* next
          if (line === undefined) {
            write("\n")
            return { answer: "no", reason: messages.inputEnded } as const
          }
          const said = line.trim().toLowerCase()
          if (messages.answers.yes.includes(said)) return { answer: "yes" } as const
          if (messages.answers.always.includes(said)) return { answer: "always" } as const
          if (said === "" || messages.answers.no.includes(said))
            return { answer: "no", reason: messages.refused } as const
          write(`${messages.again}\n`)
        }
        return { answer: "no", reason: messages.refused } as const
      })
  }
}
