/**
 * The five file tools of the scenarios (`read`, `list`, `search`, `write`, `append`), in English
 * and in Spanish (`leer`, `listar`, `buscar`, `escribir`, `añadir`), over the `Files` service.
 * Names, fields and texts follow the scenario contract word for word.
 *
 * Before touching the environment a tool checks its path (`FilePath.problem`): a path out of the
 * root (`..`, absolute), with a NUL or a lone surrogate, empty or too long is a typed
 * `PathRefused` the model reads as `not executed: …`. Each input field is read once; one that is
 * not a text is an `InvalidField`. `wrote` / `appended` count code points (`characters`).
 *
 * `list` and `search` show what the environment gives, cut at `limits` (2,000 lines or about
 * 100 KB, whichever comes first) with a last line saying how many lines were left out; they leave
 * out every path the call's `PathGuard` refuses (its name and its lines), and say how many at the
 * end. `search` counts the files it did not read (binary, too large) at the end too.
 *
 * @since 0.1.0
 */
import { Buffer } from "node:buffer"
import { Localized, MessageCatalog, PathGuard, Toolset, Tool } from "@agent-harness/tool-schema"
import { type Cause, Effect, Option, Schema, Stream } from "effect"
import * as FilePath from "./FilePath.ts"
import { Files, type FilesShape, type Found, type Visit } from "./Files.ts"
import * as Lines from "./internal/lines.ts"
import * as ToolWords from "./internal/toolWords.ts"

/**
 * The most `list` and `search` show in one observation: `maxLines` lines, or `maxBytes` bytes of
 * UTF-8 (the line breaks counted), whichever is reached first. What does not fit is replaced
 * by one line saying how many lines were left out (`Texts.more`).
 *
 * @since 0.1.0
 */
export const limits: { readonly maxLines: number; readonly maxBytes: number } = {
  maxLines: 2000,
  maxBytes: 100_000
}

/**
 * The languages the tools speak.
 *
 * @since 0.1.0
 */
export type Locale = "en" | "es"

const FileNotFoundBase: Schema.Class<
  FileNotFound,
  Schema.TaggedStruct<"FileNotFound", { readonly path: Schema.String; readonly message: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<FileNotFound>()("FileNotFound", {
  path: Schema.String,
  message: Schema.String
})

/**
 * `read`/`leer` was asked for a path that is not in the environment. Its `message` is the
 * observation text: `file 'P' does not exist` / `no existe el fichero 'P'`.
 *
 * @since 0.1.0
 */
export class FileNotFound extends FileNotFoundBase {}

const InvalidFieldBase: Schema.Class<
  InvalidField,
  Schema.TaggedStruct<"InvalidField", { readonly field: Schema.String; readonly message: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<InvalidField>()("InvalidField", {
  field: Schema.String,
  message: Schema.String
})

/**
 * A field of a tool's input was not a text when the tool read it: a throwing getter, or another
 * type. Only a caller that runs a tool without its schema can send one (the executor decodes
 * every call into plain texts first). Its `message` is the observation text, in the words of
 * the schema's own refusal: `not executed: field 'path' must be a string`.
 *
 * @since 0.1.0
 */
export class InvalidField extends InvalidFieldBase {}

const InvalidContentBase: Schema.Class<
  InvalidContent,
  Schema.TaggedStruct<"InvalidContent", { readonly path: Schema.String; readonly found: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<InvalidContent>()("InvalidContent", {
  path: Schema.String,
  found: Schema.String
})

/**
 * The `Files` service gave something other than a text as a file's content: a broken
 * environment, a defect (the tools never pass it on as content).
 *
 * @since 0.1.0
 */
export class InvalidContent extends InvalidContentBase {
  /** What the environment gave instead of a text, and for which path. */
  override get message(): string {
    return `the file environment gave ${this.found} as the content of '${this.path}', not a text`
  }
}

/**
 * Why a file tool failed: a missing file (`read`/`leer` only), a refused path, or a field that
 * is not a text.
 *
 * @since 0.1.0
 */
export type Failure = FileNotFound | FilePath.PathRefused | InvalidField

/**
 * The texts the tools return, per locale.
 *
 * @since 0.1.0
 */
export interface Texts {
  /** A missing file: `file 'P' does not exist`. */
  readonly notFound: (path: string) => string
  /** `N` counts code points: an emoji is one character. */
  readonly wrote: (count: number, path: string) => string
  /** `N` counts code points, like `wrote`. */
  readonly appended: (count: number, path: string) => string
  /** A refused path: `not executed: path outside the root: '../x'`. */
  readonly refused: (refusal: FilePath.PathRefused) => string
  /** A field that is not a text: `not executed: field 'path' must be a string`. */
  readonly notText: (field: string) => string
  /** The last line of a cut result: `… 1,234 more lines not shown: narrow the folder`. */
  readonly more: (count: number, narrow: "folder" | "pattern") => string
  /** Paths a `PathGuard` refused: `2 paths left out by the permission policy`. */
  readonly leftOut: (count: number) => string
  /** Files `search` did not read: `3 files not searched (binary, or over the size limit)`. */
  readonly notSearched: (count: number) => string
}

/** A count with thousands separated: `1,234` (English), `1.234` (Spanish). */
const grouped = (count: number, separator: string): string => String(count).replace(/\B(?=(\d{3})+(?!\d))/g, separator)

const refusedWith =
  (catalog: MessageCatalog.MessageCatalog, words: FilePath.Words) =>
  (refusal: FilePath.PathRefused): string =>
    catalog.notExecuted(FilePath.describe(refusal.reason, refusal.path, words, refusal.limit))

const notTextWith =
  (catalog: MessageCatalog.MessageCatalog) =>
  (field: string): string =>
    MessageCatalog.notExecuted(catalog, { _tag: "WrongType", field, expected: { kind: "string" } })

/** The tools' texts in English (`wrote N characters to P`). @since 0.1.0 */
export const englishTexts: Texts = {
  notFound: (path) => `file '${path}' does not exist`,
  wrote: (count, path) => `wrote ${count} characters to ${path}`,
  appended: (count, path) => `appended ${count} characters to ${path}`,
  refused: refusedWith(MessageCatalog.english, FilePath.english),
  notText: notTextWith(MessageCatalog.english),
  more: (count, narrow) =>
    `… ${grouped(count, ",")} more ${count === 1 ? "line" : "lines"} not shown: narrow the ${narrow}`,
  leftOut: (count) => `${grouped(count, ",")} ${count === 1 ? "path" : "paths"} left out by the permission policy`,
  notSearched: (count) =>
    `${grouped(count, ",")} ${count === 1 ? "file" : "files"} not searched (binary, or over the size limit)`
}

/** The tools' texts in Spanish (`escritos N caracteres en P`). @since 0.1.0 */
export const spanishTexts: Texts = {
  notFound: (path) => `no existe el fichero '${path}'`,
  wrote: (count, path) => `escritos ${count} caracteres en ${path}`,
  appended: (count, path) => `añadidos ${count} caracteres a ${path}`,
  refused: refusedWith(MessageCatalog.spanish, FilePath.spanish),
  notText: notTextWith(MessageCatalog.spanish),
  more: (count, narrow) =>
    `… ${grouped(count, ".")} ${count === 1 ? "línea más sin mostrar" : "líneas más sin mostrar"}: acota ${narrow === "folder" ? "la carpeta" : "el patrón"}`,
  leftOut: (count) =>
    `${grouped(count, ".")} ${count === 1 ? "ruta omitida" : "rutas omitidas"} por la política de permisos`,
  notSearched: (count) =>
    `${grouped(count, ".")} ${count === 1 ? "fichero sin buscar" : "ficheros sin buscar"} (binario, o de más del tamaño máximo)`
}

/**
 * The number of characters of a text, as a person counts them: code points, so `"🍅"` is 1
 * (its two UTF-16 code units are one character) and a lone surrogate is 1. The count of
 * `wrote` / `appended`.
 *
 * @since 0.1.0
 */
export const characters = (text: string): number => {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
    }
    count++
  }
  return count
}

const readOnly: Tool.Annotations = { readOnly: true, destructive: false, idempotent: true, openWorld: false }
const replaces: Tool.Annotations = { readOnly: false, destructive: true, idempotent: true, openWorld: false }
const appends: Tool.Annotations = { readOnly: false, destructive: false, idempotent: false, openWorld: false }

// The behaviour, shared by both locales.

const typeName = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value

/**
 * The text fields of a tool's input, each read once. A throwing getter or a value that is not a
 * text is an `InvalidField`, never a throw out of `run`.
 */
const textFields = <const K extends string>(
  texts: Texts,
  input: unknown,
  names: ReadonlyArray<K>
): Effect.Effect<Readonly<Record<K, string>>, InvalidField> =>
  Effect.suspend(() => {
    const out: Partial<Record<K, string>> = {}
    for (const name of names) {
      let value: unknown
      try {
        value = typeof input === "object" && input !== null ? (input as Record<string, unknown>)[name] : undefined
      } catch {
        value = undefined
      }
      if (typeof value !== "string") return Effect.fail(new InvalidField({ field: name, message: texts.notText(name) }))
      out[name] = value
    }
    return Effect.succeed(out as Readonly<Record<K, string>>)
  })

/** A path the tools accept (see `FilePath.problem`), or its refusal. */
const checked = (
  path: string,
  options?: { readonly allowEmpty?: boolean }
): Effect.Effect<string, FilePath.PathRefused> => {
  const reason = FilePath.problem(path, options)
  return reason === undefined ? Effect.succeed(path) : Effect.fail(new FilePath.PathRefused({ path, reason }))
}

/** A content the environment gave, checked to be a text. */
const contentOf = (path: string, content: unknown): Effect.Effect<string> =>
  typeof content === "string"
    ? Effect.succeed(content)
    : Effect.die(new InvalidContent({ path, found: typeName(content) }))

const readFile = (texts: Texts, path: string): Effect.Effect<string, FileNotFound | FilePath.PathRefused, Files> =>
  Effect.andThen(checked(path), () =>
    Files.use((files) =>
      Effect.flatMap(
        files.read(path),
        Option.match({
          onNone: () => Effect.fail(new FileNotFound({ path, message: texts.notFound(path) })),
          onSome: (content) => contentOf(path, content)
        })
      )
    )
  )

/** An optional member of an environment, `undefined` when reading it throws (a hostile `Files`). */
const member = <K extends "listUnder" | "scan" | "find">(files: FilesShape, key: K): FilesShape[K] => {
  try {
    const value = files[key]
    return typeof value === "function" ? value : undefined
  } catch {
    return undefined
  }
}

/** The lines of an observation, cut at `limits`, and the notes that follow them. */
class Output {
  private readonly shown: Array<string> = []
  private bytes = 0
  private hidden = 0

  /** Adds a line, or counts it as not shown once the limits are reached. */
  add(line: string): void {
    const size = Buffer.byteLength(line, "utf8") + 1
    if (this.hidden > 0 || this.shown.length >= limits.maxLines || this.bytes + size > limits.maxBytes) {
      this.hidden++
      return
    }
    this.shown.push(line)
    this.bytes += size
  }

  /** The observation: the lines shown, then the marker of the cut and the notes. */
  text(texts: Texts, narrow: "folder" | "pattern", notes: ReadonlyArray<string>): string {
    const tail = this.hidden > 0 ? [texts.more(this.hidden, narrow)] : []
    return [...this.shown, ...tail, ...notes].join("\n")
  }
}

const listFolder = (texts: Texts, folder: string): Effect.Effect<string, FilePath.PathRefused, Files> =>
  Effect.andThen(checked(folder, { allowEmpty: true }), () =>
    Effect.gen(function* () {
      const files = yield* Files
      const guard = yield* PathGuard.current
      const listUnder = member(files, "listUnder")
      const paths =
        listUnder === undefined ? (yield* files.list).filter((p) => p.startsWith(folder)) : yield* listUnder(folder)
      const output = new Output()
      let denied = 0
      for (const path of paths) {
        if (PathGuard.allows(guard, path)) output.add(path)
        else denied++
      }
      return output.text(texts, "folder", denied > 0 ? [texts.leftOut(denied)] : [])
    })
  )

/**
 * The lines of a text, as Python's `splitlines` sees them for `\n`, `\r\n` and `\r`: no line
 * after a final line break, none at all in an empty text.
 *
 * @since 0.1.0
 */
export const lines: (text: string) => ReadonlyArray<string> = Lines.lines

/** The files of an environment one at a time: its `scan`, or its `entries` as texts. */
const visits = (files: FilesShape, keep: (path: string) => boolean): Stream.Stream<Visit> => {
  const scan = member(files, "scan")
  if (scan !== undefined) return scan("", keep)
  return Stream.unwrap(
    Effect.map(files.entries, (entries) =>
      Stream.fromIterable(
        entries.flatMap(([path, content]): Array<Visit> => (keep(path) ? [{ _tag: "Text", path, content }] : []))
      )
    )
  )
}

/** The lines an environment's `find` gave for a file, checked to be texts. */
const linesOf = (found: Extract<Found, { readonly _tag: "Lines" }>): Effect.Effect<ReadonlyArray<string>> => {
  const given: unknown = found.lines
  if (!Array.isArray(given)) return Effect.die(new InvalidContent({ path: found.path, found: typeName(given) }))
  const wrong: unknown = given.find((line) => typeof line !== "string")
  return wrong === undefined && given.every((line) => typeof line === "string")
    ? Effect.succeed(given)
    : Effect.die(new InvalidContent({ path: found.path, found: typeName(wrong) }))
}

const searchLines = (texts: Texts, pattern: string): Effect.Effect<string, never, Files> =>
  Effect.gen(function* () {
    const files = yield* Files
    const guard = yield* PathGuard.current
    const output = new Output()
    let denied = 0
    let skipped = 0
    const find = member(files, "find")
    if (find !== undefined) {
      yield* Stream.runForEach(
        find("", pattern, (path) => PathGuard.allows(guard, path)),
        (found) => {
          if (found._tag === "Skipped") skipped++
          else if (found._tag === "LeftOut") denied++
          else {
            return Effect.map(linesOf(found), (shown) => {
              for (const line of shown) output.add(`${found.path}: ${line}`)
            })
          }
          return Effect.void
        }
      )
    } else {
      const keep = (path: string): boolean => {
        if (PathGuard.allows(guard, path)) return true
        denied++
        return false
      }
      yield* Stream.runForEach(visits(files, keep), (visit) => {
        if (visit._tag === "Skipped") {
          skipped++
          return Effect.void
        }
        return Effect.map(contentOf(visit.path, visit.content), (text) => {
          for (const line of Lines.matchingInText(text, pattern)) output.add(`${visit.path}: ${line}`)
        })
      })
    }
    const notes = [...(denied > 0 ? [texts.leftOut(denied)] : []), ...(skipped > 0 ? [texts.notSearched(skipped)] : [])]
    return output.text(texts, "pattern", notes)
  })

const writeFile = (texts: Texts, path: string, content: string): Effect.Effect<string, FilePath.PathRefused, Files> =>
  Effect.andThen(checked(path), () =>
    Files.use((files) => Effect.as(files.write(path, content), texts.wrote(characters(content), path)))
  )

const appendFile = (texts: Texts, path: string, content: string): Effect.Effect<string, FilePath.PathRefused, Files> =>
  Effect.andThen(checked(path), () =>
    Files.use((files) => Effect.as(files.append(path, content), texts.appended(characters(content), path)))
  )

/** The observation text of a failure, in the tool's language. */
const failureMessage =
  (texts: Texts): ((error: Failure) => string) =>
  (error: Failure): string =>
    error._tag === "PathRefused" ? texts.refused(error) : error.message

const text = (description: string) => Schema.String.annotate({ description })

/**
 * A file tool whose input is one text field `F`, answered read-only on its value: `read`,
 * `list`, `search` and their Spanish twins.
 *
 * @since 0.1.0
 */
export type LookupTool<N extends string, F extends string, E> = Tool.Tool<
  N,
  Schema.Struct<{ readonly [K in F]: Schema.String }>,
  string,
  E,
  Files
>

/**
 * A file tool whose input is a path `P` and a content `C`, changing the file: `write`,
 * `append` and their Spanish twins.
 *
 * @since 0.1.0
 */
export type ChangeTool<N extends string, P extends string, C extends string> = Tool.Tool<
  N,
  Schema.Struct<{ readonly [K in P | C]: Schema.String }>,
  string,
  InvalidField | FilePath.PathRefused,
  Files
>

// The five tools, defined once from a locale's words (internal/toolWords.ts).

/** What the fields mean when their names do not say it (`{ ruta: "path" }`); none in English. */
const meaningsOf = (pairs: ReadonlyArray<readonly [string, string]>): { readonly fields?: Tool.FieldMeanings } =>
  pairs.every(([name, meaning]) => name === meaning) ? {} : { fields: Object.fromEntries(pairs) }

/** One text field's Schema, under its name in the locale. */
const oneField = <F extends string>(field: ToolWords.Field<F>): Schema.Struct<{ readonly [K in F]: Schema.String }> =>
  Schema.Struct({ [field.name]: text(field.description) } as { readonly [K in F]: Schema.String })

/** Two text fields' Schema, in this order, under their names in the locale. */
const twoFields = <F extends string, G extends string>(
  first: ToolWords.Field<F>,
  second: ToolWords.Field<G>
): Schema.Struct<{ readonly [K in F]: Schema.String } & { readonly [K in G]: Schema.String }> =>
  Schema.Struct({ [first.name]: text(first.description), [second.name]: text(second.description) } as {
    readonly [K in F]: Schema.String
  } & { readonly [K in G]: Schema.String })

/** `read`, `list` and `search`: one text field, read-only, answered by `look` on its value. */
const defineLookup = <const N extends string, const F extends string, E extends Failure>(
  texts: Texts,
  words: ToolWords.Named<N>,
  field: ToolWords.Field<F>,
  meaning: string,
  look: (texts: Texts, value: string) => Effect.Effect<string, E, Files>
): LookupTool<N, F, E | InvalidField> =>
  Tool.make<N, Schema.Struct<{ readonly [K in F]: Schema.String }>, string, E | InvalidField, Files>(words.name, {
    description: words.description,
    parameters: oneField(field),
    ...meaningsOf([[field.name, meaning]]),
    annotations: readOnly,
    run: (input) => Effect.flatMap(textFields(texts, input, [field.name]), (fields) => look(texts, fields[field.name])),
    failureMessage: failureMessage(texts)
  })

const defineRead = <const N extends string, const P extends string>(
  texts: Texts,
  words: ToolWords.Named<N> & { readonly path: ToolWords.Field<P> }
): LookupTool<N, P, Failure> => defineLookup(texts, words, words.path, "path", readFile)

const defineList = <const N extends string, const F extends string>(
  texts: Texts,
  words: ToolWords.Named<N> & { readonly folder: ToolWords.Field<F> }
): LookupTool<N, F, InvalidField | FilePath.PathRefused> =>
  defineLookup(texts, words, words.folder, "folder", listFolder)

const defineSearch = <const N extends string, const F extends string>(
  texts: Texts,
  words: ToolWords.Named<N> & { readonly pattern: ToolWords.Field<F> }
): LookupTool<N, F, InvalidField> => defineLookup(texts, words, words.pattern, "pattern", searchLines)

/** `write` and `append`: a path and a content, replacing the file or adding to its end. */
const defineChange = <const N extends string, const P extends string, const C extends string>(
  texts: Texts,
  words: ToolWords.Named<N> & { readonly path: ToolWords.Field<P>; readonly content: ToolWords.Field<C> },
  annotations: Tool.Annotations,
  change: (texts: Texts, path: string, content: string) => Effect.Effect<string, FilePath.PathRefused, Files>
): ChangeTool<N, P, C> =>
  Tool.make(words.name, {
    description: words.description,
    parameters: twoFields(words.path, words.content),
    ...meaningsOf([
      [words.path.name, "path"],
      [words.content.name, "content"]
    ]),
    annotations,
    run: (input) =>
      Effect.flatMap(textFields(texts, input, [words.path.name, words.content.name]), (fields) =>
        change(texts, fields[words.path.name], fields[words.content.name])
      ),
    failureMessage: failureMessage(texts)
  })

/** The five tools of a locale, from its texts and its words. */
const toolsOf = <T extends ToolWords.ToolNames, F extends ToolWords.FieldNames>(
  texts: Texts,
  words: ToolWords.Words<T, F>
) => ({
  read: defineRead(texts, words.read),
  list: defineList(texts, words.list),
  search: defineSearch(texts, words.search),
  write: defineChange(texts, words.write, replaces, writeFile),
  append: defineChange(texts, words.append, appends, appendFile)
})

const inEnglish = toolsOf(englishTexts, ToolWords.english)
const inSpanish = toolsOf(spanishTexts, ToolWords.spanish)

// English.

/** `read {path}`: the file's content, or `file 'P' does not exist`. @since 0.1.0 */
export const Read: LookupTool<"read", "path", Failure> = inEnglish.read

/** `list {folder}`: the paths that start with the folder, sorted, one per line. @since 0.1.0 */
export const List: LookupTool<"list", "folder", InvalidField | FilePath.PathRefused> = inEnglish.list

/** `search {pattern}`: `path: line` for each line containing the pattern. @since 0.1.0 */
export const Search: LookupTool<"search", "pattern", InvalidField> = inEnglish.search

/** `write {path, content}`: replaces the file; `wrote N characters to P`. @since 0.1.0 */
export const Write: ChangeTool<"write", "path", "content"> = inEnglish.write

/** `append {path, content}`: adds to the end of the file; `appended N characters to P`. @since 0.1.0 */
export const Append: ChangeTool<"append", "path", "content"> = inEnglish.append

// Spanish.

/** `leer {ruta}`: el contenido del fichero, o `no existe el fichero 'P'`. @since 0.1.0 */
export const Leer: LookupTool<"leer", "ruta", Failure> = inSpanish.read

/** `listar {carpeta}`: las rutas que empiezan por la carpeta, ordenadas, una por línea. @since 0.1.0 */
export const Listar: LookupTool<"listar", "carpeta", InvalidField | FilePath.PathRefused> = inSpanish.list

/** `buscar {patron}`: `ruta: línea` por cada línea que contiene el patrón. @since 0.1.0 */
export const Buscar: LookupTool<"buscar", "patron", InvalidField> = inSpanish.search

/** `escribir {ruta, contenido}`: sustituye el fichero; `escritos N caracteres en P`. @since 0.1.0 */
export const Escribir: ChangeTool<"escribir", "ruta", "contenido"> = inSpanish.write

/**
 * `añadir {ruta, contenido}`: pega el texto al final del fichero; `añadidos N caracteres a P`.
 * (The export is `Anadir`; the tool's name is `añadir`.)
 *
 * @since 0.1.0
 */
export const Anadir: ChangeTool<"añadir", "ruta", "contenido"> = inSpanish.append

// Toolsets.

/** The English file tools: `read`, `list`, `search`, `write`, `append`. @since 0.1.0 */
export const english: Toolset.Toolset<typeof Read | typeof List | typeof Search | typeof Write | typeof Append> =
  Toolset.make(Read, List, Search, Write, Append)

/** The Spanish file tools: `leer`, `listar`, `buscar`, `escribir`, `añadir`. @since 0.1.0 */
export const spanish: Toolset.Toolset<typeof Leer | typeof Listar | typeof Buscar | typeof Escribir | typeof Anadir> =
  Toolset.make(Leer, Listar, Buscar, Escribir, Anadir)

/** Any of the ten file tools. @since 0.1.0 */
export type FileTool = (typeof english.tools)[number] | (typeof spanish.tools)[number]

/** The file tools of a locale. @since 0.1.0 */
export const forLocale = (locale: Locale): Toolset.Toolset<FileTool> =>
  Localized.pick<Toolset.Toolset<FileTool>>({ en: english, es: spanish }, locale)

/** The tool texts of a locale. @since 0.1.0 */
export const textsFor = (locale: Locale): Texts => Localized.pick({ en: englishTexts, es: spanishTexts }, locale)
