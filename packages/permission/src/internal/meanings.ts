/**
 * Which input fields mean what: a tool's `fields` (`{ ruta: "path" }`) read defensively, a field
 * not listed meaning its own name.
 */
import type { Tool } from "@agent-harness/tool-schema"

/** The input fields that mean each meaning: `{ ruta: "path" }` gives `path → [ruta]`. */
export const sourcesOf = (
  meanings: Tool.FieldMeanings | undefined,
  wanted: ReadonlyArray<string>
): ReadonlyMap<string, ReadonlyArray<string>> => {
  const listed = new Map<string, string>()
  try {
    if (typeof meanings === "object" && meanings !== null) {
      for (const field of Object.keys(meanings)) {
        const meaning: unknown = (meanings as Record<string, unknown>)[field]
        listed.set(field, typeof meaning === "string" && meaning !== "" ? meaning : field)
      }
    }
  } catch {
    // Unreadable meanings: every field means its name.
    listed.clear()
  }
  const out = new Map<string, ReadonlyArray<string>>()
  for (const meaning of wanted) {
    const fields: Array<string> = []
    // The field spelt as the meaning means it, unless the tool gives it another meaning.
    if ((listed.get(meaning) ?? meaning) === meaning) fields.push(meaning)
    for (const [field, m] of listed) if (m === meaning && field !== meaning) fields.push(field)
    out.set(meaning, fields)
  }
  return out
}

/** The value of an input's own field, or `undefined`; may throw (a getter, a Proxy). */
export const fieldOf = (input: unknown, field: string): unknown =>
  typeof input === "object" && input !== null && Object.hasOwn(input, field)
    ? (input as { readonly [key: string]: unknown })[field]
    : undefined
