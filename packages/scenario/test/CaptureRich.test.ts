/**
 * A trace whose observations carry rich parts (images, base64 and all) is captured as a scenario
 * that decodes and replays: the expected observation is its text, which says what each part is;
 * the parts themselves are not copied into the scenario file.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Trace } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Capture, Conversation, ScenarioFile } from "../src/index.ts"

const shipped = fileURLToPath(new URL("../../../apps/cli/scenarios/es/salmorejo.json", import.meta.url))

describe("Capture.capture of rich observations", () => {
  it.effect("keeps the text of an observation with parts, so the scenario decodes and replays", () =>
    Effect.gen(function* () {
      const parsed = ScenarioFile.parse(shipped, readFileSync(shipped, "utf8"))
      if (Result.isFailure(parsed) || parsed.success.kind !== "conversation") throw new Error("not a conversation")
      const memory = yield* Trace.memory
      yield* Conversation.run(parsed.success, "scenario.json").pipe(Effect.provideService(Trace.Trace, memory.trace))
      const lines = (yield* memory.events).map((event) => {
        if (event.type !== "call.answered" || event.result.is_error) return Trace.line(event)
        // The same observation, as a tool that also answered an image and structured content gives it.
        const rich = {
          ...event,
          result: {
            ...event.result,
            parts: [{ type: "image" as const, mediaType: "image/png", data: "iVBORw0KGgo=" }],
            structured: { n: 1 }
          }
        }
        return Trace.line(rich)
      })
      expect(lines.some((line) => line.includes('"parts"'))).toBe(true)
      const captured = Capture.capture("rich.jsonl", lines.join("\n"))
      if (Result.isFailure(captured)) throw new Error(captured.failure.message)
      expect(JSON.stringify(captured.success)).not.toContain("iVBORw0KGgo=")
      const scenario = ScenarioFile.decode("captured.json", captured.success)
      if (Result.isFailure(scenario)) throw new Error(scenario.failure.message)
      if (scenario.success.kind !== "conversation") throw new Error("not a conversation")
      const verdict = yield* Conversation.run(scenario.success, "captured.json")
      expect(verdict.failures).toStrictEqual([])
    })
  )
})
