#!/usr/bin/env node
/**
 * The `harness` binary: the CLI on Node's (or Deno's node-compatible) platform services.
 * `harness run FILE` and `harness mcp serve` written plainly (`Route`) start without the
 * command tree, each loading only what it runs; every other command line goes to the tree.
 *
 * @since 0.1.0
 */
import process from "node:process"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Exit, Runtime } from "effect"
import * as Route from "./common/Route.ts"

const args = process.argv.slice(2)
const route = Route.route(args)

/** The command line's exit code, from the module that runs it (loaded now). */
const program: Effect.Effect<number> =
  route?._tag === "McpServe"
    ? Effect.flatMap(
        Effect.promise(() => import("./common/MainServe.ts")),
        (main) => main.program(route.flags)
      )
    : route?._tag === "Run"
      ? Effect.flatMap(
          Effect.promise(() => import("./common/MainRun.ts")),
          (main) => main.program(route.flags)
        )
      : Effect.flatMap(
          Effect.promise(() => import("./common/MainFull.ts")),
          (main) => main.program(args)
        )

NodeRuntime.runMain(program, {
  teardown: (exit, onExit) => {
    if (Exit.isSuccess(exit)) {
      process.exitCode = typeof exit.value === "number" ? exit.value : 0
      return onExit(0)
    }
    return Runtime.defaultTeardown(exit, onExit)
  }
})
