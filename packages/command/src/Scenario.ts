/**
 * The command tool scenarios declare (`commands`), sandboxed: the scenario package's `Commands`
 * service over this package, as `harness test` runs them. A declaration is checked with a probe
 * of the sandbox it asks for (`Sandbox.detect`: a host with no bubblewrap, or none that can run,
 * refuses the file, naming why and the fix; it is never run unsandboxed), and each run gets
 * `CommandTool.make`'s tools over a sandbox on the run's fresh copy of the file's root folder,
 * with the declared variables set over the sandbox's defaults (`PATH`, `HOME=/tmp`,
 * `LANG=C.UTF-8`).
 *
 * Import it from `@agent-harness/command/scenario`, and provide `layer` where scenario files
 * run (`scenarioTests(folder, { layer })` of `@agent-harness/testing/vitest`, or
 * `Effect.provide(layer)` around `Suite.load` and `Suite.run`). The rest of the package is
 * loaded on the first scenario that declares commands: running one that does not never loads it.
 *
 * @since 0.2.0
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import process from "node:process"
import { Commands } from "@agent-harness/scenario"
import { Effect, Layer } from "effect"
import type * as Command from "./index.ts"

/** The command package, loaded when first needed (the module system keeps it after that). */
const load = Effect.promise(() => import("./index.ts"))

/** Where an option the sandbox refuses is in the file's `commands`. */
const pathOf = (option: string): string => {
  switch (option) {
    case "env":
      return "env"
    case "network":
      return "network"
    case "timeoutMs":
      return "timeout_ms"
    case "maxMemoryBytes":
      return "memory_bytes"
    default:
      return "(root)"
  }
}

/** Why the sandbox could not be made, as the file's problem. */
const invalid = (
  error: Command.Sandbox.SandboxUnavailable | Command.Sandbox.InvalidPolicy
): Commands.InvalidCommands =>
  error._tag === "SandboxUnavailable"
    ? new Commands.InvalidCommands({
        path: "(root)",
        problem: `${error.message}; a scenario that declares commands never runs them unsandboxed`
      })
    : new Commands.InvalidCommands({
        path: pathOf(error.option),
        problem: `the sandbox refuses its option '${error.option}': ${error.problem}`
      })

/** The thrown error of a refused permission, `NotCapable` (Deno), or `undefined`. */
const denied = (run: () => unknown): string | undefined => {
  try {
    run()
    return undefined
  } catch (thrown) {
    const name = typeof thrown === "object" && thrown !== null && "name" in thrown ? thrown.name : undefined
    return name === "NotCapable" || name === "PermissionDenied" ? String(name) : undefined
  }
}

/**
 * Under Deno, what the sandbox cannot read without permissions, as a refusal naming the fix: it
 * reads the process's uid (`--allow-sys`), `/proc/self/mountinfo` and `/sys/fs/cgroup` (which
 * Deno grants only with `--allow-all`). Without them detecting it would misread the host.
 */
const denoProblem = (): Commands.InvalidCommands | undefined => {
  if (!("Deno" in globalThis)) return undefined
  const refused =
    denied(() => typeof process.getuid === "function" && process.getuid()) ??
    denied(() => fs.readFileSync("/proc/self/mountinfo", "utf8"))
  return refused === undefined
    ? undefined
    : new Commands.InvalidCommands({
        path: "(root)",
        problem: `the command sandbox cannot be set up under Deno without its permissions (${refused}): it reads the process's uid, /proc/self/mountinfo and /sys/fs/cgroup, which Deno allows only with --allow-all: run deno with -A`
      })
}

/** The policy a declaration asks of the sandbox over `root`. */
const policyOf = (
  command: typeof Command,
  declared: Commands.Declared,
  root: string
): Command.Sandbox.Options & { readonly env: Readonly<Record<string, string>> } => ({
  root,
  network: declared.network ?? false,
  env: { ...command.Sandbox.defaultEnv, ...declared.env },
  timeoutMs: declared.timeoutMs,
  maxMemoryBytes: declared.memoryBytes
})

/** A sandbox over `root` as declared, or the file's problem. */
const sandboxOver = (
  declared: Commands.Declared,
  root: string
): Effect.Effect<
  { readonly command: typeof Command; readonly sandbox: Command.Sandbox.Sandbox },
  Commands.InvalidCommands
> =>
  Effect.gen(function* () {
    const deno = denoProblem()
    if (deno !== undefined) return yield* deno
    const command = yield* load
    const sandbox = yield* Effect.mapError(command.Sandbox.detect(policyOf(command, declared, root)), invalid)
    return { command, sandbox }
  })

/** A fresh empty folder for the length of the scope (removed after), to probe a sandbox over. */
const probeFolder = Effect.acquireRelease(
  Effect.try({
    try: () => fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), "harness-commands-"))),
    catch: (error) =>
      new Commands.InvalidCommands({
        path: "(root)",
        problem: `no folder could be made to probe the sandbox in (${error instanceof Error ? error.message : String(error)})`
      })
  }),
  (folder) => Effect.sync(() => fs.rmSync(folder, { recursive: true, force: true }))
)

/**
 * The `Commands` service: `check` probes a sandbox as declared (over an empty temporary folder),
 * `tools` makes the tools of one run over its root's copy.
 *
 * @since 0.2.0
 */
export const commands: Commands.Shape = Commands.Commands.of({
  check: (declared) =>
    Effect.scoped(Effect.flatMap(probeFolder, (folder) => Effect.asVoid(sandboxOver(declared, folder)))),
  tools: (declared, root, locale) =>
    Effect.map(sandboxOver(declared, root), ({ command, sandbox }) => ({
      toolset: command.CommandTool.make({ sandbox, locale, shell: declared.shell ?? false }),
      settings: {
        shell: declared.shell ?? false,
        network: sandbox.policy.network,
        env: sandbox.policy.env,
        timeoutMs: sandbox.policy.timeoutMs,
        memoryBytes: sandbox.policy.maxMemoryBytes
      }
    }))
})

/**
 * `commands` as a layer: provide it where scenario files are loaded and run (with a `Roots` that
 * copies root folders to real ones, `layer` of `@agent-harness/scenario/TreeRoots`).
 *
 * @example
 * ```ts
 * import * as CommandScenario from "@agent-harness/command/scenario"
 * import * as TreeRoots from "@agent-harness/scenario/TreeRoots"
 * import { scenarioTests } from "@agent-harness/testing/vitest"
 * import { Layer } from "effect"
 *
 * scenarioTests("scenarios/commands", {
 *   layer: Layer.mergeAll(CommandScenario.layer, TreeRoots.layer),
 *   timeout: 60_000 // each command runs in a sandbox
 * })
 * ```
 *
 * @since 0.2.0
 */
export const layer: Layer.Layer<Commands.Commands> = Layer.succeed(Commands.Commands, commands)
