/**
 * The words of the five file tools in each locale: each tool's name and description, and each of
 * its fields' name and description, by what the field means (`path`, `folder`, `pattern`,
 * `content`). The tools are defined once (`FileTools`), from these words.
 */

/** A field's name in a locale and what the model is told it is. */
export interface Field<F extends string> {
  readonly name: F
  readonly description: string
}

/** A tool's name in a locale and what the model is told it does. */
export interface Named<N extends string> {
  readonly name: N
  readonly description: string
}

/** The names of one locale's five tools, by what each tool does. */
export interface ToolNames {
  readonly read: string
  readonly list: string
  readonly search: string
  readonly write: string
  readonly append: string
}

/** The names of one locale's fields, by what each field means. */
export interface FieldNames {
  readonly path: string
  readonly folder: string
  readonly pattern: string
  readonly content: string
}

/** The words of one locale's five tools, named `T` and with fields named `F`. */
export interface Words<T extends ToolNames, F extends FieldNames> {
  readonly read: Named<T["read"]> & { readonly path: Field<F["path"]> }
  readonly list: Named<T["list"]> & { readonly folder: Field<F["folder"]> }
  readonly search: Named<T["search"]> & { readonly pattern: Field<F["pattern"]> }
  readonly write: Named<T["write"]> & { readonly path: Field<F["path"]>; readonly content: Field<F["content"]> }
  readonly append: Named<T["append"]> & { readonly path: Field<F["path"]>; readonly content: Field<F["content"]> }
}

/** The English tools: `read {path}`, `list {folder}`, `search {pattern}`, `write`/`append {path, content}`. */
export const english: Words<
  { read: "read"; list: "list"; search: "search"; write: "write"; append: "append" },
  { path: "path"; folder: "folder"; pattern: "pattern"; content: "content" }
> = {
  read: {
    name: "read",
    description: "Reads a file and returns its whole content.",
    path: { name: "path", description: "The path of the file, e.g. notes/todo.txt" }
  },
  list: {
    name: "list",
    description:
      "Lists the paths that start with the given folder, sorted, one per line. An empty folder lists every file.",
    folder: { name: "folder", description: "The folder prefix, e.g. notes/" }
  },
  search: {
    name: "search",
    description:
      "Finds the lines that contain the given text (not a regular expression) in every file, as 'path: line', one per line. No matches gives an empty text.",
    pattern: { name: "pattern", description: "The text to look for" }
  },
  write: {
    name: "write",
    description: "Writes a file, replacing its whole content (creating it if needed).",
    path: { name: "path", description: "The path of the file" },
    content: { name: "content", description: "The new content of the file" }
  },
  append: {
    name: "append",
    description: "Adds text to the end of a file (creating it if needed). Calling it twice adds the text twice.",
    path: { name: "path", description: "The path of the file" },
    content: { name: "content", description: "The text to add at the end" }
  }
}

/** The Spanish tools: `leer {ruta}`, `listar {carpeta}`, `buscar {patron}`, `escribir`/`añadir {ruta, contenido}`. */
export const spanish: Words<
  { read: "leer"; list: "listar"; search: "buscar"; write: "escribir"; append: "añadir" },
  { path: "ruta"; folder: "carpeta"; pattern: "patron"; content: "contenido" }
> = {
  read: {
    name: "leer",
    description: "Lee un fichero y devuelve todo su contenido.",
    path: { name: "ruta", description: "La ruta del fichero, p. ej. notas/compra.txt" }
  },
  list: {
    name: "listar",
    description:
      "Lista las rutas que empiezan por la carpeta indicada, ordenadas, una por línea. Una carpeta vacía lista todos los ficheros.",
    folder: { name: "carpeta", description: "El prefijo de la carpeta, p. ej. notas/" }
  },
  search: {
    name: "buscar",
    description:
      "Busca en todos los ficheros las líneas que contienen el texto indicado (no es una expresión regular), como 'ruta: línea', una por línea. Sin coincidencias devuelve un texto vacío.",
    pattern: { name: "patron", description: "El texto que se busca" }
  },
  write: {
    name: "escribir",
    description: "Escribe un fichero y sustituye todo su contenido (lo crea si no existe).",
    path: { name: "ruta", description: "La ruta del fichero" },
    content: { name: "contenido", description: "El nuevo contenido del fichero" }
  },
  append: {
    name: "añadir",
    description: "Añade texto al final de un fichero (lo crea si no existe). Dos llamadas iguales lo añaden dos veces.",
    path: { name: "ruta", description: "La ruta del fichero" },
    content: { name: "contenido", description: "El texto que se añade al final" }
  }
}
