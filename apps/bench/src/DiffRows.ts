/**
 * Row 5: `PlanDiff.diff` at 1k, 10k and 100k steps against a hand-written Map-based reference,
 * and how it scales from 10k to 100k. The new plan drops every tenth step, revises the args of
 * every seventh, renames the tool of every thirteenth and adds a tenth more steps.
 */
import { PlanDiff } from "@agent-harness/diff"
import { check } from "./Fixtures.ts"
import * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

interface Step {
  readonly id: number
  readonly tool_name: string
  readonly args: Readonly<Record<string, unknown>>
  readonly expected_outcome: string
}

const step = (id: number, tool: string, args: Readonly<Record<string, unknown>>): Step => ({
  id,
  tool_name: tool,
  args,
  expected_outcome: `step ${id} done`
})

const plans = (size: number): { readonly before: ReadonlyArray<Step>; readonly after: ReadonlyArray<Step> } => {
  const before: Array<Step> = []
  const after: Array<Step> = []
  for (let id = 0; id < size; id++) {
    before.push(step(id, "write", { path: `out/${id}.txt`, content: `line ${id}`, options: { append: false } }))
    if (id % 10 === 0) continue
    const tool = id % 13 === 0 ? "append" : "write"
    const content = id % 7 === 0 ? `line ${id}, revised` : `line ${id}`
    after.push(step(id, tool, { path: `out/${id}.txt`, content, options: { append: false } }))
  }
  for (let id = size; id < size + size / 10; id++) after.push(step(id, "read", { path: `out/${id}.txt` }))
  return { before, after }
}

/** The reference: two Maps, a recursive structural equality, sorted id lists. */
const sameValue = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b)
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false
    return true
  }
  const x = a as Readonly<Record<string, unknown>>
  const y = b as Readonly<Record<string, unknown>>
  const keys = Object.keys(x)
  if (keys.length !== Object.keys(y).length) return false
  for (const key of keys) if (!Object.hasOwn(y, key) || !sameValue(x[key], y[key])) return false
  return true
}

const reference = (before: ReadonlyArray<Step>, after: ReadonlyArray<Step>) => {
  const old = new Map<number, Step>()
  for (const s of before) old.set(s.id, s)
  const next = new Map<number, Step>()
  for (const s of after) next.set(s.id, s)
  const removed: Array<number> = []
  const added: Array<number> = []
  const revised: Array<number> = []
  for (const [id, s] of old) {
    const other = next.get(id)
    if (other === undefined) removed.push(id)
    else if (s.tool_name !== other.tool_name || !sameValue(s.args, other.args)) revised.push(id)
  }
  for (const id of next.keys()) if (!old.has(id)) added.push(id)
  const up = (x: number, y: number) => x - y
  return { removed: removed.sort(up), added: added.sort(up), revised: revised.sort(up) }
}

const sizes = [1_000, 10_000, 100_000] as const

export const measure = async (settings: Measure.Settings): Promise<ReadonlyArray<Table.Row>> => {
  const cases: Array<Measure.Case> = []
  for (const size of sizes) {
    const { before, after } = plans(size)
    const ours = PlanDiff.diff(before, after)
    check(JSON.stringify(ours) === JSON.stringify(reference(before, after)), `both diffs agree at ${size} steps`)
    check(ours.removed.length === size / 10 && ours.added.length === size / 10, "the diff sees the changes")
    cases.push({ name: `ours.${size}`, fn: () => PlanDiff.diff(before, after) })
    cases.push({ name: `ref.${size}`, fn: () => reference(before, after) })
  }
  const results = await Measure.run(cases, settings)
  const rows: Array<Table.Row> = []
  for (const size of sizes) {
    const ours = Measure.get(results, `ours.${size}`)
    const ref = Measure.get(results, `ref.${size}`)
    rows.push({
      id: "5",
      label: `plan diff, ${size.toLocaleString("en-US")} steps: ${Table.duration(ours)}, the Map-based reference ${Table.duration(ref)}`,
      value: `×${Table.times(ours / ref)} ref.`,
      target: "≤ 3 × reference",
      met: ours / ref <= 3
    })
  }
  const scaling = Measure.get(results, "ours.100000") / Measure.get(results, "ours.10000")
  const referenceScaling = Measure.get(results, "ref.100000") / Measure.get(results, "ref.10000")
  rows.push({
    id: "5",
    label: `plan diff scaling, 10k → 100k steps (linear would be 10; the reference: ×${Table.times(referenceScaling)})`,
    value: `×${Table.times(scaling)}`,
    target: "≤ 12",
    met: scaling <= 12
  })
  return rows
}
