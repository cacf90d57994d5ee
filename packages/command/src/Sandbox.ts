/**
 * The sandbox a command runs in, and running a command in it: on Linux, bubblewrap (`bwrap`)
 * over the root folder. The system is read-only, the root folder is the only writable place
 * (mounted at its own path, the working directory), `/tmp` is private and empty, the network is
 * cut unless the policy grants it, the environment is cleared but for what the policy declares,
 * capabilities are dropped, host secrets under `/etc` are hidden, and the number of processes,
 * the largest file written, the output kept and the time are bounded.
 *
 * `detect` finds whether a sandbox can run here and gives a `Sandbox`, or says what is missing
 * and how to fix it (`SandboxUnavailable`): a command is never run unsandboxed. `run` runs one
 * command and gives what it did (`Completed`); when it ends, by itself, by its timeout or by an
 * interruption, nothing it started is left running.
 *
 * @since 0.1.0
 */
import { realpathSync, statSync } from "node:fs"
import process from "node:process"
import { type Cause, Effect, Schema } from "effect"
import { dual } from "effect/Function"
import * as Arguments from "./internal/arguments.ts"
import * as Cgroup from "./internal/cgroup.ts"
import * as CommandInput from "./internal/command.ts"
import * as HostInfo from "./internal/host.ts"
import * as PolicyCheck from "./internal/policy.ts"
import * as Process from "./internal/process.ts"

// Policy.

/**
 * What the sandbox grants a command.
 *
 * @since 0.1.0
 */
export interface Policy {
  /** The root folder's absolute path: the only writable place, mounted at the same path, the working directory. */
  readonly root: string
  /** Whether the command may use the network (the host's); `false` gives it none at all. */
  readonly network: boolean
  /** The command's whole environment: nothing of the harness's own reaches it. */
  readonly env: Readonly<Record<string, string>>
  /** How long a command may run, in milliseconds, before it and everything it started are killed. */
  readonly timeoutMs: number
  /** The most bytes of stdout, and of stderr, kept; the rest is counted and dropped. */
  readonly maxOutputBytes: number
  /** The most processes (and threads) at once, the sandbox's own three (its supervisor, bwrap and its init) included. */
  readonly maxProcesses: number
  /** The largest file a command may write, in bytes (RLIMIT_FSIZE); also the size of its private `/tmp` and `/dev/shm`. */
  readonly maxFileBytes: number
  /**
   * The most private writable memory each process may hold, in bytes (RLIMIT_DATA: the heap and
   * anonymous mappings): a process asking for more gets an allocation failure. A limit per
   * process, not for the sandbox as a whole.
   */
  readonly maxMemoryBytes: number
}

/**
 * The environment a command sees when the policy declares none: `PATH`, `HOME=/tmp` and
 * `LANG=C.UTF-8`.
 *
 * @since 0.1.0
 */
export const defaultEnv: Readonly<Record<string, string>> = PolicyCheck.defaultEnv

/**
 * Every option's default but `root`'s: no network, `defaultEnv`, 60 s, 30,000 bytes per stream,
 * 256 processes, files up to 1 GiB, 4 GiB of memory per process.
 *
 * @since 0.1.0
 */
export const defaults: Omit<Policy, "root"> = PolicyCheck.defaults

/**
 * The least `maxMemoryBytes` a policy may give (16 MiB): bwrap and a shell need a few MiB of
 * their own before the command starts.
 *
 * @since 0.2.0
 */
export const minMemoryBytes: number = PolicyCheck.minMemoryBytes

/**
 * The policy asked of `detect`, each option optional (`root` defaults to the current folder),
 * and where `bwrap` is when it is not on `PATH`.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The root folder: an absolute path to an existing folder (default: the current folder). */
  readonly root?: string | undefined
  /** Grant the network (default `false`). */
  readonly network?: boolean | undefined
  /** The declared environment (default `defaultEnv`); names `[A-Za-z_][A-Za-z0-9_]*`, values without NUL. */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** Milliseconds, a whole number from 1 (default 60,000). */
  readonly timeoutMs?: number | undefined
  /** Bytes kept per stream, a whole number from 1 (default 30,000). */
  readonly maxOutputBytes?: number | undefined
  /** Processes at once, a whole number from 4 (default 256). */
  readonly maxProcesses?: number | undefined
  /** Bytes, a whole number from 1 (default 1 GiB). */
  readonly maxFileBytes?: number | undefined
  /** Bytes per process, a whole number from 16 MiB (default 4 GiB). */
  readonly maxMemoryBytes?: number | undefined
  /** The `bwrap` program to use (default: `bwrap` found on `PATH`). */
  readonly bwrap?: string | undefined
}

// The host and the configuration.

/**
 * A system folder as the sandbox shows it: the host's, bound read-only, or a symlink made as the
 * host has it (`/bin -> usr/bin` on a merged-`/usr` system).
 *
 * @since 0.1.0
 */
export type SystemPath =
  | { readonly _tag: "Bind"; readonly path: string }
  | { readonly _tag: "Symlink"; readonly path: string; readonly target: string }

/**
 * A host secret hidden in the sandbox: a file shown as `/dev/null`, a folder shown empty.
 *
 * @since 0.1.0
 */
export interface Masked {
  /** The path hidden. */
  readonly path: string
  /** A file (shown as `/dev/null`) or a folder (shown empty). */
  readonly kind: "file" | "directory"
}

/**
 * What the configuration needs to know of the host: whether we run as uid 0, its system
 * folders, and its secrets to hide.
 *
 * @since 0.1.0
 */
export interface Host {
  /** We run as uid 0: capabilities are dropped (`--cap-drop ALL`), and no user namespace is made. */
  readonly uid0: boolean
  /** The system folders, in the order they are mounted. */
  readonly system: ReadonlyArray<SystemPath>
  /** The secrets hidden, in the order they are masked. */
  readonly masked: ReadonlyArray<Masked>
}

/**
 * A command: a program and its arguments (`argv`, no shell involved), or a shell line run with
 * `/bin/sh -c` inside the sandbox.
 *
 * @since 0.1.0
 */
export type Command = { readonly argv: ReadonlyArray<string> } | { readonly shell: string }

/**
 * How the sandbox's processes are bounded: a cgroup's `pids.max` (v2 or v1), or RLIMIT_NPROC
 * (not as root, which the kernel exempts from it).
 *
 * @since 0.1.0
 */
export type ProcessLimit =
  | { readonly _tag: "Cgroup"; readonly version: 1 | 2; readonly parent: string }
  | { readonly _tag: "Rlimit" }

/**
 * The words a command runs as inside the sandbox: its argv, or `/bin/sh -c line`.
 *
 * @since 0.1.0
 */
export const words = (command: Command): ReadonlyArray<string> =>
  "shell" in command ? [Arguments.shell, "-c", command.shell] : command.argv

/**
 * bwrap's arguments for a command under a policy on a host: the configuration (every option of
 * it from the policy and the host), then `--` and the command's words. Pure: the same inputs
 * give the same arguments, and nothing of the command comes before that `--`.
 *
 * @example
 * ```ts
 * import { Sandbox } from "@agent-harness/command"
 *
 * const host = { uid0: true, system: [{ _tag: "Bind", path: "/usr" }], masked: [] } as const
 * const policy = { ...Sandbox.defaults, root: "/work/project" }
 * Sandbox.bwrapArguments(policy, host, { argv: ["ls", "-la"] }).slice(-3) // ["--", "ls", "-la"]
 * ```
 *
 * @since 0.1.0
 */
export const bwrapArguments = (policy: Policy, host: Host, command: Command): ReadonlyArray<string> =>
  Arguments.bwrapArguments(policy, host, words(command))

// What a command did.

/**
 * The Schema of what one output stream gave.
 *
 * @since 0.1.0
 */
export const Output: Schema.Struct<{
  readonly text: Schema.String
  readonly bytes: Schema.Int
  readonly truncated: Schema.Boolean
  readonly binary: Schema.Boolean
}> = Schema.Struct({
  text: Schema.String,
  bytes: Schema.Int,
  truncated: Schema.Boolean,
  binary: Schema.Boolean
})

/**
 * What one output stream gave: `text`, its first `maxOutputBytes` bytes cut on a UTF-8
 * boundary (`""` when `binary`: a NUL byte, or bytes that are not UTF-8); `bytes`, all it gave;
 * `truncated`, some of it is not in `text`.
 *
 * @since 0.1.0
 */
export type Output = typeof Output.Type

/**
 * The Schema of what a command did.
 *
 * @since 0.1.0
 */
export const Completed: Schema.Struct<{
  readonly exitCode: Schema.NullOr<Schema.Int>
  readonly signal: Schema.NullOr<Schema.String>
  readonly timedOut: Schema.Boolean
  readonly durationMs: Schema.Int
  readonly stdout: typeof Output
  readonly stderr: typeof Output
}> = Schema.Struct({
  exitCode: Schema.NullOr(Schema.Int),
  signal: Schema.NullOr(Schema.String),
  timedOut: Schema.Boolean,
  durationMs: Schema.Int,
  stdout: Output,
  stderr: Output
})

/**
 * What a command did: its exit code (`null` when it was killed), the signal that killed the
 * sandbox (`null` when none did), whether it ran out of time (and was killed), how long it took,
 * and its stdout and stderr.
 *
 * @since 0.1.0
 */
export type Completed = typeof Completed.Type

// Errors.

const SandboxUnavailableBase: Schema.Class<
  SandboxUnavailable,
  Schema.TaggedStruct<"SandboxUnavailable", { readonly reason: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<SandboxUnavailable>()("SandboxUnavailable", { reason: Schema.String })

/**
 * No sandbox can run here: `reason` says what is missing and how to fix it (`bwrap is not
 * installed: apt-get install bubblewrap`). Commands are then refused, never run unsandboxed.
 *
 * @since 0.1.0
 */
export class SandboxUnavailable extends SandboxUnavailableBase {
  /** `the command sandbox is unavailable: bwrap is not installed: apt-get install bubblewrap`. */
  override get message(): string {
    return `the command sandbox is unavailable: ${this.reason}`
  }
}

const InvalidPolicyBase: Schema.Class<
  InvalidPolicy,
  Schema.TaggedStruct<"InvalidPolicy", { readonly option: Schema.String; readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<InvalidPolicy>()("InvalidPolicy", { option: Schema.String, problem: Schema.String })

/**
 * An option of the policy that cannot be used: which, and what is wrong with it (an environment
 * variable is named in the problem).
 *
 * @since 0.1.0
 */
export class InvalidPolicy extends InvalidPolicyBase {
  /** `Sandbox: option 'env' variable "MY-KEY" is not a valid name (…)`. */
  override get message(): string {
    return `Sandbox: option '${this.option}' ${this.problem}`
  }
}

const InvalidCommandBase: Schema.Class<
  InvalidCommand,
  Schema.TaggedStruct<
    "InvalidCommand",
    {
      readonly part: Schema.Literals<readonly ["command", "program", "argument", "line"]>
      readonly index: Schema.NullOr<Schema.Int>
      readonly kind: Schema.Literals<
        readonly ["unreadable", "not-command", "not-text", "nul", "empty", "too-long", "too-large"]
      >
      readonly bytes: Schema.NullOr<Schema.Int>
      readonly limit: Schema.NullOr<Schema.Int>
      readonly detail: Schema.NullOr<Schema.String>
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<InvalidCommand>()("InvalidCommand", {
  part: Schema.Literals(["command", "program", "argument", "line"]),
  index: Schema.NullOr(Schema.Int),
  kind: Schema.Literals(["unreadable", "not-command", "not-text", "nul", "empty", "too-long", "too-large"]),
  bytes: Schema.NullOr(Schema.Int),
  limit: Schema.NullOr(Schema.Int),
  detail: Schema.NullOr(Schema.String)
})

/**
 * A command that cannot be run, named: which `part` (the `program`, the `argument` at `index`,
 * the shell `line`, the whole `command`) and what `kind` of problem (unreadable, not a text, a
 * NUL character, empty, longer than a program argument can be, too large). Nothing ran.
 *
 * @since 0.1.0
 */
export class InvalidCommand extends InvalidCommandBase {
  /** `argument 2 contains a NUL character, which no program argument can hold`. */
  override get message(): string {
    return CommandInput.describe(this)
  }
}

const RunFailedBase: Schema.Class<
  RunFailed,
  Schema.TaggedStruct<
    "RunFailed",
    {
      readonly stage: Schema.Literals<readonly ["spawn", "cgroup", "stdout", "stderr"]>
      readonly problem: Schema.String
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<RunFailed>()("RunFailed", {
  stage: Schema.Literals(["spawn", "cgroup", "stdout", "stderr"]),
  problem: Schema.String
})

/**
 * The sandbox itself failed around a command: it could not be spawned, or put in its cgroup
 * (`spawn`, `cgroup`: the command did not run), or its output could not be read (`stdout`,
 * `stderr`: it was killed, and may have done part of its work).
 *
 * @since 0.1.0
 */
export class RunFailed extends RunFailedBase {
  /** `could not spawn /bin/sh: spawn EAGAIN`. */
  override get message(): string {
    return this.problem
  }
}

// The sandbox.

/** The brand of a `Sandbox`. @since 0.1.0 */
export const TypeId: unique symbol = Symbol.for("@agent-harness/command/Sandbox")

/** The brand of a `Sandbox`. @since 0.1.0 */
export type TypeId = typeof TypeId

/**
 * A sandbox found to work here by `detect`: its policy, the programs it runs (`bwrap`, and
 * `prlimit` for the limits), the host it was configured for, and how its processes are bounded.
 *
 * @since 0.1.0
 */
export interface Sandbox {
  /** The brand: only `detect` makes one. */
  readonly [TypeId]: TypeId
  /** What it grants. */
  readonly policy: Policy
  /** The bwrap program. */
  readonly bwrap: string
  /** The prlimit program (util-linux), which sets the file size and memory limits (and, without a cgroup, the process limit). */
  readonly prlimit: string
  /** The setpriv program (util-linux), which arms the supervisor's parent-death signal. */
  readonly setpriv: string
  /** The host, as the configuration reads it. */
  readonly host: Host
  /** How the number of processes is bounded. */
  readonly processLimit: ProcessLimit
  /** How long the probe run (`true`, sandboxed) took, in milliseconds. */
  readonly probeMs: number
}

/**
 * Whether a value is a `Sandbox` (by its brand). Never throws.
 *
 * @since 0.1.0
 */
export const isSandbox = (u: unknown): u is Sandbox => {
  if (typeof u !== "object" || u === null) return false
  try {
    return (u as { readonly [TypeId]?: unknown })[TypeId] === TypeId
  } catch {
    return false
  }
}

/**
 * How to run one command, when it differs from the policy: a shorter or longer timeout, a
 * different output cap.
 *
 * @since 0.1.0
 */
export interface RunOptions {
  /** Milliseconds, a whole number from 1 (default: the policy's). */
  readonly timeoutMs?: number | undefined
  /** Bytes kept per stream, a whole number from 1 (default: the policy's). */
  readonly maxOutputBytes?: number | undefined
}

const runOptions = (
  policy: Policy,
  options: RunOptions | undefined
): Effect.Effect<{ readonly timeoutMs: number; readonly maxOutputBytes: number }, InvalidPolicy> => {
  let given: { readonly timeoutMs: unknown; readonly maxOutputBytes: unknown }
  try {
    given = { timeoutMs: options?.timeoutMs, maxOutputBytes: options?.maxOutputBytes }
  } catch (thrown) {
    const why = thrown instanceof Error ? thrown.message : "reading them threw"
    return Effect.fail(new InvalidPolicy({ option: "options", problem: `could not be read: ${why}` }))
  }
  const checked = PolicyCheck.check(
    {
      root: policy.root,
      timeoutMs: given.timeoutMs ?? policy.timeoutMs,
      maxOutputBytes: given.maxOutputBytes ?? policy.maxOutputBytes
    },
    policy.root
  )
  return checked.ok
    ? Effect.succeed({ timeoutMs: checked.value.timeoutMs, maxOutputBytes: checked.value.maxOutputBytes })
    : Effect.fail(new InvalidPolicy(checked.problem))
}

/** What to spawn for a command, and the cgroup made for it (removed by `stop`). */
const prepare = (
  sandbox: Sandbox,
  commandWords: ReadonlyArray<string>
): { readonly launch: Arguments.Launch; readonly cgroup: string | undefined } | { readonly problem: string } => {
  const limit = sandbox.processLimit
  if (limit._tag === "Rlimit") {
    const uid = typeof process.getuid === "function" ? process.getuid() : -1
    const nproc = HostInfo.tasksOf(uid) + sandbox.policy.maxProcesses
    return {
      launch: Arguments.launch(sandbox.policy, sandbox, commandWords, { nproc }, process.pid),
      cgroup: undefined
    }
  }
  const made = Cgroup.create(limit.parent, sandbox.policy.maxProcesses)
  if ("problem" in made) return made
  const cgroupProcs = `${made.folder}/cgroup.procs`
  return {
    launch: Arguments.launch(sandbox.policy, sandbox, commandWords, { cgroupProcs }, process.pid),
    cgroup: made.folder
  }
}

const started = (
  sandbox: Sandbox,
  commandWords: ReadonlyArray<string>,
  supervision: { readonly timeoutMs: number; readonly maxOutputBytes: number }
): Effect.Effect<Process.Running, RunFailed> =>
  Effect.suspend(() => {
    const prepared = prepare(sandbox, commandWords)
    if ("problem" in prepared) return Effect.fail(new RunFailed({ stage: "cgroup", problem: prepared.problem }))
    const running = Process.start(prepared.launch, { ...supervision, cgroup: prepared.cgroup })
    if ("problem" in running) {
      if (prepared.cgroup !== undefined) Cgroup.remove(prepared.cgroup)
      return Effect.fail(new RunFailed({ stage: "spawn", problem: running.problem }))
    }
    return Effect.succeed(running)
  })

const completed = (finished: Process.Finished): Effect.Effect<Completed, RunFailed> =>
  finished.trouble === undefined
    ? Effect.succeed({
        exitCode: finished.exitCode,
        signal: finished.signal,
        timedOut: finished.timedOut,
        durationMs: finished.durationMs,
        stdout: finished.stdout,
        stderr: finished.stderr
      })
    : Effect.fail(new RunFailed(finished.trouble))

const runIn = (
  sandbox: Sandbox,
  command: Command,
  options?: RunOptions
): Effect.Effect<Completed, InvalidCommand | RunFailed | InvalidPolicy> =>
  Effect.suspend((): Effect.Effect<Completed, InvalidCommand | RunFailed | InvalidPolicy> => {
    const read = CommandInput.read(command)
    if ("problem" in read) return Effect.fail(new InvalidCommand(read.problem))
    const commandWords = read.shell === undefined ? read.argv : [Arguments.shell, "-c", read.shell]
    return Effect.flatMap(runOptions(sandbox.policy, options), (supervision) =>
      Effect.acquireUseRelease(
        started(sandbox, commandWords, supervision),
        (running) =>
          Effect.flatMap(
            Effect.promise(() => running.finished),
            completed
          ),
        (running) => Effect.promise(() => running.stop())
      )
    )
  })

/**
 * Runs a command in the sandbox: what it did, with a non-zero exit code or a timeout as values
 * (`exitCode`, `timedOut`), not failures. It fails only when the command cannot be run
 * (`InvalidCommand`: a hostile or impossible value, named), the sandbox itself failed
 * (`RunFailed`) or `options` are invalid (`InvalidPolicy`); it never throws.
 *
 * The Effect may be interrupted (a caller's timeout, Ctrl-C): the command and every process it
 * started are killed, and nothing is left running once it ends, whichever way it ends.
 *
 * @example
 * ```ts
 * import { Sandbox } from "@agent-harness/command"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const sandbox = yield* Sandbox.detect({ root: "/work/project" })
 *   const done = yield* Sandbox.run(sandbox, { argv: ["ls", "-la"] })
 *   return done.exitCode === 0 ? done.stdout.text : done.stderr.text
 * })
 * ```
 *
 * @since 0.1.0
 */
export const run: {
  (
    command: Command,
    options?: RunOptions
  ): (sandbox: Sandbox) => Effect.Effect<Completed, InvalidCommand | RunFailed | InvalidPolicy>
  (
    sandbox: Sandbox,
    command: Command,
    options?: RunOptions
  ): Effect.Effect<Completed, InvalidCommand | RunFailed | InvalidPolicy>
} = dual((args) => isSandbox(args[0]), runIn)

// Detecting.

const unavailable = (reason: string): Effect.Effect<never, SandboxUnavailable> =>
  Effect.fail(new SandboxUnavailable({ reason }))

/** The root folder as it is on the disk (links resolved), checked again, or its problem. */
const realRoot = (root: string): Effect.Effect<string, InvalidPolicy> => {
  let real: string
  try {
    real = realpathSync(root)
    if (!statSync(real).isDirectory()) {
      return Effect.fail(new InvalidPolicy({ option: "root", problem: `must be a folder, got the file ${root}` }))
    }
  } catch (error) {
    const code = (error as { readonly code?: unknown }).code
    const problem = code === "ENOENT" ? `does not exist: ${root}` : `cannot be read: ${root} (${String(code)})`
    return Effect.fail(new InvalidPolicy({ option: "root", problem }))
  }
  const checked = PolicyCheck.check({ root: real }, real)
  return checked.ok ? Effect.succeed(real) : Effect.fail(new InvalidPolicy(checked.problem))
}

/** The `bwrap` option, read once. */
const bwrapOption = (options: unknown): Effect.Effect<string | undefined, InvalidPolicy> => {
  let value: unknown
  try {
    value =
      typeof options === "object" && options !== null ? (options as { readonly bwrap?: unknown }).bwrap : undefined
  } catch {
    return Effect.fail(new InvalidPolicy({ option: "bwrap", problem: "could not be read" }))
  }
  if (value === undefined || (typeof value === "string" && value.startsWith("/") && !value.includes("\0"))) {
    return Effect.succeed(value)
  }
  return Effect.fail(new InvalidPolicy({ option: "bwrap", problem: "must be the absolute path of the bwrap program" }))
}

/** Whether this runs under Deno, whose permissions can hide what is there. */
const underDeno = (): boolean => "Deno" in globalThis

/**
 * The user id, or why it cannot be read (Deno without `--allow-sys` refuses `getuid`): the
 * sandbox is refused then, saying so, rather than misread the host.
 */
const uidProblem = (): string | undefined => {
  try {
    if (typeof process.getuid === "function") process.getuid()
    return undefined
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message : String(thrown)
    return `this process's user id cannot be read (${message})${underDeno() ? ": under Deno, run with --allow-sys (or -A)" : ""}`
  }
}

const findBwrap = (given: string | undefined): Effect.Effect<string, SandboxUnavailable> => {
  if (given !== undefined) {
    return HostInfo.isExecutable(given)
      ? Effect.succeed(given)
      : unavailable(
          `bwrap was not found at ${given} (or is not an executable file): install bubblewrap (apt-get install bubblewrap), or give the path of bwrap`
        )
  }
  const found = HostInfo.which("bwrap", process.env.PATH)
  return found === undefined
    ? unavailable(
        `bwrap is not installed: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora), or give the path of bwrap${underDeno() ? " (under Deno this also means the folders of PATH could not be read: run with --allow-read, or -A)" : ""}`
      )
    : Effect.succeed(found)
}

/** A util-linux program on `PATH`, or what it is for and how to install it. */
const findUtilLinux = (program: string, purpose: string): Effect.Effect<string, SandboxUnavailable> => {
  const found = HostInfo.which(program, process.env.PATH)
  return found === undefined
    ? unavailable(`${program} is not installed (${purpose}): apt-get install util-linux`)
    : Effect.succeed(found)
}

const findLimit = (host: Host): Effect.Effect<ProcessLimit, SandboxUnavailable> => {
  const cgroup = Cgroup.find()
  if (cgroup !== undefined) return Effect.succeed(cgroup)
  if (!host.uid0) return Effect.succeed({ _tag: "Rlimit" })
  return unavailable(
    "the number of processes cannot be bounded: running as root, which RLIMIT_NPROC does not bind, and no cgroup with the pids controller can be created here (mount cgroup v1's pids hierarchy writable at /sys/fs/cgroup/pids, or delegate a cgroup v2 subtree with pids enabled)"
  )
}

/** Why a probe run failed, and how to fix it when we know. */
const probeFailure = (done: Completed): string => {
  const said = done.stderr.text.trim().split("\n").slice(0, 3).join(" / ")
  const how = done.timedOut
    ? "timed out"
    : done.exitCode === null
      ? `was killed (${done.signal})`
      : `exit ${done.exitCode}`
  const hint = /namespace|uid map|Operation not permitted|Permission denied/i.test(said)
    ? ": allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu also kernel.apparmor_restrict_unprivileged_userns=0), or run where namespaces are permitted"
    : ""
  return `bwrap could not start a sandbox here (${how}${said === "" ? "" : `: ${said}`})${hint}`
}

const probeProgram = (): string => (HostInfo.isExecutable("/usr/bin/true") ? "/usr/bin/true" : "/bin/true")

/**
 * Finds whether a sandbox can run here, with the policy `options` ask for: Linux, `bwrap` (on
 * `PATH`, or at `options.bwrap`), `prlimit`, a process limit that holds (a cgroup as root;
 * RLIMIT_NPROC otherwise), and a probe run of `true` in the sandbox that succeeds. Gives the
 * `Sandbox`, or `SandboxUnavailable` saying what is missing and how to fix it, or
 * `InvalidPolicy` naming the option. It never falls back to running anything unsandboxed.
 *
 * @example
 * ```ts
 * import { Sandbox } from "@agent-harness/command"
 * import { Effect } from "effect"
 *
 * const sandbox = Sandbox.detect({ root: "/work/project", timeoutMs: 30_000 }).pipe(
 *   Effect.catchTag("SandboxUnavailable", (error) => Effect.die(error.message))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const detect = (options?: Options): Effect.Effect<Sandbox, SandboxUnavailable | InvalidPolicy> =>
  Effect.gen(function* () {
    if (process.platform !== "linux") {
      return yield* unavailable(`the command sandbox needs Linux and bubblewrap; this is ${process.platform}`)
    }
    const uid = uidProblem()
    if (uid !== undefined) return yield* unavailable(uid)
    const checked = PolicyCheck.check(options, process.cwd())
    if (!checked.ok) return yield* new InvalidPolicy(checked.problem)
    const root = yield* realRoot(checked.value.root)
    const policy: Policy = { ...checked.value, root }
    const bwrap = yield* findBwrap(yield* bwrapOption(options))
    const prlimit = yield* findUtilLinux(
      "prlimit",
      "it sets the largest file and the memory a command's processes may have"
    )
    const setpriv = yield* findUtilLinux("setpriv", "it makes a command die with the harness, however the harness ends")
    const host = HostInfo.inspect()
    const processLimit = yield* findLimit(host)
    const candidate: Sandbox = { [TypeId]: TypeId, policy, bwrap, prlimit, setpriv, host, processLimit, probeMs: 0 }
    const probe = yield* runIn(candidate, { argv: [probeProgram()] }, { timeoutMs: 30_000 }).pipe(
      Effect.catchTags({
        InvalidCommand: (error) => unavailable(error.message),
        InvalidPolicy: (error) => unavailable(error.message),
        RunFailed: (error) => unavailable(`the sandbox could not be started: ${error.problem}`)
      })
    )
    if (probe.exitCode !== 0) return yield* unavailable(probeFailure(probe))
    return { ...candidate, probeMs: probe.durationMs }
  })
