/**
 * What the sandbox needs to know about the host, read once by `detect`: whether we run as root,
 * how the system folders are laid out (merged `/usr` or not), which secrets under `/etc` exist to
 * be masked, and where the programs we run (bwrap, prlimit) are.
 */
import { accessSync, constants, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs"
import { join } from "node:path"
import process from "node:process"
import type { Host, Masked, SystemPath } from "../Sandbox.ts"

/** Bound read-only when they exist. */
const folders = ["/usr", "/etc", "/opt"]
/** Symlinks into `/usr` on a merged-`/usr` system, folders on an old one. */
const links = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]
/** Secrets uid 0 could read under `/etc`. */
const secrets = [
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/sudoers",
  "/etc/sudoers.d",
  "/etc/ssl/private"
]

const kindOf = (path: string): "file" | "directory" | "symlink" | undefined => {
  try {
    const stat = lstatSync(path)
    if (stat.isSymbolicLink()) return "symlink"
    return stat.isDirectory() ? "directory" : "file"
  } catch {
    return undefined
  }
}

const systemPaths = (): ReadonlyArray<SystemPath> => {
  const out: Array<SystemPath> = []
  for (const path of folders) {
    try {
      if (statSync(path).isDirectory()) out.push({ _tag: "Bind", path })
    } catch {
      // Not on this host.
    }
  }
  for (const path of links) {
    const kind = kindOf(path)
    if (kind === "symlink") out.push({ _tag: "Symlink", path, target: readlinkSync(path) })
    else if (kind === "directory") out.push({ _tag: "Bind", path })
  }
  return out
}

const sshHostKeys = (): ReadonlyArray<string> => {
  try {
    return readdirSync("/etc/ssh")
      .filter((name) => /^ssh_host_.*_key$/.test(name))
      .sort()
      .map((name) => join("/etc/ssh", name))
  } catch {
    return []
  }
}

const maskedPaths = (): ReadonlyArray<Masked> =>
  [...secrets, ...sshHostKeys()].flatMap((path): Array<Masked> => {
    const kind = kindOf(path)
    if (kind === "directory") return [{ path, kind }]
    return kind === "file" ? [{ path, kind }] : []
  })

/** The host we run on. */
export const inspect = (): Host => ({
  uid0: typeof process.getuid === "function" && process.getuid() === 0,
  system: systemPaths(),
  masked: maskedPaths()
})

const executable = (path: string): boolean => {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The folders searched for a program when the harness has no `PATH`. */
const fallbackPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/** A program found on `PATH` (the harness's own), or `undefined`. */
export const which = (name: string, path: string | undefined): string | undefined => {
  for (const folder of (path === undefined || path === "" ? fallbackPath : path).split(":")) {
    if (folder === "" || !folder.startsWith("/")) continue
    const candidate = join(folder, name)
    if (executable(candidate)) return candidate
  }
  return undefined
}

/** Whether a path is an executable file. */
export const isExecutable = executable

/**
 * The tasks (processes and threads) whose real uid is `uid` now: what RLIMIT_NPROC counts, so
 * that a limit of this plus N leaves room for N more.
 */
export const tasksOf = (uid: number): number => {
  let count = 0
  let pids: ReadonlyArray<string>
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name))
  } catch {
    return 0
  }
  for (const pid of pids) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8")
      const real = /^Uid:\s+(\d+)/m.exec(status)?.[1]
      const threads = /^Threads:\s+(\d+)/m.exec(status)?.[1]
      if (real !== undefined && Number(real) === uid) count += threads === undefined ? 1 : Number(threads)
    } catch {
      // Gone meanwhile.
    }
  }
  return count
}
