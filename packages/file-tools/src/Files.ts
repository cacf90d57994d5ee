/**
 * The in-memory file environment of the file tools: a map from path to content behind a `Ref`,
 * provided as the `Files` service. Paths are plain strings (no folders, no normalisation):
 * `recetas/gazpacho.txt` is one key.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option, Ref } from "effect"

/**
 * The operations of a file environment.
 *
 * @since 0.1.0
 */
export interface FilesShape {
  /** The content of a file, `None` when there is no such path. */
  readonly read: (path: string) => Effect.Effect<Option.Option<string>>
  /** Creates or replaces a file. */
  readonly write: (path: string, content: string) => Effect.Effect<void>
  /** Adds to the end of a file, creating it when absent. */
  readonly append: (path: string, content: string) => Effect.Effect<void>
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
}

/**
 * The file environment service.
 *
 * @since 0.1.0
 */
export class Files extends Context.Service<Files, FilesShape>()("@agent-harness/file-tools/Files") {}

const sortedEntries = (files: ReadonlyMap<string, string>): ReadonlyArray<readonly [string, string]> =>
  [...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

const withFile = (files: ReadonlyMap<string, string>, path: string, content: string): ReadonlyMap<string, string> =>
  new Map(files).set(path, content)

/**
 * A fresh environment holding a copy of `initial`, built synchronously (for tests that need
 * two independent copies, or callers outside an Effect).
 *
 * @since 0.1.0
 */
export const makeFiles = (initial: Readonly<Record<string, string>> = {}): FilesShape => {
  const ref = Ref.makeUnsafe<ReadonlyMap<string, string>>(new Map(Object.entries(initial)))
  const entries = Effect.map(Ref.get(ref), sortedEntries)
  return Files.of({
    read: (path) => Effect.map(Ref.get(ref), (files) => Option.fromUndefinedOr(files.get(path))),
    write: (path, content) => Ref.update(ref, (files) => withFile(files, path, content)),
    append: (path, content) => Ref.update(ref, (files) => withFile(files, path, (files.get(path) ?? "") + content)),
    list: Effect.map(entries, (all) => all.map(([path]) => path)),
    entries,
    snapshot: Effect.map(entries, (all) => Object.fromEntries(all))
  })
}

/**
 * A fresh environment holding a copy of `initial`, as an Effect.
 *
 * @since 0.1.0
 */
export const make = (initial: Readonly<Record<string, string>> = {}): Effect.Effect<FilesShape> =>
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
