/**
 * How the CLI mounts the MCP servers a scenario declares (`mcp`): the scenario package's
 * `Mounter` service over `@agent-harness/mcp`'s `Mount.mount`. The MCP package (and the SDK) is
 * loaded on the first mount only, so a scenario without `mcp` — and `harness run` of one — never
 * loads it. What a mount warns about (tools renamed or skipped, schema parts not checked
 * locally) is printed to stderr, led by the scenario file and the declaration's prefix.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import { Mounter, Report } from "@agent-harness/scenario"
import { Console, Duration, Effect } from "effect"

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
    const { Mount } = yield* Effect.promise(() => import("@agent-harness/mcp"))
    const cwd = declaration.command === undefined ? undefined : folderOf(declaration, file)
    const server =
      declaration.command === undefined
        ? Mount.http(declaration.url ?? "")
        : Mount.stdio(declaration.command, declaration.args ?? [], { env: declaration.env ?? {}, cwd: cwd ?? "." })
    const mounted = yield* Effect.mapError(
      Mount.mount(server, {
        prefix: declaration.prefix,
        callTimeout: declaration.callTimeoutMs === undefined ? undefined : Duration.millis(declaration.callTimeoutMs)
      }),
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
