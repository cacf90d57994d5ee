/**
 * What running a scenario file asks of the CLI: the platform's files (reading them synchronously,
 * `SyncFileSystem.overlay`: `harness test` reads thousands of small files) and paths, the MCP mounter
 * (`McpMounter`, which loads the MCP SDK on its first mount only), the permission gate
 * (`ScenarioPermissions`, which loads the permission package the same way) and the copies of
 * scenarios' `root` folders (`ScenarioRoots`). `main.ts` provides
 * them to every command, and a `harness test` worker thread to the files it runs: one layer, so a
 * file runs alike in either.
 *
 * @since 0.1.0
 */
import { Mounter, Permissions, Roots } from "@agent-harness/scenario"
import * as SyncFileSystem from "@agent-harness/scenario/SyncFileSystem"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { type FileSystem, Layer, type Path } from "effect"
import * as McpMounter from "./McpMounter.ts"
import * as ScenarioPermissions from "./ScenarioPermissions.ts"
import * as ScenarioRoots from "./ScenarioRoots.ts"

/**
 * Files, paths, the MCP mounter, the permission gate and the root folders' copies.
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<
  FileSystem.FileSystem | Path.Path | Mounter.Mounter | Permissions.Permissions | Roots.Roots
> = Layer.mergeAll(
  SyncFileSystem.overlay.pipe(Layer.provide(NodeFileSystem.layer)),
  NodePath.layer,
  Layer.succeed(Mounter.Mounter, McpMounter.mounter),
  Layer.succeed(Permissions.Permissions, ScenarioPermissions.permissions),
  Layer.succeed(Roots.Roots, ScenarioRoots.roots)
)
