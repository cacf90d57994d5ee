/**
 * Which link targets the page follows. Pure, so it is tested without a browser.
 *
 * A target is read as the browser will read it, by WHATWG URL parsing (`new URL`): leading and
 * trailing C0 controls and spaces are stripped, ASCII tabs and newlines removed anywhere, the
 * scheme lower-cased. So `java\tscript:`, ` javascript:`, `\u0000javascript:` and `JAVASCRIPT:` are
 * all `javascript:`, and refused. Only http, https and mailto URLs, in-page anchors and relative
 * paths are followed; the page does not rely on its CSP for this.
 */

/** The schemes a link may have. */
const schemes: ReadonlySet<string> = new Set(["http:", "https:", "mailto:"])

/** What URL parsing removes before it reads a target: C0 controls and spaces at either end, tabs and newlines anywhere. */
const cleaned = (href: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters URL parsing strips.
  href.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "").replace(/[\t\n\r]/g, "")

/**
 * Whether a cleaned target starts with a scheme, as URL parsing reads one: an ASCII letter, then
 * letters, digits, `+`, `-` or `.`, then `:`. Without one it is relative to the page.
 */
const hasScheme = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target)

/**
 * A link target the page may follow, as the browser will read it: an in-page anchor or a relative
 * path (resolved against the page, so of the page's own scheme), or an http, https or mailto URL;
 * `null` for any other scheme (`javascript:`, `vbscript:`, `data:`, `file:`, ...) however it is
 * spelt, for a link to another host without a scheme (`//host/path`), and for what does not parse.
 */
export const safe = (href: string): string | null => {
  if (typeof href !== "string") return null
  const target = cleaned(href)
  try {
    if (hasScheme(target)) {
      const url = new URL(target)
      return schemes.has(url.protocol) ? url.href : null
    }
    if (/^[\\/]{2}/.test(target)) return null
    // Parses as the page's own browser would parse it (against a file page: a path, a query, an anchor).
    new URL(target, "file:///viewer/")
    return target
  } catch {
    return null
  }
}
