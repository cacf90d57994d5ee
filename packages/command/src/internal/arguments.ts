/**
 * The sandbox's configuration as arguments, built by pure functions from the policy, the host
 * and the command: bwrap's own options first, every one of them from the policy and the host,
 * then `--` and the command. The command's words only ever come after that `--`, so no program
 * name, argument or value of a call can be read by bwrap as an option.
 */
import type { Host, Policy } from "../Sandbox.ts"

/** The shell a `{ shell }` command runs with, inside the sandbox. */
export const shell = "/bin/sh"

/** The command's words: its argv, or the shell and its line. */
export type Words = ReadonlyArray<string>

/** The system, read-only: the folders bound, the merged-`/usr` links made as on the host. */
const systemArguments = (host: Host): Array<string> =>
  host.system.flatMap((entry) =>
    entry._tag === "Bind" ? ["--ro-bind", entry.path, entry.path] : ["--symlink", entry.target, entry.path]
  )

/** The host's secrets under `/etc`, hidden: a file shows `/dev/null`, a folder an empty read-only one. */
const maskArguments = (host: Host): Array<string> =>
  host.masked.flatMap((masked) =>
    masked.kind === "file"
      ? ["--ro-bind", "/dev/null", masked.path]
      : ["--tmpfs", masked.path, "--remount-ro", masked.path]
  )

/**
 * bwrap's arguments for a command: the configuration, then `--` and the command's words. The
 * sandbox's own `/` and `/dev` are read-only too, so the root folder, `/tmp` and `/dev/shm` are
 * the only writable places; the last two are private, each at most `maxFileBytes` large.
 */
export const bwrapArguments = (policy: Policy, host: Host, words: Words): ReadonlyArray<string> => [
  ...systemArguments(host),
  "--proc",
  "/proc",
  "--dev",
  "/dev",
  "--size",
  String(policy.maxFileBytes),
  "--tmpfs",
  "/dev/shm",
  "--remount-ro",
  "/dev",
  "--size",
  String(policy.maxFileBytes),
  "--tmpfs",
  "/tmp",
  ...maskArguments(host),
  "--bind",
  policy.root,
  policy.root,
  "--remount-ro",
  "/",
  "--chdir",
  policy.root,
  "--unshare-pid",
  "--unshare-ipc",
  "--unshare-uts",
  "--unshare-cgroup-try",
  ...(policy.network ? [] : ["--unshare-net"]),
  ...(host.uid0 ? ["--cap-drop", "ALL"] : ["--unshare-user", "--disable-userns"]),
  "--hostname",
  "sandbox",
  "--die-with-parent",
  "--new-session",
  "--clearenv",
  ...Object.entries(policy.env).flatMap(([name, value]) => ["--setenv", name, value]),
  "--",
  ...words
]

/**
 * The launcher's script: the shell's own pid joins the cgroup (`$1`), says so on fd 3, closes
 * it, and becomes the rest of its arguments (prlimit, then bwrap). The command's words are
 * positional parameters here: the shell never reads them as code.
 */
export const joinScript = 'echo $$ > "$1" || exit 125; echo joined >&3; exec 3>&-; shift; exec "$@"'

/** The program to spawn and its arguments. */
export interface Launch {
  readonly file: string
  readonly args: ReadonlyArray<string>
}

/** What the launch needs besides the policy and the command. */
export interface Launcher {
  readonly bwrap: string
  readonly prlimit: string
  readonly host: Host
}

/**
 * The whole process to spawn: bwrap under prlimit (the largest file; without a cgroup, the
 * process count too), started by the shell that joins the cgroup when there is one.
 * `cgroupProcs` is the cgroup's `cgroup.procs` file; `nproc` the RLIMIT_NPROC to set without one.
 */
export const launch = (
  policy: Policy,
  launcher: Launcher,
  words: Words,
  limit: { readonly cgroupProcs: string } | { readonly nproc: number }
): Launch => {
  const limited = [
    launcher.prlimit,
    `--fsize=${policy.maxFileBytes}`,
    ...("nproc" in limit ? [`--nproc=${limit.nproc}`] : []),
    "--",
    launcher.bwrap,
    ...bwrapArguments(policy, launcher.host, words)
  ]
  if ("nproc" in limit) return { file: launcher.prlimit, args: limited.slice(1) }
  return { file: "/bin/sh", args: ["-c", joinScript, "sh", limit.cgroupProcs, ...limited] }
}
