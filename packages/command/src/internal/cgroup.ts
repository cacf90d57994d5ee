/**
 * The sandbox's process limit through a cgroup: finding a cgroup with the `pids` controller we
 * may create children in (cgroup v2 delegated to us, else v1's `pids` hierarchy), making one
 * child per command with `pids.max`, and afterwards killing what is left in it and removing it.
 *
 * Root is exempt from RLIMIT_NPROC (the kernel never counts real uid 0 against it), so as root
 * a cgroup is the only process limit that holds.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs"
import { join, posix } from "node:path"
import process from "node:process"
import type { ProcessLimit } from "../Sandbox.ts"

interface Mount {
  readonly root: string
  readonly point: string
  readonly type: string
  readonly options: ReadonlyArray<string>
}

/** The cgroup mounts of `/proc/self/mountinfo`. */
const mounts = (): ReadonlyArray<Mount> => {
  let text: string
  try {
    text = readFileSync("/proc/self/mountinfo", "utf8")
  } catch {
    return []
  }
  return text.split("\n").flatMap((line): Array<Mount> => {
    const [left, right] = line.split(" - ")
    if (left === undefined || right === undefined) return []
    const fields = left.split(" ")
    const [type, , options] = right.split(" ")
    const root = fields[3]
    const point = fields[4]
    if (root === undefined || point === undefined || type === undefined || options === undefined) return []
    if (type !== "cgroup" && type !== "cgroup2") return []
    return [{ root: unescaped(root), point: unescaped(point), type, options: options.split(",") }]
  })
}

/** mountinfo escapes spaces, tabs, newlines and backslashes as octal. */
const unescaped = (text: string): string =>
  text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)))

/** Our own cgroup in a hierarchy: v2's (`0::/path`) or the v1 one with `controller`. */
const ownPath = (controller: "v2" | "pids"): string | undefined => {
  let text: string
  try {
    text = readFileSync("/proc/self/cgroup", "utf8")
  } catch {
    return undefined
  }
  for (const line of text.split("\n")) {
    const [id, controllers, ...rest] = line.split(":")
    const path = rest.join(":")
    if (id === undefined || controllers === undefined || path === "") continue
    if (controller === "v2" ? id === "0" && controllers === "" : controllers.split(",").includes("pids")) return path
  }
  return undefined
}

/** The folder of our cgroup under a mount, when the mount shows it. */
const folderOf = (mount: Mount, path: string): string | undefined => {
  const inside = posix.relative(mount.root, path)
  if (inside.startsWith("..")) return undefined
  return join(mount.point, inside)
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

let made = 0

/** A fresh child cgroup's folder under `parent`. */
const childName = (parent: string): string =>
  join(parent, `agent-harness-${process.pid}-${++made}-${Math.random().toString(36).slice(2, 8)}`)

/** Makes a child of `parent` whose `pids.max` is `max`; its folder, or what went wrong. */
export const create = (parent: string, max: number): { readonly folder: string } | { readonly problem: string } => {
  const folder = childName(parent)
  try {
    mkdirSync(folder)
  } catch (error) {
    return { problem: `could not create the cgroup ${folder}: ${messageOf(error)}` }
  }
  try {
    writeFileSync(join(folder, "pids.max"), String(max))
    return { folder }
  } catch (error) {
    remove(folder)
    return { problem: `could not set pids.max in ${folder}: ${messageOf(error)}` }
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Whether children made under `parent` get a working `pids.max`. */
const works = (parent: string): boolean => {
  const child = create(parent, 8)
  if ("problem" in child) return false
  remove(child.folder)
  return true
}

/** A v2 cgroup of ours where the pids controller is (or can be) given to children. */
const v2Parent = (): string | undefined => {
  const mount = mounts().find((m) => m.type === "cgroup2")
  const path = ownPath("v2")
  if (mount === undefined || path === undefined) return undefined
  const folder = folderOf(mount, path)
  if (folder === undefined) return undefined
  if (!(read(join(folder, "cgroup.controllers")) ?? "").split(/\s+/).includes("pids")) return undefined
  if (!(read(join(folder, "cgroup.subtree_control")) ?? "").split(/\s+/).includes("pids")) {
    try {
      writeFileSync(join(folder, "cgroup.subtree_control"), "+pids")
    } catch {
      return undefined
    }
  }
  return works(folder) ? folder : undefined
}

/** v1's `pids` hierarchy at our own cgroup. */
const v1Parent = (): string | undefined => {
  const mount = mounts().find((m) => m.type === "cgroup" && m.options.includes("pids"))
  const path = ownPath("pids")
  if (mount === undefined || path === undefined) return undefined
  const folder = folderOf(mount, path)
  if (folder === undefined || !existsSync(folder)) return undefined
  return works(folder) ? folder : undefined
}

/** Whether a process is alive (or at least not known to be gone). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { readonly code?: unknown }).code !== "ESRCH"
  }
}

/**
 * Removes the empty cgroups a harness that died (killed, crashed) left under `parent`: ours are
 * named after the pid that made them, and one whose process is gone is nobody's.
 */
const sweepStale = (parent: string): void => {
  let names: ReadonlyArray<string>
  try {
    names = readdirSync(parent)
  } catch {
    return
  }
  for (const name of names) {
    const pid = /^agent-harness-(\d+)-/.exec(name)?.[1]
    if (pid !== undefined && !alive(Number(pid))) {
      // What a dead harness's sandbox left running dies first: an empty cgroup can be removed.
      const folder = join(parent, name)
      for (let tries = 0; tries < 20 && members(folder).length > 0; tries++) killAll(folder)
      remove(folder)
    }
  }
}

/** A cgroup we can bound the sandbox's processes with, v2 first; `undefined` when there is none. */
export const find = (): ProcessLimit | undefined => {
  const v2 = v2Parent()
  if (v2 !== undefined) {
    sweepStale(v2)
    return { _tag: "Cgroup", version: 2, parent: v2 }
  }
  const v1 = v1Parent()
  if (v1 !== undefined) {
    sweepStale(v1)
    return { _tag: "Cgroup", version: 1, parent: v1 }
  }
  return undefined
}

/** The host pids in the cgroup now. */
export const members = (folder: string): ReadonlyArray<number> =>
  (read(join(folder, "cgroup.procs")) ?? "")
    .split("\n")
    .filter((line) => line !== "")
    .map(Number)
    .filter((pid) => Number.isSafeInteger(pid) && pid > 0)

/** Sends SIGKILL to every process of the cgroup (v2: all at once, with `cgroup.kill`). */
export const killAll = (folder: string): void => {
  try {
    writeFileSync(join(folder, "cgroup.kill"), "1")
    return
  } catch {
    // v1, or a kernel before 5.14: one by one.
  }
  for (const pid of members(folder)) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // Gone already.
    }
  }
}

/** Removes an empty cgroup; whether it is gone. */
export const remove = (folder: string): boolean => {
  try {
    rmdirSync(folder)
    return true
  } catch (error) {
    return (error as { readonly code?: unknown }).code === "ENOENT"
  }
}
