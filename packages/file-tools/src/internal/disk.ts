/**
 * What the two on-disk stores (`FlatFiles`, `TreeFiles`) share: error codes and texts, what a
 * name on disk is refused as, writing a whole buffer, and whether a process still runs.
 *
 * @internal
 */
import * as fs from "node:fs"
import process from "node:process"
import type { Reason } from "../FilePath.ts"

/** Opens without following a final link (0 where the platform has no such flag). */
export const O_NOFOLLOW: number = fs.constants.O_NOFOLLOW ?? 0

/** Opens without blocking (a FIFO with no writer). */
export const O_NONBLOCK: number = fs.constants.O_NONBLOCK ?? 0

/** The `code` of a Node system error, if any. */
export const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

/** An error as text, whatever it is (a throwing getter or `toString` included). */
export const textOf = (error: unknown): string => {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return "an error that cannot be shown"
  }
}

/** What is under a name, as a refusal; `undefined` for a regular file with one link. */
export const refusalOf = (stats: fs.Stats): Reason | undefined =>
  stats.isSymbolicLink()
    ? "link"
    : stats.isDirectory()
      ? "directory"
      : !stats.isFile()
        ? "special"
        : stats.nlink > 1
          ? "hard-link"
          : undefined

/** The refusal an `open` error stands for, if any. */
export const refusalOfCode = (code: string | undefined): Reason | undefined => {
  switch (code) {
    case "ELOOP": // O_NOFOLLOW on a link (Linux, macOS)
    case "EMLINK": // O_NOFOLLOW on a link (FreeBSD)
      return "link"
    case "EISDIR":
      return "directory"
    case "ENXIO": // a FIFO without a reader, opened for writing without blocking
      return "special"
    case "ENAMETOOLONG":
      return "too-long"
    default:
      return undefined
  }
}

/** Writes all of `data` at the descriptor's position. */
export const writeAll = (fd: number, data: Uint8Array): void => {
  let offset = 0
  while (offset < data.length) offset += fs.writeSync(fd, data, offset, data.length - offset)
}

/** Whether a process runs (one we may not signal runs too). */
export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return codeOf(error) === "EPERM"
  }
}

/**
 * Throws unless `root` is still the directory `identity` was read from (not removed, moved or
 * swapped for another).
 */
export const checkSameFolder = (root: string, identity: fs.Stats): void => {
  let stats: fs.Stats | undefined
  try {
    stats = fs.lstatSync(root)
  } catch (error) {
    if (codeOf(error) !== "ENOENT") throw error
  }
  if (stats === undefined || !stats.isDirectory() || stats.dev !== identity.dev || stats.ino !== identity.ino) {
    throw new Error("the folder was removed, moved or replaced since the environment was made")
  }
}

/** A file operation's failure as text: `operation path: problem`, or `operation: problem` for the whole folder. */
export const operationMessage = (failure: {
  readonly operation: string
  readonly path?: string | undefined
  readonly problem: string
}): string =>
  failure.path === undefined
    ? `${failure.operation}: ${failure.problem}`
    : `${failure.operation} ${failure.path}: ${failure.problem}`
