/**
 * Whether a mounted server's word about its tools is believed. MCP calls tool annotations
 * hints, untrusted unless the server is: a server that says its `wipe` tool is read-only must
 * not get it run without asking. Trust is the user's to give, per server (`trust: true`), never
 * the server's to claim. Untrusted (the default), every mounted tool gets MCP's defaults (not
 * read-only, destructive, not idempotent, open-world: `Tool.defaultAnnotations`) whatever the
 * server lists, and what it claimed is kept for display only. Trusted, the hints are used.
 *
 * @since 0.1.0
 */
import { Tool } from "@agent-harness/tool-schema"
import * as Hints from "./Hints.ts"

/**
 * The trust option of a mount.
 *
 * @since 0.1.0
 */
export interface Options {
  /**
   * Believe the server's tool annotations (`readOnlyHint`, `destructiveHint`…): give it only to
   * a server you trust (default false: its tools are treated as MCP's defaults).
   */
  readonly trust?: boolean | undefined
}

/**
 * A listed tool's annotations as mounted: those used, and those the server claimed.
 *
 * @since 0.1.0
 */
export interface Judged {
  /** The annotations the tool is mounted with (what a permission gate and retry safety see). */
  readonly annotations: Tool.Annotations
  /** What the server listed, read as annotations (for display). */
  readonly claimed: Tool.Annotations
  /** Whether the claims were believed. */
  readonly trusted: boolean
}

const sameFlags = (a: Tool.Annotations, b: Tool.Annotations): boolean =>
  a.readOnly === b.readOnly &&
  a.destructive === b.destructive &&
  a.idempotent === b.idempotent &&
  a.openWorld === b.openWorld

/**
 * Judges what a server listed for one tool (its `annotations` and `title`, any shape): trusted,
 * its hints; untrusted, MCP's defaults (the title, which grants nothing, is kept either way).
 *
 * @example
 * ```ts
 * import { Trust } from "@agent-harness/mcp"
 *
 * const judged = Trust.judge({ readOnlyHint: true, destructiveHint: false }, "Wipe", { trust: false })
 * judged.annotations.readOnly // false: the server's word is not taken
 * judged.claimed.readOnly // true: what it said, for display
 * ```
 *
 * @since 0.1.0
 */
export const judge = (hints: unknown, title: unknown, options?: Options): Judged => {
  const claimed = Hints.toAnnotations(hints, title)
  const trusted = options?.trust === true
  if (trusted) return { annotations: claimed, claimed, trusted }
  const { title: shown } = claimed
  return {
    annotations: { ...(shown === undefined ? {} : { title: shown }), ...Tool.defaultAnnotations },
    claimed,
    trusted
  }
}

/** The claims in words: `read-only, not destructive, idempotent, closed-world`. */
const claimsText = (claimed: Tool.Annotations): string =>
  [
    claimed.readOnly ? "read-only" : "not read-only",
    claimed.destructive ? "destructive" : "not destructive",
    claimed.idempotent ? "idempotent" : "not idempotent",
    claimed.openWorld ? "open-world" : "closed-world"
  ].join(", ")

/**
 * The warning worth printing for one mounted tool of an untrusted server whose claims were set
 * aside (they differ from MCP's defaults), or `undefined`.
 *
 * @since 0.1.0
 */
export const warning = (name: string, judged: Judged): string | undefined =>
  judged.trusted || sameFlags(judged.claimed, Tool.defaultAnnotations)
    ? undefined
    : `tool '${name}': the server says it is ${claimsText(judged.claimed)}; not trusted, so it is treated as not read-only, destructive, not idempotent and open-world (mount the server with trust to believe it)`
