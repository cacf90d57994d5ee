import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { pipe } from "effect/Function"
import { PlanDiff } from "../src/index.ts"
import { after, before, step } from "./fixtures.ts"

const empty: PlanDiff.PlanDiff = { removed: [], added: [], revised: [] }

describe("PlanDiff.diff", () => {
  it("finds removed, added and revised steps by id", () => {
    expect(PlanDiff.diff(before, after)).toEqual({ removed: [3], added: [5, 6], revised: [4] })
  })

  it("is dual: diff(after)(before) is diff(before, after)", () => {
    expect(PlanDiff.diff(after)(before)).toEqual(PlanDiff.diff(before, after))
    expect(pipe(before, PlanDiff.diff(after))).toEqual({ removed: [3], added: [5, 6], revised: [4] })
  })

  it("gives an empty diff for identical plans, and for two empty plans", () => {
    expect(PlanDiff.diff(before, before)).toEqual(empty)
    expect(
      PlanDiff.diff(
        before,
        before.map((s) => ({ ...s, args: structuredClone(s.args) }))
      )
    ).toEqual(empty)
    expect(PlanDiff.diff([], [])).toEqual(empty)
  })

  it("reports every step as removed or added against an empty plan", () => {
    expect(PlanDiff.diff(before, [])).toEqual({ removed: [1, 2, 3, 4], added: [], revised: [] })
    expect(PlanDiff.diff([], after)).toEqual({ removed: [], added: [1, 2, 4, 5, 6], revised: [] })
  })

  it("ignores the fields it does not compare (expected outcome, result, error)", () => {
    const ran = before.map((s) => ({ ...s, expected_outcome: "other", result: "done", error: "boom" }))
    expect(PlanDiff.diff(before, ran)).toEqual(empty)
  })

  it("revises a step whose tool changed even when its args are the same", () => {
    expect(PlanDiff.diff([step(1, "read", { path: "a" })], [step(1, "write", { path: "a" })])).toEqual({
      removed: [],
      added: [],
      revised: [1]
    })
  })

  it("does not revise a step whose args only list their keys in another order", () => {
    const a = [step(1, "write", { path: "a", content: "x", opts: { mode: 1, append: false } })]
    const b = [step(1, "write", { opts: { append: false, mode: 1 }, content: "x", path: "a" })]
    expect(PlanDiff.diff(a, b)).toEqual(empty)
  })

  it("revises a step whose nested args changed", () => {
    const a = [step(1, "search", { q: { terms: ["a", "b"], opts: { case: true } } })]
    const b = [step(1, "search", { q: { terms: ["a", "b"], opts: { case: false } } })]
    expect(PlanDiff.diff(a, b).revised).toEqual([1])
  })

  it("revises a step whose array args changed order", () => {
    const a = [step(1, "search", { terms: ["a", "b"] })]
    const b = [step(1, "search", { terms: ["b", "a"] })]
    expect(PlanDiff.diff(a, b).revised).toEqual([1])
  })

  it("sorts every id list ascending, whatever the order of the plans", () => {
    const old = [9, 2, 7, 4, 1, 8].map((id) => step(id, "read", { id }))
    const next = [8, 12, 4, 1, 10, 7, 11].map((id) => step(id, "read", { id: id === 7 || id === 4 ? -id : id }))
    expect(PlanDiff.diff(old, next)).toEqual({ removed: [2, 9], added: [10, 11, 12], revised: [4, 7] })
  })

  it("with duplicate ids in a plan, the last occurrence of the id is the step compared", () => {
    const dup = [step(1, "read", { path: "a" }), step(2, "list", {}), step(1, "read", { path: "b" })]
    // The last occurrence of 1 reads "b": same as the other plan, so no change.
    expect(PlanDiff.diff(dup, [step(1, "read", { path: "b" }), step(2, "list", {})])).toEqual(empty)
    // Against the first occurrence it is revised, reported once.
    expect(PlanDiff.diff(dup, [step(1, "read", { path: "a" }), step(2, "list", {})])).toEqual({
      removed: [],
      added: [],
      revised: [1]
    })
    // On the new side too, and an id is never listed twice.
    expect(PlanDiff.diff([step(2, "list", {})], dup)).toEqual({ removed: [], added: [1], revised: [] })
    expect(PlanDiff.diff(dup, dup)).toEqual(empty)
  })

  it("takes -0 and 0 for one id, listed as 0, in ordered plans as in unordered ones", () => {
    expect(PlanDiff.diff([step(-0, "read", {})], [])).toStrictEqual({ removed: [0], added: [], revised: [] })
    expect(PlanDiff.diff([step(-0, "read", {})], [step(0, "write", {})])).toStrictEqual({
      removed: [],
      added: [],
      revised: [0]
    })
    expect(PlanDiff.diff([step(2, "read", {}), step(-0, "read", {})], [])).toStrictEqual({
      removed: [0, 2],
      added: [],
      revised: []
    })
  })

  it("diffs two plans of 100k steps each", () => {
    const n = 100_000
    const old = Array.from({ length: n }, (_, i) => step(i, "read", { path: `f${i}`, opts: { n: i, tags: ["x"] } }))
    const next = Array.from({ length: n }, (_, j) => {
      const i = j + n / 2
      // Reversed key order throughout, and a changed value on every fourth id.
      return step(i, "read", { opts: { tags: ["x"], n: i % 4 === 0 ? -1 : i }, path: `f${i}` })
    })
    const d = PlanDiff.diff(old, next)
    expect(d.removed.length).toBe(n / 2)
    expect(d.added.length).toBe(n / 2)
    expect(d.revised.length).toBe(n / 8)
    expect(d.removed[0]).toBe(0)
    expect(d.added.at(-1)).toBe(n + n / 2 - 1)
    expect(d.revised.slice(0, 3)).toEqual([n / 2, n / 2 + 4, n / 2 + 8])
  })
})

describe("PlanDiff.equalArgs", () => {
  it("ignores object key order, at every depth", () => {
    expect(PlanDiff.equalArgs({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 })).toBe(
      true
    )
  })

  it("respects array order and length", () => {
    expect(PlanDiff.equalArgs([1, 2], [2, 1])).toBe(false)
    expect(PlanDiff.equalArgs([1, 2], [1, 2, 3])).toBe(false)
    expect(PlanDiff.equalArgs([[1], [2]], [[1], [2]])).toBe(true)
  })

  it("distinguishes types: 1 and '1', null and missing, arrays and objects", () => {
    expect(PlanDiff.equalArgs(1, "1")).toBe(false)
    expect(PlanDiff.equalArgs({ a: 1 }, { a: "1" })).toBe(false)
    expect(PlanDiff.equalArgs({ a: null }, {})).toBe(false)
    expect(PlanDiff.equalArgs({}, { a: null })).toBe(false)
    expect(PlanDiff.equalArgs({ a: null, b: 1 }, { b: 1, c: null })).toBe(false)
    expect(PlanDiff.equalArgs({ a: undefined }, {})).toBe(false)
    expect(PlanDiff.equalArgs(null, {})).toBe(false)
    expect(PlanDiff.equalArgs([], {})).toBe(false)
    expect(PlanDiff.equalArgs({ 0: "a" }, ["a"])).toBe(false)
    expect(PlanDiff.equalArgs(true, 1)).toBe(false)
    expect(PlanDiff.equalArgs("", null)).toBe(false)
  })

  it("treats numbers as a JSON round trip would: NaN equals NaN, 0 equals -0", () => {
    expect(PlanDiff.equalArgs(Number.NaN, Number.NaN)).toBe(true)
    expect(PlanDiff.equalArgs(0, -0)).toBe(true)
    expect(PlanDiff.equalArgs(0.1 + 0.2, 0.3)).toBe(false)
  })

  it("compares deeply nested values without overflowing the stack", () => {
    const nest = (depth: number, leaf: unknown): unknown => {
      let value: unknown = leaf
      for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { v: value } : [value]
      return value
    }
    expect(PlanDiff.equalArgs(nest(200_000, "x"), nest(200_000, "x"))).toBe(true)
    expect(PlanDiff.equalArgs(nest(200_000, "x"), nest(200_000, "y"))).toBe(false)
  })
})

describe("PlanDiff.isEmpty", () => {
  it("is true only when all three lists are empty", () => {
    expect(PlanDiff.isEmpty(empty)).toBe(true)
    expect(PlanDiff.isEmpty({ removed: [1], added: [], revised: [] })).toBe(false)
    expect(PlanDiff.isEmpty({ removed: [], added: [1], revised: [] })).toBe(false)
    expect(PlanDiff.isEmpty({ removed: [], added: [], revised: [1] })).toBe(false)
    expect(PlanDiff.isEmpty(PlanDiff.diff(before, after))).toBe(false)
  })
})

describe("PlanDiff schema", () => {
  it("round-trips through JSON", () => {
    const d = PlanDiff.diff(before, after)
    const encoded = Schema.encodeSync(PlanDiff.PlanDiff)(d)
    const text = JSON.stringify(encoded)
    expect(text).toBe('{"removed":[3],"added":[5,6],"revised":[4]}')
    expect(Schema.decodeUnknownSync(PlanDiff.PlanDiff)(JSON.parse(text))).toEqual(d)
  })

  it("rejects ids that are not integers and missing lists", () => {
    expect(() => Schema.decodeSync(PlanDiff.PlanDiff)({ removed: [1.5], added: [], revised: [] })).toThrow()
    expect(() => Schema.decodeUnknownSync(PlanDiff.PlanDiff)({ removed: ["1"], added: [], revised: [] })).toThrow()
    expect(() => Schema.decodeUnknownSync(PlanDiff.PlanDiff)({ removed: [], added: [] })).toThrow()
  })
})
