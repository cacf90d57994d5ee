/**
 * A soak's child process (the local soak's child, the Postgres soak's runner) bundled once with
 * rolldown, from the sources as they are, into one ES module: it starts about four times faster
 * than the `.ts` files (the `effect` barrel alone takes ~200 ms to load). When bundling fails the
 * sources run, and the soak says why.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Data, Effect, type Scope } from "effect"

/**
 * The child could not be bundled.
 *
 * @since 0.1.0
 */
export class BundleError extends Data.TaggedError("BundleError")<{ readonly message: string }> {}

/**
 * A process's entry point bundled into one ES module (only `node:` modules stay imports) in a
 * temporary folder removed with the scope.
 *
 * @since 0.1.0
 */
export const bundle = (source: string): Effect.Effect<string, BundleError, Scope.Scope> =>
  Effect.gen(function* () {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "agent-harness-soak-child-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    const file = nodePath.join(dir, `${nodePath.basename(source, ".ts")}.mjs`)
    yield* Effect.tryPromise({
      try: async () => {
        const { rolldown } = await import("rolldown")
        const build = await rolldown({ input: source, platform: "node", external: [/^node:/], logLevel: "silent" })
        try {
          await build.write({ file, format: "esm", codeSplitting: false })
        } finally {
          await build.close()
        }
      },
      catch: (error) => new BundleError({ message: error instanceof Error ? error.message : String(error) })
    })
    return file
  })

/**
 * The entry point a soak starts: the file to run, what to call it in the summary, and why it
 * could not be bundled (then it is the source itself).
 *
 * @since 0.1.0
 */
export interface Entry {
  readonly path: string
  readonly child: string
  readonly bundleError?: string | undefined
}

/**
 * The entry point of `source`: `given` as it is when there is one; else `source` itself when
 * `bundle` is false; else `source` bundled (its bundle removed with the scope), or `source` and
 * the reason when bundling fails.
 *
 * @since 0.1.0
 */
export const entry = (
  source: string,
  options: { readonly given?: string | undefined; readonly bundle?: boolean | undefined }
): Effect.Effect<Entry, never, Scope.Scope> => {
  if (options.given !== undefined) return Effect.succeed({ path: options.given, child: options.given })
  if (options.bundle === false) return Effect.succeed({ path: source, child: source })
  return Effect.match(bundle(source), {
    onSuccess: (path): Entry => ({ path, child: `a bundle of ${source}` }),
    onFailure: (error): Entry => ({ path: source, child: source, bundleError: error.message })
  })
}
