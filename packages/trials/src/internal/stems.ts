/** The stems of case files: each path from the files' common folder, `/` → `-`, without `.json`. */

const segments = (file: string): ReadonlyArray<string> => file.replaceAll("\\", "/").split("/")

/** The stem of each file, in order (`cases/a/b.json`, `cases/c.json` → `a-b`, `c`). */
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
  return parts.map((p) =>
    p
      .slice(common)
      .filter((s) => s !== "" && s !== ".")
      .join("-")
      .replace(/\.json$/i, "")
  )
}
