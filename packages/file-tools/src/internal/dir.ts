/**
 * Folders held open by descriptor, so a path is resolved one component at a time and never
 * through a link: each folder is opened with `O_DIRECTORY | O_NOFOLLOW` inside the folder
 * opened before it. On Linux a name inside an open folder is reached through
 * `/proc/self/fd/<fd>/<name>` (what `openat` does: the folder is the one opened, even if its
 * name was swapped for a link since). Elsewhere, or when that path does not lead to the open
 * folder (a runtime whose descriptors are not the system's), the absolute path is used and
 * every folder opened is checked against the one named (`dev`/`ino`), which narrows the race
 * but cannot close it.
 *
 * @internal
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { Reason } from "../FilePath.ts"
import { codeOf, O_NOFOLLOW, O_NONBLOCK, refusalOfCode } from "./disk.ts"

export { codeOf, O_NOFOLLOW, O_NONBLOCK, refusalOf, refusalOfCode, writeAll } from "./disk.ts"

/** An open folder: its descriptor, its absolute path, its root-relative path (`""` for the root). */
export interface Dir {
  readonly fd: number
  readonly abs: string
  readonly rel: string
  readonly dev: number
  readonly ino: number
}

const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0
/** Whether `/proc/self/fd/<fd>` leads to the folder open as `fd` (Linux, Node's own descriptors). */
export const probeProc = (fd: number): boolean => {
  if (process.platform !== "linux") return false
  try {
    const viaProc = fs.statSync(`/proc/self/fd/${fd}`)
    const opened = fs.fstatSync(fd)
    return viaProc.isDirectory() && viaProc.dev === opened.dev && viaProc.ino === opened.ino
  } catch {
    return false
  }
}

/** The names of the folders an operation opened, closed together when it ends. */
export class Session {
  private readonly fds: Array<number> = []
  /** Whether names are reached through `/proc/self/fd` (see the module). */
  readonly viaProc: boolean
  constructor(viaProc: boolean) {
    this.viaProc = viaProc
  }

  /** The path of `name` inside the open folder `dir`. */
  at(dir: Dir, name: string): string {
    return this.viaProc ? `/proc/self/fd/${dir.fd}/${name}` : nodePath.join(dir.abs, name)
  }

  /** The path of the open folder itself (for `readdir`). */
  self(dir: Dir): string {
    return this.viaProc ? `/proc/self/fd/${dir.fd}` : dir.abs
  }

  /** Remembers a descriptor to close at the end. */
  track(fd: number): number {
    this.fds.push(fd)
    return fd
  }

  /** Closes a descriptor before the end (a walk leaves each folder when done with it). */
  release(fd: number): void {
    const index = this.fds.lastIndexOf(fd)
    if (index === -1) return
    this.fds.splice(index, 1)
    try {
      fs.closeSync(fd)
    } catch {
      // already closed
    }
  }

  /** Opens the root folder and checks it is the directory `identity` names. */
  openRoot(abs: string, identity: fs.Stats): Dir {
    const fd = this.track(fs.openSync(abs, fs.constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW))
    const stats = fs.fstatSync(fd)
    if (!stats.isDirectory() || stats.dev !== identity.dev || stats.ino !== identity.ino) {
      throw new Error("the folder was removed, moved or replaced since the environment was made")
    }
    return { fd, abs, rel: "", dev: stats.dev, ino: stats.ino }
  }

  /**
   * Opens the folder `name` inside `parent`, never through a link: the folder, `"missing"` when
   * nothing is there, or the refusal of what is there (`link`, `not-folder`, `special`, ...).
   */
  openChild(parent: Dir, name: string): Dir | "missing" | Reason {
    const path = this.at(parent, name)
    const rel = parent.rel === "" ? name : `${parent.rel}/${name}`
    let fd: number
    try {
      fd = fs.openSync(path, fs.constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK)
    } catch (error) {
      const code = codeOf(error)
      if (code === "ENOENT") return "missing"
      if (code === "ENOTDIR" || code === "ELOOP" || code === "EMLINK") {
        let stats: fs.Stats
        try {
          stats = fs.lstatSync(path)
        } catch (again) {
          if (codeOf(again) === "ENOENT") return "missing"
          throw again
        }
        if (stats.isSymbolicLink()) return "link"
        if (stats.isFile()) return "not-folder"
        return stats.isDirectory() ? "link" : "special"
      }
      const reason = refusalOfCode(code)
      if (reason !== undefined) return reason
      throw error
    }
    this.track(fd)
    const stats = fs.fstatSync(fd)
    if (!stats.isDirectory()) return "special"
    if (!this.viaProc) {
      // Without openat: the folder opened must be the one the parent holds under that name now,
      // and the parent must still be where it was.
      const named = fs.lstatSync(nodePath.join(parent.abs, name))
      const parentNow = fs.lstatSync(parent.abs)
      if (named.dev !== stats.dev || named.ino !== stats.ino) return "link"
      if (!parentNow.isDirectory() || parentNow.dev !== parent.dev || parentNow.ino !== parent.ino) return "link"
    }
    return { fd, abs: nodePath.join(parent.abs, name), rel, dev: stats.dev, ino: stats.ino }
  }

  /** Closes every descriptor it opened (errors closing are ignored: nothing was written through them). */
  close(): void {
    for (const fd of this.fds.splice(0)) {
      try {
        fs.closeSync(fd)
      } catch {
        // already closed
      }
    }
  }
}

/** `fsync`s an open folder (Windows cannot, and needs not: its renames are durable). */
export const fsyncDir = (dir: Dir): void => {
  try {
    fs.fsyncSync(dir.fd)
  } catch (error) {
    if (process.platform !== "win32") throw error
  }
}
