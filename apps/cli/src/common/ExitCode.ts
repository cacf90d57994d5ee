/**
 * The CLI's exit codes: 0 pass, 1 a scenario failed, 2 an invalid file or bad usage; 130 a run
 * stopped at Ctrl-C (`Interrupted`, as a shell reports a process ended by SIGINT).
 *
 * @since 0.1.0
 */
import { Data, Effect } from "effect"

/** Ends a command with a non-zero exit code (its output already printed). @since 0.1.0 */
export class ExitCode extends Data.TaggedError("ExitCode")<{ readonly code: 1 | 2 }> {}

/** @since 0.1.0 */
export const failed = new ExitCode({ code: 1 })
/** @since 0.1.0 */
export const invalid = new ExitCode({ code: 2 })

/** Ends a command that Ctrl-C stopped cleanly: exit 130 (its output already printed). @since 0.2.0 */
export class Interrupted extends Data.TaggedError("Interrupted")<Record<never, never>> {
  /** The exit code. */
  readonly code = 130
}

/** @since 0.2.0 */
export const interrupted = new Interrupted()

/**
 * A command's Effect with its exit code as a failure (`ExitCode`, `Interrupted`) turned into the
 * code, as the command tree's `main` does.
 *
 * @since 0.1.0
 */
export const codes = <R>(effect: Effect.Effect<number, ExitCode | Interrupted, R>): Effect.Effect<number, never, R> =>
  Effect.catch(effect, (failure) => Effect.succeed(failure.code))
