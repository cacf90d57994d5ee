/**
 * What running a scenario file asks of the CLI: the platform's files (reading them synchronously,
 * `SyncFileSystem.overlay`: `harness test` reads thousands of small files) and paths, and the
 * hosts of the packages that own each feature, as `@agent-harness/testing/vitest` gets them: the
 * MCP mounter (`@agent-harness/mcp/scenario`, which loads the MCP SDK on its first mount only), the
 * permission gate (`@agent-harness/permission/scenario`, which loads the permission package the
 * same way), the sandboxed command tool (`@agent-harness/command/scenario`, which loads the
 * command package on the first scenario that declares `commands`) and the copies of scenarios'
 * `root` folders (`@agent-harness/scenario/TreeRoots`).
 * `main.ts` provides
 * them to every command, and a `harness test` worker thread to the files it runs: one layer, so a
 * file runs alike in either.
 *
 * @since 0.1.0
 */
import * as CommandScenario from "@agent-harness/command/scenario"
import * as McpScenario from "@agent-harness/mcp/scenario"
import * as PermissionScenario from "@agent-harness/permission/scenario"
import type { Commands, Mounter, Permissions, Roots } from "@agent-harness/scenario"
import * as SyncFileSystem from "@agent-harness/scenario/SyncFileSystem"
import * as TreeRoots from "@agent-harness/scenario/TreeRoots"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { type FileSystem, Layer, type Path } from "effect"

/**
 * Files, paths, the MCP mounter, the permission gate, the command sandbox and the root folders'
 * copies.
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<
  FileSystem.FileSystem | Path.Path | Mounter.Mounter | Permissions.Permissions | Commands.Commands | Roots.Roots
> = Layer.mergeAll(
  SyncFileSystem.overlay.pipe(Layer.provide(NodeFileSystem.layer)),
  NodePath.layer,
  McpScenario.layer,
  PermissionScenario.layer,
  CommandScenario.layer,
  TreeRoots.layer
)
