/**
 * The loop's boundary: invalid options are a typed `InvalidOption` before anything runs; a
 * reply that is not a list of blocks, a tool call without an id, or a model that fails with
 * something that is not a failure (or dies) is a typed `ModelError` naming the turn. Never a
 * defect.
 */
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { Loop, Message, Model, Trace } from "../src/index.ts"
import { scripted } from "./scripted.ts"

const { text, toolUse, toolResult } = Message

const Read = Tool.make("read", {
  description: "Reads a file",
  parameters: Schema.Struct({ path: Schema.String }),
  run: ({ path }) => `contents of ${path}`
})
const toolset = Toolset.make(Read)
const opening: ReadonlyArray<Message.Message> = [Message.user("Read a.txt")]

/** A model whose reply, turn by turn, is whatever is given: valid or not. */
const raw = (replies: ReadonlyArray<() => unknown>) => {
  let turn = 0
  return Model.layer(
    Model.fromReply(() => {
      const next = replies[turn++]
      return (next === undefined ? Effect.succeed([]) : next()) as Effect.Effect<
        ReadonlyArray<Message.ReplyBlock>,
        Model.Failure
      >
    })
  )
}

const ok = (reply: unknown) => () => Effect.succeed(reply)

describe("Loop.run: invalid options are a typed InvalidOption, and the model is never called", () => {
  const cases: ReadonlyArray<readonly [string, string, Record<string, unknown>]> = [
    ["maxTurns", "must be a whole number of at least 0, got -1", { maxTurns: -1 }],
    ["maxTurns", "must be a whole number of at least 0, got NaN", { maxTurns: Number.NaN }],
    ["maxTurns", "must be a whole number of at least 0, got 1.5", { maxTurns: 1.5 }],
    ["timeout", 'must be a duration longer than zero, got "banana"', { timeout: "banana" }],
    ["timeout", "must be a duration longer than zero, got -1", { timeout: -1 }],
    ["timeLimit", 'must be a finite duration of at least zero, got "soon"', { timeLimit: "soon" }],
    ["concurrency", 'must be a whole number of at least 1 or "unbounded", got 0', { concurrency: 0 }],
    [
      "turns",
      'must be a turns budget (Budget.turns), got {"kind":"steps","limit":3,"used":0}',
      { turns: { kind: "steps", limit: 3, used: 0 } }
    ],
    ["onTurn", 'must be a function, got "every turn"', { onTurn: "every turn" }],
    ["messages", 'must be a list of messages, got "hello"', { messages: "hello" }],
    ["messages", 'message 2 is not a message: {"role":"robot"}', { messages: [Message.user("hi"), { role: "robot" }] }],
    ["toolset", "must be a toolset (Toolset.make)", { toolset: [Read] }]
  ]

  it.effect.each(cases)("%s %s", ([option, problem, given]) =>
    Effect.gen(function* () {
      const model = scripted([[text("never")]])
      const options = { toolset, messages: opening, ...given } as Loop.Options<typeof Read>
      const error = yield* Effect.flip(Loop.run(options).pipe(Effect.provide(model.layer)))
      assert.instanceOf(error, Loop.InvalidOption)
      expect(error.option).toBe(option)
      expect(error.message).toContain(problem)
      expect(error.message.startsWith(`Loop.run: option '${option}' `)).toBe(true)
      expect(model.requests).toEqual([])
    })
  )

  it.effect("valid edge values run", () =>
    Effect.gen(function* () {
      const model = scripted([[text("done")]])
      const result = yield* Loop.run({
        toolset,
        messages: opening,
        maxTurns: 0,
        timeout: Infinity,
        timeLimit: 0,
        concurrency: "unbounded"
      }).pipe(Effect.provide(model.layer))
      expect(result.stop).toBe("turn_cap")
    })
  )
})

describe("Loop.run: a malformed reply is a ModelError naming the turn and what is wrong", () => {
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    ["null", null, "the reply is not a list of blocks: null"],
    ["a string", "hello", 'the reply is not a list of blocks: "hello"'],
    ["a number in the list", [text("a"), 5], "block 2 is not a block: 5"],
    ["an unknown block type", [{ type: "image", source: "x" }], 'block 1 has an unknown type: "image"'],
    ["a text block without text", [{ type: "text", text: 5 }], "block 1 (text) has no string text"],
    [
      "a tool call without an id",
      [text("reading"), { type: "tool_use", name: "read", input: { path: "a" } }],
      "block 2 (tool_use) has no id, so no result could answer it"
    ],
    [
      "a tool call with an empty id",
      [{ type: "tool_use", id: "", name: "read", input: {} }],
      "block 1 (tool_use) has no id, so no result could answer it"
    ],
    [
      "a tool call without a name",
      [{ type: "tool_use", id: "c9", input: {} }],
      "block 1 (tool_use 'c9') has no tool name"
    ]
  ]

  it.effect.each(cases)("%s", ([_name, reply, problem]) =>
    Effect.gen(function* () {
      const { trace, events } = yield* Trace.memory
      const layer = raw([ok([toolUse("c1", "read", { path: "a" })]), ok(reply)])
      const error = yield* Effect.flip(
        Loop.run({ toolset, messages: opening }).pipe(Effect.provide(layer), Effect.provideService(Trace.Trace, trace))
      )
      assert.instanceOf(error, Model.ModelError)
      expect(error.turn).toBe(2)
      assert.instanceOf(error.reason, Model.MalformedReply)
      expect(error.reason.message).toBe(problem)
      expect(error.message).toBe(`model call 2: ${problem}`)
      expect((yield* events).at(-1)).toEqual({ type: "model.failed", turn: 2, message: problem })
    })
  )

  it.effect("a reply that throws when read", () =>
    Effect.gen(function* () {
      const hostile = new Proxy([], {
        get(): never {
          throw new Error("reply boom")
        }
      })
      const error = yield* Effect.flip(
        Loop.run({ toolset, messages: opening }).pipe(Effect.provide(raw([ok(hostile)])))
      )
      expect(error.message).toBe("model call 1: the reply cannot be read: reply boom")
    })
  )
})

describe("Loop.run: a model that fails with something that is not a failure, throws or dies", () => {
  const failures: ReadonlyArray<readonly [string, () => unknown, string]> = [
    ["fails with undefined", () => Effect.fail(undefined), "the model failed with undefined"],
    ["fails with a string", () => Effect.fail("rate limited"), "the model failed with rate limited"],
    ["fails with an object without _tag", () => Effect.fail({ code: 429 }), 'the model failed with {"code":429}'],
    ["dies", () => Effect.die(new Error("socket closed")), "the model died: socket closed"],
    [
      "throws instead of answering an Effect",
      () => {
        throw new TypeError("not wired")
      },
      "the model died: not wired"
    ],
    ["answers no Effect", () => [text("plain")], "the model died: "]
  ]

  it.effect.each(failures)("%s: ModelError, reason ModelDefect", ([_name, reply, message]) =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Loop.run({ toolset, messages: opening }).pipe(Effect.provide(raw([reply]))))
      assert(Exit.isFailure(exit))
      const error = Exit.findErrorOption(exit)
      assert(error._tag === "Some", `a defect escaped: ${String(exit)}`)
      assert.instanceOf(error.value, Model.ModelError)
      expect(error.value.turn).toBe(1)
      assert.instanceOf(error.value.reason, Model.ModelDefect)
      expect(error.value.reason.message.startsWith(message)).toBe(true)
    })
  )

  it.effect("complete failing with undefined, or dying: ModelError", () =>
    Effect.gen(function* () {
      for (const complete of [() => Effect.fail(undefined), () => Effect.die("gone")]) {
        const layer = Model.layer(
          Model.fromReply(() => Effect.succeed([text("done")]), {
            complete: complete as unknown as () => Effect.Effect<void, Model.Failure>
          })
        )
        const error = yield* Effect.flip(Loop.run({ toolset, messages: opening }).pipe(Effect.provide(layer)))
        assert.instanceOf(error, Model.ModelError)
        assert.instanceOf(error.reason, Model.ModelDefect)
      }
    })
  )

  it.effect("a well-formed failure is kept as it is", () =>
    Effect.gen(function* () {
      const failure = { _tag: "RateLimited", message: "slow down" }
      const error = yield* Effect.flip(
        Loop.run({ toolset, messages: opening }).pipe(Effect.provide(raw([() => Effect.fail(failure)])))
      )
      assert.instanceOf(error, Model.ModelError)
      expect(error.reason).toBe(failure)
    })
  )
})

describe("Loop.run: a hostile input in one call leaves its siblings alone", () => {
  const getter = {
    get path(): string {
      throw new Error("getter boom")
    }
  }
  const turn1 = [
    toolUse("t1", "read", { path: "a" }),
    toolUse("t2", "read", getter),
    toolUse("t3", "read", { path: "b" })
  ]
  const settings: ReadonlyArray<Partial<Loop.Options<typeof Read>>> = [
    {},
    { concurrency: "unbounded" },
    { timeout: "1 minute" }
  ]

  it.effect.each(settings)("every call answered once, in call order (%j)", (setting) =>
    Effect.gen(function* () {
      const model = scripted([turn1, [text("done")]])
      const result = yield* Loop.run({ toolset, messages: opening, ...setting }).pipe(Effect.provide(model.layer))
      expect(result.stop).toBe("end")
      expect(model.requests[1]?.messages.at(-1)).toEqual(
        Message.user([
          toolResult("t1", "contents of a", false),
          toolResult("t2", "not executed: the input could not be checked: getter boom", true),
          toolResult("t3", "contents of b", false)
        ])
      )
    })
  )
})
