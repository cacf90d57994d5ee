/**
 * Tool output as untrusted data. A tool's result can carry text written by anyone (a web page,
 * a file, an email): text that tries to instruct the model is prompt injection. With the gate's
 * `untrustedOutput` option, every result a tool produced is put between two markers
 * (`<untrusted_tool_output>` … `</untrusted_tool_output>`), a copy of the marker's name inside
 * the result is defused, and the system prompt line (`notice`) tells the model what the markers
 * mean. The trace shows it: the observation holds the markers, and the gate's decision event
 * says `untrusted_output: true`.
 *
 * What this does not do: it does not make a model immune to injection. It gives the model a
 * reliable boundary between your instructions and tool data, which models follow better than no
 * boundary, and nothing more. The permission policy is what limits what an injected instruction
 * can get done: keep writes, deletes and open-world tools on `ask` or `deny`.
 *
 * @since 0.1.0
 */
import type { Outcome } from "@agent-harness/executor"
import { Effect } from "effect"
import * as Messages from "./Messages.ts"

/**
 * The marker before a result.
 *
 * @since 0.1.0
 */
export const open = "<untrusted_tool_output>"

/**
 * The marker after a result.
 *
 * @since 0.1.0
 */
export const close = "</untrusted_tool_output>"

const markerName = /untrusted_tool_output/gi

/**
 * The text that replaces a copy of the markers' name inside a result, so that a result cannot
 * close its block early and write outside it (`</untrusted_tool_output>` becomes
 * `</forged_marker>`).
 *
 * @since 0.1.0
 */
export const defused = "forged_marker"

/**
 * A result's text between the markers, any copy of the markers' name in it defused. Linear in
 * the text's length.
 *
 * @since 0.1.0
 */
export const wrap = (content: string): string => `${open}\n${content.replace(markerName, defused)}\n${close}`

/**
 * Whether an outcome's text came from the tool (or the backend behind it), and so is marked: a
 * success, a tool's own failure, a thrown message, a status envelope's message, and a replayed
 * observation of one of those. Texts the harness wrote (`not executed: …`, a timeout, outcome
 * unknown) are not.
 *
 * @since 0.1.0
 */
export const fromTool = (outcome: Outcome.Outcome): boolean => {
  switch (outcome._tag) {
    case "Succeeded":
      return true
    case "Failed":
      return (
        outcome.failure._tag === "ToolError" ||
        outcome.failure._tag === "Defect" ||
        outcome.failure._tag === "StatusError"
      )
    case "Replayed":
      return outcome.original === "Succeeded" || outcome.original === "Failed"
    default:
      return false
  }
}

/**
 * An outcome with its text wrapped when it came from the tool; otherwise as it is.
 *
 * @since 0.1.0
 */
export const mark = (outcome: Outcome.Outcome): Outcome.Outcome =>
  fromTool(outcome) ? { ...outcome, content: wrap(outcome.content) } : outcome

/**
 * The system prompt line that tells the model what the markers mean, in the catalogue's
 * language (`Messages`). Add it to your system prompt when the gate marks output.
 *
 * @since 0.1.0
 */
export const notice: Effect.Effect<string> = Effect.map(Messages.current, (messages) =>
  messages.untrustedNotice(open, close)
)
