/**
 * The files the CLI's package ships beside its code (`scenarios/`, `regress/`, `package.json`),
 * found from the sources (this module at `src/common/`) and from the bundle (its chunks in
 * `dist/`) alike.
 *
 * @since 0.1.0
 */
import { fileURLToPath } from "node:url"

/** The package's folder: two up from `src/common/Package.ts`, one up from a chunk in `dist/`. */
const folder = new URL(import.meta.url.endsWith(".ts") ? "../../" : "../", import.meta.url)

/**
 * The path of a file of the package, given relative to its folder (`scenarios/en/salmorejo.json`).
 *
 * @since 0.1.0
 */
export const file = (relative: string): string => fileURLToPath(new URL(relative, folder))
