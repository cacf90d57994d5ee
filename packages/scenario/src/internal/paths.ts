/**
 * File paths as text, without a disk (the main entry reads none): `/` or `\` between names, a
 * leading `/` or drive (`C:`) for an absolute path. Enough to say where a folder is from another
 * file's folder.
 */

/** A path cut into its names, `.` gone and `..` folded where it can be. */
interface Parsed {
  /** `/`, `C:/`, or `""` for a relative path. */
  readonly anchor: string
  /** The names, in order; a relative path may start with `..`. */
  readonly names: ReadonlyArray<string>
}

const parse = (path: string): Parsed => {
  const slashed = path.replace(/\\/g, "/")
  const drive = /^[A-Za-z]:\//.exec(slashed)?.[0]
  const anchor = drive !== undefined ? drive.toUpperCase() : slashed.startsWith("/") ? "/" : ""
  const names: Array<string> = []
  for (const name of slashed.slice(anchor.length).split("/")) {
    if (name === "" || name === ".") continue
    if (name === ".." && names.length > 0 && names.at(-1) !== "..") names.pop()
    else if (name === ".." && anchor !== "") continue
    else names.push(name)
  }
  return { anchor, names }
}

/** The folder a file is in, as a path. */
export const dirname = (path: string): string => {
  const { anchor, names } = parse(path)
  return anchor + names.slice(0, -1).join("/")
}

/** `to` from the folder `from`, with `/` between names; `undefined` when the text cannot say it (one absolute and one not, `from` above the current folder). */
export const relative = (from: string, to: string): string | undefined => {
  const a = parse(from)
  const b = parse(to)
  if (a.anchor !== b.anchor) return undefined
  let common = 0
  while (common < a.names.length && common < b.names.length && a.names[common] === b.names[common]) common++
  const up = a.names.slice(common)
  if (up.includes("..")) return undefined
  return [...up.map(() => ".."), ...b.names.slice(common)].join("/")
}

/** `path` read from the folder `folder`. */
export const join = (folder: string, path: string): string => {
  const { anchor, names } = parse(folder === "" ? path : `${folder}/${path}`)
  return anchor + names.join("/")
}
