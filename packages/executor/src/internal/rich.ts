/**
 * What the executor makes of a tool's text and rich content: parts checked one by one (a part
 * that cannot be read, data that is not base64 or a part over the byte limit is dropped, and a
 * line says so), structured content kept only when it is JSON, every kept part said in the
 * text in one line, and the text cut to the content limit with a marker. Never throws.
 *
 * @internal
 */
import { MessageCatalog, ToolContent } from "@agent-harness/tool-schema"

/**
 * How much of a result the model is shown.
 *
 * @internal
 */
export interface Limits {
  /** The most characters of text; past it the text is cut with a marker. `Infinity`: no cut. */
  readonly maxContent: number
  /** The most bytes of one image, sound or blob (decoded); a bigger one is dropped and said. */
  readonly maxPartBytes: number
}

/**
 * A result as the executor answers it.
 *
 * @internal
 */
export interface Rich {
  readonly content: string
  readonly parts: ReadonlyArray<ToolContent.Part> | undefined
  readonly structured: unknown
}

const say = (catalog: MessageCatalog.MessageCatalog, text: (c: MessageCatalog.MessageCatalog) => string | undefined) =>
  MessageCatalog.say(catalog, (c) => {
    const out = text(c)
    if (out === undefined) throw new Error("not in this catalogue")
    return out
  })

/**
 * `text` cut to `max` characters, ending with the catalogue's marker that says how many were
 * not shown. A text within the limit is returned as it is (the hot path: one comparison).
 *
 * @internal
 */
export const cut = (catalog: MessageCatalog.MessageCatalog, max: number, text: string): string => {
  if (!(text.length > max)) return text
  let end = Math.max(0, Math.floor(max))
  // Never split a surrogate pair.
  const last = text.charCodeAt(end - 1)
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--
  const hidden = text.length - end
  return `${text.slice(0, end)}\n${say(catalog, (c) => c.contentCut?.(hidden))}`
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

type Checked = { readonly part: ToolContent.Part } | { readonly dropped: string }

const dropped = (
  catalog: MessageCatalog.MessageCatalog,
  what: string,
  why: MessageCatalog.PartDropped,
  limit: number
): Checked => ({ dropped: say(catalog, (c) => c.partDropped?.(what, why, limit)) })

/** Checks base64 data: its size first (cheap), then its alphabet. */
const data = (
  catalog: MessageCatalog.MessageCatalog,
  limits: Limits,
  what: string,
  value: string,
  part: ToolContent.Part
): Checked => {
  if (ToolContent.base64Bytes(value) > limits.maxPartBytes)
    return dropped(catalog, what, "too_large", limits.maxPartBytes)
  if (!ToolContent.isBase64(value)) return dropped(catalog, what, "not_base64", limits.maxPartBytes)
  return { part }
}

/** One part, read once into a plain value; anything off is a drop with its reason. */
const checkPart = (catalog: MessageCatalog.MessageCatalog, limits: Limits, raw: unknown): Checked => {
  try {
    if (typeof raw !== "object" || raw === null) return dropped(catalog, "part", "unreadable", limits.maxPartBytes)
    const record = raw as Record<string, unknown>
    const type = record.type
    switch (type) {
      case "image":
      case "audio": {
        const mediaType = str(record.mediaType)
        const value = str(record.data)
        const what = `${type} ${mediaType ?? "?"}`
        if (mediaType === undefined || value === undefined) {
          return dropped(catalog, what, "unreadable", limits.maxPartBytes)
        }
        return data(catalog, limits, what, value, { type, mediaType, data: value })
      }
      case "resource_link": {
        const uri = str(record.uri)
        if (uri === undefined) return dropped(catalog, "resource", "unreadable", limits.maxPartBytes)
        const part: { -readonly [K in keyof ToolContent.ResourceLinkPart]: ToolContent.ResourceLinkPart[K] } = {
          type,
          uri
        }
        const name = str(record.name)
        const mimeType = str(record.mimeType)
        const description = str(record.description)
        if (name !== undefined) part.name = name
        if (mimeType !== undefined) part.mimeType = mimeType
        if (description !== undefined) part.description = description
        return { part }
      }
      case "resource": {
        const uri = str(record.uri)
        const text = str(record.text)
        const blob = str(record.blob)
        const what = `resource ${uri ?? "?"}`
        if (uri === undefined || (text === undefined) === (blob === undefined)) {
          return dropped(catalog, what, "unreadable", limits.maxPartBytes)
        }
        const part: { -readonly [K in keyof ToolContent.ResourcePart]: ToolContent.ResourcePart[K] } = { type, uri }
        const mimeType = str(record.mimeType)
        if (mimeType !== undefined) part.mimeType = mimeType
        if (text !== undefined) {
          part.text = text
          return { part }
        }
        part.blob = blob as string
        return data(catalog, limits, what, blob as string, part)
      }
      default:
        return dropped(catalog, "part", "unreadable", limits.maxPartBytes)
    }
  } catch {
    return dropped(catalog, "part", "unreadable", limits.maxPartBytes)
  }
}

/** The structured content as a clean JSON copy, or `undefined` and a line when it is not JSON. */
const json = (value: unknown): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    const text = JSON.stringify(value)
    if (text === undefined) return { ok: false }
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

/**
 * A `ToolContent` as the executor answers it (see the module's notes). Never throws.
 *
 * @internal
 */
export const fromContent = (catalog: MessageCatalog.MessageCatalog, limits: Limits, content: unknown): Rich => {
  const c = content as Record<string, unknown>
  let text = ""
  let described = false
  let rawParts: ReadonlyArray<unknown> = []
  let structuredIn: unknown
  const lines: Array<string> = []
  try {
    text = str(c.text) ?? ""
    described = c.described === true
    const parts = c.parts
    if (Array.isArray(parts)) rawParts = parts.slice()
    structuredIn = c.structured
  } catch {
    lines.push(say(catalog, (m) => m.partDropped?.("content", "unreadable", limits.maxPartBytes)))
  }
  const parts: Array<ToolContent.Part> = []
  for (const raw of rawParts) {
    const checked = checkPart(catalog, limits, raw)
    if ("part" in checked) {
      parts.push(checked.part)
      if (!described) lines.push(ToolContent.describe(checked.part))
    } else lines.push(checked.dropped)
  }
  let structured: unknown
  if (structuredIn !== undefined) {
    const copy = json(structuredIn)
    if (copy.ok) structured = copy.value
    else lines.push(say(catalog, (m) => m.partDropped?.("structured content", "not_json", limits.maxPartBytes)))
  }
  const all = text === "" ? lines : [text, ...lines]
  return {
    content: cut(catalog, limits.maxContent, all.join("\n")),
    parts: parts.length === 0 ? undefined : parts,
    structured
  }
}
