/**
 * Deep links. `#turn-12` is turn 12 of the page's first conversation, `#revision-2` revision 2
 * of its first plan session; `#f2` is the page's second file and `#f2/turn-12` a turn in it.
 * Pure, so it is tested without a browser.
 */

/** Where a link points: a file (its id, or the first of a kind), and a place in it. */
export interface Target {
  readonly file: string | null
  readonly place: { readonly kind: "turn" | "revision"; readonly n: number } | null
}

/** Reads a location hash (with or without its `#`). */
export const parse = (hash: string): Target => {
  const raw = hash.startsWith("#") ? hash.slice(1) : hash
  let text: string
  try {
    text = decodeURIComponent(raw)
  } catch {
    // A malformed escape (`#%E0%A4%A`): no target.
    return { file: null, place: null }
  }
  const match = /^(?:(f\d+)(?:\/|$))?(?:(turn|revision)-(\d+))?$/.exec(text)
  if (match === null) return { file: null, place: null }
  const [, file, kind, n] = match
  return {
    file: file ?? null,
    place: kind === "turn" || kind === "revision" ? { kind, n: Number(n) } : null
  }
}

/** The hash of a place in a file: short (`#turn-3`) when the file is the first of its kind. */
export const format = (file: string, place: Target["place"], first: boolean): string =>
  place === null ? `#${file}` : first ? `#${place.kind}-${place.n}` : `#${file}/${place.kind}-${place.n}`
