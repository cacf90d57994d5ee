#!/usr/bin/env node
/**
 * The `harness` binary: the CLI on Node's (or Deno's node-compatible) platform services.
 *
 * @since 0.1.0
 */
import process from "node:process"
import { Mounter, Permissions } from "@agent-harness/scenario"
import { NodeFileSystem, NodePath, NodeRuntime, NodeStdio, NodeTerminal } from "@effect/platform-node"
import { Effect, Exit, Layer, Runtime } from "effect"
import { ChildProcessSpawner } from "effect/process"
import * as Cli from "./Cli.ts"
import * as McpMounter from "./McpMounter.ts"
import * as ScenarioPermissions from "./ScenarioPermissions.ts"

/**
 * What the CLI uses of the platform: files, paths, stdio and the terminal. effect/cli also asks
 * for a child-process spawner, which no harness command uses (the soak spawns its children with
 * node:child_process itself); the Node one would load child_process, net and dgram at every start,
 * so the CLI provides one that says so if it is ever called. The scenarios' MCP servers are
 * mounted with `McpMounter` (which loads the MCP SDK on its first mount only), their permission
 * policies enforced with `ScenarioPermissions` (which loads the permission package the same way).
 */
const services = Layer.mergeAll(
  NodeFileSystem.layer,
  NodePath.layer,
  NodeStdio.layer,
  NodeTerminal.layer,
  Layer.succeed(
    ChildProcessSpawner.ChildProcessSpawner,
    ChildProcessSpawner.make(() => Effect.die(new Error("harness runs no commands through effect/cli's spawner")))
  ),
  Layer.succeed(Mounter.Mounter, McpMounter.mounter),
  Layer.succeed(Permissions.Permissions, ScenarioPermissions.permissions)
)

NodeRuntime.runMain(Cli.main(process.argv.slice(2)).pipe(Effect.provide(services)), {
  teardown: (exit, onExit) => {
    if (Exit.isSuccess(exit)) {
      process.exitCode = typeof exit.value === "number" ? exit.value : 0
      return onExit(0)
    }
    return Runtime.defaultTeardown(exit, onExit)
  }
})
