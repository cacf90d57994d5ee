/**
 * Which link targets the page follows. Pure, so it is tested without a browser.
 */

/** A link target the page may follow: an in-page anchor, a relative path, or http(s) and file URLs; `null` for any other scheme. */
export const safe = (href: string): string | null => {
  if (href.startsWith("#")) return href
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(href)
  if (scheme === null) return href
  const name = (scheme[1] ?? "").toLowerCase()
  return name === "http" || name === "https" || name === "file" ? href : null
}
