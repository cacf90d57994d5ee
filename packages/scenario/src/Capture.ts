/**
 * From a recorded trace to a regression test: `capture` turns the JSON Lines trace of a
 * conversation into a `conversation` scenario that replays it — the same replies, and before
 * each next reply the exact observations the model was shown — and passes as is. Edit an
 * expected observation to what the contract says, and the scenario fails until the harness is
 * fixed.
 *
 * @since 0.1.0
 */
import { Trace } from "@agent-harness/executor"
import { Result, SchemaParser } from "effect"
import { annotations } from "./Conversation.ts"
import { firstProblem, InvalidScenario, parseOptions } from "./ScenarioFile.ts"

const decodeEvent = SchemaParser.decodeUnknownResult(Trace.Event)

type Event = Trace.Event

const parseLines = (
  file: string,
  text: string
): Result.Result<ReadonlyArray<readonly [number, Event]>, InvalidScenario> => {
  const events: Array<readonly [number, Event]> = []
  const lines = text.split("\n")
  for (const [i, raw] of lines.entries()) {
    const line = i + 1
    if (raw.trim() === "") continue
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      return Result.fail(new InvalidScenario({ file, path: `line ${line}`, problem: `invalid JSON: ${message}` }))
    }
    const decoded = decodeEvent(json, parseOptions)
    if (Result.isFailure(decoded)) {
      const { path, problem } = firstProblem(decoded.failure)
      return Result.fail(new InvalidScenario({ file, path: `line ${line}: ${path}`, problem }))
    }
    events.push([line, decoded.success])
  }
  return Result.succeed(events)
}

const isRecordOfStrings = (u: unknown): u is Record<string, string> =>
  typeof u === "object" &&
  u !== null &&
  !Array.isArray(u) &&
  Object.values(u as Record<string, unknown>).every((v) => typeof v === "string")

/**
 * A captured scenario, as the JSON of a `conversation` scenario file.
 *
 * @since 0.1.0
 */
export interface Captured extends Readonly<Record<string, unknown>> {
  readonly format: 1
  readonly kind: "conversation"
  readonly turns: ReadonlyArray<{ readonly reply: ReadonlyArray<unknown>; readonly expect?: ReadonlyArray<unknown> }>
}

/**
 * Turns a trace's text into a conversation scenario (as JSON), or says which line is wrong.
 *
 * @since 0.1.0
 */
export const capture = (file: string, text: string): Result.Result<Captured, InvalidScenario> => {
  const parsed = parseLines(file, text)
  if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
  const fail = (line: number | string, problem: string) =>
    Result.fail(new InvalidScenario({ file, path: typeof line === "number" ? `line ${line}` : line, problem }))
  let locale: unknown = "en"
  let files: unknown = {}
  let finalFiles: unknown
  let tools: unknown
  let start: { readonly line: number; readonly event: Extract<Event, { type: "start" }> } | undefined
  let stop: Extract<Event, { type: "stop" }> | undefined
  const turns: Array<{ reply: ReadonlyArray<unknown>; expect?: Array<Record<string, unknown>> }> = []
  for (const [line, event] of parsed.success) {
    switch (event.type) {
      case "annotation":
        if (event.key === annotations.locale) {
          if (event.value !== "en" && event.value !== "es") return fail(line, `locale must be "en" or "es"`)
          locale = event.value
        } else if (event.key === annotations.files || event.key === annotations.finalFiles) {
          if (!isRecordOfStrings(event.value)) return fail(line, `${event.key} must map paths to contents`)
          if (event.key === annotations.files) files = event.value
          else finalFiles = event.value
        } else if (event.key === annotations.tools) {
          tools = event.value
        }
        break
      case "start":
        if (start !== undefined) return fail(line, `a second start (the first is on line ${start.line})`)
        start = { line, event }
        break
      case "model.request":
        break
      case "model.reply":
        if (start === undefined) return fail(line, "a model reply before the start")
        if (event.turn !== turns.length + 1) return fail(line, `turn ${event.turn}, expected turn ${turns.length + 1}`)
        turns.push({ reply: event.reply })
        break
      case "call":
        break
      case "observation": {
        const turn = turns[event.turn - 1]
        if (turn === undefined) return fail(line, `an observation for turn ${event.turn}, which has no reply`)
        turn.expect = [...(turn.expect ?? []), event.result]
        break
      }
      case "model.failed":
        return fail(line, `the model failed (${event.message}): the run did not finish, so there is nothing to replay`)
      case "stop":
        stop = event
        break
    }
  }
  if (start === undefined) return fail("(trace)", "no start event: not a trace of the loop")
  if (stop === undefined) return fail("(trace)", "no stop event: the run did not finish")
  const opening = start.event.messages
  const system = opening.filter((m) => m.role === "system")
  const user = opening.filter((m) => m.role === "user")
  const first = user[0]
  if (
    system.length > 1 ||
    user.length > 1 ||
    opening.some((m) => m.role === "assistant") ||
    (first !== undefined && typeof first.content !== "string")
  ) {
    return fail(
      `line ${start.line}`,
      "messages: a conversation scenario opens with at most one system and one user text message"
    )
  }
  for (const [i, turn] of turns.entries()) {
    const calls = turn.reply.filter(
      (b) => typeof b === "object" && b !== null && (b as { type?: unknown }).type === "tool_use"
    )
    if (calls.length > 0 && turn.expect === undefined) turn.expect = []
    if (calls.length === 0 && turn.expect !== undefined)
      return fail("(trace)", `turn ${i + 1} has observations but no tool_use`)
  }
  const systemText = system[0]?.content
  return Result.succeed({
    format: 1,
    kind: "conversation",
    name: `captured from ${file.split(/[\\/]/).pop() ?? file}`,
    locale,
    ...(typeof systemText === "string" ? { system: systemText } : {}),
    ...(first !== undefined && typeof first.content === "string" ? { user: first.content } : {}),
    files,
    ...(tools === undefined ? {} : { tools }),
    maxTurns: start.event.max_turns,
    turns,
    outcome: {
      stop: stop.stop,
      ...(stop.text === undefined ? {} : { text: stop.text }),
      ...(finalFiles === undefined ? {} : { files: finalFiles })
    }
  })
}
