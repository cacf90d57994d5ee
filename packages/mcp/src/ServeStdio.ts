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
import { Console, Effect, FiberSet, Logger } from "effect"
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
const lazyCaller = (capabilities: () => ClientCapabilities | undefined, request: Request): Caller.Caller => {
  const load = Effect.map(
    Effect.promise(() => import("./internal/ServedCaller.ts")),
    (served) => served.over(capabilities, request)
  )
  return {
    sample: (params, options) => Effect.flatMap(load, (caller) => caller.sample(params, options)),
    elicit: (params, options) => Effect.flatMap(load, (caller) => caller.elicit(params, options))
  }
}

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
      const runPromise = yield* FiberSet.runtimePromise(fibers)<Tool.Services<T>>()
      const pending = new Set<Promise<CallToolResult>>()
      const timeout = options?.timeout
      const session = new StdioSession(new StdioServer(stdin, stdout), {
        tools,
        call: (params, exchange, signal) => {
          const running = runPromise(serving.answer(toolset, params, timeout, exchange), { signal })
          pending.add(running)
          const forget = () => void pending.delete(running)
          running.then(forget, forget)
          return running
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
        while (pending.size > 0) {
          await Promise.allSettled([...pending])
          await nextTurn()
        }
      })
    })
  ).pipe(Effect.provideService(Console.Console, stderrConsole()), Effect.provideService(Logger.LogToStderr, true))
}
