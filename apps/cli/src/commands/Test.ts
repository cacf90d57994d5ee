/**
 * `harness test PATH…`: every scenario under the paths on the engine the flags chose, a line
 * each, then `N passed, N failed`; exit 2 if a file is invalid, else 1 if one failed.
 *
 * @since 0.1.0
 */
import { Effect, type FileSystem, type Path } from "effect"
import type * as ExitCode from "../common/ExitCode.ts"
import * as Engine from "../engine/Engine.ts"

/**
 * The paths, how to report them, and where they run.
 *
 * @since 0.1.0
 */
export interface Options extends Engine.TestOptions {
  readonly engine: Engine.Choice
}

/**
 * Tests the paths on the chosen engine.
 *
 * @since 0.1.0
 */
export const test = (options: Options): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem | Path.Path> =>
  Engine.load(options.engine).pipe(Effect.flatMap((engine) => engine.test(options)))
