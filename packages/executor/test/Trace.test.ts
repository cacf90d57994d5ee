/**
 * Tracing never changes the outcome of a run: an event JSON cannot hold is still written, as a
 * line that decodes, with the unencodable value replaced by a marked rendering; a write that
 * fails stops the trace, is logged, and the run ends as it would have.
 */
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { Loop, Message, Trace } from "../src/index.ts"
import { linesOf, memoryFiles } from "./fixtures/memoryFiles.ts"
import { scripted } from "./scripted.ts"

const { text, toolUse } = Message

const Read = Tool.make("read", {
  description: "Reads a file",
  parameters: Schema.Struct({ path: Schema.String }),
  run: ({ path }) => `contents of ${path}`
})
const toolset = Toolset.make(Read)
const opening: ReadonlyArray<Message.Message> = [Message.user("Read a.txt")]

const decodeEvent = Schema.decodeUnknownSync(Trace.Event)

const decodedLines = linesOf(Trace.Event)

const cyclic = (): Record<string, unknown> => {
  const value: Record<string, unknown> = { path: "a.txt" }
  value.self = value
  return value
}

/** Inputs JSON cannot hold: the calls are answered (not executed: unexpected field) all the same. */
const hostileInputs: ReadonlyArray<readonly [string, unknown, string]> = [
  ["a cyclic input", cyclic(), '{"path":"a.txt","self":"[Circular]"}'],
  ["a bigint in the input", { path: "a.txt", size: 10n }, '{"path":"a.txt","size":10}'],
  ["an undefined input", undefined, "undefined"],
  [
    "an input with a throwing getter",
    {
      get path(): string {
        throw new Error("getter boom")
      }
    },
    '{"path":"[Unreadable: getter boom]"}'
  ]
]

/** Runs the loop over a reply with the given input, with and without a jsonl trace. */
const runBoth = (input: unknown) =>
  Effect.gen(function* () {
    const reply = [text("reading"), toolUse("c1", "read", input)]
    const plain = yield* Loop.run({ toolset, messages: opening }).pipe(
      Effect.provide(scripted([reply, [text("done")]]).layer)
    )
    const fs = memoryFiles()
    const traced = yield* Loop.run({ toolset, messages: opening }).pipe(
      Effect.provide(
        Layer.merge(scripted([reply, [text("done")]]).layer, Layer.provide(Trace.jsonl("t.jsonl"), fs.layer))
      )
    )
    return { plain, traced, lines: decodedLines(fs.files.get("t.jsonl")) }
  })

describe("Trace.jsonl never changes the outcome", () => {
  it.effect.each(hostileInputs)(
    "%s: same result with and without the trace; every line decodes",
    ([_n, input, rendering]) =>
      Effect.gen(function* () {
        const { plain, traced, lines } = yield* runBoth(input)
        expect(traced.stop).toBe("end")
        expect(traced.text).toBe(plain.text)
        expect(traced.turns.map((t) => t.outcomes.map((o) => o.content))).toEqual(
          plain.turns.map((t) => t.outcomes.map((o) => o.content))
        )
        expect(lines.map((e) => e.type)).toEqual([
          "run.started",
          "model.requested",
          "model.replied",
          "call.started",
          "call.answered",
          "model.requested",
          "model.replied",
          "run.ended"
        ])
        const marked = { [Trace.unencodable]: rendering }
        const reply = lines[2]
        assert(reply?.type === "model.replied")
        expect(reply.reply[1]).toEqual({ type: "tool_use", id: "c1", name: "read", input: marked })
        const call = lines[3]
        assert(call?.type === "call.started")
        expect(call.input).toEqual(marked)
      })
  )

  it.effect("an unknown block type: the same ModelError with and without the trace; the trace says why", () =>
    Effect.gen(function* () {
      const reply = [{ type: "image", source: 1n }] as unknown as ReadonlyArray<Message.ReplyBlock>
      const plain = yield* Effect.flip(
        Loop.run({ toolset, messages: opening }).pipe(Effect.provide(scripted([reply]).layer))
      )
      const fs = memoryFiles()
      const traced = yield* Effect.flip(
        Loop.run({ toolset, messages: opening }).pipe(
          Effect.provide(Layer.merge(scripted([reply]).layer, Layer.provide(Trace.jsonl("t.jsonl"), fs.layer)))
        )
      )
      expect(traced).toEqual(plain)
      expect(traced.message).toBe('model call 1: block 1 has an unknown type: "image"')
      expect(decodedLines(fs.files.get("t.jsonl")).at(-1)).toEqual({
        type: "model.failed",
        turn: 1,
        message: 'block 1 has an unknown type: "image"'
      })
    })
  )

  it.effect("a value JSON holds is written as it is", () =>
    Effect.gen(function* () {
      const { lines } = yield* runBoth({ path: "a.txt", n: [1, null] })
      const call = lines[3]
      assert(call?.type === "call.started")
      expect(call.input).toEqual({ path: "a.txt", n: [1, null] })
    })
  )

  it.effect("a write that fails stops the trace, and the run ends as it would have", () =>
    Effect.gen(function* () {
      // The first write empties the file; the fourth is the model's first reply.
      const fs = memoryFiles(4)
      const model = scripted([[toolUse("c1", "read", { path: "a" })], [text("done")]])
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(
        Effect.provide(Layer.merge(model.layer, Layer.provide(Trace.jsonl("t.jsonl"), fs.layer)))
      )
      expect([result.stop, result.text]).toEqual(["end", "done"])
      expect(decodedLines(fs.files.get("t.jsonl")).map((e) => e.type)).toEqual(["run.started", "model.requested"])
    })
  )
})

describe("Trace.line", () => {
  it("an annotation whose value JSON cannot hold", () => {
    const event = decodeEvent(JSON.parse(Trace.line({ type: "trace.annotated", key: "files", value: cyclic() })))
    expect(event).toEqual({
      type: "trace.annotated",
      key: "files",
      value: { [Trace.unencodable]: '{"path":"a.txt","self":"[Circular]"}' }
    })
  })

  it("an event that does not fit the schema at all is still a line that decodes", () => {
    const bogus = { type: "model.replied", turn: 1, reply: [{ type: "image", data: 1n }] } as unknown as Trace.Event
    const event = decodeEvent(JSON.parse(Trace.line(bogus)))
    assert(event.type === "trace.annotated")
    expect(event.key).toBe(Trace.unencodable)
    expect(event.value).toMatchObject({
      event_type: "model.replied",
      rendering: '{"type":"model.replied","turn":1,"reply":[{"type":"image","data":1}]}'
    })
  })
})

describe("a trace service that throws or dies", () => {
  it.effect("is skipped: the run ends as it would have", () =>
    Effect.gen(function* () {
      const throwing: Trace.Trace = {
        record: () => {
          throw new Error("trace bug")
        }
      }
      const dying: Trace.Trace = { record: () => Effect.die("trace died") }
      for (const trace of [throwing, dying]) {
        const model = scripted([[toolUse("c1", "read", { path: "a" })], [text("done")]])
        const result = yield* Loop.run({ toolset, messages: opening }).pipe(
          Effect.provide(model.layer),
          Effect.provideService(Trace.Trace, trace)
        )
        expect([result.stop, result.text]).toEqual(["end", "done"])
      }
    })
  )
})

describe("events declared outside the core", () => {
  const Pinged = Trace.declare(
    Schema.Struct({ type: Schema.Literal("ping.sent"), to: Schema.String, count: Schema.Int })
  )

  it.effect("recorded into the same trace, encoded by their Schema; memory keeps them in entries, not events", () =>
    Effect.gen(function* () {
      const memory = yield* Trace.memory
      yield* Effect.gen(function* () {
        yield* Trace.record({ type: "model.requested", turn: 1, messages: 1 })
        yield* Pinged.record({ type: "ping.sent", to: "a", count: 2 })
        yield* Pinged.record({ type: "ping.sent", to: "b", count: 1.5 })
      }).pipe(Effect.provideService(Trace.Trace, memory.trace))
      const entries = yield* memory.entries
      expect(entries.slice(0, 2)).toStrictEqual([
        { type: "model.requested", turn: 1, messages: 1 },
        { type: "ping.sent", to: "a", count: 2 }
      ])
      // One its Schema refuses is the trace's ~unencodable note, naming its type and why.
      expect(entries[2]).toMatchObject({
        type: "trace.annotated",
        key: Trace.unencodable,
        value: { event_type: "ping.sent", error: expect.stringContaining("Expected an integer") }
      })
      expect((yield* memory.events).map((e) => e.type)).toStrictEqual(["model.requested", "trace.annotated"])
      expect(entries.filter(Pinged.is)).toHaveLength(1)
    })
  )

  it("a Custom event is written as the data it is; one JSON cannot hold, or that throws, is the note", () => {
    expect(JSON.parse(Trace.line({ type: "ping.sent", to: "a" }))).toStrictEqual({ type: "ping.sent", to: "a" })
    const cycle: { type: string; self?: unknown } = { type: "ping.sent" }
    cycle.self = cycle
    const throwing = Object.defineProperty({ type: "ping.sent" }, "to", {
      enumerable: true,
      get() {
        throw new Error("no reading me")
      }
    })
    for (const [event, why] of [
      [cycle, "circular"],
      [{ type: "ping.sent", n: 1n }, "BigInt"],
      [throwing, "no reading me"]
    ] as const) {
      const line = decodeEvent(JSON.parse(Trace.line(event)))
      assert(line.type === "trace.annotated")
      expect(line.key).toBe(Trace.unencodable)
      expect(line.value).toMatchObject({ event_type: "ping.sent", error: expect.stringMatching(new RegExp(why, "i")) })
    }
  })
})
