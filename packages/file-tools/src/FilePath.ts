/**
 * The paths the file tools accept, and `PathRefused`, the typed refusal of a path: by its text
 * (`..`, an absolute path, a NUL character, a lone surrogate, an empty or too long path), or by
 * what a disk holds under it (a symbolic link, a file with other hard links, a directory, a
 * FIFO, socket or device).
 *
 * @since 0.1.0
 */
import { MessageCatalog } from "@agent-harness/tool-schema"
import { type Cause, Schema } from "effect"

/**
 * Why a path is refused.
 *
 * - `outside`: it leaves the root (an absolute path, or a `..` segment);
 * - `nul`: it holds a NUL character;
 * - `malformed`: it is not valid Unicode (a lone surrogate);
 * - `empty`: it names no file;
 * - `too-long`: longer than `maxLength`, or than the file system takes;
 * - `link`: a symbolic link is there (links are never followed);
 * - `hard-link`: the file there has other hard links, so it may be a file outside the root;
 * - `directory`: a directory is there;
 * - `special`: a FIFO, socket or device is there;
 * - `git`: it is inside a `.git` folder (or names a `.git` file), which no tool reads or writes;
 * - `segment`: it has an empty or `.` segment (`a//b`, `./a`, `a/`), where a folder tree needs
 *   one plain name per segment;
 * - `not-folder`: a file is where a folder of the path should be;
 * - `too-large`: the file is larger than the most a tool reads at once.
 *
 * @since 0.1.0
 */
export type Reason = (typeof reasons)[number]

/**
 * The reasons, in the order of `Reason`.
 *
 * @since 0.1.0
 */
export const reasons = [
  "outside",
  "nul",
  "malformed",
  "empty",
  "too-long",
  "link",
  "hard-link",
  "directory",
  "special",
  "git",
  "segment",
  "not-folder",
  "too-large"
] as const

const PathRefusedBase: Schema.Class<
  PathRefused,
  Schema.TaggedStruct<
    "PathRefused",
    {
      readonly path: Schema.String
      readonly reason: Schema.Literals<typeof reasons>
      readonly limit: Schema.optional<Schema.Finite>
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<PathRefused>()("PathRefused", {
  path: Schema.String,
  reason: Schema.Literals(reasons),
  limit: Schema.optional(Schema.Finite)
})

/**
 * A path the file environment refuses, and why. Nothing was read or changed. Its `message` is
 * the English observation (`not executed: path outside the root: '../x'`); the tools show it
 * in their own language.
 *
 * @since 0.1.0
 */
export class PathRefused extends PathRefusedBase {
  /** The English observation: `not executed: path outside the root: '../x'`. */
  override get message(): string {
    return MessageCatalog.english.notExecuted(describe(this.reason, this.path, english, this.limit))
  }
}

/**
 * The words of the refusals in one language: the reason of each refusal, given the path to
 * quote (never the text of a path too long to show, or holding a NUL) and, for `too-large`,
 * the limit in bytes.
 *
 * @since 0.1.0
 */
export type Words = { readonly [R in Reason]: (quoted: string, limit?: number) => string }

/** A size in bytes as a person reads it: `1 MiB`, `512 KiB`, `100 bytes`. */
const sizeText = (bytes: number | undefined, unknown: string): string =>
  bytes === undefined
    ? unknown
    : bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0
      ? `${bytes / (1024 * 1024)} MiB`
      : bytes >= 1024 && bytes % 1024 === 0
        ? `${bytes / 1024} KiB`
        : `${bytes} bytes`

/** The refusals in English (`path outside the root: '../x'`). @since 0.1.0 */
export const english: Words = {
  outside: (p) => `path outside the root: ${p}`,
  nul: () => "the path contains a NUL character",
  malformed: () => "the path is not valid Unicode (it has a lone surrogate)",
  empty: () => "the path is empty",
  "too-long": () => "the path is too long",
  link: (p) => `${p} is a symbolic link, and links are not followed`,
  "hard-link": (p) => `${p} has other hard links (it may be a file outside the root)`,
  directory: (p) => `${p} is a directory, not a file`,
  special: (p) => `${p} is not a regular file (it is a FIFO, a socket or a device)`,
  git: (p) => `${p} is inside .git, which the file tools never read or write`,
  segment: (p) => `${p} has an empty or '.' segment (write it as folder/file.txt)`,
  "not-folder": (p) => `${p} is a file, not a folder`,
  "too-large": (p, limit) => `${p} is larger than ${sizeText(limit, "the limit")}, the most a file tool reads`
}

/** The refusals in Spanish (`ruta fuera de la raíz: '../x'`). @since 0.1.0 */
export const spanish: Words = {
  outside: (p) => `ruta fuera de la raíz: ${p}`,
  nul: () => "la ruta contiene un carácter NUL",
  malformed: () => "la ruta no es Unicode válido (tiene un sustituto suelto)",
  empty: () => "la ruta está vacía",
  "too-long": () => "la ruta es demasiado larga",
  link: (p) => `${p} es un enlace simbólico, y los enlaces no se siguen`,
  "hard-link": (p) => `${p} tiene otros enlaces duros (puede ser un fichero fuera de la raíz)`,
  directory: (p) => `${p} es una carpeta, no un fichero`,
  special: (p) => `${p} no es un fichero normal (es una FIFO, un socket o un dispositivo)`,
  git: (p) => `${p} está dentro de .git, que las herramientas de ficheros nunca leen ni escriben`,
  segment: (p) => `${p} tiene un segmento vacío o '.' (escríbela como carpeta/fichero.txt)`,
  "not-folder": (p) => `${p} es un fichero, no una carpeta`,
  "too-large": (p, limit) =>
    `${p} ocupa más de ${sizeText(limit, "el límite")}, lo máximo que lee una herramienta de ficheros`
}

/**
 * The reason of a refusal in words, the path quoted as `'P'` (`limit`: the byte limit of a
 * `too-large` refusal).
 *
 * @since 0.1.0
 */
export const describe = (reason: Reason, path: string, words: Words, limit?: number): string =>
  words[reason](`'${path}'`, limit)

/**
 * The longest path the tools accept, in UTF-16 code units (Linux's `PATH_MAX`).
 *
 * @since 0.1.0
 */
export const maxLength = 4096

/**
 * Whether a text is well-formed UTF-16: no lone surrogate.
 *
 * @since 0.1.0
 */
export const isWellFormed = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false
      i++
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      return false
    }
  }
  return true
}

/** An absolute path on any platform: `/x`, `\x`, `\\server\share`, `C:\x`, `C:x`. */
const absolute = /^(?:[/\\]|[A-Za-z]:)/

/** A `..` segment, `/` and `\` both separating segments. */
const parentSegment = /(?:^|[/\\])\.\.(?:[/\\]|$)/

/**
 * Why the text of a path is refused, or `undefined` when the tools accept it. A path is
 * relative to the root, and refused when it is empty (unless `allowEmpty`, as a `list` folder
 * prefix may be), longer than `maxLength`, holds a NUL or a lone surrogate, is absolute, or has
 * a `..` segment anywhere (even `a/../b`: paths are not normalised). Checked in that order.
 *
 * @since 0.1.0
 */
export const problem = (path: string, options?: { readonly allowEmpty?: boolean }): Reason | undefined => {
  if (path === "") return options?.allowEmpty === true ? undefined : "empty"
  if (path.length > maxLength) return "too-long"
  if (path.includes("\0")) return "nul"
  if (!isWellFormed(path)) return "malformed"
  if (absolute.test(path) || parentSegment.test(path)) return "outside"
  return undefined
}
