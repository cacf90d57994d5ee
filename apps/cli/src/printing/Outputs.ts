/**
 * Output files of the CLI (`run --trace`, `capture --out`) must never overwrite its input: the
 * same file by inode, however it is named (`./X`, a symbolic link, a hard link). Checked before
 * anything runs.
 *
 * @since 0.1.0
 */
import { Console, Effect, FileSystem, Option } from "effect"
import * as ExitCode from "../common/ExitCode.ts"

/** The identity of an existing file: device and inode, or `undefined` if it does not exist. */
const identity = (fs: FileSystem.FileSystem, path: string) =>
  Effect.map(Effect.option(fs.stat(path)), (info) =>
    Option.match(info, {
      onNone: () => undefined,
      onSome: (i) => ({ dev: i.dev, ino: Option.getOrUndefined(i.ino), type: i.type })
    })
  )

/**
 * Fails with exit 2 and a line naming both when the output `flag` `output` is the file `input`
 * (what it is called in the message: `the scenario`, `the trace`), or is a folder.
 *
 * @since 0.1.0
 */
export const refuseOverwrite = (
  flag: string,
  output: string,
  input: { readonly path: string; readonly what: string }
): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const out = yield* identity(fs, output)
    if (out === undefined) return
    const refuse = (why: string) =>
      Effect.andThen(
        Console.error(`${flag} ${output}: ${why}; nothing was run or written`),
        Effect.fail(ExitCode.invalid)
      )
    if (out.type === "Directory") return yield* refuse("it is a folder")
    const source = yield* identity(fs, input.path)
    if (source !== undefined && source.dev === out.dev && source.ino !== undefined && source.ino === out.ino) {
      return yield* refuse(`it is ${input.what} (${input.path}), which it would overwrite`)
    }
  })
