/**
 * Strict JSON text: duplicate keys (however spelt), depth, the byte order mark, and UTF-8.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import * as InputFile from "../src/InputFile.ts"
import * as JsonText from "../src/JsonText.ts"
import * as ScenarioFile from "../src/ScenarioFile.ts"

const problem = (text: string) => {
  const parsed = JsonText.parse(text)
  return Result.isFailure(parsed) ? parsed.failure : undefined
}

describe("JsonText.parse", () => {
  it("parses what JSON.parse parses when keys are unique", () => {
    const text = `{"a":[1,{"b":"x","c":{"a":1}}],"b":{"a":{}},"c":"{\\"a\\":1,\\"a\\":2}"}`
    expect(JsonText.parse(text)).toEqual(Result.succeed(JSON.parse(text)))
  })

  it("a duplicate key: the path of the second, the line of the first", () => {
    expect(problem(`{\n  "a": 1,\n  "b": [{ "x": 1 }, { "y": 2,\n "y": 3 }]\n}`)).toEqual({
      path: ["b", 1, "y"],
      problem: `duplicate key "y": it is already on line 3 of this object (JSON keeps only the last)`
    })
    expect(problem(`{"a":1,"a":2}`)?.path).toEqual(["a"])
  })

  it("keys are compared as decoded: an escape does not hide a duplicate", () => {
    expect(problem(`{"name":1,"n\\u0061me":2}`)?.problem).toMatch(/^duplicate key "name"/)
    expect(problem(`{"a\\"b":1,"a\\u0022b":2}`)?.problem).toMatch(/^duplicate key "a\\"b"/)
  })

  it("equal keys in different objects, and string values that look like keys, are not duplicates", () => {
    expect(problem(`[{"a":1},{"a":2},{"x":"a","y":"a"}]`)).toBeUndefined()
    expect(problem(`{"a":{"a":{"a":1}}}`)).toBeUndefined()
  })

  it(`nesting: ${JsonText.maxDepth} levels are read, one more is refused with the path to it`, () => {
    const nested = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`
    expect(problem(nested(JsonText.maxDepth))).toBeUndefined()
    expect(problem(nested(JsonText.maxDepth + 1))).toEqual({
      path: [0, 0, 0, 0, 0, 0, 0, 0],
      problem: `nested more than ${JsonText.maxDepth} levels deep (below this path)`
    })
    expect(problem(`{"a":[{"b":${nested(1_000_000)}}]}`)?.path).toEqual(["a", 0, "b", 0, 0, 0, 0, 0])
  })

  it("a byte order mark is dropped; invalid JSON gives its line and column", () => {
    expect(JsonText.parse(`\uFEFF{"a":1}`)).toEqual(Result.succeed({ a: 1 }))
    expect(problem(`{\n"a" 1}`)?.problem).toMatch(/^invalid JSON \(line 2, column 5\): /)
    expect(problem("")).toEqual({ path: [], problem: "invalid JSON: Unexpected end of JSON input" })
  })

  it("many keys and items (200,000 of each) are checked in one pass", () => {
    const keys = `{${Array.from({ length: 200_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`
    const items = `[${Array.from({ length: 200_000 }, (_, i) => `{"k":${i}}`).join(",")}]`
    expect(problem(keys)).toBeUndefined()
    expect(problem(items)).toBeUndefined()
  })

  it("ScenarioFile.parse names the file and the JSON path of a duplicate", () => {
    const parsed = ScenarioFile.parse("f.json", `{"format":1,"kind":"plan","kind":"conversation"}`)
    expect(Result.isFailure(parsed) ? parsed.failure.message : "").toBe(
      `f.json: kind: duplicate key "kind": it is already on line 1 of this object (JSON keeps only the last)`
    )
  })
})

describe("InputFile.decodeUtf8", () => {
  const bytes = (...b: ReadonlyArray<number>) => Uint8Array.from(b)

  it("decodes UTF-8 and drops a byte order mark", () => {
    expect(InputFile.decodeUtf8(new TextEncoder().encode("\uFEFFcafé ✓ 🙂"))).toEqual({ text: "café ✓ 🙂" })
  })

  it("names the first byte that is not UTF-8, and its line", () => {
    const cases: ReadonlyArray<readonly [Uint8Array, number, string]> = [
      [bytes(0x61, 0x0a, 0x62, 0xe9, 0x0a), 3, "e9"], // Latin-1 é
      [bytes(0xc0, 0x80), 0, "c0"], // overlong NUL
      [bytes(0x61, 0xed, 0xa0, 0x80), 1, "ed"], // a UTF-16 surrogate
      [bytes(0xf4, 0x90, 0x80, 0x80), 0, "f4"], // past U+10FFFF
      [bytes(0x61, 0x62, 0xe2, 0x9c), 2, "e2"] // cut short
    ]
    for (const [input, at, hex] of cases) {
      const decoded = InputFile.decodeUtf8(input)
      expect("problem" in decoded ? decoded.problem : "").toMatch(
        new RegExp(`^not UTF-8 text: byte ${at} \\(line \\d+\\) is 0x${hex},`)
      )
    }
    const latin = InputFile.decodeUtf8(bytes(0x61, 0x0a, 0x62, 0xe9))
    expect("problem" in latin ? latin.problem : "").toContain("(line 2)")
  })
})
