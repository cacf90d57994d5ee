/**
 * `harness demo salmorejo`: seed 000's conversation for a person, turn by turn — each call,
 * each observation with errors marked, the final answer and the stop reason — played by the
 * scripted model through the real loop, from the shipped scenario file, and judged by it.
 *
 * @since 0.1.0
 */
import { fileURLToPath } from "node:url"
import { type Loop, type Message, Outcome } from "@agent-harness/executor"
import { Conversation, Report, type ScenarioFile, Suite } from "@agent-harness/scenario"
import { Console, Effect, type FileSystem } from "effect"
import * as ExitCode from "./ExitCode.ts"
import * as Style from "./Style.ts"

/**
 * The shipped scenario file of the salmorejo conversation in a language.
 *
 * @since 0.1.0
 */
export const salmorejoFile = (lang: "en" | "es"): string =>
  fileURLToPath(new URL(`../scenarios/${lang}/salmorejo.json`, import.meta.url))

const words = {
  en: {
    turn: "turn",
    model: "model",
    calls: "calls",
    shown: "the model is shown",
    stop: "stop",
    answer: "final answer",
    files: "files after the run",
    unchanged: "unchanged"
  },
  es: {
    turn: "turno",
    model: "modelo",
    calls: "llama a",
    shown: "el modelo lee",
    stop: "fin",
    answer: "respuesta final",
    files: "ficheros tras la ejecución",
    unchanged: "sin cambios"
  }
} as const

const callLine = (call: Message.ToolUseBlock): string => `${call.id} ${call.name}(${JSON.stringify(call.input)})`

const observationLine = (outcome: Outcome.Outcome, style: Report.Style): string => {
  const mark = Outcome.isError(outcome) ? style.fail("error") : style.pass("ok   ")
  const content = outcome.content === "" ? '""' : outcome.content.split("\n").join("\n          ")
  return `  ${mark} ${outcome.id}: ${content}`
}

/**
 * Plays a conversation scenario and prints it turn by turn, then its verdict.
 *
 * @since 0.1.0
 */
export const walkthrough = (scenario: ScenarioFile.Conversation, file: string, lang: "en" | "es") =>
  Effect.gen(function* () {
    const style = Style.current()
    const w = words[lang]
    for (const message of Conversation.opening(scenario.file)) {
      yield* Console.log(style.dim(`[${message.role}]`), typeof message.content === "string" ? message.content : "")
    }
    const onTurn = (turn: Loop.Turn) =>
      Effect.gen(function* () {
        yield* Console.log("")
        yield* Console.log(style.dim(`— ${w.turn} ${turn.turn} —`))
        for (const block of turn.reply) {
          if (block.type === "reasoning") continue
          yield* Console.log(
            block.type === "text" ? `${w.model}: ${block.text}` : `${w.model} ${w.calls} ${callLine(block)}`
          )
        }
        yield* Console.log(`${w.shown}:`)
        for (const outcome of turn.outcomes) yield* Console.log(observationLine(outcome, style))
      })
    const verdict = yield* Conversation.run(scenario, file, { onTurn })
    const outcome = verdict.outcome
    yield* Console.log("")
    yield* Console.log(style.dim(`— ${w.turn} ${outcome.turns} —`))
    if (outcome.text !== undefined) yield* Console.log(`${w.answer}: ${outcome.text}`)
    yield* Console.log(`${w.stop}: ${outcome.stop}`)
    const changed = Conversation.differentFiles(scenario.file.files ?? {}, outcome.files ?? {}).length > 0
    yield* Console.log(`${w.files}: ${changed ? JSON.stringify(outcome.files) : w.unchanged}`)
    yield* Console.log("")
    yield* Console.log(Report.verdict(verdict, style))
    return verdict
  })

/**
 * The salmorejo walkthrough, checked against its scenario at the end (exit 1 if it diverges).
 *
 * @since 0.1.0
 */
export const salmorejo = (lang: "en" | "es"): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const file = salmorejoFile(lang)
    const scenario = yield* Effect.catch(Suite.load(file), (error) =>
      Effect.andThen(Console.error(error.message), Effect.fail(ExitCode.invalid))
    )
    if (scenario.kind !== "conversation") {
      yield* Console.error(`${file}: kind: expected "conversation", got "${scenario.kind}"`)
      return yield* ExitCode.invalid
    }
    const verdict = yield* walkthrough(scenario, file, lang)
    if (!verdict.passed) return yield* ExitCode.failed
  })
