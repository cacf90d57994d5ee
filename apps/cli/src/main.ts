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

/**
 * Exits with `code` once stdout and stderr have written what they were given (to a file or a
 * terminal Node writes at once; to a pipe on POSIX it may still hold some), instead of waiting for
 * the event loop to drain: a last garbage collection and the heap's teardown, a few milliseconds.
 */
const exitOnceWritten = (code: number): void => {
  const streams = [process.stdout, process.stderr]
  let waiting = streams.length
  const written = () => {
    waiting--
    if (waiting === 0) process.exit(code)
  }
  for (const stream of streams) {
    if (stream.writableLength === 0) written()
    else stream.write("", written)
  }
}

NodeRuntime.runMain(program, {
  teardown: (exit, onExit) => {
    if (Exit.isSuccess(exit)) {
      const code = typeof exit.value === "number" ? exit.value : 0
      process.exitCode = code
      onExit(0)
      // `harness run` and `harness mcp serve` have finished all they do (their files written,
      // their servers and spans closed) when their Effect ends; a command of the tree may leave
      // something running (`harness view` serves its page), so it ends as Node ends it.
      if (route !== undefined) exitOnceWritten(code)
      return
    }
    return Runtime.defaultTeardown(exit, onExit)
  }
})
