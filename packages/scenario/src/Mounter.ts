/**
 * MCP servers in conversation scenarios (an extension of format 1): the `mcp` declarations of a
 * file, and the `Mounter` service that turns each into tools. The scenario package never speaks
 * MCP itself (MCP is an edge package): a host that can mount servers provides a `Mounter` (the
 * `harness` CLI does, with `@agent-harness/mcp`'s `Mount.mount`). Without one, a scenario that
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
 * One declared MCP server: started with `command` (and `args`, `env`, `cwd`) and spoken to over
 * its stdio, or reached at `url` over Streamable HTTP. Its tools are named `<prefix>__<name>`.
 * `cwd` is relative to the scenario file's folder, which is also the default, so `args` may name
 * a script next to the file. `env` is added to a small safe environment (`PATH`, `HOME`…), not
 * to the whole environment of the harness. `callTimeoutMs` bounds each call (default 60000).
 *
 * @since 0.1.0
 */
export const Declaration: Schema.Struct<{
  readonly command: Schema.optionalKey<Schema.String>
  readonly args: Schema.optionalKey<Schema.$Array<Schema.String>>
  readonly env: Schema.optionalKey<Schema.$Record<Schema.String, Schema.String>>
  readonly cwd: Schema.optionalKey<Schema.String>
  readonly url: Schema.optionalKey<Schema.String>
  readonly prefix: Schema.String
  readonly callTimeoutMs: Schema.optionalKey<Schema.Int>
}> = Schema.Struct({
  command: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1))),
  args: Schema.optionalKey(Schema.Array(Schema.String)),
  env: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  cwd: Schema.optionalKey(Schema.String),
  url: Schema.optionalKey(Schema.String),
  prefix: Prefix,
  callTimeoutMs: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)))
})

/** A declared MCP server. @since 0.1.0 */
export type Declaration = typeof Declaration.Type

/**
 * What is wrong with a decoded declaration beyond its Schema (which field, relative to the
 * declaration, and why), or `undefined`: it starts a server or reaches one, not both nor
 * neither; only a started server takes `args`, `env` and `cwd`; a `url` is an `http:` or
 * `https:` URL.
 *
 * @since 0.1.0
 */
export const check = (
  declaration: Declaration
): { readonly field: string | undefined; readonly problem: string } | undefined => {
  const { command, url } = declaration
  if (command === undefined && url === undefined) {
    return { field: undefined, problem: `needs "command" (a server to start) or "url" (a server to reach)` }
  }
  if (command !== undefined && url !== undefined) {
    return { field: "url", problem: `a server is started ("command") or reached ("url"), not both` }
  }
  if (url !== undefined) {
    for (const field of ["args", "env", "cwd"] as const) {
      if (declaration[field] !== undefined) {
        return { field, problem: `only a server that is started ("command") takes "${field}"` }
      }
    }
    const parsed = URL.canParse(url) ? new URL(url) : undefined
    if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      return { field: "url", problem: `expected an http:// or https:// URL, got ${JSON.stringify(url)}` }
    }
  }
  return undefined
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
  "run it with the harness CLI, or provide a Mounter (Mounter.Mounter) built on @agent-harness/mcp's Mount.mount"
