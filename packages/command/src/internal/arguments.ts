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
 * The supervisor: the shell that stands between the harness and bwrap, for the whole life of the
 * command, so that a harness killed at any instant (SIGKILL included) leaves nothing running.
 *
 * It is started by `setpriv --pdeathsig TERM`, so it is sent SIGTERM when the harness dies; and
 * as the harness may have died before that was armed, it first checks that its parent is still
 * the harness (`$1`), or exits 125 at once. With a cgroup (`$2`, its `cgroup.procs`), it joins it
 * (saying so on fd 3) before anything starts, so every process of the command is in it. Then it
 * runs the rest of its arguments (prlimit, then bwrap) as its child and waits for it, passing its
 * exit status on. On SIGTERM it kills every other process of the cgroup, again until none is
 * left (or, without a cgroup, bwrap, whose sandbox dies with it), and exits. bwrap's own
 * `--die-with-parent` arms itself only once the sandbox has started (bubblewrap issue 633): this
 * covers the instants before. The command's words are positional parameters here: the shell
 * never reads them as code.
 */
export const supervisorScript = [
  "harness=$1; procs=$2; shift 3",
  '[ "$PPID" = "$harness" ] || exit 125',
  'if [ -n "$procs" ]; then echo $$ > "$procs" || exit 125; echo joined >&3; fi',
  "exec 3>&-",
  "child=",
  "stop() {",
  "  trap '' TERM",
  '  if [ -n "$procs" ]; then',
  "    n=0",
  "    while [ $n -lt 100 ]; do",
  "      left=0",
  '      while read -r p; do if [ "$p" != "$$" ]; then kill -9 "$p" 2>/dev/null; left=1; fi; done < "$procs"',
  "      [ $left = 0 ] && break",
  "      n=$((n + 1))",
  "    done",
  '  elif [ -n "$child" ]; then',
  '    kill -9 "$child" 2>/dev/null',
  "  fi",
  "  exit 143",
  "}",
  "trap stop TERM",
  '"$@" &',
  "child=$!",
  'wait "$child"',
  "exit $?"
].join("\n")

/** The program to spawn and its arguments. */
export interface Launch {
  readonly file: string
  readonly args: ReadonlyArray<string>
}

/** What the launch needs besides the policy and the command. */
export interface Launcher {
  readonly bwrap: string
  readonly prlimit: string
  /** util-linux's `setpriv`, which arms the supervisor's parent-death signal before it starts. */
  readonly setpriv: string
  readonly host: Host
}

/**
 * The whole process to spawn: the supervisor (`supervisorScript`, under `setpriv --pdeathsig
 * TERM`), which joins the cgroup when there is one and runs bwrap under prlimit (the largest
 * file, each process's memory; without a cgroup, the process count too). `harness` is this
 * process's pid; `cgroupProcs` the cgroup's `cgroup.procs` file; `nproc` the RLIMIT_NPROC to set
 * without one.
 */
export const launch = (
  policy: Policy,
  launcher: Launcher,
  words: Words,
  limit: { readonly cgroupProcs: string } | { readonly nproc: number },
  harness: number
): Launch => {
  const limited = [
    launcher.prlimit,
    `--fsize=${policy.maxFileBytes}`,
    `--data=${policy.maxMemoryBytes}`,
    ...("nproc" in limit ? [`--nproc=${limit.nproc}`] : []),
    "--",
    launcher.bwrap,
    ...bwrapArguments(policy, launcher.host, words)
  ]
  return {
    file: launcher.setpriv,
    args: [
      "--pdeathsig",
      "TERM",
      "--",
      "/bin/sh",
      "-c",
      supervisorScript,
      "sh",
      String(harness),
      "cgroupProcs" in limit ? limit.cgroupProcs : "",
      "--",
      ...limited
    ]
  }
}
