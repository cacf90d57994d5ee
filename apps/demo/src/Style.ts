/**
 * Whether to colour output: never under `NO_COLOR`, never when stdout is not a terminal.
 *
 * @since 0.1.0
 */
import process from "node:process"
import { Report } from "@agent-harness/scenario"

/** @since 0.1.0 */
export const useColor = (): boolean =>
  process.stdout.isTTY === true && (process.env.NO_COLOR === undefined || process.env.NO_COLOR === "")

/** The report style for this terminal. @since 0.1.0 */
export const current = (): Report.Style => (useColor() ? Report.ansi : Report.plain)
