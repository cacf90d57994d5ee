import { Result } from "effect"

/**
 * A `key=value,key2=value2` list (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES, the W3C
 * baggage format without properties): entries trimmed, empty entries skipped, keys and values
 * percent-decoded; an entry without `=` or with an empty key, or bad percent-encoding, fails
 * with what is wrong (the entry by its position, never its text: a header may be a credential).
 * A repeated key: the last one wins.
 */
export const parseList = (text: string): Result.Result<Record<string, string>, string> => {
  const out = new Map<string, string>()
  const entries = text.split(",")
  for (let i = 0; i < entries.length; i++) {
    const entry = (entries[i] ?? "").trim()
    if (entry === "") continue
    const at = entry.indexOf("=")
    if (at <= 0) return Result.fail(`entry ${i + 1} is not key=value`)
    let key: string
    let value: string
    try {
      key = decodeURIComponent(entry.slice(0, at).trim())
      value = decodeURIComponent(entry.slice(at + 1).trim())
    } catch {
      return Result.fail(`entry ${i + 1} is not valid percent-encoding`)
    }
    if (key === "") return Result.fail(`entry ${i + 1} has an empty key`)
    out.set(key, value)
  }
  return Result.succeed(Object.fromEntries(out))
}
