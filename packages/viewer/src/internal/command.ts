/**
 * A command's report in an observation's structured content (the shape the `command` tool of
 * `@agent-harness/command` writes: `exit_code`, `signal`, `timed_out`, each stream's text,
 * bytes, whether it was cut or binary), read without importing that package: anything else is no
 * report.
 */
import type { CommandReport, CommandStream } from "../Model.ts"

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const stream = (r: Readonly<Record<string, unknown>>, name: "stdout" | "stderr"): CommandStream | undefined => {
  const text = r[name]
  const bytes = r[`${name}_bytes`]
  const truncated = r[`${name}_truncated`]
  const binary = r[`${name}_binary`] ?? r.binary
  if (typeof text !== "string" || typeof bytes !== "number" || typeof truncated !== "boolean") return undefined
  return { text, bytes, truncated, binary: binary === true }
}

/** The report in `structured`, or `undefined` when it is not a command's. */
export const commandOf = (structured: unknown): CommandReport | undefined => {
  try {
    if (!isRecord(structured)) return undefined
    const exit = structured.exit_code
    const signal = structured.signal
    const timedOut = structured.timed_out
    if (exit !== null && (typeof exit !== "number" || !Number.isInteger(exit))) return undefined
    if (signal !== null && typeof signal !== "string") return undefined
    if (typeof timedOut !== "boolean") return undefined
    const stdout = stream(structured, "stdout")
    const stderr = stream(structured, "stderr")
    if (stdout === undefined || stderr === undefined) return undefined
    return { exitCode: exit, signal, timedOut, stdout, stderr }
  } catch {
    // A hostile value (a getter that throws): no report.
    return undefined
  }
}
