/**
 * The soak's exit codes: 0 nothing ran twice, 1 the soak found something wrong, 2 bad options
 * or an unusable database.
 *
 * @since 0.1.0
 */
import { Data } from "effect"

/** Ends the soak with a non-zero exit code (its output already printed). @since 0.1.0 */
export class ExitCode extends Data.TaggedError("ExitCode")<{ readonly code: 1 | 2 }> {}

/** Exit 1: the soak found an append run twice, or something else wrong. @since 0.1.0 */
export const failed = new ExitCode({ code: 1 })
/** Exit 2: bad options, or a database that cannot be used. @since 0.1.0 */
export const invalid = new ExitCode({ code: 2 })
