import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { readdirSync } from "node:fs"
import { Trace } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Capture, Conversation, ScenarioFile } from "../src/index.ts"

const shipped = (path: string) => fileURLToPath(new URL(`../../../apps/cli/scenarios/${path}`, import.meta.url))

/** Runs a conversation scenario with a memory trace and gives the trace as JSON Lines. */
const record = (scenario: ScenarioFile.Conversation) =>
  Effect.gen(function* () {
    const memory = yield* Trace.memory
    yield* Conversation.run(scenario, "scenario.json").pipe(Effect.provideService(Trace.Trace, memory.trace))
    return (yield* memory.events).map(Trace.line).join("\n")
  })

const load = (path: string): ScenarioFile.Conversation => {
  const parsed = ScenarioFile.parse(path, readFileSync(path, "utf8"))
  if (Result.isFailure(parsed) || parsed.success.kind !== "conversation") throw new Error(`${path}: not a conversation`)
  return parsed.success
}

describe("Capture.capture", () => {
  it.effect("a trace of the Spanish salmorejo, captured, replays and passes", () =>
    Effect.gen(function* () {
      const trace = yield* record(load(shipped("es/salmorejo.json")))
      const captured = Capture.capture("salmorejo.jsonl", trace)
      if (Result.isFailure(captured)) throw new Error(captured.failure.message)
      const scenario = ScenarioFile.decode("captured.json", captured.success)
      if (Result.isFailure(scenario) || scenario.success.kind !== "conversation") throw new Error("not valid")
      expect(scenario.success.file.turns[1]?.expect).toStrictEqual([
        {
          type: "tool_result",
          tool_use_id: "t2",
          is_error: true,
          content: "no existe el fichero 'recetas/salmorejo.txt'"
        },
        { type: "tool_result", tool_use_id: "t3", is_error: false, content: "pan, leche, huevos" }
      ])
      const verdict = yield* Conversation.run(scenario.success, "captured.json")
      expect(verdict.failures).toStrictEqual([])
      expect(verdict.passed).toBe(true)
    })
  )

  it.effect("a turn-cap run captures its last observations and its stop", () =>
    Effect.gen(function* () {
      const captured = Capture.capture("t.jsonl", yield* record(load(shipped("en/turn-cap.json"))))
      if (Result.isFailure(captured)) throw new Error(captured.failure.message)
      expect(captured.success.outcome).toMatchObject({ stop: "turn_cap" })
      expect(captured.success.maxTurns).toBe(3)
    })
  )

  it.effect("every shipped conversation scenario, traced and captured, replays and passes", () =>
    Effect.gen(function* () {
      const conversations = ["en", "es", "regress"].flatMap((folder) =>
        readdirSync(shipped(folder))
          .filter((name) => name.endsWith(".json"))
          .map((name) => shipped(`${folder}/${name}`))
      )
      let replayed = 0
      for (const path of conversations) {
        const parsed = ScenarioFile.parse(path, readFileSync(path, "utf8"))
        if (Result.isFailure(parsed) || parsed.success.kind !== "conversation") continue
        const captured = Capture.capture(path, yield* record(parsed.success))
        if (Result.isFailure(captured)) throw new Error(captured.failure.message)
        const again = ScenarioFile.decode("captured.json", captured.success)
        if (Result.isFailure(again) || again.success.kind !== "conversation")
          throw new Error(`${path}: capture invalid`)
        const verdict = yield* Conversation.run(again.success, "captured.json")
        expect([path, verdict.failures]).toStrictEqual([path, []])
        replayed++
      }
      expect(replayed).toBeGreaterThanOrEqual(15)
    })
  )

  const invalid = (text: string) => {
    const captured = Capture.capture("bad.jsonl", text)
    if (Result.isSuccess(captured)) throw new Error("expected an invalid trace")
    return { path: captured.failure.path, problem: captured.failure.problem }
  }

  it("names the line of invalid JSON", () => {
    expect(invalid('{"type":"start","messages":[],"max_turns":3,"tools":[]}\n{"type": ')).toMatchObject({
      path: "line 2"
    })
    expect(invalid("not json").problem).toMatch(/^invalid JSON: /)
  })

  it("names the line and JSON path of an event that is not a trace event", () => {
    expect(invalid('{"type":"start","messages":[],"max_turns":"3","tools":[]}')).toStrictEqual({
      path: "line 1: max_turns",
      problem: 'expected number, got "3"'
    })
    expect(
      invalid('{"type":"start","messages":[],"max_turns":3,"tools":[]}\n\n{"type":"model.replied","turn":1}')
    ).toStrictEqual({
      path: "line 3: reply",
      problem: "missing"
    })
  })

  it("refuses a trace without a start or a stop, or one whose model failed", () => {
    expect(invalid('{"type":"stop","stop":"end","turns":0}')).toStrictEqual({
      path: "(trace)",
      problem: "no start event: not a trace of the loop"
    })
    expect(invalid('{"type":"start","messages":[],"max_turns":3,"tools":[]}')).toStrictEqual({
      path: "(trace)",
      problem: "no stop event: the run did not finish"
    })
    expect(
      invalid(
        '{"type":"start","messages":[],"max_turns":3,"tools":[]}\n{"type":"model.failed","turn":1,"message":"boom"}'
      )
    ).toStrictEqual({
      path: "line 2",
      problem: "the model failed (boom): the run did not finish, so there is nothing to replay"
    })
  })
})
