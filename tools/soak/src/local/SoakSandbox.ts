/**
 * What the commands soak checks around its sandboxes: whether a sandbox can run here at all (the
 * soak refuses to start otherwise, never running a command unsandboxed), and that nothing a run
 * started in one is left behind once the run is over: no process of the run (whose command line
 * holds the run's folder, as every sandboxed process of a run does: bwrap binds the root folder,
 * and the commands' scripts name their files by absolute path; or that is in a cgroup the sandbox
 * made for one of the run's children, which it names `agent-harness-<pid>-…` after the process
 * that made it), and no such cgroup. What it finds it reports, then kills and removes, so a soak
 * leaves nothing behind.
 *
 * Right after each kill it also looks for a sandbox that outlived the killed child: a process of
 * the run still running and not dying (no SIGKILL pending, not exiting). bwrap's
 * `--die-with-parent` is not enough for that: bwrap 0.8 arms `PR_SET_PDEATHSIG` in its outer
 * process only after cloning the sandbox's init, and in that init only after forking the command,
 * and never checks that its parent is still there (bubblewrap issue 633, still so in 0.11). A
 * harness killed in those windows (while the sandbox starts, or just as its command has started)
 * left the sandbox running on its own, its command run to its end with no timeout, until the
 * sandbox's supervisor (started with a parent-death signal, it kills the sandbox when the harness
 * dies) closed them: the soak counts any such sandbox as `orphaned`, a violation.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import process from "node:process"
import { Sandbox } from "@agent-harness/command"
import { Effect } from "effect"

/**
 * Whether a sandbox can run here: `Sandbox.detect` over an empty temporary folder (removed
 * after), failing with why not.
 *
 * @since 0.1.0
 */
export const available: Effect.Effect<Sandbox.Sandbox, Sandbox.SandboxUnavailable | Sandbox.InvalidPolicy> =
  Effect.acquireUseRelease(
    Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "agent-harness-soak-probe-"))),
    (root) => Sandbox.detect({ root }),
    (root) => Effect.sync(() => fs.rmSync(root, { recursive: true, force: true }))
  )

/**
 * A process found running: its pid, its parent's, its command line (arguments joined by
 * spaces), and whether it is dying (a SIGKILL pending, or exiting already).
 *
 * @since 0.1.0
 */
export interface Running {
  readonly pid: number
  readonly ppid: number
  readonly args: string
  readonly dying: boolean
}

/** The kernel's flag of a task in `do_exit`, in `/proc/<pid>/stat`'s ninth field. */
const PF_EXITING = 0x4

/** SIGKILL's bit in a signal mask of `/proc/<pid>/status`. */
const sigkillBit = 1n << 8n

/**
 * What `/proc` says of a process: its parent, and whether it is dying (a zombie, exiting, or with
 * SIGKILL pending: a parent-death signal delivered, not acted on yet); `undefined` once gone.
 */
const stateOf = (pid: number): { readonly ppid: number; readonly dying: boolean } | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // After the command name in parentheses: state, ppid, pgrp, session, tty, tpgid, flags.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const state = fields[0] ?? ""
    const ppid = Number(fields[1])
    const flags = Number(fields[6])
    if (state === "Z" || state === "X" || (Number.isSafeInteger(flags) && (flags & PF_EXITING) !== 0)) {
      return { ppid, dying: true }
    }
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
    for (const mask of status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)) {
      if ((BigInt(`0x${mask[1] ?? "0"}`) & sigkillBit) !== 0n) return { ppid, dying: true }
    }
    return { ppid, dying: false }
  } catch {
    return undefined
  }
}

/** The pid a cgroup of the sandbox is named after. */
const cgroupPid = /agent-harness-(\d+)-/

/** The cgroup of a process that the sandbox made for one of `pids`, if it is in one. */
const sandboxCgroupOf = (pid: number, pids: ReadonlySet<number>): string | undefined => {
  if (pids.size === 0) return undefined
  let text: string
  try {
    text = fs.readFileSync(`/proc/${pid}/cgroup`, "utf8")
  } catch {
    return undefined
  }
  for (const line of text.split("\n")) {
    const maker = cgroupPid.exec(line)?.[1]
    if (maker !== undefined && pids.has(Number(maker))) return line.slice(line.indexOf(":", line.indexOf(":") + 1) + 1)
  }
  return undefined
}

/**
 * The processes of a run (this process excepted), read from `/proc`: those whose command line
 * holds `marker`, and those in a cgroup the sandbox made for one of `pids` (a process in the
 * middle of an `execve` shows no command line for a moment); a zombie is not running.
 *
 * @since 0.1.0
 */
export const processesWith = (
  marker: string,
  pids: ReadonlySet<number> = new Set()
): Effect.Effect<ReadonlyArray<Running>> =>
  Effect.sync(() => {
    const found: Array<Running> = []
    for (const name of fs.readdirSync("/proc")) {
      const pid = Number(name)
      if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) continue
      let cmdline: string
      try {
        cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8")
      } catch {
        continue // gone meanwhile
      }
      const args = cmdline.split("\0").join(" ").trim()
      const cgroup = cmdline.includes(marker) ? undefined : sandboxCgroupOf(pid, pids)
      if (!cmdline.includes(marker) && cgroup === undefined) continue
      const state = stateOf(pid)
      if (state !== undefined) found.push({ pid, args: args === "" ? `(in the cgroup ${cgroup})` : args, ...state })
    }
    return found
  })

/**
 * The processes of a run (`processesWith`) that outlived the process that started them, called
 * once that process is gone: those still running (not dying) after `patienceMs` (default 2 s).
 * A sandbox's supervisor is told of its harness's death by a parent-death signal and then kills
 * its cgroup, and a pid namespace's processes die with its init: that takes a few milliseconds,
 * during which they are still there. A process still running past the patience was left behind.
 *
 * @since 0.1.0
 */
export const outlived = (
  marker: string,
  pids: ReadonlySet<number>,
  options?: { readonly patienceMs?: number | undefined }
): Effect.Effect<ReadonlyArray<Running>> =>
  Effect.gen(function* () {
    const deadline = performance.now() + (options?.patienceMs ?? 2_000)
    while (true) {
      const running = (yield* processesWith(marker, pids)).filter((p) => !p.dying)
      if (running.length === 0 || performance.now() > deadline) return running
      yield* Effect.sleep(10)
    }
  })

/** Whether a process is still there (a zombie is not). */
const present = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return false
  }
}

/**
 * The cgroups under `parent` that the sandbox made for one of `pids` (its folders' paths).
 *
 * @since 0.1.0
 */
export const cgroupsOf = (parent: string, pids: ReadonlySet<number>): Effect.Effect<ReadonlyArray<string>> =>
  Effect.sync(() => {
    let names: ReadonlyArray<string>
    try {
      names = fs.readdirSync(parent)
    } catch {
      return []
    }
    return names.flatMap((name) => {
      const pid = /^agent-harness-(\d+)-/.exec(name)?.[1]
      return pid !== undefined && pids.has(Number(pid)) ? [nodePath.join(parent, name)] : []
    })
  })

/** Sends SIGKILL to a process; one already gone is fine. */
const sigkill = (pid: number): void => {
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // Gone already.
  }
}

/** The pids in a cgroup now. */
const members = (folder: string): ReadonlyArray<number> => {
  try {
    return fs
      .readFileSync(nodePath.join(folder, "cgroup.procs"), "utf8")
      .split("\n")
      .map(Number)
      .filter((pid) => Number.isSafeInteger(pid) && pid > 0)
  } catch {
    return []
  }
}

/**
 * Kills the processes (waiting up to 5 s for them to be gone, so nothing they were writing lands
 * after) and removes the cgroups left behind (each cgroup's processes killed first), waiting up
 * to 5 s for each cgroup to empty; the cgroups that could not be removed.
 *
 * @since 0.1.0
 */
export const clear = (
  processes: ReadonlyArray<Running>,
  cgroups: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function* () {
    for (const running of processes) sigkill(running.pid)
    for (let attempt = 0; attempt < 100 && processes.some((p) => present(p.pid)); attempt++) yield* Effect.sleep(50)
    const stuck: Array<string> = []
    for (const folder of cgroups) {
      let removed = false
      for (let attempt = 0; attempt < 100 && !removed; attempt++) {
        for (const pid of members(folder)) sigkill(pid)
        removed = yield* Effect.sync(() => {
          try {
            fs.rmdirSync(folder)
            return true
          } catch (error) {
            return (error as { readonly code?: unknown }).code === "ENOENT"
          }
        })
        if (!removed) yield* Effect.sleep(50)
      }
      if (!removed) stuck.push(folder)
    }
    return stuck
  })
