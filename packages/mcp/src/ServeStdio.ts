/**
 * Serves a toolset over MCP on stdio, without loading the MCP SDK: the same answers as
 * `Serve.stdio` (which is this function), for a program that starts often and wants none of the
 * SDK's cost (`harness mcp serve`). Every `tools/call` goes through `Execute.execute`, as over
 * Streamable HTTP; the SDK's schemas are loaded only if a tool asks its client (`Caller`).
 *
 * @since 0.1.0
 */
import { Console as NodeConsole } from "node:console"
import process from "node:process"
import type { Readable, Writable } from "node:stream"
import { Execute } from "@agent-harness/executor"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult, ClientCapabilities } from "@modelcontextprotocol/sdk/types.js"
import { Console, Effect, Exit, FiberSet, Logger } from "effect"
import type * as Caller from "./Caller.ts"
import * as serving from "./internal/serving.ts"
import { StdioServer } from "./internal/StdioServer.ts"
import { type Request, StdioSession } from "./internal/StdioSession.ts"

/**
 * Options of `stdio`: the server's name, version, instructions and call timeout, and the
 * streams (the process's own by default).
 *
 * @since 0.1.0
 */
export interface StdioOptions extends serving.Options {
  /** Where requests are read (default `process.stdin`). */
  readonly stdin?: Readable | undefined
  /** Where answers are written (default `process.stdout`). */
  readonly stdout?: Writable | undefined
}

/** A `Caller` whose requests go through the session, its SDK-backed checks loaded on the first ask. */
const lazyCaller = (capabilities: () => ClientCapabilities | undefined, request: Request): Caller.Caller => ({
  sample: (params, options) =>
    Effect.flatMap(loadServedCaller, (served) => served.over(capabilities, request).sample(params, options)),
  elicit: (params, options) =>
    Effect.flatMap(loadServedCaller, (served) => served.over(capabilities, request).elicit(params, options))
})

/** The SDK-backed caller, loaded when a tool first asks. */
const loadServedCaller = Effect.promise(() => import("./internal/ServedCaller.ts"))

/** The next turn of the event loop: every message already read has reached its handler, every answer its transport. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A console on stderr: stdout carries the protocol. */
const stderrConsole = (): Console.Console => new NodeConsole({ stdout: process.stderr, stderr: process.stderr })

/**
 * Serves a toolset on stdio until stdin ends, then answers the calls already received and
 * finishes. A message over `MessageSize.maxBytes` is answered with a JSON-RPC error naming the
 * limit (when its id can be read) and skipped; the next is read as usual. While it serves,
 * Effect's logger and `Console` write to stderr (stdout carries the protocol; a tool that writes
 * to `process.stdout` itself breaks it).
 *
 * @example
 * ```ts
 * import { ServeStdio } from "@agent-harness/mcp/stdio"
 * import { MessageCatalog } from "@agent-harness/tool-schema"
 * import { Effect } from "effect"
 *
 * declare const tools: Parameters<typeof ServeStdio.stdio>[0]
 * Effect.runPromise(
 *   ServeStdio.stdio(tools).pipe(Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const stdio = <T extends Tool.Any>(
  toolset: Toolset.Toolset<T>,
  options?: StdioOptions
): Effect.Effect<void, serving.ServeError, Tool.Services<T>> => {
  const stdin = options?.stdin ?? process.stdin
  const stdout = options?.stdout ?? process.stdout
  return Effect.scoped(
    Effect.gen(function* () {
      const tools = yield* serving.listing(toolset)
      const { catalog } = yield* Execute.harness
      const fibers = yield* FiberSet.make<CallToolResult>()
      const runFork = yield* FiberSet.runtime(fibers)<Tool.Services<T>>()
      /** How many calls are being answered, and who waits for none to be. */
      let running = 0
      let idle: Array<() => void> = []
      const timeout = options?.timeout
      const session = new StdioSession(new StdioServer(stdin, stdout), {
        tools,
        call: (params, exchange, done) => {
          const fiber = runFork(serving.answer(toolset, params, timeout, exchange))
          running++
          fiber.addObserver((exit) => {
            running--
            done(Exit.isSuccess(exit) ? exit.value : undefined)
            if (running === 0) {
              const waiting = idle
              idle = []
              for (const resume of waiting) resume()
            }
          })
          return () => void fiber.interruptUnsafe()
        },
        interrupted: catalog.interrupted,
        name: options?.name ?? "agent-harness",
        version: options?.version ?? "0.1.0",
        instructions: options?.instructions,
        caller: lazyCaller
      })
      yield* Effect.acquireRelease(
        Effect.promise(() => session.start()),
        () =>
          Effect.promise(async () => {
            await session.close()
            // The last answers are written before the Effect finishes.
            await new Promise<void>((resolve) => stdout.write("", () => resolve()))
          })
      )
      yield* Effect.callback<void>((resume) => {
        if (stdin.readableEnded) return resume(Effect.void)
        const done = () => resume(Effect.void)
        stdin.once("end", done)
        stdin.once("close", done)
        return Effect.sync(() => {
          stdin.off("end", done)
          stdin.off("close", done)
        })
      })
      // Closing the session cancels the calls it is answering: answer them first.
      yield* Effect.promise(async () => {
        await nextTurn()
        while (running > 0) {
          await new Promise<void>((resume) => idle.push(resume))
          await nextTurn()
        }
      })
    })
  ).pipe(Effect.provideService(Console.Console, stderrConsole()), Effect.provideService(Logger.LogToStderr, true))
}
