/**
 * Test helpers: root folders on the disk, a detected sandbox, and a look at the host's
 * processes and cgroups to check that nothing is left behind.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, type Exit } from "effect"
import { Sandbox } from "../src/index.ts"

/** The timeout of a test that spawns processes, for a loaded 2-core machine. */
export const timeout = 60_000

/**
 * Where roots are made: `/var/tmp` (its parent is on the sandbox's read-only `/`, so `..` leads
 * nowhere writable), else the system's temporary folder.
 */
const base = existsSync("/var/tmp") ? "/var/tmp" : tmpdir()

/** A fresh empty root folder (links resolved). */
export const makeRoot = (prefix = "ah-command-"): string => realpathSync(mkdtempSync(join(base, prefix)))

/** A fresh folder in the host's `/tmp`, which the sandbox never sees. */
export const makeHostTemp = (prefix = "ah-host-"): string => realpathSync(mkdtempSync(join(tmpdir(), prefix)))

/** Removes a folder made by the tests. */
export const remove = (folder: string): void => rmSync(folder, { recursive: true, force: true })

/** A sandbox over `root`, or the test fails saying why there is none. */
export const detect = (options: Sandbox.Options): Promise<Sandbox.Sandbox> => Effect.runPromise(Sandbox.detect(options))

/** Runs a command; the test fails if it cannot be run. */
export const run = (
  sandbox: Sandbox.Sandbox,
  command: Sandbox.Command,
  options?: Sandbox.RunOptions
): Promise<Sandbox.Completed> => Effect.runPromise(Sandbox.run(sandbox, command, options))

/** Runs a command and gives its exit, for commands that must fail. */
export const runExit = (
  sandbox: Sandbox.Sandbox,
  command: unknown
): Promise<Exit.Exit<Sandbox.Completed, Sandbox.InvalidCommand | Sandbox.RunFailed | Sandbox.InvalidPolicy>> =>
  Effect.runPromiseExit(Sandbox.run(sandbox, command as Sandbox.Command))

/** The host processes (not this one) whose command line contains `marker`. */
export const processesWith = (marker: string): ReadonlyArray<number> =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").includes(marker)
      } catch {
        return false
      }
    })
    .map(Number)

/** Waits until `check` holds, polling; whether it did before `ms`. */
export const eventually = async (check: () => boolean, ms = 10_000): Promise<boolean> => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (check()) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return check()
}

/** The cgroups this test process made and did not remove. */
export const leftCgroups = (sandbox: Sandbox.Sandbox): ReadonlyArray<string> => {
  const limit = sandbox.processLimit
  if (limit._tag !== "Cgroup") return []
  return readdirSync(limit.parent).filter((name) => name.startsWith(`agent-harness-${process.pid}-`))
}

/** A marker no other process has: a number to put in a command line (`sleep 1000.4821`). */
export const marker = (): string => `1000.${Math.floor(Math.random() * 1_000_000)}`
