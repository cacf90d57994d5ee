/**
 * The canonical JSON text: keys sorted, `undefined` fields left out, `-0` as `0`, `toJSON`
 * honoured; everything JSON cannot carry faithfully refused with its JSON path, cycles and deep
 * nesting included, and never a hang or a stack overflow.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { Canonical } from "../src/index.ts"

const text = (value: unknown): string => {
  const encoded = Canonical.encode(value)
  assert.isTrue(Result.isSuccess(encoded), Result.isFailure(encoded) ? encoded.failure.message : "")
  return Result.getOrThrow(encoded)
}

const refusal = (value: unknown): string => {
  const encoded = Canonical.encode(value)
  if (Result.isSuccess(encoded)) return assert.fail(`encoded as ${encoded.success}`)
  assert.instanceOf(encoded.failure, Canonical.Unencodable)
  return encoded.failure.message
}

describe("Canonical.encode", () => {
  it("sorts keys at every level; arrays keep their order", () => {
    assert.strictEqual(text({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}')
    assert.strictEqual(text({ a: { c: null, d: [2, 1] }, b: 1 }), text({ b: 1, a: { d: [2, 1], c: null } }))
    assert.strictEqual(text(["x", true, 1.5, "ñ"]), '["x",true,1.5,"ñ"]')
  })

  it("leaves out keys holding undefined, as JSON does; -0 is 0; toJSON is honoured", () => {
    assert.strictEqual(text({ a: undefined, b: 2 }), '{"b":2}')
    assert.strictEqual(text(-0), "0")
    assert.strictEqual(text({ at: new Date(Date.UTC(2026, 0, 2)) }), '{"at":"2026-01-02T00:00:00.000Z"}')
    assert.strictEqual(text(Object.assign(Object.create(null), { z: 1 })), '{"z":1}')
  })

  it("a value shared twice (not a cycle) is encoded twice", () => {
    const shared = { n: 1 }
    assert.strictEqual(text({ a: shared, b: [shared] }), '{"a":{"n":1},"b":[{"n":1}]}')
  })

  it("refuses cycles, naming where the value contains itself", () => {
    const loop: Record<string, unknown> = { a: [1] }
    ;(loop.a as Array<unknown>).push({ back: loop })
    assert.strictEqual(refusal(loop), "a cycle (the value contains itself) at $.a[1].back")
    const list: Array<unknown> = []
    list.push(list)
    assert.strictEqual(refusal(list), "a cycle (the value contains itself) at $[0]")
  })

  it("refuses what JSON would change or drop silently", () => {
    assert.strictEqual(refusal({ n: Number.NaN }), "NaN is not a JSON number at $.n")
    assert.strictEqual(refusal([Number.POSITIVE_INFINITY]), "Infinity is not a JSON number at $[0]")
    assert.strictEqual(refusal({ "a key": 10n }), 'a bigint (10n) is not JSON at $["a key"]')
    assert.strictEqual(refusal({ f: () => 1 }), "a function is not JSON at $.f")
    assert.strictEqual(refusal([Symbol("s")]), "a symbol is not JSON at $[0]")
    assert.strictEqual(refusal([undefined]), "undefined is not JSON at $[0]")
    assert.strictEqual(refusal(undefined), "undefined is not JSON")
    assert.strictEqual(refusal({ m: new Map([["a", 1]]) }), "Map is not a plain JSON object at $.m")
    class Point {
      readonly x = 1
    }
    assert.strictEqual(refusal(new Point()), "Point is not a plain JSON object")
  })

  it("refuses a toJSON or a getter that throws", () => {
    const bad = {
      get boom(): string {
        throw new Error("no")
      }
    }
    assert.strictEqual(refusal(bad), "reading it as JSON threw (no)")
  })

  it("refuses nesting deeper than maxDepth, without overflowing the stack; accepts maxDepth", () => {
    const nest = (levels: number): unknown => {
      let value: unknown = 0
      for (let i = 0; i < levels; i++) value = [value]
      return value
    }
    assert.strictEqual(text(nest(Canonical.maxDepth)).length, 2 * Canonical.maxDepth + 1)
    assert.match(refusal(nest(100_000)), /^nested deeper than 1000 levels at \$(\[0\]){1000}$/)
  })

  it("equal: same text; false when either side has none", () => {
    assert.isTrue(Canonical.equal({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }))
    assert.isFalse(Canonical.equal({ a: 1 }, { a: "1" }))
    assert.isFalse(Canonical.equal({ a: null }, {}))
    const loop: Record<string, unknown> = {}
    loop.self = loop
    assert.isFalse(Canonical.equal(loop, loop))
  })
})
