/**
 * The file tools of the scenarios (`read`/`leer`, `list`/`listar`, `search`/`buscar`,
 * `write`/`escribir`, `append`/`añadir`) over an in-memory file environment, or a durable one
 * on disk.
 *
 * @since 0.1.0
 */

/** A durable flat store: `Files` where each path is one encoded file in one folder (the crash soak's environment), fsync'd appends and atomic writes. @since 0.1.0 */
export * as FlatFiles from "./FlatFiles.ts"
/** The paths the file tools accept, and `PathRefused`, the typed refusal of a path. @since 0.1.0 */
export * as FilePath from "./FilePath.ts"
/** The in-memory file environment: the `Files` service, `layer` and `makeFiles`. @since 0.1.0 */
export * as Files from "./Files.ts"
/** `Files` over the user's real folder tree: `.gitignore` honoured, `.git`, links and special files refused, durable writes. @since 0.1.0 */
export * as TreeFiles from "./TreeFiles.ts"
/** The five file tools in English and Spanish, and their toolsets. @since 0.1.0 */
export * as FileTools from "./FileTools.ts"
/** The files the salmorejo conversation starts from, in both locales. @since 0.1.0 */
export * as StartFiles from "./StartFiles.ts"
/**
 * The old name of `StartFiles`.
 *
 * @deprecated Use `StartFiles`.
 * @since 0.1.0
 */
export * as SeedFiles from "./StartFiles.ts"
