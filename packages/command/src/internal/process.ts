/**
 * One sandboxed process, supervised in plain Node: spawned detached (its own process group),
 * stdin `/dev/null`, stdout and stderr read to the end within their caps, SIGKILL for the whole
 * thing at the timeout, and `stop` that leaves nothing running: the launcher's process group
 * killed (bwrap's init and so the whole pid namespace die with it: `--die-with-parent`), every
 * process left in the cgroup killed, and the cgroup removed once empty.
 */
import { type ChildProcess, spawn } from "node:child_process"
import process from "node:process"
import type { Readable } from "node:stream"
import type { Launch } from "./arguments.ts"
import * as Cgroup from "./cgroup.ts"
import type { Output } from "../Sandbox.ts"
import { Capture } from "./capture.ts"

/** What went wrong around the command (never the command's own failure). */
export interface Trouble {
  readonly stage: "spawn" | "cgroup" | "stdout" | "stderr"
  readonly problem: string
}

/** How a supervised process ended. */
export interface Finished {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly timedOut: boolean
  readonly durationMs: number
  readonly stdout: Output
  readonly stderr: Output
  readonly trouble: Trouble | undefined
}

/** A process running. */
export interface Running {
  /** Settles once the process has exited and its streams are read (never rejects). */
  readonly finished: Promise<Finished>
  /** Kills everything and removes the cgroup; settles when nothing is left (never rejects). */
  readonly stop: () => Promise<void>
}

/** How to supervise it. */
export interface Supervision {
  readonly timeoutMs: number
  readonly maxOutputBytes: number
  /** The cgroup the launcher joins, when there is one. */
  readonly cgroup: string | undefined
}

/** How long the streams may stay open after the process exited before they are closed by us. */
const drainGraceMs = 2_000
/** How long `stop` waits for the cgroup to empty. */
const sweepMs = 10_000

/** Sends SIGKILL to a process (a negative pid: a process group); one already gone is fine. */
const signal = (pid: number): void => {
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // Gone already.
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Waits for `promise` at most `ms`, its timer cleared as soon as the promise settles (a timer
 * left running would keep the process alive that long after the command ended).
 */
const atMost = (promise: Promise<unknown>, ms: number): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    const settle = () => {
      clearTimeout(timer)
      resolve()
    }
    promise.then(settle, settle)
  })

const messageOf = (error: unknown): string => {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return "an unreadable error"
  }
}

/** Starts a process; what it is doing, or why it could not start. */
export const start = (launch: Launch, supervision: Supervision): Running | { readonly problem: string } => {
  const began = performance.now()
  const stdout = new Capture(supervision.maxOutputBytes)
  const stderr = new Capture(supervision.maxOutputBytes)
  let child: ChildProcess
  try {
    child = spawn(launch.file, launch.args, {
      detached: true,
      stdio: ["ignore", "pipe", "pipe", ...(supervision.cgroup === undefined ? [] : ["pipe" as const])],
      env: {},
      cwd: "/",
      windowsHide: true
    })
  } catch (error) {
    return { problem: `could not spawn ${launch.file}: ${messageOf(error)}` }
  }

  let exited = false
  let timedOut = false
  let joined = supervision.cgroup === undefined
  let trouble: Trouble | undefined
  let exit: { readonly code: number | null; readonly signal: string | null } = { code: null, signal: null }
  let settle: (finished: Finished) => void = () => {}
  let settled = false
  const finished = new Promise<Finished>((resolve) => {
    settle = resolve
  })

  /**
   * Kills everything: bwrap's process group (its sandbox's init dies with it,
   * `--die-with-parent`, and the whole pid namespace with that init), and every process of the
   * cgroup.
   */
  const kill = (): void => {
    if (!exited && child.pid !== undefined) signal(-child.pid)
    if (supervision.cgroup !== undefined) Cgroup.killAll(supervision.cgroup)
  }

  const timer = setTimeout(() => {
    timedOut = true
    kill()
  }, supervision.timeoutMs)
  let grace: ReturnType<typeof setTimeout> | undefined

  const done = (): void => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    if (grace !== undefined) clearTimeout(grace)
    if (!joined && trouble === undefined && !timedOut) {
      trouble = { stage: "cgroup", problem: `the sandbox could not join its cgroup ${supervision.cgroup ?? ""}` }
    }
    settle({
      // At the timeout we killed it, whatever bwrap says of its child's end (137).
      exitCode: timedOut ? null : exit.code,
      signal: timedOut ? "SIGKILL" : exit.signal,
      timedOut,
      durationMs: Math.round(performance.now() - began),
      stdout: stdout.result(),
      stderr: stderr.result(),
      trouble
    })
  }

  const read = (stream: Readable | null | undefined, capture: Capture, name: "stdout" | "stderr"): void => {
    if (stream === null || stream === undefined) return
    stream.on("data", (chunk: Uint8Array) => capture.add(chunk))
    stream.on("error", (error) => {
      trouble ??= { stage: name, problem: `could not read the command's ${name}: ${messageOf(error)}` }
      kill()
    })
  }
  read(child.stdout, stdout, "stdout")
  read(child.stderr, stderr, "stderr")
  const report = child.stdio[3]
  if (report !== undefined && report !== null && "on" in report) {
    ;(report as Readable).on("data", (chunk: Uint8Array) => {
      if (new TextDecoder().decode(chunk).includes("joined")) joined = true
    })
    ;(report as Readable).on("error", () => {})
  }

  child.on("error", (error) => {
    trouble ??= { stage: "spawn", problem: `could not spawn ${launch.file}: ${messageOf(error)}` }
    if (child.pid === undefined) {
      exited = true
      done()
    } else kill()
  })
  child.on("exit", (code, signal) => {
    exited = true
    exit = { code, signal }
    // Nothing in the sandbox outlives bwrap, so its pipes close at once; if they do not, we close them.
    grace = setTimeout(() => {
      child.stdout?.destroy()
      child.stderr?.destroy()
      done()
    }, drainGraceMs)
  })
  child.on("close", () => done())

  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      kill()
      await atMost(finished, drainGraceMs * 2)
      const folder = supervision.cgroup
      if (folder === undefined) return
      const deadline = performance.now() + sweepMs
      while (performance.now() < deadline) {
        Cgroup.killAll(folder)
        if (Cgroup.members(folder).length === 0 && Cgroup.remove(folder)) return
        await sleep(10)
      }
    })().catch(() => {})
    return stopping
  }

  return { finished, stop }
}
