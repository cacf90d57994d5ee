/**
 * `harness demo salmorejo`: the errors-as-observations conversation for a person, turn by turn — each call,
 * each observation with errors marked, the final answer and the stop reason — played by the
 * scripted model through the real loop, from the shipped scenario file, and judged by it.
 *
 * @since 0.1.0
 */
import type { Loop } from "@agent-harness/executor"
import { Conversation, Report, type ScenarioFile } from "@agent-harness/scenario"
import { Console, Effect, type FileSystem } from "effect"
import * as ExitCode from "../common/ExitCode.ts"
import * as Style from "../printing/Style.ts"
import * as Transcript from "../printing/Transcript.ts"
import * as Package from "../common/Package.ts"
import * as Shipped from "./Shipped.ts"

/**
 * The shipped scenario file of the salmorejo conversation in a language.
 *
 * @since 0.1.0
 */
export const salmorejoFile = (lang: "en" | "es"): string => Package.file(`scenarios/${lang}/salmorejo.json`)

/**
 * Plays a conversation scenario and prints it turn by turn, then its verdict.
 *
 * @since 0.1.0
 */
export const walkthrough = (scenario: ScenarioFile.Conversation, file: string, lang: "en" | "es") =>
  Effect.gen(function* () {
    const style = Style.current()
    const w = Transcript.words[lang]
    yield* Transcript.opening(Conversation.opening(scenario.file), style)
    const onTurn = (turn: Loop.Turn) => Transcript.turn(turn, lang, style)
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
export const salmorejo = ({
  lang
}: {
  readonly lang: "en" | "es"
}): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const file = salmorejoFile(lang)
    const scenario = yield* Shipped.load(file, "conversation")
    const verdict = yield* walkthrough(scenario, file, lang)
    if (!verdict.passed) return yield* ExitCode.failed
  })
