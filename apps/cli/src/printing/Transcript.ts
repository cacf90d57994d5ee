/**
 * A conversation printed for a person, turn by turn (`harness demo salmorejo`, `harness agent`):
 * the opening messages, each turn's reasoning (dimmed), text and calls, the observations the
 * model is shown with errors marked. What a model or a tool wrote is printed through the permission
 * package's `Printable` (line breaks kept): its control, bidi (U+202E) and invisible characters
 * are shown escaped, so a reply cannot colour, move or clear the terminal, nor make what it says
 * read as something else.
 *
 * @since 0.1.0
 */
import { type Loop, type Message, Outcome } from "@agent-harness/executor"
import { Printable } from "@agent-harness/permission"
import { Render } from "@agent-harness/tool-schema"
import type { Report } from "@agent-harness/scenario"
import { Console, Effect } from "effect"

/**
 * The languages the transcript is printed in.
 *
 * @since 0.1.0
 */
export type Lang = "en" | "es"

/**
 * The transcript's words in each language.
 *
 * @since 0.1.0
 */
export const words = {
  en: {
    turn: "turn",
    model: "model",
    calls: "calls",
    thinks: "thinks",
    redacted: "(redacted)",
    shown: "the model is shown",
    stop: "stop",
    answer: "final answer",
    files: "files after the run",
    unchanged: "unchanged",
    interrupted: "interrupted (Ctrl-C): no call started after it"
  },
  es: {
    turn: "turno",
    model: "modelo",
    calls: "llama a",
    thinks: "piensa",
    redacted: "(oculto)",
    shown: "el modelo lee",
    stop: "fin",
    answer: "respuesta final",
    files: "ficheros tras la ejecución",
    unchanged: "sin cambios",
    interrupted: "interrumpido (Ctrl-C): ninguna llamada empezó después"
  }
} as const

/**
 * A text a model or a tool wrote, as it may be printed: line breaks kept, every control, bidi or
 * invisible character escaped (`\u001b`, `\u202e`; `Printable.lines`).
 *
 * @since 0.1.0
 */
export const printable = (text: string): string => Printable.lines(text)

/** A call's input as JSON, never throwing (a cycle or nesting too deep is marked, not thrown). */
const inputText = (input: unknown): string => (typeof input === "string" ? JSON.stringify(input) : Render.value(input))

/**
 * The line of a call the model made: `model calls c1 read({"path":"a.txt"})`.
 *
 * @since 0.2.0
 */
export const callLine = (call: Message.ToolUseBlock, lang: Lang): string =>
  `${words[lang].model} ${words[lang].calls} ${Printable.line(`${call.id} ${call.name}(${inputText(call.input)})`)}`

/**
 * The line of what a call came to, as the model is shown it: `  ok    c1: …` or `  error c1: …`
 * (its continuation lines indented under the content).
 *
 * @since 0.2.0
 */
export const observationLine = (outcome: Outcome.Outcome, style: Report.Style): string => {
  const mark = Outcome.isError(outcome) ? style.fail("error") : style.pass("ok   ")
  // One line break at the end (a file's last line) is not shown as an empty line.
  const shown = outcome.content.endsWith("\n") ? outcome.content.slice(0, -1) : outcome.content
  const content = shown === "" ? JSON.stringify(outcome.content) : printable(shown).split("\n").join("\n          ")
  return `  ${mark} ${Printable.line(outcome.id)}: ${content}`
}

/**
 * A turn's header line, dimmed: `— turn 2 —`.
 *
 * @since 0.2.0
 */
export const header = (turn: number, lang: Lang, style: Report.Style): string =>
  style.dim(`— ${words[lang].turn} ${turn} —`)

/**
 * Prints the opening messages: `[system]` and `[user]` (dimmed), then the text.
 *
 * @since 0.1.0
 */
export const opening = (messages: ReadonlyArray<Message.Message>, style: Report.Style): Effect.Effect<void> =>
  Effect.forEach(
    messages,
    (message) =>
      Console.log(
        style.dim(`[${message.role}]`),
        typeof message.content === "string" ? printable(message.content) : ""
      ),
    { discard: true }
  )

/**
 * Prints a reply's reasoning, dimmed (`model thinks: …`; a redacted block says so).
 *
 * @since 0.1.0
 */
export const reasoning = (
  reply: ReadonlyArray<Message.ReplyBlock>,
  lang: Lang,
  style: Report.Style
): Effect.Effect<void> =>
  Effect.forEach(
    reply,
    (block) =>
      block.type === "reasoning"
        ? Console.log(
            style.dim(
              `${words[lang].model} ${words[lang].thinks}: ${block.text === "" ? words[lang].redacted : printable(block.text)}`
            )
          )
        : Effect.void,
    { discard: true }
  )

/**
 * Prints one turn that called tools: its header, the reply (reasoning dimmed, text, calls), and
 * the observations the model is shown.
 *
 * @since 0.1.0
 */
export const turn = (turn: Loop.Turn, lang: Lang, style: Report.Style): Effect.Effect<void> =>
  Effect.gen(function* () {
    const w = words[lang]
    yield* Console.log("")
    yield* Console.log(header(turn.turn, lang, style))
    for (const block of turn.reply) {
      if (block.type === "reasoning") {
        yield* reasoning([block], lang, style)
        continue
      }
      yield* Console.log(block.type === "text" ? `${w.model}: ${printable(block.text)}` : callLine(block, lang))
    }
    yield* Console.log(`${w.shown}:`)
    for (const outcome of turn.outcomes) yield* Console.log(observationLine(outcome, style))
  })
