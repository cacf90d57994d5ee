/**
 * `harness run FILE`: one scenario file on the engine the flags chose, its verdict, exit 0 pass,
 * 1 fail, 2 invalid file.
 *
 * @since 0.1.0
 */
import { Effect, type FileSystem } from "effect"
import type * as ExitCode from "../common/ExitCode.ts"
import * as Engine from "../engine/Engine.ts"

/**
 * The file, how to report it, and where it runs.
 *
 * @since 0.1.0
 */
export interface Options extends Engine.RunOptions {
  readonly engine: Engine.Choice
}

/**
 * Runs the file on the chosen engine.
 *
 * @since 0.1.0
 */
export const run = (options: Options): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Engine.load(options.engine).pipe(Effect.flatMap((engine) => engine.run(options)))
