/**
 * Mounts an MCP server's tools as a toolset of our tools, over stdio (a command) or Streamable
 * HTTP (a URL). Each tool is named `<prefix>__<name>` (provider-safe), validated locally
 * against the server's input JSON Schema (an invalid call is `not executed` and never sent),
 * annotated from the server's hints (MCP's defaults when it gives none), and answers whatever
 * happens: the server's `isError` results, a timeout, a server that died or cannot be reached,
 * an off-spec answer are all error observations that say whether the call ran, never a crashed
 * loop. After a stdio server dies, its tools answer at once; after a Streamable HTTP server
 * forgets the session (it restarted: a 404, or the SDK's 400 `Server not initialized` / `No
 * valid session ID`), a new session is started once and the call sent again; an off-spec event
 * stream is said to be at once. A call's message and its answer are bounded by
 * `MessageSize.maxBytes` both ways. A server's progress notifications go to `Progress.report`
 * (a progress token is sent when someone listens), a call made under a span carries it as W3C
 * `_meta.traceparent` (and `tracestate`), and its tools share the lane
 * `mcp:<prefix>`, so the loop runs one server's calls in order and different servers' side by
 * side. The connection lives in a `Scope`: closing it closes the client and kills the child.
 *
 * @since 0.1.0
 */
import { Execute, type Outcome, Progress } from "@agent-harness/executor"
import { Tool, ToolContent, Toolset } from "@agent-harness/tool-schema"
// @ts-types="@modelcontextprotocol/sdk/types"
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import { type Cause, Duration, Effect, Schema, type Scope } from "effect"
import * as z from "zod"
import * as CallResult from "./CallResult.ts"
import * as CallFailure from "./internal/callFailure.ts"
import * as Connection from "./internal/connection.ts"
import * as InputSchema from "./InputSchema.ts"
import * as TraceContext from "./internal/TraceContext.ts"
import * as MessageSize from "./MessageSize.ts"
import * as Messages from "./Messages.ts"
import { callIdKey } from "./Serve.ts"
import * as ToolName from "./ToolName.ts"
import * as Trust from "./Trust.ts"

/**
 * A server started as a child process, spoken to over its stdio.
 *
 * @since 0.1.0
 */
export interface Stdio {
  /** The kind of server. */
  readonly _tag: "Stdio"
  /** The program to start. */
  readonly command: string
  /** Its arguments. */
  readonly args: ReadonlyArray<string>
  /** Added to the safe default environment (see `StdioChild.Options`). */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** Its working directory (default: ours). */
  readonly cwd?: string | undefined
}

/**
 * A server reached over Streamable HTTP.
 *
 * @since 0.1.0
 */
export interface Http {
  /** The kind of server. */
  readonly _tag: "Http"
  /** The server's endpoint. */
  readonly url: string
  /** Sent with every request (an authorization header, say). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * Where a server is.
 *
 * @since 0.1.0
 */
export type Server = Stdio | Http

/**
 * A server to start: `Mount.stdio("npx", ["-y", "@modelcontextprotocol/server-everything"])`.
 *
 * @since 0.1.0
 */
export const stdio = (
  command: string,
  args: ReadonlyArray<string> = [],
  options?: { readonly env?: Readonly<Record<string, string>>; readonly cwd?: string }
): Stdio => ({ _tag: "Stdio", command, args, ...options })

/**
 * A server to reach: `Mount.http("http://127.0.0.1:8931/mcp")`.
 *
 * @since 0.1.0
 */
export const http = (url: string, options?: { readonly headers?: Readonly<Record<string, string>> }): Http => ({
  _tag: "Http",
  url,
  ...options
})

/**
 * A server in words: its command line, or its URL.
 *
 * @since 0.1.0
 */
export const describe = (server: Server): string =>
  server._tag === "Http" ? server.url : [server.command, ...server.args].join(" ")

/**
 * Options of a mount.
 *
 * @since 0.1.0
 */
export interface Options extends Trust.Options {
  /** The tools' prefix (default: the server's name, made safe). Letters, digits, `_`, `-`; 32 at most. */
  readonly prefix?: string | undefined
  /** Between the prefix and the remote name (default `__`). */
  readonly separator?: string | undefined
  /** A call that has not answered after this long answers the catalogue's timed-out text (default 60 s). */
  readonly callTimeout?: Duration.Input | undefined
  /** The handshake and the tool listing must finish within this (default 30 s). */
  readonly connectTimeout?: Duration.Input | undefined
  /** Each chunk a stdio server writes to stderr (it is kept, as a tail, for error texts either way). */
  readonly onStderr?: ((text: string) => void) | undefined
  /** Our name in the handshake (default `agent-harness`). */
  readonly clientName?: string | undefined
}

const MountErrorBase: Schema.Class<
  MountError,
  Schema.TaggedStruct<
    "MountError",
    {
      readonly server: Schema.String
      readonly problem: Schema.String
      readonly entry: Schema.optionalKey<Schema.Int>
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<MountError>()("MountError", {
  server: Schema.String,
  problem: Schema.String,
  entry: Schema.optionalKey(Schema.Int)
})

/**
 * The server could not be mounted: which server, and why; from `mountAll`, also which of its
 * entries (`entry`, from 0).
 *
 * @since 0.1.0
 */
export class MountError extends MountErrorBase {
  /** `MCP server 'S': <problem>`. */
  override get message(): string {
    return `MCP server '${this.server}': ${this.problem}`
  }
}

const CallErrorBase: Schema.Class<
  CallError,
  Schema.TaggedStruct<
    "CallError",
    {
      readonly reason: Schema.Literals<typeof CallFailure.reasons>
      readonly ran: Schema.Literals<readonly ["yes", "unknown", "no"]>
      readonly message: Schema.String
      readonly parts: Schema.optionalKey<Schema.$Array<typeof ToolContent.Part>>
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<CallError>()("CallError", {
  reason: Schema.Literals(CallFailure.reasons),
  ran: Schema.Literals(["yes", "unknown", "no"]),
  message: Schema.String,
  parts: Schema.optionalKey(Schema.Array(ToolContent.Part))
})

/**
 * Why a call to a mounted tool failed, and whether it ran. It ran and failed (`ran: "yes"`):
 * the tool said so (`ToolError`, the server's `isError`), or the server received the call and
 * answered a JSON-RPC error (`ServerError`). Its outcome is unknown (`ran: "unknown"`): it
 * `TimedOut`, the server `Stopped` during it, the connection broke after it was sent
 * (`ConnectionLost`), the server answered an `HttpStatus` that proves nothing (a 500), the
 * answer was `OffSpec`, or `TooLarge` to read (over `MessageSize.maxBytes`). A call whose own
 * message is over that limit is `TooLarge` too, with `ran: "no"`: it is never sent. It never arrived (`ran: "no"`, `NotSent`, or `Stopped` before it was sent): the
 * connection was refused, the host does not exist, or the server answered an HTTP status that
 * proves it did not run it. `message` is the observation text; `parts` the rich blocks of an
 * `isError` result (images, resources), each said in `message` too. `refine` (or the `outcomes`
 * middleware) makes these the executor's outcomes, so retry safety follows `ran`.
 *
 * @since 0.1.0
 */
export class CallError extends CallErrorBase {}

/**
 * A mounted tool: its input is what the server's schema accepts, its value the server's result.
 *
 * @since 0.1.0
 */
export type McpTool = Tool.Tool<string, Tool.Parameters, CallToolResult, CallError, never>

/**
 * What was mounted for one remote tool.
 *
 * @since 0.1.0
 */
export interface MountedTool {
  /** Our name for it (the model calls this). */
  readonly name: string
  /** The server's name for it. */
  readonly remoteName: string
  /** Who checks a call's input before it is sent. */
  readonly checkedBy: InputSchema.CheckedBy
  /** What of its input schema is not checked locally (empty when everything is). */
  readonly unenforced: ReadonlyArray<InputSchema.Unenforced>
}

/**
 * Whether the server still runs; a stopped stdio server says how it ended.
 *
 * @since 0.1.0
 */
export type Status = { readonly _tag: "Running" } | { readonly _tag: "Stopped"; readonly how: string }

/**
 * A mounted server.
 *
 * @since 0.1.0
 */
export interface Mounted {
  /** The mounted tools, for `execute` and the loop. */
  readonly toolset: Toolset.Toolset<McpTool>
  /** The server's name and version, from the handshake. */
  readonly server: { readonly name: string; readonly version: string }
  /** The prefix of our names for its tools. */
  readonly prefix: string
  /** Each mounted tool: our name, the server's, and how its input is checked. */
  readonly tools: ReadonlyArray<MountedTool>
  /**
   * Everything worth printing: tools skipped or renamed, and what is not checked locally. Empty
   * when each tool is mounted as listed and checked in full.
   */
  readonly warnings: ReadonlyArray<string>
  /** Whether the server still runs, now. */
  readonly status: () => Status
}

const ListTools = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() })

/** How many pages of `tools/list` are read at most (a server that never stops paging). */
const maxPages = 100

const millisOf = (input: Duration.Input | undefined, fallback: number): number =>
  input === undefined ? fallback : Duration.toMillis(Duration.fromInputUnsafe(input))

let progressTokens = 0

const makeTool = (
  connection: Connection.Connection,
  serverName: string,
  name: string,
  remote: string,
  listed: { readonly description?: unknown },
  judged: Trust.Judged,
  imported: InputSchema.Imported,
  timeout: number,
  lane: string
): McpTool =>
  Tool.make(name, {
    description: typeof listed.description === "string" ? listed.description : "",
    parameters: imported.parameters,
    annotations: judged.annotations,
    content: CallResult.content,
    failureMessage: (error: CallError) => error.message,
    failureContent: (error: CallError) =>
      error.parts === undefined
        ? undefined
        : ToolContent.make({ text: error.message, parts: error.parts, described: true }),
    lane,
    run: (input: object, context) =>
      Effect.gen(function* () {
        const texts = yield* Messages.current
        if (connection.status._tag === "Stopped") {
          return yield* new CallError({
            reason: "Stopped",
            ran: "no",
            message: texts.stopped(serverName, Connection.howText(connection, texts))
          })
        }
        const { catalog } = yield* Execute.harness
        // Progress is asked for (a progress token sent) only when someone listens.
        const reporter = yield* Progress.Reporter
        const token = reporter === Progress.none ? undefined : `agent-harness-${++progressTokens}`
        // Updates come from the SDK's callbacks: reported with this call's services (its reporter).
        const run = Effect.runForkWith(yield* Effect.context<never>())
        // The current span (W3C `traceparent`), so the server's spans continue this trace.
        const traced = yield* TraceContext.outgoing
        const params = {
          name: remote,
          arguments: input as Record<string, unknown>,
          _meta: { ...traced, [callIdKey]: context.id, ...(token === undefined ? {} : { progressToken: token }) }
        }
        const answer = yield* Effect.tryPromise({
          try: async (signal) => {
            const bytes = CallFailure.messageBytes(params)
            if (bytes !== undefined && bytes > MessageSize.maxBytes) throw new CallFailure.TooLargeToSend(bytes)
            if (token === undefined) return await CallFailure.send(connection, params, signal, timeout)
            connection.progress.set(token, (progress) => {
              const update = Progress.check(progress)
              if (update === undefined) return
              run(Progress.report(context.id, update))
            })
            try {
              return await CallFailure.send(connection, params, signal, timeout)
            } finally {
              connection.progress.delete(token)
            }
          },
          catch: (error) => new CallError(CallFailure.failure(error, connection, serverName, texts, catalog, timeout))
        })
        const checked = CallResult.check(answer)
        if (checked._tag === "OffSpec") {
          return yield* new CallError({
            reason: "OffSpec",
            ran: "unknown",
            message: texts.offSpec(serverName, Messages.bounded(checked.problem))
          })
        }
        const result = checked.result
        if (result.isError === true) {
          const { text, parts } = CallResult.content(result)
          return yield* new CallError({
            reason: "ToolError",
            ran: "yes",
            message: text === "" ? texts.noMessage : text,
            ...(parts.length === 0 ? {} : { parts })
          })
        }
        return result
      })
  })

/**
 * A mounted tool's outcome in the executor's words, so that retry safety is right: a call that
 * never arrived (`ran: "no"`) is `Refused` (nothing ran: `RetrySafety` says `did_not_run`), one
 * whose outcome is unknown (`ran: "unknown"`) is `Failed` with `OutcomeUnknown`; any other
 * outcome is as it is.
 *
 * @since 0.1.0
 */
export const refine = (outcome: Outcome.Outcome): Outcome.Outcome => {
  if (outcome._tag !== "Failed" || outcome.failure._tag !== "ToolError") return outcome
  const error = outcome.failure.error
  if (!(error instanceof CallError)) return outcome
  if (error.ran === "no") {
    return { _tag: "Refused", id: outcome.id, name: outcome.name, reason: error.message, content: outcome.content }
  }
  if (error.ran === "unknown") return { ...outcome, failure: { _tag: "OutcomeUnknown" } }
  return outcome
}

/**
 * The executor middleware that `refine`s every mounted tool's outcome (others pass as they
 * are). Put it innermost, so a journal records the refined outcome:
 * `Execute.compose(gate, journal, Mount.outcomes)`.
 *
 * @since 0.1.0
 */
export const outcomes: Execute.Middleware = <R>(
  _call: Execute.Call,
  _tool: Tool.Any,
  run: Effect.Effect<Outcome.Outcome, never, R>
): Effect.Effect<Outcome.Outcome, never, R> => Effect.map(run, refine)

interface Listed {
  readonly name: string
  readonly description?: unknown
  readonly annotations?: unknown
  readonly title?: unknown
  readonly inputSchema?: unknown
  readonly execution?: unknown
}

const isListed = (u: unknown): u is Listed =>
  typeof u === "object" && u !== null && typeof (u as { name?: unknown }).name === "string"

/**
 * Connects to a server, lists its tools and mounts them. The connection lasts as long as the
 * scope. Fails with a `MountError` when the server cannot be started or reached, does not
 * finish the handshake or the listing in time, or the prefix is not usable.
 *
 * @example
 * ```ts
 * import { Mount } from "@agent-harness/mcp"
 * import { Effect } from "effect"
 *
 * const program = Effect.scoped(
 *   Effect.gen(function* () {
 *     const files = yield* Mount.mount(Mount.stdio("node", ["files-server.js"]), { prefix: "fs" })
 *     for (const warning of files.warnings) console.error(warning)
 *     // files.toolset: Loop.run({ toolset: files.toolset, messages })
 *   })
 * )
 * ```
 *
 * @since 0.1.0
 */
export const mount = (server: Server, options?: Options): Effect.Effect<Mounted, MountError, Scope.Scope> =>
  mountWith(server, options, ToolName.prefixFrom)

/** `mount`, with the prefix of a server that was given none chosen from its (safe) name by `prefixOf`. */
const mountWith = (
  server: Server,
  options: Options | undefined,
  prefixOf: (serverName: string) => string
): Effect.Effect<Mounted, MountError, Scope.Scope> =>
  Effect.gen(function* () {
    const where = describe(server)
    const fail = (problem: string) => Effect.fail(new MountError({ server: where, problem }))
    const separator = options?.separator ?? ToolName.defaultSeparator
    if (options?.prefix !== undefined) {
      const wrong = ToolName.checkPrefix(options.prefix, separator)
      if (wrong !== undefined) return yield* fail(wrong)
    }
    if (server._tag === "Http" && !URL.canParse(server.url)) return yield* fail(`'${server.url}' is not a URL`)
    const connectTimeout = millisOf(options?.connectTimeout, 30_000)
    const callTimeout = millisOf(options?.callTimeout, 60_000)
    const connection = yield* Connection.open(server, options, connectTimeout)
    const { client } = connection
    /** Why the handshake failed, in words. */
    const handshake = (error: unknown): MountError => {
      const ended = connection.child?.ended
      const problem =
        ended !== undefined
          ? `it stopped before the handshake finished (${Messages.english.ended(ended)})`
          : error instanceof McpError && error.code === ErrorCode.RequestTimeout
            ? `it did not finish the handshake within ${connectTimeout} ms`
            : server._tag === "Http"
              ? `could not connect: ${CallFailure.errorText(error)}`
              : CallFailure.errorText(error)
      return new MountError({ server: where, problem })
    }
    yield* Effect.tryPromise({
      try: async () => {
        try {
          await client.connect(Connection.transportOf(server, connection), { timeout: connectTimeout })
          Connection.tap(client.transport, connection.progress)
        } catch (error) {
          // A write to a child that just exited fails before its exit is known: wait for it.
          await connection.child?.settled(2000)
          throw error
        }
      },
      catch: handshake
    })
    const info = client.getServerVersion()
    const serverName = info?.name ?? where
    const prefix = options?.prefix ?? prefixOf(ToolName.prefixFrom(serverName))
    const listed: Array<unknown> = []
    let cursor: string | undefined
    for (let page = 0; page < maxPages; page++) {
      const result = yield* Effect.tryPromise({
        try: () =>
          client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, ListTools, {
            timeout: connectTimeout
          }),
        catch: (error) =>
          new MountError({ server: where, problem: `tools/list failed: ${CallFailure.errorText(error)}` })
      })
      listed.push(...result.tools)
      cursor = result.nextCursor
      if (cursor === undefined) break
    }
    const warnings: Array<string> = []
    const taken = new Set<string>()
    const remotes = new Set<string>()
    const tools: Array<McpTool> = []
    const mounted: Array<MountedTool> = []
    // Tools whose annotations the server claimed and the user did not trust: one warning for all.
    const distrusted: Array<string> = []
    listed.forEach((entry, index) => {
      if (!isListed(entry)) {
        warnings.push(`tool #${index + 1} skipped: it has no name`)
        return
      }
      const remote = entry.name
      if (remotes.has(remote)) {
        warnings.push(`tool '${remote}' skipped: the server lists that name twice`)
        return
      }
      remotes.add(remote)
      const support = (entry.execution as { taskSupport?: unknown } | undefined)?.taskSupport
      if (support === "required") {
        warnings.push(`tool '${remote}' skipped: it only runs as an MCP task`)
        return
      }
      const name = ToolName.local(prefix, separator, remote, taken)
      taken.add(name)
      if (name !== `${prefix}${separator}${remote}`) {
        warnings.push(
          `tool '${remote}' is mounted as '${name}' (model providers accept only letters, digits, '_' and '-', 64 at most)`
        )
      }
      const imported = InputSchema.fromJsonSchema(entry.inputSchema)
      for (const u of imported.unenforced) {
        warnings.push(`tool '${name}': ${u.path === "" ? "input schema" : u.path}: ${u.what}`)
      }
      const judged = Trust.judge(entry.annotations, entry.title, options)
      if (Trust.warning(name, judged) !== undefined) distrusted.push(name)
      tools.push(makeTool(connection, serverName, name, remote, entry, judged, imported, callTimeout, `mcp:${prefix}`))
      mounted.push({ name, remoteName: remote, checkedBy: imported.checkedBy, unenforced: imported.unenforced })
    })
    if (distrusted.length > 0) {
      warnings.push(
        `not trusted, so the annotations it claims (read-only, idempotent…) are not believed for ${distrusted.length} tool${distrusted.length === 1 ? "" : "s"} (${distrusted.join(", ")}): each is treated as not read-only, destructive, not idempotent and open-world; mount the server with trust to believe them`
      )
    }
    return {
      toolset: Toolset.make(...tools),
      server: { name: serverName, version: info?.version ?? "" },
      prefix,
      tools: mounted,
      warnings,
      status: () => connection.status
    }
  })

/**
 * One server of a list to mount together, with its own options.
 *
 * @since 0.1.0
 */
export interface Entry {
  /** Where the server is. */
  readonly server: Server
  /** Its options (its prefix, timeouts…). */
  readonly options?: Options | undefined
}

/**
 * Servers mounted together: one toolset of all their tools.
 *
 * @since 0.1.0
 */
export interface MountedAll {
  /** Every mounted tool, server by server in the order given. */
  readonly toolset: Toolset.Toolset<McpTool>
  /** Each server as mounted, in the order given. */
  readonly mounted: ReadonlyArray<Mounted>
  /** Every server's warnings, each led by its prefix (`fs: tool 'x' skipped: …`), and the prefixes numbered. */
  readonly warnings: ReadonlyArray<string>
}

/**
 * Mounts several servers into one toolset, one after the other (their prefixes are decided in
 * the order given), all in the caller's scope. Prefixes given in the options must differ: two
 * that do not fail before anything starts. A server given no prefix takes its name's (as
 * `mount` does); when that prefix is already taken it is numbered (`fs_2`, `fs_3`), with a
 * warning. Two tools that still end up with one name (prefix `a` with a tool `b__x`, and
 * prefix `a__b` with a tool `x`) are a `MountError` naming both servers. The first server that
 * cannot be mounted fails the whole mount, and the scope closes the ones already started.
 *
 * @example
 * ```ts
 * import { Mount } from "@agent-harness/mcp"
 * import { Effect } from "effect"
 *
 * const program = Effect.scoped(
 *   Effect.gen(function* () {
 *     const all = yield* Mount.mountAll([
 *       { server: Mount.stdio("node", ["files-server.js"]) },
 *       { server: Mount.http("http://127.0.0.1:8931/mcp"), options: { prefix: "web" } }
 *     ])
 *     for (const warning of all.warnings) console.error(warning)
 *     // all.toolset: Toolset.merge(myTools, all.toolset)
 *   })
 * )
 * ```
 *
 * @since 0.1.0
 */
export const mountAll = (entries: ReadonlyArray<Entry>): Effect.Effect<MountedAll, MountError, Scope.Scope> =>
  Effect.gen(function* () {
    const given = new Map<string, Server>()
    for (const { server, options } of entries) {
      if (options?.prefix === undefined) continue
      const first = given.get(options.prefix)
      if (first !== undefined) {
        return yield* new MountError({
          server: describe(server),
          problem: `the prefix '${options.prefix}' is already the prefix of ${describe(first)}: give each server its own`
        })
      }
      given.set(options.prefix, server)
    }
    const taken = new Set(given.keys())
    const mounted: Array<Mounted> = []
    const warnings: Array<string> = []
    for (const [index, { server, options }] of entries.entries()) {
      let numbered: { readonly from: string; readonly to: string } | undefined
      const prefixOf = (wanted: string): string => {
        let prefix = wanted
        for (let n = 2; taken.has(prefix); n++) {
          const suffix = `_${n}`
          prefix = `${wanted.slice(0, ToolName.maxPrefixLength - suffix.length)}${suffix}`
        }
        if (prefix !== wanted) numbered = { from: wanted, to: prefix }
        return prefix
      }
      const one = yield* Effect.mapError(
        mountWith(server, options, prefixOf),
        (error) => new MountError({ server: error.server, problem: error.problem, entry: index })
      )
      taken.add(one.prefix)
      if (numbered !== undefined) {
        warnings.push(
          `${one.prefix}: the prefix '${numbered.from}' is taken by another server, so ${describe(server)}'s tools are prefixed '${numbered.to}'`
        )
      }
      for (const warning of one.warnings) warnings.push(`${one.prefix}: ${warning}`)
      mounted.push(one)
    }
    const owners = new Map<string, number>()
    for (const [index, one] of mounted.entries()) {
      for (const tool of one.tools) {
        const owner = owners.get(tool.name)
        const other = owner === undefined ? undefined : mounted[owner]
        const first = owner === undefined ? undefined : entries[owner]
        if (other !== undefined && first !== undefined) {
          return yield* new MountError({
            server: describe(entries[index]?.server ?? first.server),
            problem: `its tool '${tool.name}' has the name of a tool of ${describe(first.server)} (prefixes '${other.prefix}' and '${one.prefix}'): choose prefixes that do not start one with the other`
          })
        }
        owners.set(tool.name, index)
      }
    }
    return {
      toolset: Toolset.make(...mounted.flatMap((one) => one.toolset.tools)),
      mounted,
      warnings
    }
  })
