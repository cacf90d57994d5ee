// The model-backed planner driven by the project's own scripted model, as the same `Model` the
// loop uses: the script's opening is the planner's first prompt.
import { Message, Model } from "@agent-harness/executor"
import { ScriptedModel } from "@agent-harness/scripted-model"
import { Toolset } from "@agent-harness/tool-schema"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ModelPlanner, Session } from "../src/index.ts"
import { fail, ok, scriptedTool } from "./fixtures.ts"

const plan = (steps: ReadonlyArray<Record<string, unknown>>) => [Message.text(JSON.stringify({ steps }))]
const step = (id: number, tool: string) => ({ id, tool_name: tool, args: {}, expected_outcome: `${tool} done` })

describe("ModelPlanner with the scripted model", () => {
  it.effect("replans from the error and completes; the script ends exactly", () =>
    Effect.gen(function* () {
      const fetch = scriptedTool("fetch", [fail("TIMEOUT: no answer"), ok("fetched")])
      const summarize = scriptedTool("summarize", [ok("a summary")])
      const toolset = Toolset.make(fetch.tool, summarize.tool)
      const goal = "Summarize the feed"
      const model = yield* ScriptedModel.make({
        messages: ModelPlanner.prompt({ toolset }, { goal, history: [], lastError: null }),
        turns: [
          { reply: plan([step(1, "fetch"), step(2, "summarize")]) },
          { reply: plan([step(3, "fetch"), step(2, "summarize")]) }
        ]
      })
      const result = yield* Session.run({
        goal,
        planner: ModelPlanner.make({ toolset }),
        toolset,
        maxSteps: 5,
        maxReplans: 1
      }).pipe(Effect.provide(Model.layer(model)))
      expect([result.status, result.reason]).toStrictEqual(["completed", "goal_met"])
      expect(result.history.map((s) => [s.id, s.result ?? s.error])).toStrictEqual([
        [1, "TIMEOUT: no answer"],
        [3, "fetched"],
        [2, "a summary"]
      ])
      expect(result.revisions).toStrictEqual([{ removed: [1], added: [3], revised: [] }])
      // Both turns were used: nothing is left over.
      assert(model.complete !== undefined)
      yield* model.complete([])
    })
  )

  it.effect("an answer that is not a plan is an invalid plan, and the model is asked again", () =>
    Effect.gen(function* () {
      const summarize = scriptedTool("summarize", [ok("a summary")])
      const toolset = Toolset.make(summarize.tool)
      const layer = ScriptedModel.layer({
        messages: ModelPlanner.prompt({ toolset }, { goal: "Summarize", history: [], lastError: null }),
        turns: [{ reply: [Message.text("Sure! First I will summarize.")] }, { reply: plan([step(1, "summarize")]) }]
      })
      const result = yield* Session.run({
        goal: "Summarize",
        planner: ModelPlanner.make({ toolset }),
        toolset,
        maxSteps: 2,
        maxReplans: 1
      }).pipe(Effect.provide(layer))
      expect([result.status, result.reason, result.replans]).toStrictEqual(["completed", "goal_met", 1])
      expect(result.events[0]?.type).toBe("plan.rejected")
    })
  )

  it.effect("a planner whose first prompt is not the script's opening fails with the divergence", () =>
    Effect.gen(function* () {
      const toolset = Toolset.make(scriptedTool("summarize", [ok("a summary")]).tool)
      const layer = ScriptedModel.layer({ messages: [], turns: [{ reply: plan([]) }] })
      const error = yield* Effect.flip(
        Session.run({ goal: "g", planner: ModelPlanner.make({ toolset }), toolset, maxSteps: 2, maxReplans: 0 }).pipe(
          Effect.provide(layer)
        )
      )
      expect(error._tag).toBe("ScriptDivergence")
      expect(error.message).toContain("opening message 1 differs")
    })
  )
})
