/**
 * Where a command's log lines go: the provider's warnings (an unknown model's output limit, a
 * setting it ignores) on stderr, each text once, so stdout stays the command's output (a
 * transcript, a report, `--json` lines only).
 *
 * @since 0.1.0
 */
import process from "node:process"
import { Report } from "@agent-harness/scenario"
import { Logger } from "effect"

/**
 * A logger writing `harness <command>: <level>: <text>` on stderr, each text once.
 *
 * @since 0.1.0
 */
export const stderrOnce = (command: string): Logger.Logger<unknown, void> => {
  const seen = new Set<string>()
  return Logger.make(({ message, logLevel }) => {
    const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
    if (seen.has(text)) return
    seen.add(text)
    process.stderr.write(`harness ${command}: ${logLevel.toLowerCase()}: ${Report.printable(text)}\n`)
  })
}
