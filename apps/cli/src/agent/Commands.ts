/**
 * `harness agent --commands`: the `command` tool (`comando` in Spanish; with `--shell` also
 * `shell` / `consola`), a program run inside a bubblewrap sandbox over `--root` (the system
 * read-only, the root the only writable place, a private `/tmp`, no network unless `--network`,
 * the environment cleared but for `--command-env`, processes, memory, output and time bounded).
 * Where no sandbox can run, the command is refused (exit 2, saying what is missing and how to fix
 * it): never run unsandboxed. Nothing the model sends reaches the sandbox's configuration.
 *
 * Loaded only when `--commands` is given.
 *
 * @since 0.2.0
 */
import { CommandTool, Sandbox } from "@agent-harness/command"
import type { FileTools } from "@agent-harness/file-tools"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { Duration, Effect, Option, Result } from "effect"

/**
 * The flags of the command tools.
 *
 * @since 0.2.0
 */
export interface Flags {
  readonly root: string
  readonly lang: FileTools.Locale
  /** `--shell`: the shell tool too. */
  readonly shell: boolean
  /** `--network`: grant the network. */
  readonly network: boolean
  /** `--command-env NAME=VALUE`, or `NAME` for this process's value. */
  readonly env: ReadonlyArray<string>
  /** `--command-timeout 90s`. */
  readonly timeout?: string | undefined
  /** `--command-memory 512M`. */
  readonly memory?: string | undefined
}

/**
 * What the run offers: the tools, and the settings a trace records (for capture).
 *
 * @since 0.2.0
 */
export interface Offered {
  readonly toolset: Toolset.Toolset<Tool.Any>
  readonly settings: {
    readonly shell: boolean
    readonly network: boolean
    readonly env: Readonly<Record<string, string>>
    readonly timeoutMs: number
    readonly memoryBytes: number
  }
}

/**
 * The environment `--command-env` declares over the sandbox's defaults (`PATH`, `HOME`,
 * `LANG`): `NAME=VALUE`, or `NAME` alone for this process's own value (refused when it has
 * none); the problem otherwise, naming the flag's value.
 *
 * @since 0.2.0
 */
export const environment = (
  given: ReadonlyArray<string>,
  host: Readonly<Record<string, string | undefined>>
): Result.Result<Readonly<Record<string, string>>, string> => {
  const env: Record<string, string> = { ...Sandbox.defaultEnv }
  for (const entry of given) {
    const at = entry.indexOf("=")
    const name = at < 0 ? entry : entry.slice(0, at)
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      return Result.fail(
        `--command-env ${JSON.stringify(entry)}: a variable's name is letters, digits and _, not starting with a digit`
      )
    }
    const value = at < 0 ? host[name] : entry.slice(at + 1)
    if (value === undefined) {
      return Result.fail(`--command-env ${name}: this process has no ${name} to pass on; give NAME=VALUE`)
    }
    if (value.includes("\u0000")) return Result.fail(`--command-env ${name}: a value cannot hold a NUL character`)
    // Defined, not assigned: a variable named __proto__ is a variable, not the object's prototype.
    Object.defineProperty(env, name, { value, enumerable: true, writable: true, configurable: true })
  }
  return Result.succeed(env)
}

/** `--command-timeout` in milliseconds, or the problem. */
const timeoutOf = (text: string | undefined): Result.Result<number, string> => {
  if (text === undefined) return Result.succeed(Sandbox.defaults.timeoutMs)
  const input: unknown = /^\d+$/.test(text) ? `${text} seconds` : text
  const duration = Duration.fromInput(input as Duration.Input)
  const millis = Option.isSome(duration) ? Duration.toMillis(duration.value) : Number.NaN
  return Number.isFinite(millis) && millis >= 1 && millis <= 24 * 3_600_000
    ? Result.succeed(Math.ceil(millis))
    : Result.fail(
        `--command-timeout ${JSON.stringify(text)}: expected a duration from 1 ms to 24 hours (90s, 5 minutes)`
      )
}

/** Bytes in a kibibyte, mebibyte, gibibyte and tebibyte. */
const units: Readonly<Record<string, number>> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }

/**
 * `--command-memory` in bytes (`536870912`, `512M`, `2G`, `2GiB`; K, M, G, T are powers of
 * 1024), or the problem.
 *
 * @since 0.2.0
 */
export const memoryOf = (text: string | undefined): Result.Result<number, string> => {
  if (text === undefined) return Result.succeed(Sandbox.defaults.maxMemoryBytes)
  const parts = /^(\d{1,16})\s*([kmgt]?)(?:i?b)?$/i.exec(text.trim())
  const bytes = parts === null ? Number.NaN : Number(parts[1]) * (units[(parts[2] ?? "").toLowerCase()] ?? Number.NaN)
  return Number.isSafeInteger(bytes) && bytes >= Sandbox.minMemoryBytes
    ? Result.succeed(bytes)
    : Result.fail(
        `--command-memory ${JSON.stringify(text)}: expected a size of at least 16M per process, in bytes or with K, M, G or T (512M, 2G)`
      )
}

/**
 * The command tools over a sandbox on `root`, or why there can be none (bad flags, no sandbox
 * here: the reason and its fix).
 *
 * @since 0.2.0
 */
export const offer = (
  flags: Flags,
  host: Readonly<Record<string, string | undefined>>
): Effect.Effect<Offered, string> =>
  Effect.gen(function* () {
    const env = yield* Effect.fromResult(environment(flags.env, host))
    const timeoutMs = yield* Effect.fromResult(timeoutOf(flags.timeout))
    const maxMemoryBytes = yield* Effect.fromResult(memoryOf(flags.memory))
    const sandbox = yield* Sandbox.detect({
      root: flags.root,
      network: flags.network,
      env,
      timeoutMs,
      maxMemoryBytes
    }).pipe(Effect.mapError((error) => `--commands: ${error.message}`))
    return {
      toolset: CommandTool.make({ sandbox, locale: flags.lang, shell: flags.shell }),
      settings: { shell: flags.shell, network: flags.network, env, timeoutMs, memoryBytes: maxMemoryBytes }
    }
  })
