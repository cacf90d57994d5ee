import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import { PlanDiff, Render } from "../src/index.ts"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/** Small values, so that two random args are often equal. */
const { json } = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<Json>(null, true, 0, 1, "1", "a"),
    fc.array(tie("json"), { maxLength: 2 }),
    fc.dictionary(fc.constantFrom("a", "b", "c"), tie("json"), { maxKeys: 3 })
  )
}))

const stepArb = fc.record({
  id: fc.integer({ min: 0, max: 12 }),
  tool_name: fc.constantFrom("read", "write"),
  args: json
})
const plan = fc.array(stepArb, { maxLength: 12 })

/** The same value with every object's keys in reverse order. */
const reverseKeys = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(reverseKeys)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reverseKeys(v)])
    )
  }
  return value
}

/** JSON with sorted keys: the reference equality. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  )

/** A quadratic reference diff: last occurrence wins, ids sorted. */
const reference = (before: ReadonlyArray<PlanDiff.DiffableStep>, after: ReadonlyArray<PlanDiff.DiffableStep>) => {
  const last = (p: ReadonlyArray<PlanDiff.DiffableStep>, id: number) =>
    p.reduce<PlanDiff.DiffableStep | undefined>((found, s) => (s.id === id ? s : found), undefined)
  const ids = (p: ReadonlyArray<PlanDiff.DiffableStep>) => [...new Set(p.map((s) => s.id))].sort((a, b) => a - b)
  const oldIds = ids(before)
  const newIds = ids(after)
  return {
    removed: oldIds.filter((id) => !newIds.includes(id)),
    added: newIds.filter((id) => !oldIds.includes(id)),
    revised: oldIds.filter((id) => {
      const a = last(before, id)
      const b = last(after, id)
      return (
        a !== undefined && b !== undefined && (a.tool_name !== b.tool_name || canonical(a.args) !== canonical(b.args))
      )
    })
  }
}

const isStrictlyAscending = (ids: ReadonlyArray<number>): boolean =>
  ids.every((id, i) => i === 0 || (ids[i - 1] ?? Number.NEGATIVE_INFINITY) < id)

describe("PlanDiff properties", () => {
  it("partitions ids: removed only old, added only new, revised in both; lists sorted, disjoint", () => {
    fc.assert(
      fc.property(plan, plan, (before, after) => {
        const d = PlanDiff.diff(before, after)
        const oldIds = new Set(before.map((s) => s.id))
        const newIds = new Set(after.map((s) => s.id))
        const added = new Set(d.added)
        expect(d.removed.some((id) => added.has(id))).toBe(false)
        expect(d.removed.every((id) => oldIds.has(id) && !newIds.has(id))).toBe(true)
        expect(d.added.every((id) => newIds.has(id) && !oldIds.has(id))).toBe(true)
        expect(d.revised.every((id) => oldIds.has(id) && newIds.has(id))).toBe(true)
        expect(d.removed.length + d.revised.length <= oldIds.size).toBe(true)
        for (const ids of [d.removed, d.added, d.revised]) expect(isStrictlyAscending(ids)).toBe(true)
      })
    )
  })

  it("agrees with a naive reference diff", () => {
    fc.assert(
      fc.property(plan, plan, (before, after) => {
        expect(PlanDiff.diff(before, after)).toEqual(reference(before, after))
      })
    )
  })

  it("agrees with the reference on plans listing each id once, in order (the side-by-side walk)", () => {
    const ordered = fc
      .uniqueArray(stepArb, { selector: (s) => s.id, maxLength: 12 })
      .map((steps) => [...steps].sort((a, b) => a.id - b.id))
    fc.assert(
      fc.property(ordered, ordered, (before, after) => {
        expect(PlanDiff.diff(before, after)).toEqual(reference(before, after))
      })
    )
  })

  it("diff(p, p) is empty, also when p's args list their keys in another order", () => {
    fc.assert(
      fc.property(plan, (p) => {
        expect(PlanDiff.isEmpty(PlanDiff.diff(p, p))).toBe(true)
        expect(
          PlanDiff.isEmpty(
            PlanDiff.diff(
              p,
              p.map((s) => ({ ...s, args: reverseKeys(s.args) }))
            )
          )
        ).toBe(true)
        expect(Render.text(PlanDiff.diff(p, p), p, p)).toBe("(no change)")
      })
    )
  })

  it("equalArgs is equality of canonical JSON", () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(PlanDiff.equalArgs(a, b)).toBe(canonical(a) === canonical(b))
      })
    )
    fc.assert(
      fc.property(fc.jsonValue(), (a) => {
        expect(PlanDiff.equalArgs(a, structuredClone(a))).toBe(true)
      })
    )
  })

  it("every diff survives the schema's JSON round trip", () => {
    fc.assert(
      fc.property(plan, plan, (before, after) => {
        const d = PlanDiff.diff(before, after)
        expect(Schema.decodeUnknownSync(PlanDiff.PlanDiff)(JSON.parse(Render.json(d)))).toEqual(d)
      })
    )
  })
})
