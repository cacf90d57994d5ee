import type { PlanDiff } from "../src/index.ts"

/** A step as the planner shapes it: more fields than the diff needs. */
export interface Step extends PlanDiff.DiffableStep {
  readonly expected_outcome: string
  readonly result: unknown
  readonly error: string | null
}

export const step = (id: number, tool_name: string, args: unknown): Step => ({
  id,
  tool_name,
  args,
  expected_outcome: `step ${id} succeeds`,
  result: null,
  error: null
})

/** The old plan of the examples: steps 1-4. */
export const before: ReadonlyArray<Step> = [
  step(1, "list", { folder: "src" }),
  step(2, "read", { path: "src/a.ts" }),
  step(3, "read", { path: "a" }),
  step(4, "read", { path: "a" })
]

/** The new plan of the examples: 3 removed, 4 revised, 5 and 6 added. */
export const after: ReadonlyArray<Step> = [
  step(1, "list", { folder: "src" }),
  step(2, "read", { path: "src/a.ts" }),
  step(4, "read", { path: "b" }),
  step(6, "write", { path: "out.txt", content: "x" }),
  step(5, "append", { content: "y", path: "log.txt" })
]
