/**
 * Provider-safe tool names. Anthropic and OpenAI accept only `^[a-zA-Z0-9_-]{1,64}$`; MCP names
 * may hold dots, slashes and up to 128 characters. A mounted tool is named
 * `<prefix><separator><remote name>`, made safe: characters outside the set become `_`, and a
 * name that had to change (or is too long, or clashes) gets a short hash of the remote name, so
 * the same server always gives the same names.
 *
 * @since 0.1.0
 */

/**
 * The names model providers accept.
 *
 * @since 0.1.0
 */
export const pattern: RegExp = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * The separator between the prefix and the remote name: `fs__read_file`.
 *
 * @since 0.1.0
 */
export const defaultSeparator = "__"

/**
 * The longest prefix accepted, so that the remote name keeps some room in 64 characters.
 *
 * @since 0.1.0
 */
export const maxPrefixLength = 32

/**
 * Whether a name is accepted by the model providers.
 *
 * @since 0.1.0
 */
export const isValid = (name: string): boolean => pattern.test(name)

/**
 * What is wrong with a prefix (or a separator when `separator` is set), or `undefined` when it
 * can be used.
 *
 * @since 0.1.0
 */
export const checkPrefix = (prefix: string, separator: string): string | undefined => {
  if (prefix === "") return "the prefix is empty"
  if (prefix.length > maxPrefixLength) return `the prefix '${prefix}' is longer than ${maxPrefixLength} characters`
  if (!/^[a-zA-Z0-9_-]+$/.test(prefix)) return `the prefix '${prefix}' may only hold letters, digits, '_' and '-'`
  if (!/^[a-zA-Z0-9_-]*$/.test(separator))
    return `the separator '${separator}' may only hold letters, digits, '_' and '-'`
  return undefined
}

/**
 * A prefix made from any text (a server's name): unsafe characters become `_`, cut to
 * `maxPrefixLength`; `mcp` when nothing is left.
 *
 * @since 0.1.0
 */
export const prefixFrom = (text: string): string => {
  const safe = text
    .replace(/[^a-zA-Z0-9_-]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, maxPrefixLength)
  return safe === "" ? "mcp" : safe
}

/** FNV-1a, 32 bits, as 8 hex digits: short, stable, no crypto needed. */
const hash = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, "0")
}

/**
 * The local name of a remote tool: `prefix + separator + name` when that is provider-safe and
 * not in `taken`; otherwise the safe form with `_` and a hash of the remote name (and a counter
 * in the unlikely case that clashes too). The prefix must pass `checkPrefix`.
 *
 * @example
 * ```ts
 * import { ToolName } from "@agent-harness/mcp"
 *
 * ToolName.local("fs", "__", "read_file", new Set()) // "fs__read_file"
 * ToolName.local("fs", "__", "admin.users/list", new Set()) // "fs__admin_users_list_1b9c0f2e" (hash of the remote name)
 * ```
 *
 * @since 0.1.0
 */
export const local = (prefix: string, separator: string, remote: string, taken: ReadonlySet<string>): string => {
  const plain = `${prefix}${separator}${remote}`
  if (isValid(plain) && !taken.has(plain)) return plain
  const suffix = `_${hash(remote)}`
  const safe = plain.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64 - suffix.length)
  let name = `${safe}${suffix}`
  for (let n = 2; taken.has(name); n++) {
    const counter = `_${n}`
    name = `${safe.slice(0, 64 - suffix.length - counter.length)}${suffix}${counter}`
  }
  return name
}
