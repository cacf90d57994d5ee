/**
 * Scenario files as vitest tests: `scenarioTests(folder)` finds every `*.json` scenario under
 * the folder(s) when the test file is collected and registers one test per file, named by the
 * scenario's name (`[reserved]` added for a held-out case). Each test loads and runs its file
 * the way `harness test` does, and fails with the verdict's failures, or with the JSON path of
 * the first bad field of an invalid file. Pass `{ variant: "before" }` to run them under another
 * harness variant, as `harness test --variant before` does. Live cases (`kind: live`) are left
 * out: they run as trials against a live model (`harness test --trials N --model P:M`).
 *
 * A scenario that declares a permission `policy`, MCP servers (`mcp`), a `root` folder or
 * `commands` needs the service that enforces, mounts, copies or runs it, as `harness test` has
 * them: pass their layers as `{ layer }` (`layer` of `@agent-harness/permission/scenario`,
 * `@agent-harness/mcp/scenario`, `@agent-harness/command/scenario` and
 * `@agent-harness/scenario/TreeRoots`, merged with `Layer.mergeAll` for more than one).
 * Without its service such a scenario fails, saying which entry to import.
 *
 * ```ts
 * import * as McpScenario from "@agent-harness/mcp/scenario"
 * import * as PermissionScenario from "@agent-harness/permission/scenario"
 * import * as TreeRoots from "@agent-harness/scenario/TreeRoots"
 * import { scenarioTests } from "@agent-harness/testing/vitest"
 * import { Layer } from "effect"
 *
 * scenarioTests("scenarios", {
 *   layer: Layer.mergeAll(PermissionScenario.layer, McpScenario.layer, TreeRoots.layer),
 *   timeout: 60_000
 * })
 * ```
 *
 * Import it from `@agent-harness/testing/vitest`; the main entry does not load vitest.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import { InputFile, Report, ScenarioFile, Suite, Variant, type Verdict } from "@agent-harness/scenario"
import { NodeServices } from "@effect/platform-node"
import { Effect, Layer, Result } from "effect"
import { it } from "vitest"
import * as SyncFileSystem from "@agent-harness/scenario/SyncFileSystem"

/**
 * Options of `scenarioTests`.
 *
 * @since 0.1.0
 */
export interface Options {
  /**
   * The harness variant the scenarios run under: a built-in name (`Variant.names`: `fixed`, the
   * default, or `before`) or a `Variant` of your own.
   */
  readonly variant?: string | Variant.Variant | undefined
  /** A timeout for each test, in milliseconds (vitest's default otherwise). */
  readonly timeout?: number | undefined
  /**
   * The services the scenarios may ask for, as a layer built from nothing: the scenario
   * package's `Permissions` (for `policy`), `Mounter` (for `mcp`), `Roots` (for `root`) and
   * `Commands` (for `commands`), or anything else the files' runs need. Provided to each file's load and run, over Node's file
   * system.
   */
  readonly layer?: Layer.Layer<never, unknown> | undefined
}

/**
 * A scenario file as registered: its path, the test's name, and what the name comes from.
 *
 * @since 0.1.0
 */
export interface Entry {
  /** The scenario file's path. */
  readonly file: string
  /** The scenario's `name`, or the file name without `.json` (also for an invalid file). */
  readonly name: string
  /** Whether the scenario is held out (`reserved: true`). */
  readonly reserved: boolean
  /** The test's name: `name`, plus ` [reserved]` for a held-out case. */
  readonly title: string
}

const isName = (name: string): name is Variant.Name => Variant.names.some((n) => n === name)

/**
 * The variant an option names; an unknown name throws, listing the known ones.
 *
 * @since 0.1.0
 */
export const variant = (option: string | Variant.Variant | undefined): Variant.Variant => {
  if (option === undefined) return Variant.defaultVariant
  if (typeof option !== "string") return option
  if (isName(option)) return Variant.byName[option]
  throw new Error(`unknown variant '${option}': expected one of ${Variant.names.map((n) => `'${n}'`).join(", ")}`)
}

const list = (paths: string | ReadonlyArray<string>): ReadonlyArray<string> =>
  typeof paths === "string" ? [paths] : paths

/**
 * What `harness test` would find under the paths (`Suite.find`, run synchronously): the
 * scenario files, sorted and without repeats, and what it skips (a `*.json` entry that is not a
 * regular file, a link to a folder). A path that cannot be read throws, naming it.
 *
 * @since 0.1.0
 */
export const find = (paths: string | ReadonlyArray<string>): Suite.Found => {
  const found = Effect.runSync(Suite.find(list(paths)).pipe(Effect.result, Effect.provide(SyncFileSystem.layer)))
  if (Result.isFailure(found)) throw new Error(`scenario path '${found.failure.file}' ${found.failure.problem}`)
  return found.success
}

/**
 * Every `*.json` scenario file under the given files and folders (nested folders included),
 * sorted and without repeats, found synchronously so that tests can be registered from the
 * result: `find` without what it skips. A file given directly is kept whatever its name, as
 * `harness test` does; a path that cannot be read throws, naming it.
 *
 * @since 0.1.0
 */
export const discover = (paths: string | ReadonlyArray<string>): ReadonlyArray<string> => find(paths).files

const baseName = (file: string): string => path.basename(file, ".json")

/** A file's text read synchronously (as `Suite.load` reads it) and decoded, or why it cannot be. */
const parsed = (file: string): Result.Result<ScenarioFile.Scenario, ScenarioFile.InvalidScenario> =>
  Effect.runSync(
    InputFile.read(file).pipe(
      Effect.flatMap((text) => Effect.fromResult(ScenarioFile.parse(file, text))),
      Effect.result,
      Effect.provide(SyncFileSystem.layer)
    )
  )

/**
 * What a file is registered as: its scenario's name and reserved flag, read synchronously (as
 * `Suite.load` reads it: a FIFO or a device is never opened; the services a declaration needs
 * are not asked for until the test runs); an unreadable or invalid file is named after the file
 * (its test fails with the reason).
 *
 * @since 0.1.0
 */
export const entry = (file: string): Entry => read(file).entry

/** A file's entry, and whether it is a valid live case (which `scenarioTests` leaves out). */
const read = (file: string): { readonly entry: Entry; readonly live: boolean } => {
  const loaded = parsed(file)
  const scenario = Result.isSuccess(loaded) ? loaded.success : undefined
  const name = scenario?.name ?? baseName(file)
  const reserved = scenario?.reserved ?? false
  return {
    entry: { file, name, reserved, title: reserved ? `${name} [reserved]` : name },
    live: scenario?.kind === "live"
  }
}

/**
 * A scenario that did not pass: the message is what `harness test` prints for it (the `FAIL`
 * line and each failure under it, or the `INVALID` line with the JSON path).
 *
 * @since 0.1.0
 */
export class ScenarioError extends Error {
  /** `ScenarioError`, as test runners show it. */
  override readonly name = "ScenarioError"
  /** The scenario file. */
  readonly file: string
  /** The verdict, when the file was valid and ran. */
  readonly verdict: Verdict.Verdict | undefined
  /** The reason the file is invalid, when it is. */
  readonly invalid: ScenarioFile.InvalidScenario | undefined
  /** The error for `file`: its verdict (it ran and failed) or why it is invalid. */
  constructor(
    file: string,
    found: { readonly verdict: Verdict.Verdict } | { readonly invalid: ScenarioFile.InvalidScenario }
  ) {
    super("verdict" in found ? Report.verdict(found.verdict) : Report.invalid(found.invalid))
    this.file = file
    this.verdict = "verdict" in found ? found.verdict : undefined
    this.invalid = "invalid" in found ? found.invalid : undefined
  }
}

/**
 * Loads and runs one scenario file (`Suite.load`, then `Suite.run` under the variant, on Node's
 * file system, with the services of `options.layer`). Resolves with the verdict when it passed;
 * rejects with a `ScenarioError` otherwise (an unknown variant name rejects with an `Error`, a
 * layer that fails to build with its error). A live case is not run (it needs a live model): it
 * rejects with a `ScenarioError` whose message says it needs `--model`.
 *
 * @since 0.1.0
 */
export const check = async (file: string, options?: Pick<Options, "variant" | "layer">): Promise<Verdict.Verdict> => {
  const chosen = variant(options?.variant)
  const services = options?.layer === undefined ? NodeServices.layer : Layer.merge(NodeServices.layer, options.layer)
  const found = await Effect.runPromise(
    Suite.load(file).pipe(
      Effect.flatMap((scenario) => Suite.run(scenario, file, chosen)),
      Effect.result,
      Effect.provide(services)
    )
  )
  if (Result.isFailure(found)) throw new ScenarioError(file, { invalid: found.failure })
  if (!found.success.passed) throw new ScenarioError(file, { verdict: found.success })
  return found.success
}

/**
 * Registers one vitest test per scenario file under `paths` (call it at the top of a test file
 * or inside a `describe`), and a skipped test `SKIP path: reason` for each entry `harness test`
 * skips (a FIFO named `*.json`, a link to a folder). Returns the scenario files it registered, in
 * order. Paths that cannot be read and unknown variant names throw at once, failing the test
 * file's collection.
 *
 * A live case (`kind: live`) is left out: no test, neither failing nor skipped, and not in the
 * result. It needs a live model, and what it asserts is a pass rate over repeated trials, not
 * one run: run it with `harness test --trials N --model PROVIDER:MODEL`, or with `Trials.run` of
 * `@agent-harness/trials` in a test of your own. (An invalid file is registered whatever its
 * kind, so that its test fails with the reason.)
 *
 * @since 0.1.0
 */
export const scenarioTests = (paths: string | ReadonlyArray<string>, options?: Options): ReadonlyArray<Entry> => {
  const chosen = variant(options?.variant)
  const found = find(paths)
  // Shown as skipped in vitest's report, as `harness test` prints a SKIP line: never run, never
  // counted as passed.
  for (const skipped of found.skipped) it.skip(Report.skipped(skipped))
  const entries = found.files.map(read).flatMap((found) => (found.live ? [] : [found.entry]))
  for (const e of entries) {
    it(
      e.title,
      async () => {
        await check(e.file, { variant: chosen, layer: options?.layer })
      },
      options?.timeout
    )
  }
  return entries
}
