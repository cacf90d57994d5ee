/**
 * The five file tools of the scenarios (`read`, `list`, `search`, `write`, `append`), in English
 * and in Spanish (`leer`, `listar`, `buscar`, `escribir`, `añadir`), over the `Files` service.
 * Names, fields and texts follow the scenario contract word for word.
 *
 * @since 0.1.0
 */
import { Toolset, Tool } from "@agent-harness/tool-schema"
import { Effect, Option, Schema } from "effect"
import { Files } from "./Files.ts"

/**
 * The languages the tools speak.
 *
 * @since 0.1.0
 */
export type Locale = "en" | "es"

/**
 * `read`/`leer` was asked for a path that is not in the environment. Its `message` is the
 * observation text: `file 'P' does not exist` / `no existe el fichero 'P'`.
 *
 * @since 0.1.0
 */
export class FileNotFound extends Schema.TaggedError<FileNotFound>()("FileNotFound", {
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * The texts the tools return, per locale.
 *
 * @since 0.1.0
 */
export interface Texts {
  readonly notFound: (path: string) => string
  readonly wrote: (count: number, path: string) => string
  readonly appended: (count: number, path: string) => string
}

/** @since 0.1.0 */
export const englishTexts: Texts = {
  notFound: (path) => `file '${path}' does not exist`,
  wrote: (count, path) => `wrote ${count} characters to ${path}`,
  appended: (count, path) => `appended ${count} characters to ${path}`
}

/** @since 0.1.0 */
export const spanishTexts: Texts = {
  notFound: (path) => `no existe el fichero '${path}'`,
  wrote: (count, path) => `escritos ${count} caracteres en ${path}`,
  appended: (count, path) => `añadidos ${count} caracteres a ${path}`
}

const readOnly: Tool.Annotations = { readOnly: true, destructive: false, idempotent: true, openWorld: false }
const replaces: Tool.Annotations = { readOnly: false, destructive: true, idempotent: true, openWorld: false }
const appends: Tool.Annotations = { readOnly: false, destructive: false, idempotent: false, openWorld: false }

// The behaviour, shared by both locales.

const readFile = (texts: Texts, path: string): Effect.Effect<string, FileNotFound, Files> =>
  Files.use((files) =>
    Effect.flatMap(
      files.read(path),
      Option.match({
        onNone: () => Effect.fail(new FileNotFound({ path, message: texts.notFound(path) })),
        onSome: Effect.succeed
      })
    )
  )

const listFolder = (folder: string): Effect.Effect<string, never, Files> =>
  Files.use((files) => Effect.map(files.list, (paths) => paths.filter((p) => p.startsWith(folder)).join("\n")))

/**
 * The lines of a text, as Python's `splitlines` sees them for `\n`, `\r\n` and `\r`: no line
 * after a final line break, none at all in an empty text.
 *
 * @since 0.1.0
 */
export const lines = (text: string): ReadonlyArray<string> => {
  if (text === "") return []
  const parts = text.split(/\r\n|\n|\r/)
  return /[\r\n]$/.test(text) ? parts.slice(0, -1) : parts
}

const searchLines = (pattern: string): Effect.Effect<string, never, Files> =>
  Files.use((files) =>
    Effect.map(files.entries, (entries) =>
      entries
        .flatMap(([path, content]) =>
          lines(content)
            .filter((line) => line.includes(pattern))
            .map((line) => `${path}: ${line}`)
        )
        .join("\n")
    )
  )

const writeFile = (texts: Texts, path: string, content: string): Effect.Effect<string, never, Files> =>
  Files.use((files) => Effect.as(files.write(path, content), texts.wrote(content.length, path)))

const appendFile = (texts: Texts, path: string, content: string): Effect.Effect<string, never, Files> =>
  Files.use((files) => Effect.as(files.append(path, content), texts.appended(content.length, path)))

const failureMessage = (error: FileNotFound): string => error.message

const text = (description: string) => Schema.String.annotate({ description })

// English.

/** `read {path}`: the file's content, or `file 'P' does not exist`. @since 0.1.0 */
export const Read = Tool.make("read", {
  description: "Reads a file and returns its whole content.",
  parameters: Schema.Struct({ path: text("The path of the file, e.g. notes/todo.txt") }),
  annotations: readOnly,
  run: ({ path }) => readFile(englishTexts, path),
  failureMessage
})

/** `list {folder}`: the paths that start with the folder, sorted, one per line. @since 0.1.0 */
export const List = Tool.make("list", {
  description:
    "Lists the paths that start with the given folder, sorted, one per line. An empty folder lists every file.",
  parameters: Schema.Struct({ folder: text("The folder prefix, e.g. notes/") }),
  annotations: readOnly,
  run: ({ folder }) => listFolder(folder)
})

/** `search {pattern}`: `path: line` for each line containing the pattern. @since 0.1.0 */
export const Search = Tool.make("search", {
  description:
    "Finds the lines that contain the given text (not a regular expression) in every file, as 'path: line', one per line. No matches gives an empty text.",
  parameters: Schema.Struct({ pattern: text("The text to look for") }),
  annotations: readOnly,
  run: ({ pattern }) => searchLines(pattern)
})

/** `write {path, content}`: replaces the file; `wrote N characters to P`. @since 0.1.0 */
export const Write = Tool.make("write", {
  description: "Writes a file, replacing its whole content (creating it if needed).",
  parameters: Schema.Struct({ path: text("The path of the file"), content: text("The new content of the file") }),
  annotations: replaces,
  run: ({ path, content }) => writeFile(englishTexts, path, content)
})

/** `append {path, content}`: adds to the end of the file; `appended N characters to P`. @since 0.1.0 */
export const Append = Tool.make("append", {
  description: "Adds text to the end of a file (creating it if needed). Calling it twice adds the text twice.",
  parameters: Schema.Struct({ path: text("The path of the file"), content: text("The text to add at the end") }),
  annotations: appends,
  run: ({ path, content }) => appendFile(englishTexts, path, content)
})

// Spanish.

/** `leer {ruta}`: el contenido del fichero, o `no existe el fichero 'P'`. @since 0.1.0 */
export const Leer = Tool.make("leer", {
  description: "Lee un fichero y devuelve todo su contenido.",
  parameters: Schema.Struct({ ruta: text("La ruta del fichero, p. ej. notas/compra.txt") }),
  annotations: readOnly,
  run: ({ ruta }) => readFile(spanishTexts, ruta),
  failureMessage
})

/** `listar {carpeta}`: las rutas que empiezan por la carpeta, ordenadas, una por línea. @since 0.1.0 */
export const Listar = Tool.make("listar", {
  description:
    "Lista las rutas que empiezan por la carpeta indicada, ordenadas, una por línea. Una carpeta vacía lista todos los ficheros.",
  parameters: Schema.Struct({ carpeta: text("El prefijo de la carpeta, p. ej. notas/") }),
  annotations: readOnly,
  run: ({ carpeta }) => listFolder(carpeta)
})

/** `buscar {patron}`: `ruta: línea` por cada línea que contiene el patrón. @since 0.1.0 */
export const Buscar = Tool.make("buscar", {
  description:
    "Busca en todos los ficheros las líneas que contienen el texto indicado (no es una expresión regular), como 'ruta: línea', una por línea. Sin coincidencias devuelve un texto vacío.",
  parameters: Schema.Struct({ patron: text("El texto que se busca") }),
  annotations: readOnly,
  run: ({ patron }) => searchLines(patron)
})

/** `escribir {ruta, contenido}`: sustituye el fichero; `escritos N caracteres en P`. @since 0.1.0 */
export const Escribir = Tool.make("escribir", {
  description: "Escribe un fichero y sustituye todo su contenido (lo crea si no existe).",
  parameters: Schema.Struct({ ruta: text("La ruta del fichero"), contenido: text("El nuevo contenido del fichero") }),
  annotations: replaces,
  run: ({ ruta, contenido }) => writeFile(spanishTexts, ruta, contenido)
})

/**
 * `añadir {ruta, contenido}`: pega el texto al final del fichero; `añadidos N caracteres a P`.
 * (The export is `Anadir`; the tool's name is `añadir`.)
 *
 * @since 0.1.0
 */
export const Anadir = Tool.make("añadir", {
  description: "Añade texto al final de un fichero (lo crea si no existe). Dos llamadas iguales lo añaden dos veces.",
  parameters: Schema.Struct({ ruta: text("La ruta del fichero"), contenido: text("El texto que se añade al final") }),
  annotations: appends,
  run: ({ ruta, contenido }) => appendFile(spanishTexts, ruta, contenido)
})

// Toolsets.

/** The English file tools: `read`, `list`, `search`, `write`, `append`. @since 0.1.0 */
export const english = Toolset.make(Read, List, Search, Write, Append)

/** The Spanish file tools: `leer`, `listar`, `buscar`, `escribir`, `añadir`. @since 0.1.0 */
export const spanish = Toolset.make(Leer, Listar, Buscar, Escribir, Anadir)

/** Any of the ten file tools. @since 0.1.0 */
export type FileTool = (typeof english.tools)[number] | (typeof spanish.tools)[number]

/** The file tools of a locale. @since 0.1.0 */
export const forLocale = (locale: Locale): Toolset.Toolset<FileTool> => (locale === "es" ? spanish : english)

/** The tool texts of a locale. @since 0.1.0 */
export const textsFor = (locale: Locale): Texts => (locale === "es" ? spanishTexts : englishTexts)
