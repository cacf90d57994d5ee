/**
 * Provider-safe tool names. Anthropic, OpenAI and most model APIs accept only
 * `^[a-zA-Z0-9_-]{1,64}$`; the Spanish file tools (`añadir`) and dotted names
 * (`catalogo.buscar`) break that. `alias` gives the name a provider is sent instead: the name
 * itself when it is already safe; otherwise its letters without accents, with every run of other
 * characters as one `_` (`anadir`, `catalogo_buscar`). The alias depends on the name alone, so it
 * is stable across runs, and still reads as the tool's name to the model. `Toolset.make` refuses
 * a name that has no alias and two tools whose aliases clash, so within a toolset every alias
 * maps back to exactly one tool.
 *
 * @since 0.1.0
 */

/**
 * The names model providers accept.
 *
 * @since 0.1.0
 */
export const providerPattern: RegExp = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * The longest name providers accept.
 *
 * @since 0.1.0
 */
export const maxLength = 64

/**
 * A name's alias, or why it has none.
 *
 * @since 0.1.0
 */
export type Alias =
  | { readonly _tag: "Alias"; readonly alias: string }
  | { readonly _tag: "Unsafe"; readonly problem: string }

const combiningMarks = /\p{M}+/gu
/**
 * The Combining Diacritical Marks block (U+0300–U+036F), all of it marks: what Latin letters with
 * accents decompose into. `\p{M}` builds its Unicode tables the first time it runs (a third of a
 * millisecond at start), so a name that decomposes into ASCII and these has them dropped with
 * this instead, with the same result.
 */
const diacritics = /[\u0300-\u036f]+/g
const asciiAndDiacritics = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code > 0x7f && (code < 0x300 || code > 0x36f)) return false
  }
  return true
}
const unsafeRuns = /[^a-zA-Z0-9_-]+/g
const letterOrDigit = /[a-zA-Z0-9]/

/**
 * The provider-safe alias of a tool name: the name when it is safe, else its accents dropped
 * and every run of other characters made one `_`. A name that is empty, that keeps no ASCII
 * letter or digit (`检索`, `...`), or whose alias is longer than 64 characters has none:
 * `problem` says why.
 *
 * @example
 * ```ts
 * import { ToolName } from "@agent-harness/tool-schema"
 *
 * ToolName.alias("añadir") // { _tag: "Alias", alias: "anadir" }
 * ToolName.alias("catalogo.buscar") // { _tag: "Alias", alias: "catalogo_buscar" }
 * ```
 *
 * @since 0.1.0
 */
export const alias = (name: string): Alias => {
  if (typeof name !== "string" || name === "") return { _tag: "Unsafe", problem: "a tool name must not be empty" }
  if (providerPattern.test(name)) return { _tag: "Alias", alias: name }
  const decomposed = name.normalize("NFKD")
  const unmarked = asciiAndDiacritics(decomposed)
    ? decomposed.replace(diacritics, "")
    : decomposed.replace(combiningMarks, "")
  const safe = unmarked.replace(unsafeRuns, "_")
  if (!letterOrDigit.test(safe)) {
    return {
      _tag: "Unsafe",
      problem: `the tool name ${JSON.stringify(name)} keeps no ASCII letter or digit once made provider-safe (providers accept ^[a-zA-Z0-9_-]{1,64}$); name it with Latin letters`
    }
  }
  if (safe.length > maxLength) {
    return {
      _tag: "Unsafe",
      problem: `the tool name ${JSON.stringify(name)} is ${safe.length} characters once made provider-safe; providers accept at most ${maxLength}`
    }
  }
  return { _tag: "Alias", alias: safe }
}

/**
 * The first reason a list of tool names cannot be sent to a provider (a name without an alias,
 * two names with one alias), or `undefined`. Names are expected distinct.
 *
 * @since 0.1.0
 */
export const problem = (names: Iterable<string>): string | undefined => {
  const owners = new Map<string, string>()
  for (const name of names) {
    const a = alias(name)
    if (a._tag === "Unsafe") return a.problem
    const owner = owners.get(a.alias)
    if (owner !== undefined) {
      return `the tools ${JSON.stringify(owner)} and ${JSON.stringify(name)} would both be sent to model providers as '${a.alias}'; rename one`
    }
    owners.set(a.alias, name)
  }
  return undefined
}
