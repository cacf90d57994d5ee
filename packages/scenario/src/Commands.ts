/**
 * The sandboxed command tool in conversation scenarios (an extension of format 1): a file's
 * `commands` (`{ "shell"?, "network"?, "env"?, "timeout_ms"?, "memory_bytes"? }`) offers the model the command
 * tool (`command` / `comando`, and with `shell` also `shell` / `consola`), each command run in a
 * sandbox over the fresh copy of the file's `root` folder; and the `Commands` service that makes
 * those tools.
 *
 * The scenario package never imports `@agent-harness/command` (an edge package: `harness run` of
 * a scenario without commands never loads it). A host that can run a sandbox provides a
 * `Commands`: `layer` of `@agent-harness/command/scenario` is one, over bubblewrap (the `harness`
 * CLI provides it). Without one, a scenario that declares commands is refused, never run without
 * its sandbox.
 *
 * @since 0.2.0
 */
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { type Cause, Context, type Effect, Schema } from "effect"

/**
 * The longest timeout a file may give a command, in milliseconds (what a timer can wait: about
 * 24.8 days).
 *
 * @since 0.2.0
 */
export const maxTimeoutMs = 2_147_483_647

/**
 * The least memory a file may give each process of a command, in bytes (16 MiB: the sandbox
 * and a shell need a few of their own).
 *
 * @since 0.2.0
 */
export const minMemoryBytes = 16 * 1024 * 1024

/**
 * The most bytes the declared environment may take in all, each variable counted as
 * `NAME=VALUE` in UTF-8: the sandbox passes every variable as arguments, which share the
 * kernel's room with the command's own (`ARG_MAX`).
 *
 * @since 0.2.0
 */
export const maxEnvBytes = 65_536

/**
 * What a variable's name must be: letters, digits and `_`, not starting with a digit.
 *
 * @since 0.2.0
 */
export const variableName: RegExp = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * The `commands` field of a conversation or live file, as written (snake_case on the wire, as a
 * new field of format 1 is): `shell` adds the shell tool, `network` grants the network, `env`
 * declares variables over the sandbox's defaults (`PATH`, `HOME=/tmp`, `LANG=C.UTF-8`),
 * `timeout_ms` bounds each command, `memory_bytes` each process's private writable memory. Every
 * key optional; `{}` is the command tool with the
 * defaults. Names, NUL characters and sizes are checked after decoding (`check`).
 *
 * @since 0.2.0
 */
export const Declaration: Schema.Struct<{
  readonly shell: Schema.optionalKey<Schema.Boolean>
  readonly network: Schema.optionalKey<Schema.Boolean>
  readonly env: Schema.optionalKey<Schema.$Record<Schema.String, Schema.String>>
  readonly timeout_ms: Schema.optionalKey<Schema.Int>
  readonly memory_bytes: Schema.optionalKey<Schema.Int>
}> = Schema.Struct({
  shell: Schema.optionalKey(Schema.Boolean),
  network: Schema.optionalKey(Schema.Boolean),
  env: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  timeout_ms: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1), Schema.isLessThanOrEqualTo(maxTimeoutMs))
  ),
  memory_bytes: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(minMemoryBytes), Schema.isLessThanOrEqualTo(Number.MAX_SAFE_INTEGER))
  )
})

/** A decoded `commands` field, as the file spells it. @since 0.2.0 */
export type Declaration = typeof Declaration.Type

/**
 * What a file declares, in TypeScript's spelling (`timeout_ms` is `timeoutMs`, `memory_bytes`
 * `memoryBytes`): what the
 * `Commands` service is asked for. An absent option takes the sandbox's default.
 *
 * @since 0.2.0
 */
export interface Declared {
  /** Offer the shell tool too (a line run with `/bin/sh -c`); default `false`. */
  readonly shell?: boolean | undefined
  /** Grant the network; default `false`. */
  readonly network?: boolean | undefined
  /** Variables set over the sandbox's defaults (`PATH`, `HOME`, `LANG`). */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** How long one command may run, in milliseconds; default the sandbox's (60,000). */
  readonly timeoutMs?: number | undefined
  /** The most private writable memory each process may hold, in bytes; default the sandbox's (4 GiB). */
  readonly memoryBytes?: number | undefined
}

/**
 * A file's declaration in TypeScript's spelling: the one place `timeout_ms` becomes `timeoutMs`
 * and `memory_bytes` `memoryBytes`.
 *
 * @since 0.2.0
 */
export const declared = (declaration: Declaration): Declared => ({
  shell: declaration.shell,
  network: declaration.network,
  env: declaration.env,
  timeoutMs: declaration.timeout_ms,
  memoryBytes: declaration.memory_bytes
})

/**
 * The settings a run's commands ran with, every default filled in: what the trace's `commands`
 * annotation records (`harness agent --commands` records the same), and what `Capture` writes
 * back as the scenario's `commands`.
 *
 * @since 0.2.0
 */
export interface Settings {
  /** Whether the shell tool was offered. */
  readonly shell: boolean
  /** Whether the network was granted. */
  readonly network: boolean
  /** The whole environment a command saw (the defaults and the declared variables). */
  readonly env: Readonly<Record<string, string>>
  /** How long one command could run, in milliseconds. */
  readonly timeoutMs: number
  /** The most private writable memory each process could hold, in bytes. */
  readonly memoryBytes: number
}

/**
 * The settings as a trace records them (the `commands` annotation): on the wire, so snake_case
 * (`timeout_ms`, `memory_bytes`), as a scenario file spells them. `harness agent --commands` and a scenario run
 * both record this; `Capture` reads it (and the `timeoutMs` of traces recorded before).
 *
 * @since 0.2.0
 */
export const wire = (
  settings: Settings
): {
  readonly shell: boolean
  readonly network: boolean
  readonly env: Readonly<Record<string, string>>
  readonly timeout_ms: number
  readonly memory_bytes: number
} => ({
  shell: settings.shell,
  network: settings.network,
  env: settings.env,
  timeout_ms: settings.timeoutMs,
  memory_bytes: settings.memoryBytes
})

/**
 * The command tools of one run, and the settings they run with.
 *
 * @since 0.2.0
 */
export interface Offered {
  /** The tools: `command` (`comando`), and `shell` (`consola`) when declared. */
  readonly toolset: Toolset.Toolset<Tool.Any>
  /** What the trace records. */
  readonly settings: Settings
}

const InvalidCommandsBase: Schema.Class<
  InvalidCommands,
  Schema.TaggedStruct<"InvalidCommands", { readonly path: Schema.String; readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<InvalidCommands>()("InvalidCommands", { path: Schema.String, problem: Schema.String })

/**
 * Declared commands that cannot run here: the JSON path inside `commands` (`timeout_ms`, `env`,
 * or `(root)` for the field itself) and what is wrong: a sandbox that cannot run on this host
 * (why, and the fix), or an option the sandbox refuses.
 *
 * @since 0.2.0
 */
export class InvalidCommands extends InvalidCommandsBase {
  /** The JSON path from the file's root: `commands`, `commands.timeout_ms`. */
  get at(): string {
    if (this.path === "(root)") return "commands"
    return this.path.startsWith("[") ? `commands${this.path}` : `commands.${this.path}`
  }

  /** `commands: <problem>`. */
  override get message(): string {
    return `${this.at}: ${this.problem}`
  }
}

/**
 * What makes the declared commands real: `check` says whether they can run here (`Suite.load`
 * refuses a file whose sandbox cannot run, naming why and the fix), `tools` makes the tools of
 * one run over `root`, the absolute path of the run's fresh copy of the file's root folder, in
 * the file's locale.
 *
 * @since 0.2.0
 */
export interface Shape {
  /** Whether a sandbox with these settings can run here; fails saying why not and how to fix it. */
  readonly check: (declared: Declared) => Effect.Effect<void, InvalidCommands>
  /** The command tools of one run, each command sandboxed over `root`. */
  readonly tools: (declared: Declared, root: string, locale: "en" | "es") => Effect.Effect<Offered, InvalidCommands>
}

const CommandsBase: Context.ServiceClass<Commands, "@agent-harness/scenario/Commands", Shape> = Context.Service<
  Commands,
  Shape
>()("@agent-harness/scenario/Commands")

/**
 * The service that runs the commands scenarios declare. Optional: a scenario without `commands`
 * never asks for it, one with `commands` is refused when it is missing.
 *
 * @since 0.2.0
 */
export class Commands extends CommandsBase {}

/**
 * Why a scenario that declares commands cannot run without a `Commands` service.
 *
 * @since 0.2.0
 */
export const missing: string =
  "declares commands, but nothing here can run them in a sandbox: run it with the harness CLI, or provide the " +
  "Commands of @agent-harness/command/scenario (its layer)"

/** Bytes of a text in UTF-8. */
const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length

/** `12,345`. */
const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")

/**
 * What is wrong with a decoded declaration beyond its Schema, or `undefined`: the path inside
 * `commands` (`env`, then the variable's name) and why. A variable's name is letters, digits and
 * `_`, not starting with a digit; a value holds no NUL character (no environment can); all the
 * variables together take at most `maxEnvBytes`.
 *
 * @since 0.2.0
 */
export const check = (
  declaration: Declaration
): { readonly path: ReadonlyArray<string>; readonly problem: string } | undefined => {
  let bytes = 0
  for (const [name, value] of Object.entries(declaration.env ?? {})) {
    if (!variableName.test(name)) {
      return {
        path: ["env", name],
        problem: `${JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)} is not a variable name: letters, digits and _, not starting with a digit`
      }
    }
    if (value.includes("\u0000")) {
      return { path: ["env", name], problem: "a value cannot hold a NUL character (no environment can)" }
    }
    bytes += utf8Bytes(`${name}=${value}`)
    if (bytes > maxEnvBytes) {
      return {
        path: ["env", name],
        problem: `too large: the variables take ${grouped(bytes)} bytes with this one (NAME=VALUE each, UTF-8), more than the ${grouped(maxEnvBytes)} a sandbox's environment may hold`
      }
    }
  }
  return undefined
}
