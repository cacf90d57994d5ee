/**
 * A conversation scenario pins context compaction: `compaction` runs the loop with
 * `Compactor.make` (the default strategy), and a turn's `compacted` says what was elided or
 * dropped before that model call (nothing, without it). A run that compacts otherwise fails with
 * a divergence naming the call; `compacted` without `compaction` is refused at its JSON path.
 */
import { Trace } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Capture, Conversation, ScenarioFile } from "../src/index.ts"

type Json = Record<string, unknown>

const page = `${"lorem ipsum dolor sit amet ".repeat(60)}\n`

const read = (id: string) => ({ type: "tool_use", id, name: "read", input: { path: "page.txt" } })
const shown = (id: string) => [{ type: "tool_result", tool_use_id: id, is_error: false, content: { pattern: "lorem" } }]

/** Five reads of a 1,600-character page, then done, under a 1,500-token window. */
const file = (pins: Readonly<Record<number, Json>>): Json => ({
  format: 1,
  kind: "conversation",
  user: "Read the page five times, then say done.",
  files: { "page.txt": page },
  compaction: { window: 1500 },
  turns: [
    ...["c1", "c2", "c3", "c4", "c5"].map((id, i) => ({
      reply: [read(id)],
      expect: shown(id),
      ...(pins[i] === undefined ? {} : { compacted: pins[i] })
    })),
    { reply: [{ type: "text", text: "done" }], ...(pins[5] === undefined ? {} : { compacted: pins[5] }) }
  ],
  outcome: { stop: "end", text: "done" }
})

const decoded = (json: Json): ScenarioFile.Conversation => {
  const result = ScenarioFile.decode("compaction.json", json)
  if (Result.isFailure(result)) throw new Error(`${result.failure.path}: ${result.failure.problem}`)
  if (result.success.kind !== "conversation") throw new Error("not a conversation")
  return result.success
}

describe("scenario files pin compaction", () => {
  it.effect("the run compacts where the script says, with the marker, and passes; elsewhere it diverges", () =>
    Effect.gen(function* () {
      // Find where the default strategy compacts this run: the trace says so.
      const memory = yield* Trace.memory
      const probe = yield* Conversation.run(decoded(file({})), "compaction.json").pipe(
        Effect.provideService(Trace.Trace, memory.trace)
      )
      const compactions = (yield* memory.entries).filter(
        (e) => e.type === "context.compacted"
      ) as unknown as ReadonlyArray<{
        readonly turn: number
        readonly removed: ReadonlyArray<{ readonly kind: string; readonly tool_use_ids: ReadonlyArray<string> }>
      }>
      assert.isAbove(compactions.length, 0)
      // Without pins, every compaction is a divergence naming its call.
      assert.isFalse(probe.passed)
      assert.deepStrictEqual(
        probe.failures.map((f): ReadonlyArray<unknown> => [f.kind, f.turn]),
        compactions.map((c): ReadonlyArray<unknown> => ["divergence", c.turn])
      )
      assert.include(probe.failures[0]?.message ?? "", "compaction did not do what the script pins")
      // Pinned as it happens: it passes.
      const pins: Record<number, Json> = {}
      for (const c of compactions) {
        const elided = c.removed.filter((r) => r.kind === "elided").flatMap((r) => r.tool_use_ids)
        const dropped = c.removed.filter((r) => r.kind === "dropped").flatMap((r) => r.tool_use_ids)
        pins[c.turn - 1] = { ...(elided.length === 0 ? {} : { elided }), ...(dropped.length === 0 ? {} : { dropped }) }
      }
      assert.isTrue(Object.values(pins).some((p) => Array.isArray(p.elided) && p.elided.length > 0))
      const pinned = yield* Conversation.run(decoded(file(pins)), "compaction.json")
      assert.deepStrictEqual(pinned.failures, [])
      assert.isTrue(pinned.passed)
      // A pin one call late: two divergences, at the call it compacted and the call it pinned.
      const first = compactions[0]?.turn ?? 1
      const late = { ...pins, [first]: pins[first - 1] ?? {} }
      delete late[first - 1]
      const wrong = yield* Conversation.run(decoded(file(late)), "compaction.json")
      assert.isFalse(wrong.passed)
      assert.includeMembers(
        wrong.failures.map((f) => f.turn),
        [first]
      )
    })
  )

  it.effect("capture writes the compaction and each turn's compacted pin, and the capture replays", () =>
    Effect.gen(function* () {
      const memory = yield* Trace.memory
      const settings = { window: 1500, threshold: 0.7 }
      const run = { ...file({}), compaction: settings }
      yield* Conversation.run(decoded(run), "compaction.json").pipe(Effect.provideService(Trace.Trace, memory.trace))
      const lines = (yield* memory.entries).map((entry) => Trace.line(entry))
      const compactions = lines
        .map((l) => JSON.parse(l) as { type: string; turn: number })
        .filter((e) => e.type === "context.compacted")
      assert.isAbove(compactions.length, 0)
      const captured = yield* Capture.checked("t.jsonl", lines.join("\n"))
      assert.deepStrictEqual(captured.compaction, settings)
      const turns = captured.turns as ReadonlyArray<{ readonly compacted?: Json }>
      assert.deepStrictEqual(
        turns.flatMap((t, i) => (t.compacted === undefined ? [] : [i + 1])),
        compactions.map((c) => c.turn)
      )
      const replayed = yield* Conversation.run(decoded(captured as Json), "captured.json")
      assert.deepStrictEqual(replayed.failures, [])
      // A trace whose compaction names a call past its replies is refused at that line.
      const extra = JSON.stringify({
        ...JSON.parse(lines.find((l) => l.includes("context.compacted")) ?? "{}"),
        turn: 99
      })
      const refused = yield* Effect.flip(Capture.checked("t.jsonl", [...lines, extra].join("\n")))
      assert.include(refused.problem, "a compaction before model call 99")
      assert.strictEqual(refused.path, `line ${lines.length + 1}: turn`)
    })
  )

  it("compacted without compaction is refused at its JSON path; bad settings too", () => {
    const problem = (json: Json) => {
      const result = ScenarioFile.decode("compaction.json", json)
      return Result.isFailure(result) ? `${result.failure.path}: ${result.failure.problem}` : "decoded"
    }
    const { compaction: _none, ...without } = file({ 1: { elided: ["c1"] } })
    assert.match(
      problem(without),
      /^turns\[1\]\.compacted: it pins what compaction did before this call, and there is none/
    )
    assert.match(problem({ ...file({}), compaction: { window: 0 } }), /^compaction\.window: /)
    assert.match(problem({ ...file({}), compaction: { window: 10, threshold: 2 } }), /^compaction\.threshold: /)
  })
})
