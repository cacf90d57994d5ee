#!/usr/bin/env node
/**
 * The `soak` binary (`pnpm soak` at the root): the crash soak on Node's platform services.
 *
 * @since 0.1.0
 */
import process from "node:process"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Exit, Runtime } from "effect"
import * as Cli from "./Cli.ts"

NodeRuntime.runMain(Cli.main(process.argv.slice(2)).pipe(Effect.provide(NodeServices.layer)), {
  teardown: (exit, onExit) => {
    if (Exit.isSuccess(exit)) {
      process.exitCode = typeof exit.value === "number" ? exit.value : 0
      return onExit(0)
    }
    return Runtime.defaultTeardown(exit, onExit)
  }
})
