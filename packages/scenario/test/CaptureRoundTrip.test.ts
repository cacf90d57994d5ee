/**
 * `harness capture` never writes a scenario that cannot replay: every trace below, a real one
 * edited the ways a hand-written, foreign or corrupted trace can be, either captures into a
 * scenario that runs and passes, or is refused naming the line (and the JSON path in it).
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Trace } from "@agent-harness/executor"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as OldTraces from "../../executor/test/fixtures/oldTraces.ts"
import { Capture, Conversation, ScenarioFile, Variant } from "../src/index.ts"

const shipped = (path: string) => fileURLToPath(new URL(`../../../apps/cli/scenarios/${path}`, import.meta.url))

type Event = Record<string, unknown>

/** A run of a shipped conversation, traced in memory: its events as JSON objects. */
const recorded = (path: string, variant: Variant.Variant = Variant.fixed) =>
  Effect.gen(function* () {
    const parsed = ScenarioFile.parse(path, readFileSync(path, "utf8"))
    if (Result.isFailure(parsed) || parsed.success.kind !== "conversation")
      throw new Error(`${path}: not a conversation`)
    const memory = yield* Trace.memory
    yield* Conversation.run(parsed.success, path, { variant }).pipe(Effect.provideService(Trace.Trace, memory.trace))
    return (yield* memory.events).map((event) => JSON.parse(Trace.line(event)) as Event)
  })

/** The line (from 1) of the n-th event of a type, and the event. */
const find = (events: ReadonlyArray<Event>, type: string, n = 0, key?: string): [number, Event] => {
  const matching = events.flatMap((e, i) =>
    e.type === type && (key === undefined || e.key === key) ? [[i + 1, e] as [number, Event]] : []
  )
  const found = matching[n]
  if (found === undefined) throw new Error(`no ${type} #${n}`)
  return found
}

/** Captures (with the replay check), then, if captured, decodes and runs the scenario. */
const roundTrip = (events: ReadonlyArray<Event> | string) =>
  Effect.gen(function* () {
    const text = typeof events === "string" ? events : events.map((e) => JSON.stringify(e)).join("\n")
    const captured = yield* Effect.result(Capture.checked("t.jsonl", text))
    if (Result.isFailure(captured)) return { refused: `${captured.failure.path}: ${captured.failure.problem}` }
    const parsed = ScenarioFile.parse("captured.json", JSON.stringify(captured.success))
    if (Result.isFailure(parsed) || parsed.success.kind !== "conversation") return { written: "an invalid scenario" }
    const variants: Record<string, Variant.Variant> = Variant.byName
    const variant = text.includes(`"key":"variant","value":"before"`) ? variants.before : Variant.fixed
    const verdict = yield* Conversation.run(parsed.success, "captured.json", { variant })
    return verdict.passed ? { replays: true } : { written: verdict.failures.map((f) => f.message).join("; ") }
  })

const salmorejo = shipped("en/salmorejo.json")

describe("capture → run: replays, or refused naming the line", () => {
  it.effect("the trace as recorded replays; so does one recorded under the before variant", () =>
    Effect.gen(function* () {
      expect(yield* roundTrip(yield* recorded(salmorejo))).toEqual({ replays: true })
      const incident = fileURLToPath(new URL("../../../docs/guide/incident.json", import.meta.url))
      const before = yield* recorded(incident, Variant.before)
      expect(yield* roundTrip(before)).toEqual({ replays: true })
      // Recorded under before, it would not replay under fixed: the variant is part of the trace.
      const relabelled = before.map((e) => (e.key === "variant" ? { ...e, value: "fixed" } : e))
      expect((yield* roundTrip(relabelled)).refused).toMatch(
        /^line \d+: the captured scenario does not replay under the variant 'fixed': turn 1, tool_use_id c1: a different observation/
      )
    })
  )

  it.effect("every edit of a real trace: refused where the trace is at fault, or replays", () =>
    Effect.gen(function* () {
      const base = yield* recorded(salmorejo)
      const [startLine, start] = find(base, "run.started")
      const [reply2Line, reply2] = find(base, "model.replied", 1)
      const [obsLine, obs] = find(base, "call.answered", 1)
      const [stopLine, stop] = find(base, "run.ended")
      const [filesLine] = find(base, "trace.annotated", 0, "files")
      const edit = (line: number, event: Event) => base.map((e, i) => (i + 1 === line ? event : e))
      const without = (line: number) => base.filter((_, i) => i + 1 !== line)
      const withTools = (value: unknown) => [
        ...base.slice(0, 3),
        { type: "trace.annotated", key: "tools", value },
        ...base.slice(3)
      ]
      const result = obs.result as Event
      const cases: ReadonlyArray<readonly [string, ReadonlyArray<Event> | string, RegExp | "replays"]> = [
        [
          "max_turns 0",
          edit(startLine, { ...start, max_turns: 0 }),
          new RegExp(`^line ${startLine}: max_turns: must be at least 1, got 0`)
        ],
        [
          "max_turns -3",
          edit(startLine, { ...start, max_turns: -3 }),
          new RegExp(`^line ${startLine}: max_turns: must be at least 1`)
        ],
        [
          "max_turns below the replies",
          edit(startLine, { ...start, max_turns: 2 }),
          new RegExp(`^line ${find(base, "model.replied", 2)[0]}: turn: turn 3 is past max_turns \\(2`)
        ],
        [
          "a tools annotation that is a string",
          withTools("catalogo"),
          /^line 4: value: tools must be an object of scripted tools, got "catalogo"/
        ],
        ["a tools annotation that is a list", withTools([1]), /^line 4: value: tools must be an object/],
        ["a tools annotation that is null", withTools(null), /^line 4: value: tools must be an object/],
        ["a scripted tool without results", withTools({ x: { results: [] } }), /^line 4: value\.x\.results: /],
        [
          "a scripted tool result of the wrong shape",
          withTools({ x: { results: [{ okay: "1" }] } }),
          /^line 4: value\.x\.results\[0\]/
        ],
        [
          "an observation for another call",
          edit(obsLine, { ...obs, result: { ...result, tool_use_id: "t9" } }),
          new RegExp(
            `^line ${obsLine}: result\\.tool_use_id: expected 't2' \\(turn 2's calls in order: t2, t3\\), got 't9'`
          )
        ],
        [
          "observations out of order",
          edit(obsLine, { ...obs, result: { ...result, tool_use_id: "t3" } }),
          new RegExp(`^line ${obsLine}: result\\.tool_use_id: expected 't2'`)
        ],
        [
          "an observation missing",
          without(obsLine + 1),
          new RegExp(`^line ${reply2Line}: reply: call 't3' of turn 2 has no observation`)
        ],
        [
          "an observation too many",
          [...base.slice(0, obsLine + 1), base[obsLine] as Event, ...base.slice(obsLine + 1)],
          new RegExp(`^line ${obsLine + 2}: result\\.tool_use_id: 't3' is one observation too many`)
        ],
        [
          "an observation before its reply",
          edit(obsLine, { ...obs, turn: 3 }),
          new RegExp(`^line ${obsLine}: turn: an observation for turn 3, but the last reply is turn 2`)
        ],
        [
          "an observation whose content was edited",
          edit(obsLine, { ...obs, result: { ...result, content: "edited" } }),
          new RegExp(
            `^line ${obsLine}: the captured scenario does not replay under the variant 'fixed': turn 2, tool_use_id t2: a different observation`
          )
        ],
        [
          "a reply calling a tool the harness does not have",
          edit(reply2Line, {
            ...reply2,
            reply: [
              { type: "tool_use", id: "t2", name: "mine", input: {} },
              ...(reply2.reply as Array<unknown>).slice(1)
            ]
          }),
          new RegExp(`^line ${obsLine}: the captured scenario does not replay`)
        ],
        [
          "a stop that counts other turns",
          edit(stopLine, { ...stop, turns: 7 }),
          new RegExp(`^line ${stopLine}: turns: 7, but the trace has 4 model reply`)
        ],
        [
          "a stop whose text is not the last reply's",
          edit(stopLine, { ...stop, text: "something else" }),
          new RegExp(`^line ${stopLine}: text: "something else", but the last reply's text is`)
        ],
        [
          "a stop by time budget",
          edit(stopLine, { ...stop, stop: "time_budget" }),
          new RegExp(`^line ${stopLine}: stop: expected "end" \\| "turn_cap"`)
        ],
        [
          "a turn_cap stop before the cap",
          edit(stopLine, { ...stop, stop: "turn_cap" }),
          new RegExp(`^line ${stopLine}: stop: "turn_cap" after 4 turn\\(s\\), but max_turns is 10`)
        ],
        [
          "files that are not text",
          edit(filesLine, { type: "trace.annotated", key: "files", value: { "a.txt": 1 } }),
          new RegExp(`^line ${filesLine}: value: files must map paths to contents`)
        ],
        [
          "an unknown variant",
          edit(1, { type: "trace.annotated", key: "variant", value: "mine" }),
          /^line 1: value: recorded under the variant 'mine', which this harness does not know/
        ],
        [
          "a duplicate key in a line",
          base
            .map((e) => JSON.stringify(e))
            .join("\n")
            .replace(`{"type":"run.ended",`, `{"type":"run.ended","type":"run.ended",`),
          new RegExp(`^line ${stopLine}: type: duplicate key "type"`)
        ],
        ["no stop", without(stopLine), /^\(trace\): no stop event/],
        [
          "lines ending in CRLF, and a trailing blank line",
          `${base.map((e) => JSON.stringify(e)).join("\r\n")}\r\n\r\n`,
          "replays"
        ]
      ]
      for (const [name, trace, expected] of cases) {
        const outcome = yield* roundTrip(trace)
        if (expected === "replays") expect([name, outcome]).toEqual([name, { replays: true }])
        else expect([name, outcome.refused ?? outcome]).toEqual([name, expect.stringMatching(expected)])
      }
    })
  )
})

describe("capture and the events the loop does not replay", () => {
  it.effect("an edge's event and a plan session beside the run are skipped: the same scenario, and it replays", () =>
    Effect.gen(function* () {
      const base = yield* recorded(salmorejo)
      const [callLine] = find(base, "call.started")
      const decided = { type: "permission.decided", tool_use_id: "t1", name: "read", decision: "allow", allowed: true }
      const session = [
        { type: "session.started", goal: "g" },
        { type: "plan.created", revision: 0, plan: [] },
        { type: "session.finished", status: "completed", reason: "goal_met", session_id: "s" }
      ]
      const mixed = [...base.slice(0, callLine), decided, ...base.slice(callLine), ...session]
      const text = (events: ReadonlyArray<Event>) => events.map((e) => JSON.stringify(e)).join("\n")
      expect(Capture.capture("t.jsonl", text(mixed))).toStrictEqual(Capture.capture("t.jsonl", text(base)))
      expect(yield* roundTrip(mixed)).toEqual({ replays: true })
    })
  )
})

describe("capture reads the traces written before the one event grammar", () => {
  it.effect(
    "an old trace (start, call, observation, stop...) captures into the scenario today's trace gives, and replays",
    () =>
      Effect.gen(function* () {
        for (const [name, file, variant] of [
          ["salmorejo.jsonl", salmorejo, Variant.fixed],
          [
            "incident-before.jsonl",
            fileURLToPath(new URL("../../../docs/guide/incident.json", import.meta.url)),
            Variant.before
          ]
        ] as const) {
          const old = Capture.capture(name, OldTraces.text(name))
          assert(Result.isSuccess(old), `${name}: ${Result.isFailure(old) ? old.failure.message : ""}`)
          const today = (yield* recorded(file, variant)).map((e) => JSON.stringify(e)).join("\n")
          expect(today).not.toContain('"type":"observation"')
          expect(old.success).toStrictEqual(Result.getOrThrow(Capture.capture(name, today)))
          expect(yield* roundTrip(OldTraces.text(name))).toEqual({ replays: true })
        }
      })
  )
})
