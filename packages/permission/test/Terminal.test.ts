/**
 * The terminal approver over in-memory streams: each answer, an empty line, answers that are
 * none of the choices, input that ends, lines typed ahead, answers typed only when asked (as a
 * person does), Spanish, a call whose text tries to drive the terminal or hide its path, and
 * hostile inputs.
 */
import { Tool } from "@agent-harness/tool-schema"
import { MessageCatalog } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
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
        `The model wants to run append (call c1) with\n  path: "notes/todo.txt"\n  text: "milk"\nAsked because of rules[2]: it adds to your notes\n`
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
      const reason = 'the person asked answered 3 times with none of the choices (the last answer: "how")'
      assert.deepStrictEqual(yield* stubborn.approver.ask(request()), { answer: "no", reason })
      // Asked three times, told why it was denied; the fourth line is the next question's.
      assert.strictEqual(stubborn.printed().split("Allow it?").length - 1, 3)
      assert.include(stubborn.printed(), `Denied: ${reason}.\n`)
      assert.deepStrictEqual(yield* stubborn.approver.ask(request()), { answer: "yes" })
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
      // The field's text is `"\u009b31mxxx…"`: 3,006 characters, 400 shown.
      assert.include(printed, "… (2606 more characters)")
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

/** Resolves once `printed()` holds `text` (polling; the test's own timeout bounds it). */
const printedSoon = (printed: () => string, text: string, count = 1) =>
  Effect.promise(
    () =>
      new Promise<void>((resolve) => {
        const poll = () => (printed().split(text).length - 1 >= count ? resolve() : setTimeout(poll, 5))
        poll()
      })
  )

describe("Terminal, as a person answers", () => {
  it.effect(
    "every question is read, each answer typed only once its question is shown",
    () =>
      Effect.gen(function* () {
        const t = terminal()
        const asked = Effect.forkChild(Effect.forEach([1, 2, 3], (i) => t.approver.ask(request({ id: `c${i}` }))))
        const fiber = yield* asked
        yield* printedSoon(t.printed, "Allow it?", 1)
        t.input.write("y\n")
        yield* printedSoon(t.printed, "(call c2)")
        yield* printedSoon(t.printed, "Allow it?", 2)
        t.input.write("maybe\n")
        yield* printedSoon(t.printed, "Please answer y, n or a.\n")
        yield* printedSoon(t.printed, "Allow it?", 3)
        t.input.write("n\n")
        yield* printedSoon(t.printed, "(call c3)")
        yield* printedSoon(t.printed, "Allow it?", 4)
        t.input.write("a\n")
        const answers = yield* Fiber.join(fiber)
        assert.deepStrictEqual(answers, [
          { answer: "yes" },
          { answer: "no", reason: "the person asked said no" },
          { answer: "always" }
        ])
        // Between questions nothing is read: the stream is paused.
        assert.isTrue(t.input.isPaused())
      }),
    { timeout: 20_000 }
  )

  it.effect(
    "the end of the input (Ctrl-D) while a question waits denies it and every later one",
    () =>
      Effect.gen(function* () {
        const t = terminal()
        const fiber = yield* Effect.forkChild(t.approver.ask(request()))
        yield* printedSoon(t.printed, "Allow it?")
        t.input.end()
        assert.deepStrictEqual(yield* Fiber.join(fiber), {
          answer: "no",
          reason: "the input ended before an answer"
        })
        assert.include(t.printed(), "Denied: the input ended before an answer.\n")
        assert.deepStrictEqual(yield* t.approver.ask(request()), {
          answer: "no",
          reason: "the input ended before an answer"
        })
      }),
    { timeout: 20_000 }
  )

  it.effect(
    "an error of the input while no question waits does not crash; the next question is denied",
    () =>
      Effect.gen(function* () {
        const t = terminal("y\n")
        assert.deepStrictEqual(yield* t.approver.ask(request()), { answer: "yes" })
        t.input.destroy(new Error("EIO: the terminal went away"))
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
        assert.deepStrictEqual(yield* t.approver.ask(request()), {
          answer: "no",
          reason: "the input ended before an answer"
        })
      }),
    { timeout: 20_000 }
  )

  it.effect(
    "an interrupted question stops reading; the next question reads the next line",
    () =>
      Effect.gen(function* () {
        const t = terminal()
        const fiber = yield* Effect.forkChild(t.approver.ask(request()))
        yield* printedSoon(t.printed, "Allow it?")
        yield* Fiber.interrupt(fiber)
        assert.isTrue(t.input.isPaused())
        const again = yield* Effect.forkChild(t.approver.ask(request()))
        // Its line was ended, so the next question starts on a line of its own.
        yield* printedSoon(t.printed, "when this rule asks: \nThe model wants")
        yield* printedSoon(t.printed, "Allow it?", 2)
        t.input.write("y\n")
        assert.deepStrictEqual(yield* Fiber.join(again), { answer: "yes" })
      }),
    { timeout: 20_000 }
  )
})

describe("Terminal, what the person reads", () => {
  const shownBy = (input: unknown) =>
    Effect.gen(function* () {
      const t = terminal("n\n")
      yield* t.approver.ask(request({ input }))
      return t.printed().split("Allow it?")[0] ?? ""
    })

  it.effect("path fields first, each field cut on its own: a long field cannot push the path away", () =>
    Effect.gen(function* () {
      const shown = yield* shownBy({ content: "x".repeat(5000), mode: "w", path: "secrets/key.txt" })
      const lines = shown.split("\n")
      assert.strictEqual(lines[1], '  path: "secrets/key.txt"')
      assert.strictEqual(lines[2], `  content: "${"x".repeat(399)}… (4602 more characters)`)
      assert.strictEqual(lines[3], '  mode: "w"')
      // Spanish field names too.
      const ruta = yield* shownBy({ contenido: "y".repeat(3000), ruta: "notas/lista.txt" })
      assert.strictEqual(ruta.split("\n")[1], '  ruta: "notas/lista.txt"')
    })
  )

  it.effect("a long path keeps its start and its end", () =>
    Effect.gen(function* () {
      const path = `${"a/".repeat(1000)}secrets/key.txt`
      const shown = yield* shownBy({ path })
      const line = shown.split("\n")[1] ?? ""
      assert.include(line, " … (1617 characters cut) … ")
      assert.isTrue(line.endsWith('a/a/secrets/key.txt"'), line)
      assert.isTrue(line.startsWith('  path: "a/a/'), line)
    })
  )

  it.effect("bidi, zero-width and other invisible characters are shown escaped", () =>
    Effect.gen(function* () {
      const shown = yield* shownBy({ path: "notes\u202Etxt.exe", text: "a\u200Bb\u2066c\u00ADd\uFEFFe\u{E0041}" })
      assert.include(shown, '  path: "notes\\u202etxt.exe"')
      assert.include(shown, '  text: "a\\u200bb\\u2066c\\u00add\\ufeffe\\u{e0041}"')
      for (const hidden of ["\u202E", "\u200B", "\u2066", "\u00AD", "\uFEFF", "\u{E0041}"]) {
        assert.notInclude(shown, hidden)
      }
      // A field's name cannot forge another field's line.
      const named = yield* shownBy({ 'x: "ok.txt"\n  path': "secrets/k" })
      assert.include(named, '"x: \\"ok.txt\\"\\n  path": "secrets/k"')
    })
  )

  it.effect("many fields are counted; hostile inputs are shown as unreadable, never thrown", () =>
    Effect.gen(function* () {
      const many: Record<string, number> = {}
      for (let i = 0; i < 100; i++) many[`f${i}`] = i
      const shown = yield* shownBy(many)
      assert.include(shown, "  f11: 11\n  … and 88 more fields\n")
      assert.notInclude(shown, "f12:")
      const getter = yield* shownBy({
        path: "a.txt",
        get text(): string {
          throw new Error("no reading me")
        }
      })
      assert.include(getter, '  path: "a.txt"\n  text: [Unreadable: no reading me]\n')
      const proxy = new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error("no keys")
          }
        }
      )
      assert.include(yield* shownBy(proxy), "  [Unreadable: no keys]\n")
      const cycle: Record<string, unknown> = { path: "b.txt" }
      cycle.self = cycle
      assert.include(yield* shownBy(cycle), '  self: {"path":"b.txt","self":"[Circular]"}\n')
      assert.include(yield* shownBy("just text"), '  "just text"\n')
      assert.include(yield* shownBy({}), "  {}\n")
    })
  )

  it.effect("the Spanish markers", () =>
    Effect.gen(function* () {
      const t = terminal("x\ny\nz\n")
      const answer = yield* t.approver
        .ask(request({ input: { contenido: "x".repeat(500) } }))
        .pipe(Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish))
      assert.deepStrictEqual(answer, {
        answer: "no",
        reason:
          'la persona a la que se ha preguntado ha respondido 3 veces sin elegir ninguna opción (la última respuesta: "z")'
      })
      assert.include(t.printed(), "… (102 caracteres más)")
    })
  )
})
