/**
 * The terminal approver over in-memory streams: each answer, an empty line, answers that are
 * none of the choices, input that ends, lines typed ahead, Spanish, and a call whose text tries
 * to drive the terminal.
 */
import { Tool } from "@agent-harness/tool-schema"
import { MessageCatalog } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { PassThrough } from "node:stream"
import { type Approver, Terminal } from "../src/index.ts"

const request = (over: Partial<Approver.Request> = {}): Approver.Request => ({
  id: "c1",
  name: "append",
  input: { path: "notes/todo.txt", text: "milk" },
  annotations: Tool.defaultAnnotations,
  rule: 2,
  reason: "it adds to your notes",
  ...over
})

/** A terminal over fresh streams, with what it printed. */
const terminal = (typed?: string, end = false) => {
  const input = new PassThrough()
  const output = new PassThrough()
  let printed = ""
  output.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8")
  })
  if (typed !== undefined) input.write(typed)
  if (end) input.end()
  return { approver: Terminal.make({ input, output }), input, printed: () => printed }
}

describe("Terminal", () => {
  it.effect("prints the call and why, and reads y, a, n and an empty line", () =>
    Effect.gen(function* () {
      const t = terminal("y\na\nn\n\n")
      const answers = []
      for (let i = 0; i < 4; i++) answers.push(yield* t.approver.ask(request()))
      assert.deepStrictEqual(answers, [
        { answer: "yes" },
        { answer: "always" },
        { answer: "no", reason: "the person asked said no" },
        { answer: "no", reason: "the person asked said no" }
      ])
      assert.strictEqual(
        t.printed().split("Allow it?")[0],
        `The model wants to run append (call c1) with\n  {"path":"notes/todo.txt","text":"milk"}\nAsked because of rules[2]: it adds to your notes\n`
      )
      assert.include(t.printed(), "Allow it? [y]es, [N]o, [a]lways for append when this rule asks: ")
    })
  )

  it.effect("waits for a line typed later, in pieces, with a CRLF", () =>
    Effect.gen(function* () {
      const t = terminal()
      setTimeout(() => {
        t.input.write("YE")
        t.input.write("S\r\n")
      }, 0)
      assert.deepStrictEqual(yield* t.approver.ask(request()), { answer: "yes" })
    })
  )

  it.effect("asks again after an answer that is none of the choices, then denies", () =>
    Effect.gen(function* () {
      const t = terminal("maybe\nyes\n")
      assert.deepStrictEqual(yield* t.approver.ask(request()), { answer: "yes" })
      assert.include(t.printed(), "Please answer y, n or a.\n")
      const stubborn = terminal("what\nwhy\nhow\ny\n")
      assert.deepStrictEqual(yield* stubborn.approver.ask(request()), {
        answer: "no",
        reason: "the person asked said no"
      })
    })
  )

  it.effect("input that ends before an answer denies, saying so", () =>
    Effect.gen(function* () {
      const t = terminal("", true)
      assert.deepStrictEqual(yield* t.approver.ask(request()), {
        answer: "no",
        reason: "the input ended before an answer"
      })
      // A last line without a newline still counts.
      const last = terminal("y", true)
      assert.deepStrictEqual(yield* last.approver.ask(request()), { answer: "yes" })
    })
  )

  it.effect("in Spanish, with the default rule", () =>
    Effect.gen(function* () {
      const t = terminal("s\nt\nno\n")
      const ask = t.approver
        .ask(request({ rule: undefined, reason: undefined }))
        .pipe(Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish))
      assert.deepStrictEqual(
        [yield* ask, yield* ask, yield* ask],
        [
          { answer: "yes" },
          { answer: "always" },
          { answer: "no", reason: "la persona a la que se ha preguntado ha dicho que no" }
        ]
      )
      assert.include(t.printed(), "Se pregunta por la opción por defecto\n")
      assert.include(
        t.printed(),
        "¿Lo permites? [s]í, [N]o, [t]odas las veces para append cuando pregunte esta regla: "
      )
    })
  )

  it.effect("a call cannot colour, clear or forge lines of the terminal; a long input is cut", () =>
    Effect.gen(function* () {
      const t = terminal("n\n")
      yield* t.approver.ask(
        request({
          id: "c1\u001b[2J",
          name: "append\nAllow it? [y]es",
          input: { text: `\u009b31m${"x".repeat(3000)}` },
          reason: "because\u2028forged"
        })
      )
      const printed = t.printed()
      assert.notInclude(printed, "\u001b")
      assert.notInclude(printed, "\u009b")
      assert.notInclude(printed, "\u2028")
      assert.include(printed, "append\\u000aAllow it? [y]es (call c1\\u001b[2J)")
      assert.include(printed, "… (1015 more characters)")
      assert.strictEqual(printed.split("\n").length, 4)
    })
  )

  it.effect("an output that cannot be written denies at once", () =>
    Effect.gen(function* () {
      const input = new PassThrough()
      const output = new PassThrough()
      output.destroy()
      assert.deepStrictEqual(yield* Terminal.make({ input, output }).ask(request()), {
        answer: "no",
        reason: "the approval could not be asked for: the question could not be written"
      })
    })
  )
})
