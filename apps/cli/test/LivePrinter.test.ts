/**
 * A streamed run printed as it happens (`Live`): a real `Loop.stream` over a model that writes
 * its reply in pieces. A turn that calls tools prints the lines the unstreamed transcript
 * (`Transcript.turn`) prints for it; text and reasoning come as they are written, escaped even
 * when a piece ends inside a character; a redacted reasoning block is named; the last turn's
 * text is on the screen before the run ends.
 */
import { Loop, Message, Model, type ReplyPart } from "@agent-harness/executor"
import { Report } from "@agent-harness/scenario"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import { TestConsole } from "effect/testing"
import * as Live from "../src/printing/Live.ts"
import * as Transcript from "../src/printing/Transcript.ts"

const Read = Tool.make("read", {
  description: "Reads a file",
  parameters: Schema.Struct({ path: Schema.String }),
  run: ({ path }) => (path === "list.txt" ? "bread\nmilk\n" : Effect.fail(`no file ${path}`)),
  failureMessage: (error) => error
})

const parts = (...list: ReadonlyArray<ReplyPart.Part>) => Stream.fromIterable(list)

/** A model answering each request with the next of `turns`. */
const streaming = (turns: ReadonlyArray<Stream.Stream<ReplyPart.Part, Model.Failure>>) => {
  const queue = [...turns]
  return Model.layer(
    Model.fromStream(() =>
      Stream.suspend(() => queue.shift() ?? Stream.fail({ _tag: "ScriptExhausted", message: "no reply left" }))
    )
  )
}

/** Reasoning and text in pieces (one cut inside a surrogate pair, one after an ESC), then two calls. */
const calling = () =>
  parts(
    { type: "reasoning-delta", text: "The li" },
    { type: "reasoning-delta", text: "st first." },
    { type: "block-ended" },
    { type: "text-delta", text: "Reading \ud83d" },
    { type: "text-delta", text: "\ude00 \u001b" },
    { type: "text-delta", text: "[2J now." },
    { type: "block-ended" },
    { type: "call-started", id: "r1", name: "read" },
    { type: "call-delta", id: "r1", delta: '{"path":"li' },
    { type: "call-delta", id: "r1", delta: 'st.txt"}' },
    { type: "call-ended", id: "r1", input: { path: "list.txt" } },
    { type: "call-started", id: "r2", name: "read" },
    { type: "call-ended", id: "r2", input: { path: "gone.txt" } },
    { type: "finish", finishReason: "tool-calls" }
  )

const ending = () =>
  parts(
    { type: "text-delta", text: "Bread " },
    { type: "text-delta", text: "and milk." },
    { type: "finish", finishReason: "stop" }
  )

/** Runs the stream printed by `Live` (plain style), keeping what it wrote and the events. */
const printed = (turns: ReadonlyArray<Stream.Stream<ReplyPart.Part, Model.Failure>>) =>
  Effect.gen(function* () {
    const writes: Array<string> = []
    const printer = Live.make("en", Report.plain, (text) => void writes.push(text))
    const seen: Array<{ readonly event: Loop.Event; readonly screen: string }> = []
    const result = yield* Loop.fold(
      Loop.stream({ toolset: Toolset.make(Read), messages: [Message.user("What is on my list?")] }).pipe(
        Stream.tap((event) =>
          Effect.andThen(
            printer.print(event),
            Effect.sync(() => seen.push({ event, screen: writes.join("") }))
          )
        )
      )
    ).pipe(Effect.provide(streaming(turns)))
    yield* printer.close
    return { screen: writes.join(""), writes, seen, result }
  })

describe("Live", () => {
  it.effect("a turn that calls tools prints the unstreamed transcript's lines for it", () =>
    Effect.gen(function* () {
      const { screen, result } = yield* printed([calling(), ending()])
      const first = result.turns[0]
      assert.isDefined(first)
      if (first === undefined) return
      yield* Transcript.turn(first, "en", Report.plain)
      const transcript = (yield* TestConsole.logLines).map(String).join("\n").split("\n")
      const lines = screen.split("\n")
      const turnOne = lines.slice(0, lines.indexOf("— turn 2 —") - 1)
      assert.deepStrictEqual(turnOne, transcript)
      assert.deepStrictEqual(transcript, [
        "",
        "— turn 1 —",
        "model thinks: The list first.",
        "model: Reading \ud83d\ude00 \\u001b[2J now.",
        'model calls r1 read({"path":"list.txt"})',
        'model calls r2 read({"path":"gone.txt"})',
        "the model is shown:",
        "  ok    r1: bread",
        "          milk",
        "  error r2: no file gone.txt"
      ])
      assert.deepStrictEqual(lines.slice(lines.indexOf("— turn 2 —")), ["— turn 2 —", "model: Bread and milk.", ""])
    }).pipe(Effect.provide(TestConsole.layer))
  )

  it.effect("text is on the screen as each piece comes, before the turn ends", () =>
    Effect.gen(function* () {
      const { seen } = yield* printed([ending()])
      const atFirstDelta = seen.find((s) => s.event.type === "text.delta")
      assert.strictEqual(atFirstDelta?.screen, "\n— turn 1 —\nmodel: Bread ")
      const atTurnEnd = seen.find((s) => s.event.type === "turn.ended")
      assert.strictEqual(atTurnEnd?.screen, "\n— turn 1 —\nmodel: Bread and milk.\n")
    })
  )

  it.effect("a piece that ends inside a character waits for the rest; a redacted reasoning is named", () =>
    Effect.gen(function* () {
      const { seen, screen } = yield* printed([
        parts(
          { type: "reasoning-delta", text: "" },
          { type: "block-ended", provider_metadata: { anthropic: { redactedData: "abc" } } },
          { type: "text-delta", text: "bidi \u202e and \ud83d" },
          { type: "text-delta", text: "\ude00" },
          { type: "finish", finishReason: "stop" }
        )
      ])
      const deltas = seen.filter((s) => s.event.type === "text.delta")
      assert.strictEqual(deltas[0]?.screen, "\n— turn 1 —\nmodel: bidi \\u202e and ")
      assert.strictEqual(deltas[1]?.screen, "\n— turn 1 —\nmodel: bidi \\u202e and \ud83d\ude00")
      assert.notInclude(screen, "\u202e")
      assert.include(screen, "model thinks: (redacted)\n")
    })
  )

  it.effect("the ANSI style dims reasoning piece by piece and leaves text undimmed", () =>
    Effect.gen(function* () {
      const writes: Array<string> = []
      const printer = Live.make("es", Report.ansi, (text) => void writes.push(text))
      yield* printer.print({ type: "reasoning.delta", turn: 1, text: "hm" })
      yield* printer.print({ type: "text.delta", turn: 1, text: "hola" })
      yield* printer.close
      assert.deepStrictEqual(writes, [
        Report.ansi.dim("modelo piensa: "),
        Report.ansi.dim("hm"),
        "\n",
        "modelo: ",
        "hola",
        "\n"
      ])
    })
  )
})
