/**
 * A conversation with `stream` runs through `Loop.stream`, each scripted reply cut into parts:
 * every shipped conversation ends exactly as it does unstreamed, with the same trace but for the
 * `streamed` marks, and a streamed trace captures into a scenario that replays streamed.
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Trace } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Capture, Conversation, ScenarioFile } from "../src/index.ts"

const folder = fileURLToPath(new URL("../../../apps/cli/scenarios/en/", import.meta.url))
const shipped = readdirSync(folder)
  .filter((name) => name.endsWith(".json"))
  .map((name) => `${folder}${name}`)

/** A conversation file of the shipped set, with `stream` set (or left out). */
const conversation = (path: string, stream?: unknown) => {
  const json = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>
  const parsed = ScenarioFile.parse(path, JSON.stringify(stream === undefined ? json : { ...json, stream }))
  if (Result.isFailure(parsed) || parsed.success.kind !== "conversation") throw new Error(`${path}: not a conversation`)
  return parsed.success
}

/** A run traced in memory: its verdict, and its events as JSON lines. */
const traced = (scenario: ScenarioFile.Conversation, path: string) =>
  Effect.gen(function* () {
    const memory = yield* Trace.memory
    const verdict = yield* Conversation.run(scenario, path).pipe(Effect.provideService(Trace.Trace, memory.trace))
    const lines = (yield* memory.events).map((event) => Trace.line(event))
    return { verdict, lines }
  })

const unmarked = (lines: ReadonlyArray<string>) => lines.map((line) => line.replace(',"streamed":true', ""))

describe("a streamed conversation", () => {
  it.effect("every shipped conversation ends as it does unstreamed, whatever the chunking, with the same trace", () =>
    Effect.gen(function* () {
      assert.isAbove(shipped.length, 10)
      for (const path of shipped) {
        const whole = yield* traced(conversation(path), path)
        for (const stream of [true, { textChars: 1, argumentChars: 1 }, { textChars: 3 }]) {
          const streamed = yield* traced(conversation(path, stream), path)
          assert.strictEqual(streamed.verdict.passed, whole.verdict.passed, `${path} ${JSON.stringify(stream)}`)
          assert.deepStrictEqual(streamed.verdict.outcome, whole.verdict.outcome, path)
          assert.deepStrictEqual(unmarked(streamed.lines), whole.lines, path)
          const replied = streamed.lines.filter((line) => line.includes('"type":"model.replied"'))
          assert.isTrue(replied.length > 0 && replied.every((line) => line.includes('"streamed":true')), path)
        }
        assert.isTrue(
          whole.lines.every((line) => !line.includes('"streamed"')),
          path
        )
      }
    })
  )

  it.effect("a streamed trace captures into a scenario that says stream: true and replays", () =>
    Effect.gen(function* () {
      const path = `${folder}salmorejo.json`
      const { lines } = yield* traced(conversation(path, true), path)
      const captured = yield* Capture.checked("streamed.jsonl", lines.join("\n"))
      assert.strictEqual(captured.stream, true)
      const parsed = ScenarioFile.parse("captured.json", JSON.stringify(captured))
      assert.isTrue(Result.isSuccess(parsed))
      if (Result.isSuccess(parsed) && parsed.success.kind === "conversation") {
        const verdict = yield* Conversation.run(parsed.success, "captured.json")
        assert.isTrue(verdict.passed, verdict.failures.map((f) => f.message).join("; "))
      }
      const unstreamed = yield* traced(conversation(path), path)
      const plain = yield* Capture.checked("plain.jsonl", unstreamed.lines.join("\n"))
      assert.isUndefined(plain.stream)
    })
  )

  it("stream settings that cannot be used are refused, naming the field", () => {
    const path = `${folder}salmorejo.json`
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ textChars: 0 }, "stream"],
      [{ argumentChars: 1.5 }, "stream"],
      ["yes", "stream"],
      [{ textChars: 2, chunk: 3 }, "stream"]
    ]
    for (const [stream, where] of cases) {
      const json = { ...(JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>), stream }
      const parsed = ScenarioFile.parse(path, JSON.stringify(json))
      assert.isTrue(Result.isFailure(parsed), JSON.stringify(stream))
      if (Result.isFailure(parsed)) assert.match(parsed.failure.path, new RegExp(`^${where}`), parsed.failure.message)
    }
  })
})
