/**
 * A streamed run printed as it happens (`harness agent` without `--no-stream`), in the
 * transcript's words (`Transcript`): each turn's header when it starts, its reasoning (dimmed)
 * and text as they are written, each call when it starts, and what the model is shown as the
 * calls are answered. Text is escaped as the transcript escapes it, piece by piece (`Deltas`),
 * so a control character, a bidi control or a character split across two pieces prints as it
 * would whole.
 *
 * @since 0.2.0
 */
import type { Loop } from "@agent-harness/executor"
import type { Report } from "@agent-harness/scenario"
import { Effect } from "effect"
import * as Deltas from "./Deltas.ts"
import * as Transcript from "./Transcript.ts"

/**
 * What prints a streamed run.
 *
 * @since 0.2.0
 */
export interface Printer {
  /** Prints one event of `Loop.stream`. */
  readonly print: (event: Loop.Event) => Effect.Effect<void>
  /** Ends the line a text or reasoning was being written on, if one was (an interrupted run's). */
  readonly close: Effect.Effect<void>
}

/**
 * A printer that writes with `write` (stdout: `process.stdout.write`), in `lang`, coloured as
 * `style` colours.
 *
 * @since 0.2.0
 */
export const make = (lang: Transcript.Lang, style: Report.Style, write: (text: string) => void): Printer => {
  const w = Transcript.words[lang]
  const text = Deltas.make()
  /** What is being written on the current line: a text, a reasoning, or nothing. */
  let open: "text" | "reasoning" | undefined
  /** Whether this turn's `the model is shown:` line was printed. */
  let shown = false
  const close = (): void => {
    if (open === undefined) return
    const rest = text.end()
    write(`${open === "reasoning" && rest !== "" ? style.dim(rest) : rest}\n`)
    open = undefined
  }
  const writing = (kind: "text" | "reasoning", piece: string): void => {
    if (open !== kind) {
      close()
      write(kind === "text" ? `${w.model}: ` : style.dim(`${w.model} ${w.thinks}: `))
      open = kind
    }
    const out = text.push(piece)
    if (out !== "") write(kind === "reasoning" ? style.dim(out) : out)
  }
  const line = (line: string): void => {
    close()
    write(`${line}\n`)
  }
  const print = (event: Loop.Event): void => {
    switch (event.type) {
      case "turn.started":
        close()
        write(`\n${Transcript.header(event.turn, lang, style)}\n`)
        shown = false
        return
      case "text.delta":
        writing("text", event.text)
        return
      case "reasoning.delta":
        writing("reasoning", event.text)
        return
      case "call.started":
        line(Transcript.callLine(event.call, lang))
        return
      case "call.answered":
        if (!shown) line(`${w.shown}:`)
        shown = true
        line(Transcript.observationLine(event.outcome, style))
        return
      case "turn.ended":
        close()
        // A redacted reasoning block streams no text: say it was there, as the transcript does.
        for (const block of event.turn.reply) {
          if (block.type === "reasoning" && block.text === "") line(style.dim(`${w.model} ${w.thinks}: ${w.redacted}`))
        }
        return
      default:
        // A call being written (`call.drafted`, `call.delta`) is shown once it starts; the run's end by the caller.
        close()
    }
  }
  return { print: (event) => Effect.sync(() => print(event)), close: Effect.sync(close) }
}
