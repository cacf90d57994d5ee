/**
 * A tool's result when it is more than a string: the text the model reads, and beside it rich
 * parts (images, audio, resource links, embedded resources) and structured content (JSON, as
 * MCP's `structuredContent`). A run function returns one made with {@link make}; it is
 * recognized by its brand, never by its shape, so a tool whose data happens to look like
 * `{ type: "image" }` is still JSON.
 *
 * The text stays what every layer reads (scripted models, scenario files, traces, journals):
 * the parts travel beside it to providers and MCP clients that accept them, and the text says
 * what each part is (`[image image/png, 1024 bytes]`), so a text-only provider reads no less.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** An image, base64-encoded. @since 0.1.0 */
export const ImagePart: Schema.Struct<{
  readonly type: Schema.Literal<"image">
  readonly mediaType: Schema.String
  readonly data: Schema.String
}> = Schema.Struct({ type: Schema.Literal("image"), mediaType: Schema.String, data: Schema.String })

/** An image: its media type (`image/png`) and its bytes in base64. @since 0.1.0 */
export type ImagePart = typeof ImagePart.Type

/** A sound, base64-encoded. @since 0.1.0 */
export const AudioPart: Schema.Struct<{
  readonly type: Schema.Literal<"audio">
  readonly mediaType: Schema.String
  readonly data: Schema.String
}> = Schema.Struct({ type: Schema.Literal("audio"), mediaType: Schema.String, data: Schema.String })

/** A sound: its media type (`audio/wav`) and its bytes in base64. @since 0.1.0 */
export type AudioPart = typeof AudioPart.Type

/** A link to a resource the reader may fetch (MCP's `resource_link`). @since 0.1.0 */
export const ResourceLinkPart: Schema.Struct<{
  readonly type: Schema.Literal<"resource_link">
  readonly uri: Schema.String
  readonly name: Schema.optionalKey<Schema.String>
  readonly mimeType: Schema.optionalKey<Schema.String>
  readonly description: Schema.optionalKey<Schema.String>
}> = Schema.Struct({
  type: Schema.Literal("resource_link"),
  uri: Schema.String,
  name: Schema.optionalKey(Schema.String),
  mimeType: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String)
})

/** A link to a resource: its URI, and its name, media type and description when known. @since 0.1.0 */
export type ResourceLinkPart = typeof ResourceLinkPart.Type

/** A resource given whole (MCP's embedded `resource`): its text, or its bytes in base64 (`blob`). @since 0.1.0 */
export const ResourcePart: Schema.Struct<{
  readonly type: Schema.Literal<"resource">
  readonly uri: Schema.String
  readonly mimeType: Schema.optionalKey<Schema.String>
  readonly text: Schema.optionalKey<Schema.String>
  readonly blob: Schema.optionalKey<Schema.String>
}> = Schema.Struct({
  type: Schema.Literal("resource"),
  uri: Schema.String,
  mimeType: Schema.optionalKey(Schema.String),
  text: Schema.optionalKey(Schema.String),
  blob: Schema.optionalKey(Schema.String)
})

/** A resource given whole: its URI, media type, and its text or base64 bytes. @since 0.1.0 */
export type ResourcePart = typeof ResourcePart.Type

/** A rich part of a result. @since 0.1.0 */
export const Part: Schema.Union<
  readonly [typeof ImagePart, typeof AudioPart, typeof ResourceLinkPart, typeof ResourcePart]
> = Schema.Union([ImagePart, AudioPart, ResourceLinkPart, ResourcePart])

/** A rich part of a result: an image, a sound, a resource link or an embedded resource. @since 0.1.0 */
export type Part = typeof Part.Type

/** The brand of a `Content`. @since 0.1.0 */
export const TypeId: unique symbol = Symbol.for("@agent-harness/tool-schema/ToolContent")

/** The brand of a `Content`. @since 0.1.0 */
export type TypeId = typeof TypeId

/**
 * A tool's rich result: `text` (what the model reads; the executor adds a line saying what each
 * part is), `parts`, and `structured` (JSON) when there is any.
 *
 * @since 0.1.0
 */
export interface Content {
  /** The brand: only {@link make} gives it. */
  readonly [TypeId]: TypeId
  /** The text of the result, as the tool wrote it. */
  readonly text: string
  /** The rich parts, in order (checked by the executor: a bad one is dropped and said). */
  readonly parts: ReadonlyArray<Part>
  /** The structured content (JSON), when there is any. */
  readonly structured?: unknown
  /**
   * Whether `text` already says what each part is (a mounted MCP tool's text has a line for each
   * of its blocks), so the executor adds no line of its own.
   */
  readonly described: boolean
}

/**
 * A rich result for a run function to return (or a typed failure to fail with).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Tool, ToolContent } from "@agent-harness/tool-schema"
 *
 * const Chart = Tool.make("chart", {
 *   description: "Draws the chart",
 *   parameters: Schema.Struct({}),
 *   run: () =>
 *     ToolContent.make({
 *       text: "the chart",
 *       parts: [{ type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }]
 *     })
 * })
 * ```
 *
 * @since 0.1.0
 */
export const make = (options: {
  readonly text?: string | undefined
  readonly parts?: ReadonlyArray<Part> | undefined
  readonly structured?: unknown
  readonly described?: boolean | undefined
}): Content => {
  const content: { -readonly [K in keyof Content]: Content[K] } = {
    [TypeId]: TypeId,
    text: options.text ?? "",
    parts: options.parts ?? [],
    described: options.described ?? false
  }
  if (options.structured !== undefined) content.structured = options.structured
  return content
}

/**
 * Whether a value is a `Content` (by its brand). Never throws: a value whose brand cannot be
 * read (a revoked `Proxy`) is not one.
 *
 * @since 0.1.0
 */
export const isContent = (u: unknown): u is Content => {
  if (typeof u !== "object" || u === null) return false
  try {
    return (u as { readonly [TypeId]?: unknown })[TypeId] === TypeId
  } catch {
    return false
  }
}

/** The size in bytes of base64 data, without decoding it. @since 0.1.0 */
export const base64Bytes = (data: string): number => {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding)
}

const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/

/** Whether a string is base64 (the standard alphabet, padded to a multiple of 4). @since 0.1.0 */
export const isBase64 = (data: string): boolean => data.length % 4 === 0 && base64Pattern.test(data)

/**
 * One line saying what a part is, as the text fallback for readers that cannot take it:
 * `[image image/png, 1024 bytes]`, `[resource file:///a.txt (a)]`; an embedded text resource
 * is its text.
 *
 * @since 0.1.0
 */
export const describe = (part: Part): string => {
  switch (part.type) {
    case "image":
    case "audio":
      return `[${part.type} ${part.mediaType}, ${base64Bytes(part.data)} bytes]`
    case "resource_link":
      return `[resource ${part.uri}${part.name === undefined ? "" : ` (${part.name})`}]`
    case "resource":
      if (part.text !== undefined) return part.text
      return `[resource ${part.uri}${part.mimeType === undefined ? "" : `, ${part.mimeType}`}, ${base64Bytes(part.blob ?? "")} bytes]`
  }
}
