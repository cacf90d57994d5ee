/**
 * The once-vs-twice check compares states with its own structural equality (no dependency on
 * the diff package): the same values compare equal as they did with `PlanDiff.equalArgs`.
 */
import { assert, describe, it } from "@effect/vitest"
import { equalState } from "../src/internal/equalState.ts"
import { OnceTwice } from "../src/index.ts"

describe("equalState", () => {
  it("numbers: 0 equals -0, NaN equals NaN, 1 differs from '1'", () => {
    assert.isTrue(equalState(0, -0))
    assert.isTrue(equalState({ n: -0 }, { n: 0 }))
    assert.isTrue(equalState(Number.NaN, Number.NaN))
    assert.isTrue(equalState([Number.NaN], [Number.NaN]))
    assert.isFalse(equalState(1, "1"))
    assert.isFalse(equalState(Number.NaN, 0))
  })

  it("objects: key order does not matter, key sets do (undefined is present, null is not missing)", () => {
    assert.isTrue(equalState({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }))
    assert.isFalse(equalState({ a: 1, b: undefined }, { a: 1 }))
    assert.isFalse(equalState({ a: 1 }, { a: 1, b: undefined }))
    assert.isTrue(equalState({ a: undefined }, { a: undefined }))
    assert.isFalse(equalState({ a: null }, {}))
    assert.isFalse(equalState({ a: null }, { a: undefined }))
    assert.isFalse(equalState({ a: 1, b: 2 }, { a: 1, c: 2 }))
  })

  it("arrays: order matters, an array never equals an object", () => {
    assert.isTrue(equalState([1, [2, 3]], [1, [2, 3]]))
    assert.isFalse(equalState([1, 2], [2, 1]))
    assert.isFalse(equalState([1], [1, 1]))
    assert.isFalse(equalState([], {}))
    assert.isFalse(equalState({ 0: "a", length: 1 }, ["a"]))
    assert.isFalse(equalState(["a"], { 0: "a", length: 1 }))
  })

  it("other objects by their own enumerable keys: two Dates are equal, whatever their time", () => {
    assert.isTrue(equalState(new Date(0), new Date(1)))
    assert.isTrue(equalState({ at: new Date(0) }, { at: new Date(0) }))
    assert.isFalse(equalState(new Date(0), "1970-01-01T00:00:00.000Z"))
    assert.isFalse(equalState(null, {}))
    assert.isFalse(equalState(undefined, null))
  })

  it("deep and cyclic values end without overflowing the stack", () => {
    const deep = (n: number): unknown => {
      let v: unknown = "leaf"
      for (let i = 0; i < n; i++) v = { v: [v] }
      return v
    }
    assert.isTrue(equalState(deep(100_000), deep(100_000)))
    assert.isFalse(equalState(deep(100_000), deep(99_999)))
    const a: Record<string, unknown> = { x: 1 }
    a.self = a
    const b: Record<string, unknown> = { x: 1 }
    b.self = b
    assert.isTrue(equalState(a, b))
    const c: Record<string, unknown> = { x: 2 }
    c.self = c
    assert.isFalse(equalState(a, c))
  })

  it("differences uses it key by key: -0 and NaN keys are the same, a Date key too", () => {
    assert.deepStrictEqual(
      OnceTwice.differences({ z: -0, n: Number.NaN, d: new Date(0) }, { d: new Date(5), n: Number.NaN, z: 0 }),
      []
    )
    assert.deepStrictEqual(OnceTwice.differences({ a: [1, 2] }, { a: { 0: 1, 1: 2 } }), [
      { key: "a", once: [1, 2], twice: { 0: 1, 1: 2 } }
    ])
  })
})
