/**
 * The lanes of a batch of calls (`Tool.lane`): one lane's calls one after another in call
 * order, the lanes side by side. Read without trusting the tools: a lane that cannot be read is
 * no lane.
 *
 * @internal
 */
import { type Tool, Toolset } from "@agent-harness/tool-schema"

/** A tool's lane, read without trusting the tool (a throwing getter means no lane). */
export const laneOf = (tool: Tool.Any | undefined): string | undefined => {
  try {
    const lane: unknown = tool?.lane
    return typeof lane === "string" ? lane : undefined
  } catch {
    return undefined
  }
}

/** Whether some tool of a toolset has a lane, asked once per toolset. */
const hasLanes = new WeakMap<object, boolean>()

/** Whether some tool of the toolset has a lane (a toolset of local tools pays nothing more). */
export const anyLane = (toolset: Toolset.Toolset<Tool.Any>): boolean => {
  let known = hasLanes.get(toolset)
  if (known === undefined) {
    known = toolset.tools.some((tool) => laneOf(tool) !== undefined)
    hasLanes.set(toolset, known)
  }
  return known
}

/**
 * The calls grouped by lane, each group in call order, as indices into `calls`; the calls
 * without a lane (or of an unknown tool) are the group of `undefined`.
 */
export const lanesOf = (
  toolset: Toolset.Toolset<Tool.Any>,
  calls: ReadonlyArray<Toolset.RawCall>
): Map<string | undefined, Array<number>> => {
  const lanes = new Map<string | undefined, Array<number>>()
  calls.forEach((call, index) => {
    const lane = laneOf(Toolset.get(toolset, call.name))
    const group = lanes.get(lane)
    if (group === undefined) lanes.set(lane, [index])
    else group.push(index)
  })
  return lanes
}

/**
 * How a batch runs: `"sync"` (one call after another through the synchronous core, no Effect
 * per call), `"lanes"` (several lanes side by side), `"oneLane"` (every call in one lane, one
 * after another) or `"each"` (an `execute` per call, `concurrency` at once).
 */
export type Path = "sync" | "lanes" | "oneLane" | "each"

/** What decides the path of a batch. */
export interface PathInput {
  /** The lanes of the batch, when lanes count (some tool has one). */
  readonly lanes: ReadonlyMap<string | undefined, ReadonlyArray<number>> | undefined
  /** Whether nothing stands between a call and its tool: no middleware, no timeout, no per-call limits. */
  readonly bare: boolean
  /** How many calls without a lane run at once. */
  readonly concurrency: number | "unbounded"
  /** How many calls the batch has. */
  readonly calls: number
}

/** The path of a batch. */
export const pathOf = (input: PathInput): Path => {
  const lanes = input.lanes
  if (lanes !== undefined && lanes.size > 1) return "lanes"
  if (lanes !== undefined && !lanes.has(undefined)) return "oneLane"
  if (input.bare && (input.concurrency === 1 || input.calls <= 1)) return "sync"
  return "each"
}
