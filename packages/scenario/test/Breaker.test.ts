/**
 * A conversation scenario pins the loop's repeated-call breaker: `breaker` runs the loop with it
 * (the shipped `repeated-call-tell` expects the catalogue's line, `repeated-call-stop` expects
 * `outcome.stop: "repeated_call"`), bad settings are refused at their JSON path, and a traced run
 * with a breaker captures into a scenario that keeps it and replays.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Trace } from "@agent-harness/executor"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Capture, Conversation, ScenarioFile } from "../src/index.ts"

const shipped = (name: string) => fileURLToPath(new URL(`../../../apps/cli/scenarios/en/${name}.json`, import.meta.url))

type Json = Record<string, unknown>

const json = (name: string): Json => JSON.parse(readFileSync(shipped(name), "utf8")) as Json

const decoded = (file: Json): ScenarioFile.Conversation => {
  const result = ScenarioFile.decode("s.json", file)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  if (result.success.kind !== "conversation") throw new Error("not a conversation")
  return result.success
}

const problem = (file: Json): string => {
  const result = ScenarioFile.decode("s.json", file)
  return Result.isFailure(result) ? `${result.failure.path}: ${result.failure.problem}` : "decoded"
}

describe("scenario files pin the repeated-call breaker", () => {
  it.effect("tell: the shipped scenario passes, and fails without its breaker at the turn that gets the line", () =>
    Effect.gen(function* () {
      const file = json("repeated-call-tell")
      const verdict = yield* Conversation.run(decoded(file), "tell.json")
      assert.deepStrictEqual(verdict.failures, [])
      assert.isTrue(verdict.passed)
      const { breaker: _, ...without } = file
      const off = yield* Conversation.run(decoded(without), "tell.json")
      assert.isFalse(off.passed)
      expect(off.failures[0]).toMatchObject({ kind: "divergence", turn: 3, tool_use_id: "r3" })
    })
  )

  it.effect("stop: the shipped scenario stops with repeated_call; expecting another stop fails the verdict", () =>
    Effect.gen(function* () {
      const file = json("repeated-call-stop")
      const verdict = yield* Conversation.run(decoded(file), "stop.json")
      assert.isTrue(verdict.passed, verdict.failures.map((f) => f.message).join("\n"))
      assert.strictEqual(verdict.outcome.stop, "repeated_call")
      const wrong = yield* Conversation.run(decoded({ ...file, outcome: { stop: "turn_cap" } }), "stop.json")
      expect(wrong.failures.map((f) => f.kind)).toEqual(["stop"])
    })
  )

  it("bad settings are refused at their JSON path", () => {
    const file = json("repeated-call-tell")
    expect(problem({ ...file, breaker: { after: 1, window: 5, action: "tell" } })).toBe(
      "breaker.after: expected a value greater than or equal to 2, got 1"
    )
    expect(problem({ ...file, breaker: { after: 3, window: 0, action: "tell" } })).toBe(
      "breaker.window: expected a value greater than or equal to 1, got 0"
    )
    expect(problem({ ...file, breaker: { after: 3, window: 5, action: "warn" } })).toMatch(/^breaker\.action: /)
    expect(problem({ ...file, breaker: { after: 3, window: 5 } })).toBe("breaker.action: missing")
    expect(problem({ ...file, breaker: { after: 3, window: 5, action: "tell", extra: 1 } })).toBe(
      "breaker.extra: unexpected field"
    )
  })

  it.effect("a traced run with a breaker captures into a scenario that keeps it and replays", () =>
    Effect.gen(function* () {
      for (const name of ["repeated-call-tell", "repeated-call-stop"]) {
        const file = json(name)
        const memory = yield* Trace.memory
        yield* Conversation.run(decoded(file), `${name}.json`).pipe(Effect.provideService(Trace.Trace, memory.trace))
        const text = (yield* memory.events).map(Trace.line).join("\n")
        const captured = yield* Capture.checked(`${name}.jsonl`, text)
        assert.deepStrictEqual(captured.breaker, file.breaker)
        assert.deepStrictEqual(captured.outcome, file.outcome)
      }
    })
  )

  it.effect("a trace that stops with repeated_call without a stopping breaker is refused at its stop line", () =>
    Effect.gen(function* () {
      const file = json("repeated-call-stop")
      const memory = yield* Trace.memory
      yield* Conversation.run(decoded(file), "stop.json").pipe(Effect.provideService(Trace.Trace, memory.trace))
      const lines = (yield* memory.events).map((event) => {
        if (event.type !== "run.started") return Trace.line(event)
        const { breaker: _, ...rest } = event
        return Trace.line(rest)
      })
      const refused = yield* Effect.flip(Capture.checked("stop.jsonl", lines.join("\n")))
      expect(refused.problem).toMatch(/^"repeated_call", but the start \(line \d+\) has no breaker set to stop$/)
      const stopLine = lines.findIndex((line) => line.startsWith(`{"type":"run.ended"`)) + 1
      expect(refused.path).toBe(`line ${stopLine}: stop`)
    })
  )
})
