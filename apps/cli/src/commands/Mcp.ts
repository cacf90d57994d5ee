/**
 * `harness mcp serve --tools files --root DIR [--lang en|es] [--http PORT] [--journal FILE]`:
 * the five file tools over the user's real folder tree (`TreeFiles`: `.gitignore` honoured,
 * `.git` never touched, links and special files refused), served to any MCP client with the
 * harness's semantics (every call through `execute`: an invalid call, an unknown tool, a
 * failing tool are `isError` results with our texts). Over stdio by default — stdout carries
 * only the protocol, and the command ends (exit 0) when stdin ends — or over Streamable HTTP on
 * 127.0.0.1 with `--http`, its URL printed to stderr, until SIGINT or SIGTERM (exit 0). A
 * `--journal` makes retried call ids replay instead of running twice. `--policy FILE`, `--allow`
 * and `--deny` put the permission gate in front of every served call (before the journal, as in
 * `harness agent`); a served call has no one to ask, so a rule that asks denies, saying so. The
 * journal is never inside `--root` (links resolved), where the served tools could reach it. Bad
 * usage is exit 2.
 *
 * Loaded only when the command runs: `harness run` never loads the MCP SDK, and neither does
 * serving over stdio (`ServeStdio`); the SDK (`--http`), the journal (`--journal`) and the
 * permission package (`--policy`, `--allow`, `--deny`) are loaded only when asked for.
 *
 * @since 0.1.0
 */
import { Execute } from "@agent-harness/executor"
import { Files, FileTools, TreeFiles } from "@agent-harness/file-tools"
import type { Serve } from "@agent-harness/mcp"
import * as ServeStdio from "@agent-harness/mcp/stdio"
import { MessageCatalog } from "@agent-harness/tool-schema"
import { Console, Effect, type FileSystem, type Path, type Scope } from "effect"
import * as ExitCode from "../common/ExitCode.ts"
import { lazy } from "../common/Lazy.ts"
import * as RootFolder from "../common/RootFolder.ts"
import * as Signal from "../common/Signal.ts"

/**
 * The toolsets `--tools` names.
 *
 * @since 0.1.0
 */
export const toolsets = ["files"] as const

/**
 * What `harness mcp serve` was asked to do.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The toolset to serve. */
  readonly tools: (typeof toolsets)[number]
  /** The folder the file tools work in. */
  readonly root: string
  /** The tools' and the messages' language. */
  readonly lang: FileTools.Locale
  /** Serve over Streamable HTTP on this port of 127.0.0.1 (0: any free one), not stdio. */
  readonly http?: number | undefined
  /** A SQLite idempotency journal for the served calls. */
  readonly journal?: string | undefined
  /** A permission policy file for the served calls (`--policy`). */
  readonly policy?: string | undefined
  /** `--allow GLOB`…: tools run without a rule in the policy. */
  readonly allow?: ReadonlyArray<string> | undefined
  /** `--deny GLOB`…: tools never run. */
  readonly deny?: ReadonlyArray<string> | undefined
}

/** The server's name in the MCP handshake: a client that mounts it prefixes its tools `files__`. */
const serverName = "files"

/** Ends the command with exit 2 after saying why on stderr. */
const usage = (message: string): Effect.Effect<never, ExitCode.ExitCode> =>
  Effect.andThen(Console.error(`harness mcp serve: ${message}`), Effect.fail(ExitCode.invalid))

/** The journal's middleware for the scope, or none. */
const journalOf = (
  file: string | undefined
): Effect.Effect<Execute.Middleware | undefined, ExitCode.ExitCode, Scope.Scope> =>
  file === undefined
    ? Effect.undefined
    : lazy(
        () => import("@agent-harness/idempotency"),
        ({ Journal, SqliteStore }) =>
          Effect.map(
            Effect.catch(SqliteStore.make(file), (error) => usage(`--journal ${error.message}`)),
            Journal.middleware
          )
      )

/**
 * The permission gate for the served calls, when a policy or a shorthand is given: the file's
 * policy (or, with shorthands only, one whose default is allow) with `--deny` then `--allow` in
 * front. Without any of them nothing is gated, as before.
 */
const gateOf = (
  options: Options
): Effect.Effect<Execute.Middleware | undefined, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const allow = options.allow ?? []
    const deny = options.deny ?? []
    if (options.policy === undefined && allow.length === 0 && deny.length === 0) return undefined
    const [AgentPolicy, { Gate }] = yield* Effect.promise(() =>
      Promise.all([import("../agent/Policy.ts"), import("@agent-harness/permission")])
    )
    const policy = yield* Effect.catch(
      AgentPolicy.load({
        file: options.policy,
        base: options.policy === undefined ? { rules: [], default: { decision: "allow" } } : undefined,
        shorthands: { allow, deny },
        tools: FileTools.forLocale(options.lang).tools.map((tool) => tool.name),
        command: "harness mcp serve"
      }),
      usage
    )
    return yield* Effect.catch(Gate.make({ policy }), (error) => usage(`the policy: ${error.message}`))
  })

/**
 * Serves the toolset until stdin ends (stdio) or a signal (HTTP, or stdio too). Exit 0 when it
 * stops; exit 2 naming the problem when it cannot start.
 *
 * @since 0.1.0
 */
export const serve = (options: Options): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem | Path.Path> =>
  Effect.scoped(
    Effect.gen(function* () {
      yield* RootFolder.check("harness mcp serve", options.root)
      if (options.journal !== undefined) {
        yield* RootFolder.refuseInside("harness mcp serve", options.root, "--journal", options.journal)
      }
      // A client's calls could write over the policy and widen the rules of the next serve.
      if (options.policy !== undefined) {
        yield* RootFolder.refuseInside("harness mcp serve", options.root, "--policy", options.policy)
      }
      const files = yield* Effect.catch(TreeFiles.make(options.root), (error) =>
        usage(`--root ${options.root}: ${error.message}`)
      )
      const gate = yield* gateOf(options)
      const journal = yield* journalOf(options.journal)
      const middleware =
        gate === undefined ? journal : Execute.compose(gate, ...(journal === undefined ? [] : [journal]))
      const tools = FileTools.forLocale(options.lang)
      const serving = <A, E>(effect: Effect.Effect<A, E, Files.Files | Scope.Scope>) =>
        effect.pipe(
          Effect.provideService(Files.Files, files),
          Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.byLocale[options.lang]),
          Effect.provideService(Execute.Middleware, middleware)
        )
      const failed = (error: Serve.ServeError) => usage(error.message)
      if (options.http === undefined) {
        // Until stdin ends (the client is done) or a signal; stdout carries only the protocol.
        return yield* Effect.raceFirst(
          Effect.catch(serving(ServeStdio.stdio(tools, { name: serverName })), failed),
          Effect.asVoid(Signal.untilSignal)
        )
      }
      const port = options.http
      const listening = yield* lazy(
        () => import("@agent-harness/mcp"),
        ({ Serve }) => Effect.catch(serving(Serve.http(tools, { port, name: serverName })), failed)
      )
      yield* Console.error(`listening on ${listening.url}`)
      yield* Signal.untilSignal
    })
  )
