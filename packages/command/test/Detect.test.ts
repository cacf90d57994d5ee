/**
 * `detect`: a sandbox found to work, or what is missing named with its fix; a policy checked
 * option by option. Never a fallback to running unsandboxed.
 */
import { spawnSync } from "node:child_process"
import { chownSync, existsSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { Sandbox } from "../src/index.ts"
import { detect, eventually, leftCgroups, makeRoot, marker, processesWith, remove, timeout } from "./fixtures.ts"

const failure = async (options: unknown): Promise<Sandbox.SandboxUnavailable | Sandbox.InvalidPolicy> => {
  const exit = await Effect.runPromiseExit(Sandbox.detect(options as Sandbox.Options))
  if (Exit.isSuccess(exit)) throw new Error("expected detect to fail")
  const found = Cause.findError(exit.cause)
  if (found._tag === "Failure") throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.success
}

const uid0 = process.getuid?.() === 0

describe("detect", () => {
  it(
    "finds the sandbox here: bwrap, prlimit, a process limit, a probe run that succeeds",
    async () => {
      const root = makeRoot()
      try {
        const sandbox = await detect({ root })
        expect(Sandbox.isSandbox(sandbox)).toBe(true)
        expect(sandbox.policy).toEqual({ ...Sandbox.defaults, root })
        expect(sandbox.bwrap).toMatch(/\/bwrap$/)
        expect(sandbox.prlimit).toMatch(/\/prlimit$/)
        expect(sandbox.host.uid0).toBe(uid0)
        expect(sandbox.processLimit._tag).toBe(uid0 ? "Cgroup" : sandbox.processLimit._tag)
        expect(sandbox.probeMs).toBeGreaterThan(0)
        expect(leftCgroups(sandbox)).toEqual([])
      } finally {
        remove(root)
      }
    },
    timeout
  )

  it(
    "names a missing bwrap and how to install it",
    async () => {
      const root = makeRoot()
      try {
        const error = await failure({ root, bwrap: "/nonexistent/bin/bwrap" })
        expect(error).toBeInstanceOf(Sandbox.SandboxUnavailable)
        expect(error.message).toBe(
          "the command sandbox is unavailable: bwrap was not found at /nonexistent/bin/bwrap (or is not an executable file): install bubblewrap (apt-get install bubblewrap), or give the path of bwrap"
        )
      } finally {
        remove(root)
      }
    },
    timeout
  )

  it(
    "refuses a bwrap whose probe run fails, saying how it failed",
    async () => {
      const root = makeRoot()
      try {
        const fake = join(root, "fake-bwrap")
        writeFileSync(fake, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n", {
          mode: 0o755
        })
        const error = await failure({ root, bwrap: fake })
        expect(error).toBeInstanceOf(Sandbox.SandboxUnavailable)
        expect(error.message).toContain(
          "bwrap could not start a sandbox here (exit 1: bwrap: No permissions to create new namespace): allow unprivileged user namespaces"
        )
      } finally {
        remove(root)
      }
    },
    timeout
  )

  it(
    "names the option that cannot be used, and the variable",
    async () => {
      const root = makeRoot()
      try {
        const message = async (options: unknown): Promise<string> => {
          const error = await failure(options)
          expect(error).toBeInstanceOf(Sandbox.InvalidPolicy)
          return error.message
        }
        expect(await message({ root, env: { "MY-KEY": "x" } })).toBe(
          `Sandbox: option 'env' variable "MY-KEY" is not a valid name (letters, digits and _, not first a digit)`
        )
        expect(await message({ root, env: { "1ST": "x" } })).toContain('variable "1ST" is not a valid name')
        expect(await message({ root, env: { KEY: "a\0b" } })).toBe(
          "Sandbox: option 'env' variable 'KEY' must not contain a NUL character"
        )
        expect(await message({ root, env: { KEY: 1 } })).toBe(
          "Sandbox: option 'env' variable 'KEY' must be a string, got 1"
        )
        expect(await message({ root, env: ["PATH=/bin"] })).toContain("option 'env' must be an object")
        expect(await message({ root, timeoutMs: 0 })).toBe(
          "Sandbox: option 'timeoutMs' must be a whole number from 1 to 2147483647, got 0"
        )
        expect(await message({ root, maxProcesses: 2 })).toContain(
          "option 'maxProcesses' must be a whole number from 4"
        )
        expect(await message({ root, maxOutputBytes: 1.5 })).toContain("option 'maxOutputBytes'")
        expect(await message({ root, maxFileBytes: "1G" })).toContain("option 'maxFileBytes'")
        expect(await message({ root, maxMemoryBytes: 1024 })).toBe(
          "Sandbox: option 'maxMemoryBytes' must be a whole number from 16777216 to 9007199254740991, got 1024"
        )
        expect(await message({ root, network: "yes" })).toBe(
          `Sandbox: option 'network' must be true or false, got "yes"`
        )
        expect(await message({ root: "relative/path" })).toBe(
          `Sandbox: option 'root' must be an absolute path, got "relative/path"`
        )
        expect(await message({ root: "/" })).toBe(
          "Sandbox: option 'root' must not be / (the whole system would be writable)"
        )
        expect(await message({ root: "/etc/.." })).toContain("must not be /")
        expect(await message({ root: "/usr" })).toContain("must not be /usr or a folder holding it")
        expect(await message({ root: "/tmp" })).toContain("must not be /tmp")
        expect(await message({ root: "/proc/self" })).toContain("must not be inside /proc")
        expect(await message({ root: join(root, "missing") })).toBe(
          `Sandbox: option 'root' does not exist: ${join(root, "missing")}`
        )
        writeFileSync(join(root, "a-file"), "")
        expect(await message({ root: join(root, "a-file") })).toContain("must be a folder")
        symlinkSync("/usr", join(root, "to-usr"))
        expect(await message({ root: join(root, "to-usr") })).toContain("must not be /usr")
        expect(await message({ root, bwrap: "bwrap" })).toContain("option 'bwrap' must be the absolute path")
        const hostile = {
          get root(): string {
            throw new Error("no root for you")
          }
        }
        expect(await message(hostile)).toBe("Sandbox: option 'root' could not be read: no root for you")
      } finally {
        remove(root)
      }
    },
    timeout
  )

  it(
    "a root given through a link is the folder itself",
    async () => {
      const root = makeRoot()
      const link = `${root}-link`
      try {
        symlinkSync(root, link)
        const sandbox = await detect({ root: link })
        expect(sandbox.policy.root).toBe(root)
      } finally {
        remove(link)
        remove(root)
      }
    },
    timeout
  )

  it(
    "without root: RLIMIT_NPROC in a user namespace bounds a fork bomb, and nothing is left",
    async () => {
      const root = makeRoot("ah-unprivileged-")
      const mark = marker()
      try {
        const script = new URL("./fixtures/unprivileged.ts", import.meta.url).pathname
        const command = uid0
          ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, script, root, mark]
          : [process.execPath, script, root, mark]
        if (uid0) chownSync(root, 65534, 65534)
        const child = spawnSync(command[0] ?? "", command.slice(1), {
          encoding: "utf8",
          env: { PATH: "/usr/bin:/bin", HOME: "/tmp" },
          timeout: 50_000
        })
        expect(child.stderr).toBe("")
        const result = JSON.parse(child.stdout) as {
          readonly processLimit: Sandbox.ProcessLimit
          readonly id: Sandbox.Completed
          readonly bomb: Sandbox.Completed
        }
        expect(result.id.exitCode).toBe(0)
        expect(result.id.stdout.text).not.toMatch(/^0\n/)
        expect(result.id.stdout.text).toContain("CapEff:\t0000000000000000")
        expect(existsSync(join(root, "file.txt"))).toBe(true)
        // The limit bites: the bomb's forks are refused. Then either the bomb runs on until the
        // timeout kills it, or the first shell's own fork is refused and it exits 2 ("Cannot
        // fork"): which one is a race on a loaded machine; both are the limit holding.
        const bomb = JSON.stringify({ ...result.bomb, stderr: result.bomb.stderr.text.slice(0, 300) })
        expect(result.bomb.stderr.text, bomb).toContain("Cannot fork")
        expect(result.bomb.timedOut || (result.bomb.exitCode !== 0 && result.bomb.exitCode !== null), bomb).toBe(true)
        const gone = await eventually(() => processesWith(mark).length === 0)
        expect(gone, `left: ${processesWith(mark).join(" ")}`).toBe(true)
        if (uid0) expect(result.processLimit).toEqual({ _tag: "Rlimit" })
      } finally {
        remove(root)
      }
    },
    timeout
  )
})
