/**
 * Test helpers: run one file tool against a `Files` environment.
 */
import type { Tool } from "@agent-harness/tool-schema"
import { Cause, Effect, Exit, Result } from "effect"
import { Files } from "../src/index.ts"

/** A tool's run result as an Effect (the file tools always return one). */
export const asEffect = <A, E, R>(result: Tool.RunResult<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.isEffect(result) ? result : Effect.die(new Error("the file tools must return an Effect"))

/** Runs a file tool on its input and returns its exit and the environment afterwards. */
export const runOn = <I, A, E>(
  tool: { readonly run: (input: I, context: Tool.CallContext) => Tool.RunResult<A, E, Files.Files> },
  input: I,
  files: Files.FilesShape
): Effect.Effect<{ readonly exit: Exit.Exit<A, E>; readonly after: Record<string, string> }> =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(
      asEffect(tool.run(input, { id: "t" })).pipe(Effect.provideService(Files.Files, files))
    )
    const after = yield* files.snapshot
    return { exit, after }
  })

/** Runs a file tool on a fresh environment built from `initial`. */
export const runFresh = <I, A, E>(
  tool: { readonly run: (input: I, context: Tool.CallContext) => Tool.RunResult<A, E, Files.Files> },
  input: I,
  initial: Readonly<Record<string, string>>
) => runOn(tool, input, Files.makeFiles(initial))

/**
 * What the model would be shown for one call: the success text, the tool's failure message, or
 * the message of a defect (as the executor words them).
 */
export const observe = <I, A, E>(
  tool: {
    readonly run: (input: I, context: Tool.CallContext) => Tool.RunResult<A, E, Files.Files>
    readonly failureMessage: (error: E) => string
  },
  input: I,
  files: Files.FilesShape
): Effect.Effect<{ readonly isError: boolean; readonly content: string }> =>
  Effect.map(runOn(tool, input, files), ({ exit }) => {
    if (Exit.isSuccess(exit)) return { isError: false, content: String(exit.value) }
    const failure = Cause.findError(exit.cause)
    if (Result.isSuccess(failure)) return { isError: true, content: tool.failureMessage(failure.success) }
    const defect = Cause.squash(exit.cause)
    return { isError: true, content: defect instanceof Error ? defect.message : String(defect) }
  })
