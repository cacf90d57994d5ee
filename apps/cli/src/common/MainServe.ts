/**
 * `harness mcp serve` read by `Route` without the command tree: the same handler (`Mcp.serve`
 * under `traced`), on Node's files and paths alone, the same exit codes. It loads no MCP SDK,
 * no scenario package and no command tree: over stdio the first answer comes soon after start.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Effect, Layer } from "effect"
import * as Mcp from "../commands/Mcp.ts"
import * as ExitCode from "./ExitCode.ts"
import type * as Route from "./Route.ts"
import { traced } from "./Telemetry.ts"

/**
 * The serve's exit code: 0 when it stops, 2 when it cannot start.
 *
 * @since 0.1.0
 */
export const program = (flags: Route.ServeFlags): Effect.Effect<number> =>
  traced("mcp serve", Mcp.serve(flags)).pipe(
    Effect.as(0),
    ExitCode.codes,
    Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))
  )
