/**
 * Checks at the harness's boundary, where values from callers and models come in: durations
 * given as options, and how a bad value is shown in the message that names it.
 *
 * @internal
 */
import { Render } from "@agent-harness/tool-schema"
import { Duration } from "effect"

/**
 * A value as a message shows it: strings quoted, numbers as they are (`NaN`, `-1`), `undefined`
 * by name, anything else as `Render.value`.
 *
 * @internal
 */
export const show = (u: unknown): string =>
  typeof u === "string"
    ? JSON.stringify(u)
    : typeof u === "number" || typeof u === "bigint" || u === undefined
      ? String(u)
      : Render.value(u)

/**
 * The milliseconds of a duration option (`Duration.Input`), or `undefined` when it is not a
 * duration (`"banana"`, `NaN`, a negative amount). Never throws.
 *
 * @internal
 */
export const millis = (input: unknown): number | undefined => {
  if (typeof input === "number" && Number.isNaN(input)) return undefined
  let out: number
  try {
    out = Duration.toMillis(Duration.fromInputUnsafe(input as Duration.Input))
  } catch {
    return undefined
  }
  return out >= 0 ? out : undefined
}
