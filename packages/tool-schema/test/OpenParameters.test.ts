import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { JsonSchema, Tool, Toolset } from "../src/index.ts"

const Any = Tool.make("any", {
  description: "Takes any object",
  parameters: Schema.Record(Schema.String, Schema.Unknown),
  run: (input) => Object.keys(input).join(",")
})
const Tagged = Tool.make("tagged", {
  description: "A struct with extra string keys",
  parameters: Schema.StructWithRest(Schema.Struct({ id: Schema.Finite }), [
    Schema.Record(Schema.String, Schema.Union([Schema.String, Schema.Finite]))
  ]),
  run: (input) => input.id
})
const tools = Toolset.make(Any, Tagged)

describe("record and struct-with-rest parameters", () => {
  it("a record accepts any keys and refuses what is not an object", () => {
    const ok = Toolset.decode(tools, { id: "1", name: "any", input: { a: 1, b: [2] } })
    expect(Result.isSuccess(ok) && ok.success.input).toStrictEqual({ a: 1, b: [2] })
    const bad = Toolset.decode(tools, { id: "2", name: "any", input: [1] })
    expect(Result.isFailure(bad) && bad.failure).toStrictEqual({ _tag: "InputNotObject" })
  })

  it("a struct with rest checks its fields, then the rest", () => {
    const ok = Toolset.decode(tools, { id: "1", name: "tagged", input: { id: 3, note: "x" } })
    expect(Result.isSuccess(ok) && ok.success.input).toStrictEqual({ id: 3, note: "x" })
    const missing = Toolset.decode(tools, { id: "2", name: "tagged", input: { note: "x" } })
    expect(Result.isFailure(missing) && missing.failure).toStrictEqual({ _tag: "MissingField", field: "id" })
    const wrongRest = Toolset.decode(tools, { id: "3", name: "tagged", input: { id: 3, note: true } })
    expect(Result.isFailure(wrongRest) && wrongRest.failure).toStrictEqual({
      _tag: "WrongType",
      field: "note",
      expected: { kind: "union", members: [{ kind: "string" }, { kind: "number" }] }
    })
  })

  it("a record is described as an open object", () => {
    expect(JsonSchema.parameters(Any)).toStrictEqual({ type: "object" })
  })
})
