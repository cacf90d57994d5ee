/**
 * The in-memory file environment of the file tools: a map from path to content behind a `Ref`,
 * provided as the `Files` service. Paths are plain strings (no folders, no normalisation):
 * `recetas/gazpacho.txt` is one key. The in-memory environment never refuses a path (the file
 * tools refuse the ones that leave the root before they get here); `TreeFiles` and `FlatFiles`
 * refuse what their folder holds that is not a plain file.
 *
 * @since 0.1.0
 */
import { type Cause, Context, Effect, Layer, Option, Ref, Schema, Stream } from "effect"
import type { PathRefused } from "./FilePath.ts"

/**
 * One file met by `scan`: its text, or why its text was not read (`binary`: a NUL byte in its
 * first 8 KiB; `too-large`: over the environment's size limit).
 *
 * @since 0.1.0
 */
export type Visit =
  | { readonly _tag: "Text"; readonly path: string; readonly content: string }
  | { readonly _tag: "Skipped"; readonly path: string; readonly reason: "binary" | "too-large" }

/**
 * What `find` gives for one file: the lines that hold the pattern (at least one), why its text
 * was not read (as in `Visit`), or that `allows` refused it (a file a listing shows; it was not
 * opened).
 *
 * @since 0.1.0
 */
export type Found =
  | { readonly _tag: "Lines"; readonly path: string; readonly lines: ReadonlyArray<string> }
  | { readonly _tag: "Skipped"; readonly path: string; readonly reason: "binary" | "too-large" }
  | { readonly _tag: "LeftOut"; readonly path: string }

/**
 * The operations of a file environment.
 *
 * @since 0.1.0
 */
export interface FilesShape {
  /** The content of a file, `None` when there is no such path; refused when no file can be read there. */
  readonly read: (path: string) => Effect.Effect<Option.Option<string>, PathRefused>
  /** Creates or replaces a file; refused (and nothing written) when no file can be written there. */
  readonly write: (path: string, content: string) => Effect.Effect<void, PathRefused>
  /** Adds to the end of a file, creating it when absent; refused (and nothing written) like `write`. */
  readonly append: (path: string, content: string) => Effect.Effect<void, PathRefused>
  /** Every path, sorted by UTF-16 code unit (plain `Array.prototype.sort`). */
  readonly list: Effect.Effect<ReadonlyArray<string>>
  /** Every file as `[path, content]`, sorted by path like `list`. */
  readonly entries: Effect.Effect<ReadonlyArray<readonly [string, string]>>
  /**
   * A copy of the environment as a record, inserted in sorted path order. (JavaScript lists
   * integer-like keys such as `"10"` first whatever the insertion order; use `list` or
   * `entries` when the order matters.)
   */
  readonly snapshot: Effect.Effect<Record<string, string>>
  /**
   * The paths that start with `prefix`, sorted like `list` (`list` filtered by prefix). An
   * environment over a folder tree walks only the folders that can hold such a path. Optional:
   * without it the tools filter `list`.
   */
  readonly listUnder?: ((prefix: string) => Effect.Effect<ReadonlyArray<string>>) | undefined
  /**
   * The files whose paths start with `prefix`, one at a time, sorted by path; a path `keep`
   * refuses is not read and not given (the caller counts it). Optional: without it the tools
   * go through `entries`.
   */
  readonly scan?: ((prefix: string, keep: (path: string) => boolean) => Stream.Stream<Visit>) | undefined
  /**
   * What `search` needs, done where the files are: for each file whose path starts with
   * `prefix`, sorted by path, the lines (split like `FileTools.lines`) that contain `pattern`, a
   * plain text, as `Lines` when there is one, and the files not read (`Skipped`). `allows` is
   * asked about each path before its file is opened; a file it refuses is never opened, and is
   * given as `LeftOut` when it is one a listing shows. Optional: without it the tools go
   * through `scan`.
   */
  readonly find?:
    | ((prefix: string, pattern: string, allows: (path: string) => boolean) => Stream.Stream<Found>)
    | undefined
}

/**
 * The in-memory environment: `FilesShape` whose operations never fail (it refuses no path).
 *
 * @since 0.1.0
 */
export interface MemoryShape extends FilesShape {
  /** The content of a file, or none; never fails. */
  readonly read: (path: string) => Effect.Effect<Option.Option<string>>
  /** Replaces a file's whole content (creating it); never fails. */
  readonly write: (path: string, content: string) => Effect.Effect<void>
  /** Adds to the end of a file (creating it); never fails. */
  readonly append: (path: string, content: string) => Effect.Effect<void>
}

const FilesBase: Context.ServiceClass<Files, "@agent-harness/file-tools/Files", FilesShape> = Context.Service<
  Files,
  FilesShape
>()("@agent-harness/file-tools/Files")

/**
 * The file environment service.
 *
 * @since 0.1.0
 */
export class Files extends FilesBase {}

const InvalidInitialFilesBase: Schema.Class<
  InvalidInitialFiles,
  Schema.TaggedStruct<"InvalidInitialFiles", { readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<InvalidInitialFiles>()("InvalidInitialFiles", {
  problem: Schema.String
})

/**
 * The initial files given to `makeFiles` are not a record of texts: the problem names the path.
 *
 * @since 0.1.0
 */
export class InvalidInitialFiles extends InvalidInitialFilesBase {
  /** `invalid initial files: <problem>`. */
  override get message(): string {
    return `invalid initial files: ${this.problem}`
  }
}

/** An error as text, whatever it is (a throwing getter or `toString` included). */
const describeError = (error: unknown): string => {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return "an error that cannot be shown"
  }
}

const typeName = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value

/** A copy of the initial files, each read once; throws `InvalidInitialFiles` naming what is wrong. */
const copyInitial = (initial: unknown): Map<string, string> => {
  if (typeof initial !== "object" || initial === null || Array.isArray(initial)) {
    throw new InvalidInitialFiles({ problem: `expected a record of path to content, got ${typeName(initial)}` })
  }
  let keys: ReadonlyArray<string>
  try {
    keys = Object.keys(initial)
  } catch (error) {
    throw new InvalidInitialFiles({ problem: `its paths cannot be listed (${describeError(error)})` })
  }
  const copy = new Map<string, string>()
  for (const key of keys) {
    let content: unknown
    try {
      content = (initial as Record<string, unknown>)[key]
    } catch (error) {
      throw new InvalidInitialFiles({ problem: `the content of '${key}' cannot be read (${describeError(error)})` })
    }
    if (typeof content !== "string") {
      throw new InvalidInitialFiles({ problem: `the content of '${key}' is ${typeName(content)}, not a string` })
    }
    copy.set(key, content)
  }
  return copy
}

const sortedEntries = (files: ReadonlyMap<string, string>): ReadonlyArray<readonly [string, string]> =>
  [...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

const withFile = (files: ReadonlyMap<string, string>, path: string, content: string): ReadonlyMap<string, string> =>
  new Map(files).set(path, content)

/**
 * A fresh environment holding a copy of `initial`, built synchronously (for tests that need
 * two independent copies, or callers outside an Effect). Each content is read once; throws
 * `InvalidInitialFiles` when `initial` is not a record of strings (a JavaScript caller, or a
 * record parsed from JSON without a schema) or a getter in it throws.
 *
 * @since 0.1.0
 */
export const makeFiles = (initial: Readonly<Record<string, string>> = {}): MemoryShape => {
  const ref = Ref.makeUnsafe<ReadonlyMap<string, string>>(copyInitial(initial))
  const entries = Effect.map(Ref.get(ref), sortedEntries)
  return {
    read: (path) => Effect.map(Ref.get(ref), (files) => Option.fromUndefinedOr(files.get(path))),
    write: (path, content) => Ref.update(ref, (files) => withFile(files, path, content)),
    append: (path, content) => Ref.update(ref, (files) => withFile(files, path, (files.get(path) ?? "") + content)),
    list: Effect.map(entries, (all) => all.map(([path]) => path)),
    listUnder: (prefix) =>
      Effect.map(entries, (all) => all.flatMap(([path]) => (path.startsWith(prefix) ? [path] : []))),
    scan: (prefix, keep) =>
      Stream.unwrap(
        Effect.map(entries, (all) =>
          Stream.fromIterable(
            all.flatMap(
              ([path, content]): Array<Visit> =>
                path.startsWith(prefix) && keep(path) ? [{ _tag: "Text", path, content }] : []
            )
          )
        )
      ),
    entries,
    snapshot: Effect.map(entries, (all) => Object.fromEntries(all))
  }
}

/**
 * A fresh environment holding a copy of `initial`, as an Effect (an invalid `initial` is a
 * defect carrying `InvalidInitialFiles`).
 *
 * @since 0.1.0
 */
export const make = (initial: Readonly<Record<string, string>> = {}): Effect.Effect<MemoryShape> =>
  Effect.sync(() => makeFiles(initial))

/**
 * A layer providing `Files`; every build of the layer starts from its own copy of `initial`.
 *
 * @since 0.1.0
 */
export const layer = (initial: Readonly<Record<string, string>> = {}): Layer.Layer<Files> =>
  Layer.effect(Files, make(initial))

/**
 * The whole environment of the `Files` in context, as a sorted record copy.
 *
 * @since 0.1.0
 */
export const snapshot: Effect.Effect<Record<string, string>, never, Files> = Files.use((files) => files.snapshot)
