// The README's quick start, verbatim in substance: it must keep compiling and passing.
import { Loop, Message, Model } from "@agent-harness/executor"
import { JsonSchema, Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Divergence, ScriptedModel } from "../src/index.ts"

const Weather = Tool.make("weather", {
  description: "Today's weather in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  run: ({ city }) =>
    city === "Sevilla" ? Effect.succeed("sunny, 31 °C") : Effect.fail({ message: `no data for ${city}` })
})
const tools = Toolset.make(Weather)

const script = {
  messages: [Message.user("Weather in Sevilla?")],
  turns: [
    {
      reply: [Message.toolUse("c1", "weather", { town: "Sevilla" })],
      expect: [{ tool_use_id: "c1", is_error: true, content: "not executed: missing field 'city'" }]
    },
    {
      reply: [Message.toolUse("c2", "weather", { city: "Sevilla" })],
      expect: [{ tool_use_id: "c2", is_error: false, content: "sunny, 31 °C" }]
    },
    { reply: [Message.text("Sunny, 31 °C.")] }
  ]
}

describe("README quick start", () => {
  it("generates the Anthropic tool definition from the Schema", () => {
    expect(JsonSchema.anthropicTools(tools)).toStrictEqual([
      {
        name: "weather",
        description: "Today's weather in a city",
        input_schema: {
          type: "object",
          properties: { city: { type: "string" } },
          required: ["city"],
          additionalProperties: false
        }
      }
    ])
  })

  it.effect("runs the loop with the scripted model to the end", () =>
    Effect.gen(function* () {
      const result = yield* Loop.run({ toolset: tools, messages: script.messages, maxTurns: 5 }).pipe(
        Effect.provide(ScriptedModel.layer(script))
      )
      expect(result.stop).toBe("end")
      expect(result.text).toBe("Sunny, 31 °C.")
      expect(result.messages).toHaveLength(6)
    })
  )

  it.effect("fails naming turn 1 and c1 when an expected observation changes", () =>
    Effect.gen(function* () {
      const changed = {
        ...script,
        turns: [
          {
            ...script.turns[0],
            reply: script.turns[0]?.reply ?? [],
            expect: [Object.assign({}, script.turns[0]?.expect?.[0], { content: "not executed: missing field 'town'" })]
          },
          ...script.turns.slice(1)
        ]
      }
      const error = yield* Effect.flip(
        Loop.run({ toolset: tools, messages: script.messages, maxTurns: 5 }).pipe(
          Effect.provide(ScriptedModel.layer(changed))
        )
      )
      assert.instanceOf(error, Model.ModelError)
      expect(error.reason._tag).toBe("ScriptDivergence")
      if (error.reason instanceof Divergence.ScriptDivergence) {
        expect(error.reason.turn).toBe(1)
        expect(error.reason.toolUseId).toBe("c1")
        expect(error.reason.message).toContain(`expected: c1 is_error=true "not executed: missing field 'town'"`)
        expect(error.reason.message).toContain(`seen:     c1 is_error=true "not executed: missing field 'city'"`)
      }
    })
  )
})
