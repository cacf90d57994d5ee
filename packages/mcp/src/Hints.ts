/**
 * Our tool annotations and MCP's tool annotation hints are the same four facts: read-only,
 * destructive, idempotent, open-world (plus a display title). Served tools always state all
 * four; a mounted tool that states none gets MCP's defaults (not read-only, destructive, not
 * idempotent, open-world), so retry safety and a permission gate treat it as the most dangerous
 * kind.
 *
 * @since 0.1.0
 */
import { Tool } from "@agent-harness/tool-schema"

/**
 * MCP's `ToolAnnotations`.
 *
 * @since 0.1.0
 */
export interface McpHints {
  /** A display title. */
  readonly title?: string | undefined
  /** It changes nothing (MCP's default: false). */
  readonly readOnlyHint?: boolean | undefined
  /** It may destroy or overwrite (MCP's default: true). */
  readonly destructiveHint?: boolean | undefined
  /** Repeating it with the same input changes nothing more (MCP's default: false). */
  readonly idempotentHint?: boolean | undefined
  /** It reaches outside the server (MCP's default: true). */
  readonly openWorldHint?: boolean | undefined
}

/**
 * The hints a served tool is listed with: all four always stated, the title when there is one.
 *
 * @since 0.1.0
 */
export const fromAnnotations = (annotations: Tool.Annotations): McpHints => ({
  ...(annotations.title === undefined ? {} : { title: annotations.title }),
  readOnlyHint: annotations.readOnly,
  destructiveHint: annotations.destructive,
  idempotentHint: annotations.idempotent,
  openWorldHint: annotations.openWorld
})

/** A field of what a server listed, or `undefined` when reading it throws (a getter, a proxy). */
const read = (hints: object, key: string): unknown => {
  try {
    return (hints as Record<string, unknown>)[key]
  } catch {
    return undefined
  }
}

const flag = (hints: object, key: string, fallback: boolean): boolean => {
  const value = read(hints, key)
  return typeof value === "boolean" ? value : fallback
}

/**
 * Our annotations from what a server listed (`annotations`, and the tool's `title`, any shape):
 * each hint that is not a boolean (or cannot be read) takes MCP's default. Whether to believe
 * them is `Trust.judge`'s question.
 *
 * @since 0.1.0
 */
export const toAnnotations = (hints: unknown, title?: unknown): Tool.Annotations => {
  const given = typeof hints === "object" && hints !== null ? hints : {}
  const hinted = read(given, "title")
  const shown = typeof title === "string" && title !== "" ? title : typeof hinted === "string" ? hinted : undefined
  const defaults = Tool.defaultAnnotations
  return {
    ...(shown === undefined ? {} : { title: shown }),
    readOnly: flag(given, "readOnlyHint", defaults.readOnly),
    destructive: flag(given, "destructiveHint", defaults.destructive),
    idempotent: flag(given, "idempotentHint", defaults.idempotent),
    openWorld: flag(given, "openWorldHint", defaults.openWorld)
  }
}
