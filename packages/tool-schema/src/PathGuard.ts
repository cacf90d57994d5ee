/**
 * Which paths the running call may read or reveal. A tool that reads or shows many paths in one
 * call (a listing, a search over a folder) asks the guard of its call for each path and leaves
 * out the ones it refuses, saying how many it left out, so a rule about a path holds whichever
 * tool the model uses. The permission gate provides one per call it lets run; outside a gate
 * every path is allowed.
 *
 * @since 0.1.0
 */
import { Context, Effect } from "effect"

/**
 * A path guard: `allows(path)` says whether the call may read or reveal that path (a path of
 * the tool's own root, as the model would write it). It must not throw; a guard that throws
 * refuses that path.
 *
 * @since 0.1.0
 */
export interface PathGuard {
  /** Whether the running call may read or reveal `path`. */
  readonly allows: (path: string) => boolean
}

/**
 * The guard that allows every path: the default outside a gate.
 *
 * @since 0.1.0
 */
export const everything: PathGuard = { allows: () => true }

/**
 * The guard of the current call (`everything` unless one is provided).
 *
 * @since 0.1.0
 */
export const PathGuard: Context.Reference<PathGuard> = Context.Reference<PathGuard>(
  "@agent-harness/tool-schema/PathGuard",
  { defaultValue: () => everything }
)

/**
 * Whether a guard allows a path; a guard that throws, or answers anything but `true`, refuses it.
 *
 * @since 0.1.0
 */
export const allows = (guard: PathGuard, path: string): boolean => {
  try {
    return guard.allows(path) === true
  } catch {
    return false
  }
}

/**
 * The guard of the current call.
 *
 * @since 0.1.0
 */
export const current: Effect.Effect<PathGuard> = Effect.service(PathGuard)
