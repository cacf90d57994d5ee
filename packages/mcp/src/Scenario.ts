/**
 * The MCP servers scenarios declare (`mcp`), mounted: the scenario package's `Mounter` service
 * over this package's `Mount.mount`, as `harness test` mounts them. A declaration's `${VAR}` are
 * expanded from the environment when it is mounted, its `cwd` resolved against the scenario
 * file's folder, and a started server gets what a child needs to run
 * (`Config.childEnvironment`) and its own `env`. What a mount warns about (tools renamed or
 * skipped, schema parts not checked locally) is printed to stderr, led by the scenario file and
 * the declaration's prefix.
 *
 * Import it from `@agent-harness/mcp/scenario`, and provide `layer` where scenario files run
 * (`scenarioTests(folder, { layer })` of `@agent-harness/testing/vitest`, or
 * `Effect.provide(layer)` around `Suite.load` and `Suite.run`). The rest of the package (and the
 * MCP SDK) is loaded on the first mount only: a scenario without `mcp` never loads it.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import process from "node:process"
import { Mounter, Report } from "@agent-harness/scenario"
import { Console, Effect, Layer, Result, type Scope } from "effect"
import * as Config from "./Config.ts"

/**
 * Where a declared server runs: its `cwd` resolved against the scenario file's folder (the
 * folder itself when it has none).
 *
 * @since 0.1.0
 */
export const folderOf = (declaration: Mounter.Declaration, file: string): string =>
  path.resolve(path.dirname(file), declaration.cwd ?? ".")

/**
 * Mounts one declared server for the length of the scope.
 *
 * @since 0.1.0
 */
export const mount = (
  declaration: Mounter.Declaration,
  file: string
): Effect.Effect<Mounter.Mounted, Mounter.MountFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const cwd = declaration.command === undefined ? undefined : folderOf(declaration, file)
    // `${…}` expanded from the environment now; the declaration (and so the trace) keeps them.
    const entry = Config.entryOf(declaration, path.dirname(file), process.env)
    if (Result.isFailure(entry)) {
      return yield* new Mounter.MountFailed({ message: `${entry.failure.path}: ${entry.failure.problem}` })
    }
    const { Mount } = yield* Effect.promise(() => import("./index.ts"))
    const mounted = yield* Effect.mapError(
      Mount.mount(entry.success.server, entry.success.options),
      (error) => new Mounter.MountFailed({ message: error.message })
    )
    for (const warning of mounted.warnings) {
      yield* Console.error(Report.printable(`${file}: mcp ${declaration.prefix}: ${warning}`))
    }
    const asMounted: Mounter.Declaration = cwd === undefined ? declaration : { ...declaration, cwd }
    return { toolset: mounted.toolset, declaration: asMounted }
  })

/**
 * The `Mounter` service: `mount` for each declaration.
 *
 * @since 0.1.0
 */
export const mounter: Mounter.Shape = Mounter.Mounter.of({ mount })

/**
 * `mounter` as a layer: provide it where scenario files are loaded and run.
 *
 * @example
 * ```ts
 * import * as McpScenario from "@agent-harness/mcp/scenario"
 * import { scenarioTests } from "@agent-harness/testing/vitest"
 *
 * scenarioTests("scenarios/mcp", { layer: McpScenario.layer, timeout: 60_000 })
 * ```
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<Mounter.Mounter> = Layer.succeed(Mounter.Mounter, mounter)
