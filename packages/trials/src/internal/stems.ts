/** The stems of case files: each path from the files' common folder, `/` → `-`, without `.json`. */

const segments = (file: string): ReadonlyArray<string> => file.replaceAll("\\", "/").split("/")

/** The stem of each file, in order (`cases/a/b.json`, `cases/c.json` → `a-b`, `c`), each different. */
export const stems = (files: ReadonlyArray<string>): ReadonlyArray<string> => {
  const parts = files.map(segments)
  const folders = parts.map((p) => p.slice(0, -1))
  const first = folders[0] ?? []
  let common = 0
  while (
    common < first.length &&
    folders.every((folder) => folder.length > common && folder[common] === first[common])
  ) {
    common++
  }
  const plain = parts.map((p) =>
    p
      .slice(common)
      .filter((s) => s !== "" && s !== ".")
      .join("-")
      .replace(/\.json$/i, "")
  )
  // Two files with the same stem (`a/b.json`, `a-b.json`) would share their traces: the later get `~2`, `~3`...
  const taken = new Set(plain)
  const seen = new Set<string>()
  return plain.map((stem) => {
    if (!seen.has(stem)) {
      seen.add(stem)
      return stem
    }
    let n = 2
    while (taken.has(`${stem}~${n}`)) n++
    const unique = `${stem}~${n}`
    taken.add(unique)
    return unique
  })
}
