/**
 * A plan scenario hands its session to whoever records it: every event as it happens, then the
 * whole `SessionResult`; and it names the tools its steps may call.
 */
import { join } from "node:path"
import type { Event, SessionResult } from "@agent-harness/planner"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { PlanScenario, ScenarioFile } from "../src/index.ts"
import { load, scenariosDir } from "./fixtures/files.ts"

const replanOnce = join(scenariosDir, "plan", "replan-once.json")

/** The shipped replan-once scenario, decoded. */
const scenario = (): ScenarioFile.Plan => {
  const decoded = ScenarioFile.decode(replanOnce, load(replanOnce))
  if (Result.isFailure(decoded)) throw new Error(decoded.failure.message)
  if (decoded.success.kind !== "plan") throw new Error("replan-once.json is not a plan scenario")
  return decoded.success
}

describe("PlanScenario.run", () => {
  it.effect("onResult gets the session's result after onEvent saw each of its events", () =>
    Effect.gen(function* () {
      const seen: Array<Event.Event> = []
      const results: Array<SessionResult.SessionResult> = []
      const verdict = yield* PlanScenario.run(scenario(), replanOnce, {
        onEvent: (event) => Effect.sync(() => void seen.push(event)),
        onResult: (result) => Effect.sync(() => void results.push({ ...result, events: [...seen] }))
      })
      expect(verdict.passed).toBe(true)
      expect(results).toHaveLength(1)
      expect(results[0]?.events).toStrictEqual(seen)
      expect(results[0]?.history.map((step) => step.id)).toStrictEqual([1, 2, 4, 3])
      expect(results[0]?.revisions).toStrictEqual([{ removed: [2], added: [4], revised: [] }])
    })
  )

  it("toolset: the English file tools and the file's scripted tools", () => {
    expect(PlanScenario.toolset(scenario().file).tools.map((tool) => tool.name)).toStrictEqual([
      "read",
      "list",
      "search",
      "write",
      "append",
      "fetch_sales",
      "publish",
      "publish_draft",
      "notify"
    ])
  })
})
