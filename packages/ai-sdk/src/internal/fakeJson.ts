/**
 * The JSON helpers of the fake provider's wire formats: reading request bodies leniently, and
 * writing a reply whose tool inputs are given as raw JSON text.
 */

/** A JSON object as parsed. */
export type Json = Record<string, unknown>

/** An object that is not an array. */
export const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
/** The value when it is an array, else none. */
export const arrayOf = (u: unknown): ReadonlyArray<unknown> => (Array.isArray(u) ? u : [])
/** A message's content as blocks: a string is one text block. */
export const blocksOf = (content: unknown): ReadonlyArray<Json> =>
  typeof content === "string" ? [{ type: "text", text: content }] : arrayOf(content).filter(isObject)

/**
 * A JSON text with some values given as JSON text, written as they are: `JSON.stringify(value)`
 * with each placeholder string replaced by its text.
 */
export const withRawJson = (value: Json, raws: ReadonlyArray<string>): string => {
  let text = JSON.stringify(value)
  raws.forEach((raw, i) => {
    text = text.replace(JSON.stringify(rawMark(i)), () => raw)
  })
  return text
}
/** The placeholder string that stands for the `i`-th raw JSON text. */
export const rawMark = (i: number): string => `\u0000fake-provider-raw-json-${i}\u0000`
