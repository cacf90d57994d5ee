/**
 * The `--root` folder of the commands that work on a real folder (`harness mcp serve`, `harness
 * agent`): it must exist and be a folder, so that a typo never works on a new empty one.
 *
 * @since 0.1.0
 */
import { InputFile } from "@agent-harness/scenario"
import { Console, Effect, FileSystem } from "effect"
import * as ExitCode from "./ExitCode.ts"

/**
 * Checks `--root`: exit 2 with `<command>: --root X: no such folder` (or what it is instead of
 * a folder, or why it cannot be read) when it is not an existing folder.
 *
 * @since 0.1.0
 */
export const check = (command: string, root: string): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const usage = (message: string) =>
      Effect.andThen(Console.error(`${command}: --root ${root}: ${message}`), Effect.fail(ExitCode.invalid))
    const info = yield* Effect.result(fs.stat(root))
    if (info._tag === "Failure") {
      return yield* usage(info.failure.reason._tag === "NotFound" ? "no such folder" : info.failure.message)
    }
    if (info.success.type !== "Directory") {
      return yield* usage(`it is ${InputFile.typeText(info.success.type)}, not a folder`)
    }
  })
