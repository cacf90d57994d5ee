// The model-backed planner driven by the project's own scripted model (its LanguageModel face).
import { Message } from "@agent-harness/executor"
import { ScriptedModel } from "@agent-harness/scripted-model"
import { Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { LanguageModel } from "effect/ai"
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
      const { model, player } = yield* ScriptedModel.languageModel({
        messages: [],
        turns: [
          { reply: plan([step(1, "fetch"), step(2, "summarize")]) },
          { reply: plan([step(3, "fetch"), step(2, "summarize")]) }
        ]
      })
      const result = yield* Session.run({
        goal: "Summarize the feed",
        planner: ModelPlanner.make({ toolset }),
        toolset,
        maxSteps: 5,
        maxReplans: 1
      }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      expect([result.status, result.reason]).toStrictEqual(["completed", "goal_met"])
      expect(result.history.map((s) => [s.id, s.result ?? s.error])).toStrictEqual([
        [1, "TIMEOUT: no answer"],
        [3, "fetched"],
        [2, "a summary"]
      ])
      expect(result.revisions).toStrictEqual([{ removed: [1], added: [3], revised: [] }])
      yield* player.finish([])
      expect(yield* player.used).toBe(2)
    })
  )

  it.effect("an answer that is not a plan is an invalid plan, and the model is asked again", () =>
    Effect.gen(function* () {
      const summarize = scriptedTool("summarize", [ok("a summary")])
      const toolset = Toolset.make(summarize.tool)
      const { model } = yield* ScriptedModel.languageModel({
        messages: [],
        turns: [{ reply: [Message.text("Sure! First I will summarize.")] }, { reply: plan([step(1, "summarize")]) }]
      })
      const result = yield* Session.run({
        goal: "Summarize",
        planner: ModelPlanner.make({ toolset }),
        toolset,
        maxSteps: 2,
        maxReplans: 1
      }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      expect([result.status, result.reason, result.replans]).toStrictEqual(["completed", "goal_met", 1])
      expect(result.events[0]?.type).toBe("plan.rejected")
    })
  )
})
