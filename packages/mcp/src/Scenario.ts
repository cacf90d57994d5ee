/**
 * How the CLI mounts the MCP servers a scenario declares (`mcp`): the scenario package's
 * `Mounter` service over `@agent-harness/mcp`'s `Mount.mount`. The MCP package (and the SDK) is
 * loaded on the first mount only, so a scenario without `mcp` — and `harness run` of one — never
 * loads it. What a mount warns about (tools renamed or skipped, schema parts not checked
 * locally) is printed to stderr, led by the scenario file and the declaration's prefix. A
 * declaration's `${VAR}` are expanded from the environment when it is mounted, and a started
 * server gets what a child needs to run (`McpConfig.childEnvironment`) and its own `env`.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import process from "node:process"
import { Mounter, Report } from "@agent-harness/scenario"
import { Console, Effect, Result } from "effect"
import * as McpConfig from "./McpConfig.ts"

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
export const mount = (declaration: Mounter.Declaration, file: string) =>
  Effect.gen(function* () {
    const cwd = declaration.command === undefined ? undefined : folderOf(declaration, file)
    // `${…}` expanded from the environment now; the declaration (and so the trace) keeps them.
    const entry = McpConfig.entryOf(declaration, path.dirname(file), process.env)
    if (Result.isFailure(entry)) {
      return yield* new Mounter.MountFailed({ message: `${entry.failure.path}: ${entry.failure.problem}` })
    }
    const { Mount } = yield* Effect.promise(() => import("@agent-harness/mcp"))
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
 * The CLI's `Mounter`.
 *
 * @since 0.1.0
 */
export const mounter: Mounter.Shape = Mounter.Mounter.of({ mount })
