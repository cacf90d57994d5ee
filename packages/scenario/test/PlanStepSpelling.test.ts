/**
 * A plan step names its tool `tool_name`, as the planner's `Step` and the plan-and-execute idea
 * do; plan files written before say `tool`, and still read, to the same plan.
 */
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { PlanScenario, ScenarioFile } from "../src/index.ts"
import { at, type Json, load, scenariosDir } from "./fixtures/files.ts"

const skip = join(scenariosDir, "plan", "skip.json")
const FILE = "plan/spelt.json"

const steps = (json: Json): ReadonlyArray<Json> => [0, 1, 2].map((i) => at(json, "planner", 0, "plan", i))

/** The shipped file (its steps say `tool`) with every step's `tool` spelt `tool_name`. */
const spelt = (): Json => {
  const json = load(skip)
  for (const step of steps(json)) {
    step.tool_name = step.tool
    delete step.tool
  }
  return json
}

const decoded = (json: unknown): ScenarioFile.PlanFile => {
  const result = ScenarioFile.decode(FILE, json)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  if (result.success.kind !== "plan") throw new Error(`decoded as ${result.success.kind}`)
  return result.success.file
}

const problem = (json: unknown): string => {
  const result = ScenarioFile.decode(FILE, json)
  return Result.isFailure(result) ? result.failure.message : "(decoded)"
}

describe("a plan step's tool", () => {
  it("is read from tool_name", () => {
    const file = decoded(spelt())
    assert.deepStrictEqual(
      file.planner[0]?.plan.map((s) => s.tool_name),
      ["work", "flaky", "work"]
    )
    const plan = Effect.runSync(PlanScenario.planner(file)({ goal: file.goal, history: [], lastError: null }))
    assert.deepStrictEqual(
      plan.map((s) => s.tool_name),
      ["work", "flaky", "work"]
    )
  })

  it("an old file's tool reads as tool_name, the same file as the new spelling", () => {
    assert.deepStrictEqual(decoded(load(skip)), decoded(spelt()))
    assert.deepStrictEqual(Object.keys(decoded(load(skip)).planner[0]?.plan[0] ?? {}), [
      "id",
      "tool_name",
      "args",
      "expected_outcome"
    ])
  })

  it("an old step without a prototype (not from JSON.parse) reads too", () => {
    const json = load(skip)
    const plan = at(json, "planner", 0).plan
    if (!Array.isArray(plan)) throw new Error("no plan")
    plan[0] = Object.assign(Object.create(null), plan[0])
    assert.strictEqual(decoded(json).planner[0]?.plan[0]?.tool_name, "work")
  })

  it("both spellings in one step: the file is refused, naming the step", () => {
    const json = spelt()
    at(json, "planner", 0, "plan", 1).tool = "work"
    assert.strictEqual(
      problem(json),
      `${FILE}: planner[0].plan[1].tool: a step names its tool once: "tool_name" (its old spelling "tool" also reads, but not both)`
    )
  })

  it("an old file's tool that is not a string is named at its own spelling", () => {
    const json = load(skip)
    at(json, "planner", 0, "plan", 1).tool = 7
    assert.strictEqual(problem(json), `${FILE}: planner[0].plan[1].tool: expected string, got 7`)
    const spelt7 = spelt()
    at(spelt7, "planner", 0, "plan", 1).tool_name = 7
    assert.strictEqual(problem(spelt7), `${FILE}: planner[0].plan[1].tool_name: expected string, got 7`)
  })

  it("neither: tool_name is missing", () => {
    const json = spelt()
    delete at(json, "planner", 0, "plan", 2).tool_name
    assert.strictEqual(problem(json), `${FILE}: planner[0].plan[2].tool_name: missing`)
  })

  it("a step whose fields cannot be read: the file is refused, nothing is thrown", () => {
    const json = spelt()
    const plan = at(json, "planner", 0).plan
    if (!Array.isArray(plan)) throw new Error("no plan")
    plan[0] = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("hostile")
        }
      }
    )
    assert.match(problem(json), /^plan\/spelt\.json: \(root\): cannot be read \(.+\)$/)
  })
})
