/**
 * MCP servers in conversation scenarios (an extension of format 1): the `mcp` declarations of a
 * file, and the `Mounter` service that turns each into tools. The scenario package never speaks
 * MCP itself (MCP is an edge package): a host that can mount servers provides a `Mounter`
 * (`layer` of `@agent-harness/mcp/scenario` is one, with `Mount.mount`; the `harness` CLI
 * provides it). Without one, a scenario that
 * declares servers is refused, never run without them.
 *
 * @since 0.1.0
 */
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { type Cause, Context, type Effect, Schema, type Scope } from "effect"

/**
 * A prefix of mounted tools: 1 to 32 letters, digits, `_` or `-` (a tool `echo` of the server
 * is called `<prefix>__echo`).
 *
 * @since 0.1.0
 */
export const Prefix: Schema.String = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9_-]{1,32}$/, { expected: "1 to 32 letters, digits, '_' or '-'" })
)

/**
 * The longest timeout a declaration may give, in milliseconds (what a timer can wait: about
 * 24.8 days; a longer one would fire at once).
 *
 * @since 0.1.0
 */
export const maxTimeout = 2_147_483_647

/**
 * One declared MCP server, in the shape of the `mcpServers` entries every MCP client reads:
 * started with `command` (and `args`, `env`, `cwd`) and spoken to over its stdio, or reached at
 * `url` (with `headers`) over Streamable HTTP; `type` (`"stdio"` or `"http"`) may say which.
 * Its tools are named `<prefix>__<name>`. `cwd` is relative to the scenario file's folder, which
 * is also the default, so `args` may name a script next to the file. `env` is added to the
 * environment a child needs to run (`PATH`, `HOME`, `LANG`, `TMPDIR`, npm's settings…), never
 * the whole environment of the harness. `command`, `args`, `env`, `cwd`, `url` and `headers`
 * may use `${VAR}` and `${VAR:-default}`, expanded from the environment when the server is
 * mounted (the declaration keeps them as written, so a trace records the variable, not its
 * value). `timeout` bounds the handshake and each call, in milliseconds (default 30000 for the
 * handshake, 60000 for a call); `callTimeoutMs` bounds calls only, and wins over `timeout` for
 * them. `trust` (default `false`) says the user trusts the server's own hints (`readOnlyHint`…).
 *
 * @since 0.1.0
 */
export const Declaration: Schema.Struct<{
  readonly type: Schema.optionalKey<Schema.String>
  readonly command: Schema.optionalKey<Schema.String>
  readonly args: Schema.optionalKey<Schema.$Array<Schema.String>>
  readonly env: Schema.optionalKey<Schema.$Record<Schema.String, Schema.String>>
  readonly cwd: Schema.optionalKey<Schema.String>
  readonly url: Schema.optionalKey<Schema.String>
  readonly headers: Schema.optionalKey<Schema.$Record<Schema.String, Schema.String>>
  readonly prefix: Schema.String
  readonly timeout: Schema.optionalKey<Schema.Int>
  readonly callTimeoutMs: Schema.optionalKey<Schema.Int>
  readonly trust: Schema.optionalKey<Schema.Boolean>
}> = Schema.Struct({
  type: Schema.optionalKey(Schema.String),
  command: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1))),
  args: Schema.optionalKey(Schema.Array(Schema.String)),
  env: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  cwd: Schema.optionalKey(Schema.String),
  url: Schema.optionalKey(Schema.String),
  headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  prefix: Prefix,
  timeout: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1), Schema.isLessThanOrEqualTo(maxTimeout))
  ),
  callTimeoutMs: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1), Schema.isLessThanOrEqualTo(maxTimeout))
  ),
  trust: Schema.optionalKey(Schema.Boolean)
})

/** A declared MCP server. @since 0.1.0 */
export type Declaration = typeof Declaration.Type

/** The transports a declaration's `type` may name. */
const types = ["stdio", "http"] as const

/**
 * What is wrong with a decoded declaration beyond its Schema (which field, relative to the
 * declaration, and why), or `undefined`: it starts a server or reaches one, not both nor
 * neither; only a started server takes `args`, `env` and `cwd`, only a reached one `headers`; a
 * `url` is an `http:` or `https:` URL (unless it is written with `${VAR}`, checked when it is
 * expanded); a `type` is `"stdio"` (with `command`) or `"http"` (with `url`), and the old
 * HTTP+SSE transport (`"sse"`) is refused, saying so.
 *
 * @since 0.1.0
 */
export const check = (
  declaration: Declaration
): { readonly field: string | undefined; readonly problem: string } | undefined => {
  const { command, url, type } = declaration
  if (type === "sse") {
    return {
      field: "type",
      problem: `the HTTP+SSE transport (deprecated since MCP 2025-03-26) is not supported: mount the server's Streamable HTTP endpoint, "type": "http"`
    }
  }
  if (type !== undefined && !(types as ReadonlyArray<string>).includes(type)) {
    return {
      field: "type",
      problem: `expected "stdio" (a server to start) or "http" (a server to reach), got ${JSON.stringify(type)}`
    }
  }
  if (command === undefined && url === undefined) {
    return {
      field: undefined,
      problem:
        type === "stdio"
          ? `a "stdio" server needs "command" (the program to start)`
          : type === "http"
            ? `an "http" server needs "url" (where to reach it)`
            : `needs "command" (a server to start) or "url" (a server to reach)`
    }
  }
  if (command !== undefined && url !== undefined) {
    return { field: "url", problem: `a server is started ("command") or reached ("url"), not both` }
  }
  if (type === "stdio" && command === undefined) {
    return { field: "type", problem: `"stdio" is a server to start, with "command"; this one has "url": use "http"` }
  }
  if (type === "http" && url === undefined) {
    return { field: "type", problem: `"http" is a server to reach, with "url"; this one has "command": use "stdio"` }
  }
  if (url !== undefined) {
    for (const field of ["args", "env", "cwd"] as const) {
      if (declaration[field] !== undefined) {
        return { field, problem: `only a server that is started ("command") takes "${field}"` }
      }
    }
    if (!url.includes("${")) {
      const wrong = checkUrl(url)
      if (wrong !== undefined) return { field: "url", problem: wrong }
    }
  } else if (declaration.headers !== undefined) {
    return { field: "headers", problem: `only a server that is reached ("url") takes "headers"` }
  }
  return undefined
}

/**
 * What is wrong with a server's URL, or `undefined` when it is an `http:` or `https:` URL.
 *
 * @since 0.1.0
 */
export const checkUrl = (url: string): string | undefined => {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  return parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    ? `expected an http:// or https:// URL, got ${JSON.stringify(url)}`
    : undefined
}

/**
 * A declared server, mounted: its tools, and the declaration as it was mounted (`cwd` absolute),
 * which the trace records so that a captured scenario mounts the same server. What is worth
 * printing about a mount (tools renamed or skipped, schema parts not checked locally) is the
 * `Mounter`'s to report.
 *
 * @since 0.1.0
 */
export interface Mounted {
  /** The server's tools, named `<prefix>__<name>`. */
  readonly toolset: Toolset.Toolset<Tool.Any>
  /** The declaration as mounted: `cwd` resolved to an absolute folder. */
  readonly declaration: Declaration
}

const MountFailedBase: Schema.Class<
  MountFailed,
  Schema.TaggedStruct<"MountFailed", { readonly message: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<MountFailed>()("MountFailed", { message: Schema.String })

/**
 * A declared server could not be mounted: why, in words (`MCP server 'node fx.mjs': could not
 * start …`).
 *
 * @since 0.1.0
 */
export class MountFailed extends MountFailedBase {}

/**
 * What mounts a declared server for the length of a scope: `file` is the scenario file's path,
 * against whose folder `cwd` is resolved. Closing the scope stops the server.
 *
 * @since 0.1.0
 */
export interface Shape {
  /** Starts the declared server and mounts its tools; fails with `MountFailed` naming what went wrong. */
  readonly mount: (declaration: Declaration, file: string) => Effect.Effect<Mounted, MountFailed, Scope.Scope>
}

const MounterBase: Context.ServiceClass<Mounter, "@agent-harness/scenario/Mounter", Shape> = Context.Service<
  Mounter,
  Shape
>()("@agent-harness/scenario/Mounter")

/**
 * The service that mounts the MCP servers a scenario declares. Optional: a scenario without
 * `mcp` never asks for it, one with `mcp` is refused when it is missing.
 *
 * @since 0.1.0
 */
export class Mounter extends MounterBase {}

/**
 * Why a scenario that declares servers cannot run without a `Mounter`.
 *
 * @since 0.1.0
 */
export const missing = (count: number): string =>
  `declares ${count === 1 ? "an MCP server" : `${count} MCP servers`}, but nothing here can mount them: ` +
  "run it with the harness CLI, or provide the Mounter of @agent-harness/mcp/scenario (its layer)"
