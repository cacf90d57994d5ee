/**
 * Whether to colour output: never under `NO_COLOR`, never when stdout is not a terminal.
 *
 * @since 0.1.0
 */
import process from "node:process"
import { Render } from "@agent-harness/diff"
import { Report } from "@agent-harness/scenario"

/** @since 0.1.0 */
export const useColor = (): boolean => Render.shouldColor(process.stdout, process.env)

/** The report style for this terminal. @since 0.1.0 */
export const current = (): Report.Style => (useColor() ? Report.ansi : Report.plain)
