import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { Step } from "../src/index.ts"

describe("Step.make", () => {
  it("a step without group has no group key", () => {
    expect(Step.make(1, "read", { path: "a" }, "reads a")).toStrictEqual({
      id: 1,
      tool_name: "read",
      args: { path: "a" },
      expected_outcome: "reads a"
    })
    expect("group" in Step.make(1, "read", {}, "reads")).toBe(false)
  })

  it("a step with a group keeps it", () => {
    expect(Step.make(2, "read", {}, "reads", "g")).toStrictEqual({
      id: 2,
      tool_name: "read",
      args: {},
      expected_outcome: "reads",
      group: "g"
    })
  })
})

describe("Step.problem", () => {
  it("a plan with unique ids has no problem, the empty plan included", () => {
    expect(Step.problem([])).toBeUndefined()
    expect(Step.problem([Step.make(1, "a", {}, ""), Step.make(3, "a", {}, ""), Step.make(2, "a", {}, "")])).toBe(
      undefined
    )
  })

  it("a duplicate id is named", () => {
    const plan = [Step.make(1, "a", {}, ""), Step.make(2, "b", {}, ""), Step.make(1, "c", {}, "")]
    expect(Step.problem(plan)).toBe("step id 1 appears twice in the plan")
  })

  it("the first duplicate in plan order is named", () => {
    const plan = [
      Step.make(5, "a", {}, ""),
      Step.make(7, "a", {}, ""),
      Step.make(7, "a", {}, ""),
      Step.make(5, "a", {}, "")
    ]
    expect(Step.problem(plan)).toBe("step id 7 appears twice in the plan")
  })
})

describe("Step.runs", () => {
  const ids = (plan: Step.Plan) => Step.runs(plan).map((run) => run.map((s) => s.id))

  it("steps without a group run alone", () => {
    expect(ids([Step.make(1, "a", {}, ""), Step.make(2, "a", {}, ""), Step.make(3, "a", {}, "")])).toStrictEqual([
      [1],
      [2],
      [3]
    ])
    expect(ids([])).toStrictEqual([])
  })

  it("consecutive steps sharing a group run together", () => {
    expect(
      ids([
        Step.make(1, "a", {}, ""),
        Step.make(2, "a", {}, "", "g"),
        Step.make(3, "a", {}, "", "g"),
        Step.make(4, "a", {}, "", "g"),
        Step.make(5, "a", {}, "")
      ])
    ).toStrictEqual([[1], [2, 3, 4], [5]])
  })

  it("the same group split by another step, or two different groups, are separate runs", () => {
    expect(
      ids([
        Step.make(1, "a", {}, "", "g"),
        Step.make(2, "a", {}, ""),
        Step.make(3, "a", {}, "", "g"),
        Step.make(4, "a", {}, "", "h"),
        Step.make(5, "a", {}, "", "h")
      ])
    ).toStrictEqual([[1], [2], [3], [4, 5]])
  })

  it("runs keep every step in plan order", () => {
    const plan = [Step.make(3, "a", {}, "", "g"), Step.make(1, "a", {}, "", "g"), Step.make(2, "a", {}, "")]
    expect(Step.runs(plan).flat()).toStrictEqual(plan)
  })
})

describe("Step schema", () => {
  it("decodes the JSON of a planned and of an executed step", () => {
    const decode = Schema.decodeUnknownSync(Step.Step)
    expect(decode({ id: 1, tool_name: "read", args: { path: "a" }, expected_outcome: "reads a" })).toStrictEqual({
      id: 1,
      tool_name: "read",
      args: { path: "a" },
      expected_outcome: "reads a"
    })
    expect(
      decode({ id: 1, tool_name: "read", args: {}, expected_outcome: "", group: "g", result: null, error: "boom" })
    ).toStrictEqual({
      id: 1,
      tool_name: "read",
      args: {},
      expected_outcome: "",
      group: "g",
      result: null,
      error: "boom"
    })
  })

  it("refuses a non-integer id, missing fields and args that are not an object", () => {
    const decode = Schema.decodeUnknownResult(Step.Step)
    expect(decode({ id: 1.5, tool_name: "read", args: {}, expected_outcome: "" })._tag).toBe("Failure")
    expect(decode({ id: 1, args: {}, expected_outcome: "" })._tag).toBe("Failure")
    expect(decode({ id: 1, tool_name: "read", args: [], expected_outcome: "" })._tag).toBe("Failure")
    expect(decode({ id: 1, tool_name: "read", args: "x", expected_outcome: "" })._tag).toBe("Failure")
  })
})
