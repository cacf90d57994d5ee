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

/**
 * The Schema of a part made of bytes: tagged `type`, with its media type and its bytes in base64.
 *
 * @since 0.1.0
 */
export type BytesPart<T extends string> = Schema.Struct<{
  readonly type: Schema.Literal<T>
  readonly mediaType: Schema.String
  readonly data: Schema.String
}>

/**
 * The Schema of a part that names a resource: tagged `type`, with its `uri` and the optional
 * texts `K`.
 *
 * @since 0.1.0
 */
export type UriPart<T extends string, K extends string> = Schema.Struct<
  { readonly type: Schema.Literal<T>; readonly uri: Schema.String } & {
    readonly [Key in K]: Schema.optionalKey<Schema.String>
  }
>

const bytesPart = <T extends string>(type: T): BytesPart<T> =>
  Schema.Struct({ type: Schema.Literal(type), mediaType: Schema.String, data: Schema.String })

const uriPart = <T extends string, const K extends string>(type: T, optional: ReadonlyArray<K>): UriPart<T, K> =>
  Schema.Struct({
    type: Schema.Literal(type),
    uri: Schema.String,
    ...(Object.fromEntries(optional.map((key) => [key, Schema.optionalKey(Schema.String)])) as {
      readonly [Key in K]: Schema.optionalKey<Schema.String>
    })
  })

/** An image, base64-encoded. @since 0.1.0 */
export const ImagePart: BytesPart<"image"> = bytesPart("image")

/** An image: its media type (`image/png`) and its bytes in base64. @since 0.1.0 */
export type ImagePart = typeof ImagePart.Type

/** A sound, base64-encoded. @since 0.1.0 */
export const AudioPart: BytesPart<"audio"> = bytesPart("audio")

/** A sound: its media type (`audio/wav`) and its bytes in base64. @since 0.1.0 */
export type AudioPart = typeof AudioPart.Type

/** A link to a resource the reader may fetch (MCP's `resource_link`). @since 0.1.0 */
export const ResourceLinkPart: UriPart<"resource_link", "name" | "mimeType" | "description"> = uriPart(
  "resource_link",
  ["name", "mimeType", "description"]
)

/** A link to a resource: its URI, and its name, media type and description when known. @since 0.1.0 */
export type ResourceLinkPart = typeof ResourceLinkPart.Type

/** A resource given whole (MCP's embedded `resource`): its text, or its bytes in base64 (`blob`). @since 0.1.0 */
export const ResourcePart: UriPart<"resource", "mimeType" | "text" | "blob"> = uriPart("resource", [
  "mimeType",
  "text",
  "blob"
])

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
