import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { Lines } from "../src/index.ts"

const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth)

describe("Lines.read", () => {
  it("keeps each line that parses with its number, skips blank lines, accepts CRLF and a byte order mark", () => {
    const read = Lines.read('\uFEFF{"a":1}\r\n\r\n  \n[2]\r\n"x"')
    expect(read.problems).toStrictEqual([])
    expect(read.lines).toStrictEqual([
      { line: 1, json: { a: 1 } },
      { line: 4, json: [2] },
      { line: 5, json: "x" }
    ])
  })

  it("names a line that is not JSON and reads on", () => {
    const read = Lines.read('{"a":1}\n{"a":\n{"b":2}')
    expect(read.lines.map((l) => l.line)).toStrictEqual([1, 3])
    expect(read.problems).toHaveLength(1)
    expect(read.problems[0]).toMatchObject({ line: 2, path: "(line)" })
    expect(read.problems[0]?.message).toMatch(/^invalid JSON: /)
  })

  it(`refuses a value nested deeper than ${Lines.maxDepth} levels, naming the path where it goes too deep`, () => {
    const ok = Lines.read(nested(Lines.maxDepth))
    expect(ok.problems).toStrictEqual([])
    const deep = Lines.read(`{"a":[{"b":${nested(Lines.maxDepth)}}]}`)
    expect(deep.lines).toStrictEqual([])
    expect(deep.problems).toStrictEqual([
      {
        line: 1,
        path: `a[0].b${"[0]".repeat(Lines.maxDepth - 3)}`,
        message: `nested deeper than ${Lines.maxDepth} levels`
      }
    ])
  })

  it("reads a huge nesting without overflowing the stack", () => {
    const read = Lines.read(nested(100_000))
    expect(read.problems[0]?.message).toBe(`nested deeper than ${Lines.maxDepth} levels`)
  })
})

describe("Lines.decode", () => {
  const decode = Lines.decode(
    Schema.Struct({ turn: Schema.Int, reply: Schema.Array(Schema.Struct({ id: Schema.String })) })
  )

  it("gives the value, ignoring fields the schema does not name", () => {
    expect(decode({ turn: 1, reply: [{ id: "a" }], extra: true })).toStrictEqual(
      Result.succeed({ turn: 1, reply: [{ id: "a" }] })
    )
  })

  it("names the first bad JSON path", () => {
    const decoded = decode({ turn: 1, reply: [{ id: "a" }, { name: "x" }] })
    expect(Result.isFailure(decoded) && decoded.failure).toStrictEqual({ path: "reply[1].id", problem: "missing" })
  })
})

describe("Lines.problem", () => {
  it("places a path inside a value read from a whole file", () => {
    expect(Lines.problem({ line: null, at: "events[3]", json: null }, "step.id", "missing")).toStrictEqual({
      line: null,
      path: "events[3].step.id",
      message: "missing"
    })
    expect(Lines.problem({ line: 7, json: null }, "(root)", "bad")).toStrictEqual({
      line: 7,
      path: "(root)",
      message: "bad"
    })
  })
})
