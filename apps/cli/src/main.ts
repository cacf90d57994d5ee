#!/usr/bin/env node
/**
 * The `harness` binary: the CLI on Node's (or Deno's node-compatible) platform services.
 *
 * @since 0.1.0
 */
import process from "node:process"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Effect, Exit, Layer, Runtime } from "effect"
import { ChildProcessSpawner } from "effect/process"
import * as Cli from "./Cli.ts"
import * as ScenarioServices from "./scenarios/ScenarioServices.ts"

/**
 * What the CLI uses of the platform: files, paths, stdio and the terminal. effect/cli also asks
 * for a child-process spawner, which no harness command uses; the Node one would load
 * child_process, net and dgram at every start, so the CLI provides one that says so if it is ever
 * called. Files, paths, the scenarios' MCP
 * mounter and permission gate come from `ScenarioServices` (shared with `harness test`'s worker
 * threads).
 */
const services = Layer.mergeAll(
  ScenarioServices.layer,
  NodeStdio.layer,
  NodeTerminal.layer,
  Layer.succeed(
    ChildProcessSpawner.ChildProcessSpawner,
    ChildProcessSpawner.make(() => Effect.die(new Error("harness runs no commands through effect/cli's spawner")))
  )
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
