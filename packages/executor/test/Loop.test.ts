import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, expect, it } from "@effect/vitest"
import { Data, Effect, Exit, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Loop, Message, Model, type Outcome } from "../src/index.ts"
import { scripted } from "./scripted.ts"

const { text, toolUse, toolResult } = Message

class NoSuchFile extends Data.TaggedError("NoSuchFile")<{ readonly message: string }> {}

/** In-memory file tools; `ran` records every run. */
const makeFiles = (files: Record<string, string>) => {
  const ran: Array<string> = []
  const Read = Tool.make("read", {
    description: "Reads a file",
    parameters: Schema.Struct({ path: Schema.String }),
    run: ({ path }) =>
      Effect.suspend(() => {
        ran.push(`read ${path}`)
        const content = files[path]
        return content === undefined
          ? Effect.fail(new NoSuchFile({ message: `file '${path}' does not exist` }))
          : Effect.succeed(content)
      })
  })
  const List = Tool.make("list", {
    description: "Lists a folder",
    parameters: Schema.Struct({ folder: Schema.String }),
    run: ({ folder }) => {
      ran.push(`list ${folder}`)
      return Object.keys(files)
        .filter((p) => p.startsWith(folder))
        .sort()
        .join("\n")
    }
  })
  const Crash = Tool.make("crash", {
    description: "Throws",
    parameters: Schema.Struct({}),
    run: (): string => {
      ran.push("crash")
      throw new Error("crashed")
    }
  })
  return { toolset: Toolset.make(Read, List, Crash), ran }
}

const opening: ReadonlyArray<Message.Message> = [
  Message.system("You work on the user's files."),
  Message.user("What is in a.txt and b.txt?")
]

describe("Loop.run", () => {
  it.effect("three calls in one turn, the first failing: one user message, three results in call order", () =>
    Effect.gen(function* () {
      const { toolset, ran } = makeFiles({ "a.txt": "alpha", "b.txt": "beta" })
      const turn1 = [
        text("Reading."),
        toolUse("t1", "read", { paths: ["a.txt", "b.txt"] }),
        toolUse("t2", "read", { path: "a.txt" }),
        toolUse("t3", "read", { path: "b.txt" })
      ]
      const model = scripted([turn1, [text("a.txt has alpha,"), text("b.txt has beta.")]])
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(Effect.provide(model.layer))

      const results = [
        toolResult("t1", "not executed: missing field 'path'", true),
        toolResult("t2", "alpha", false),
        toolResult("t3", "beta", false)
      ]
      expect(model.requests.length).toBe(2)
      expect(model.requests[0]?.messages).toEqual(opening)
      expect(model.requests[1]?.messages).toEqual([...opening, Message.assistant(turn1), Message.user(results)])
      expect(model.requests[1]?.toolset).toBe(toolset)
      expect(ran).toEqual(["read a.txt", "read b.txt"])

      expect(result.stop).toBe("end")
      expect(result.text).toBe("a.txt has alpha, b.txt has beta.")
      expect(result.turns.map((t) => [t.turn, t.outcomes.map((o) => [o._tag, o.id])])).toEqual([
        [
          1,
          [
            ["NotExecuted", "t1"],
            ["Succeeded", "t2"],
            ["Succeeded", "t3"]
          ]
        ],
        [2, []]
      ])
    })
  )

  it.effect("every kind of failure gets its observation, and the loop goes on", () =>
    Effect.gen(function* () {
      const { toolset, ran } = makeFiles({ "a.txt": "alpha" })
      const turn1 = [
        toolUse("c1", "crash", {}),
        toolUse("c2", "read", { path: "missing.txt" }),
        toolUse("c3", "ghost", { x: 1 }),
        toolUse("c4", "read", { path: "a.txt" })
      ]
      const model = scripted([turn1, [text("done")]])
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(Effect.provide(model.layer))
      expect(model.requests[1]?.messages.at(-1)).toEqual(
        Message.user([
          toolResult("c1", "crashed", true),
          toolResult("c2", "file 'missing.txt' does not exist", true),
          toolResult("c3", "not executed: unknown tool 'ghost'", true),
          toolResult("c4", "alpha", false)
        ])
      )
      expect(ran).toEqual(["crash", "read missing.txt", "read a.txt"])
      expect(result.stop).toBe("end")
      expect(result.text).toBe("done")
    })
  )

  it.effect("end: a reply without tool_use stops at once, text blocks joined by a space", () =>
    Effect.gen(function* () {
      const { toolset } = makeFiles({})
      const model = scripted([[text("Nothing"), text("to"), text("do.")]])
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(Effect.provide(model.layer))
      expect(result).toEqual({
        stop: "end",
        text: "Nothing to do.",
        messages: [...opening, Message.assistant([text("Nothing"), text("to"), text("do.")])],
        turns: [{ turn: 1, reply: [text("Nothing"), text("to"), text("do.")], outcomes: [] }],
        budget: { kind: "turns", limit: 10, used: 1 }
      })
      expect(model.requests.length).toBe(1)
    })
  )

  it.effect("end with an empty reply: text is the empty string", () =>
    Effect.gen(function* () {
      const { toolset } = makeFiles({})
      const model = scripted([[]])
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(Effect.provide(model.layer))
      expect(result.stop).toBe("end")
      expect(result.text).toBe("")
    })
  )

  it.effect("turn_cap: the model is called exactly maxTurns times; text undefined", () =>
    Effect.gen(function* () {
      const { toolset, ran } = makeFiles({ "a.txt": "alpha" })
      const again = (i: number) => [text(`try ${i}`), toolUse(`r${i}`, "read", { path: "a.txt" })]
      const model = scripted([again(1), again(2), again(3), again(4), again(5)])
      const result = yield* Loop.run({ toolset, messages: opening, maxTurns: 3 }).pipe(Effect.provide(model.layer))
      expect(model.requests.length).toBe(3)
      expect(result.stop).toBe("turn_cap")
      expect(result.text).toBeUndefined()
      expect(result.turns.map((t) => t.turn)).toEqual([1, 2, 3])
      expect(ran).toEqual(["read a.txt", "read a.txt", "read a.txt"])
      // the last results are in the history although the model never saw them
      expect(result.messages.length).toBe(opening.length + 6)
      expect(result.messages.at(-1)).toEqual(Message.user([toolResult("r3", "alpha", false)]))
    })
  )

  it.effect("the default turn cap is 10", () =>
    Effect.gen(function* () {
      const { toolset } = makeFiles({ "a.txt": "alpha" })
      const replies = Array.from({ length: 12 }, (_, i) => [toolUse(`r${i}`, "read", { path: "a.txt" })])
      const model = scripted(replies)
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(Effect.provide(model.layer))
      expect(Loop.defaultMaxTurns).toBe(10)
      expect(model.requests.length).toBe(10)
      expect(result.stop).toBe("turn_cap")
    })
  )

  it.effect("a model failure fails the loop with ModelError { turn, reason }", () =>
    Effect.gen(function* () {
      const { toolset } = makeFiles({ "a.txt": "alpha" })
      const model = scripted([[toolUse("r1", "read", { path: "a.txt" })], { fail: { _tag: "Boom", message: "x" } }])
      const exit = yield* Effect.exit(Loop.run({ toolset, messages: opening }).pipe(Effect.provide(model.layer)))
      assert(Exit.isFailure(exit))
      const error = Exit.findErrorOption(exit)
      assert(error._tag === "Some")
      assert.instanceOf(error.value, Model.ModelError)
      expect(error.value._tag).toBe("ModelError")
      expect(error.value.turn).toBe(2)
      expect(error.value.reason).toEqual({ _tag: "Boom", message: "x" })
      expect(error.value.message).toBe("model call 2: x")
      expect(model.requests.length).toBe(2)
      expect(model.completed).toEqual([])
    })
  )

  it.effect("a failure on the first call is turn 1", () =>
    Effect.gen(function* () {
      const { toolset } = makeFiles({})
      const model = scripted([{ fail: { _tag: "Boom", message: "x" } }])
      const error = yield* Effect.flip(Loop.run({ toolset, messages: opening }).pipe(Effect.provide(model.layer)))
      assert.instanceOf(error, Model.ModelError)
      expect(error.turn).toBe(1)
      expect(error.reason).toEqual({ _tag: "Boom", message: "x" })
    })
  )

  it.effect("complete is called once, with the final history (end)", () =>
    Effect.gen(function* () {
      const { toolset } = makeFiles({ "a.txt": "alpha" })
      const model = scripted([[toolUse("r1", "read", { path: "a.txt" })], [text("alpha")]])
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(Effect.provide(model.layer))
      expect(model.completed.length).toBe(1)
      expect(model.completed[0]).toEqual(result.messages)
      expect(model.completed[0]).toEqual([
        ...opening,
        Message.assistant([toolUse("r1", "read", { path: "a.txt" })]),
        Message.user([toolResult("r1", "alpha", false)]),
        Message.assistant([text("alpha")])
      ])
    })
  )

  it.effect("complete is called once, with the final history (turn_cap)", () =>
    Effect.gen(function* () {
      const { toolset } = makeFiles({ "a.txt": "alpha" })
      const model = scripted([[toolUse("r1", "read", { path: "a.txt" })], [toolUse("r2", "read", { path: "b.txt" })]])
      const result = yield* Loop.run({ toolset, messages: opening, maxTurns: 2 }).pipe(Effect.provide(model.layer))
      expect(model.completed.length).toBe(1)
      expect(model.completed[0]).toEqual(result.messages)
      expect(model.completed[0]?.at(-1)).toEqual(Message.user([toolResult("r2", "file 'b.txt' does not exist", true)]))
    })
  )

  it.effect("a model without complete works too", () =>
    Effect.gen(function* () {
      const { toolset } = makeFiles({})
      const model = scripted([[text("hi")]], { complete: false })
      const result = yield* Loop.run({ toolset, messages: opening }).pipe(Effect.provide(model.layer))
      expect(result.text).toBe("hi")
      expect(model.completed).toEqual([])
    })
  )

  it.effect("a failing complete fails the loop with a ModelError carrying its reason", () =>
    Effect.gen(function* () {
      const { toolset } = makeFiles({})
      const layer = Model.layer(
        Model.fromReply(() => Effect.succeed([text("bye")]), {
          complete: () => Effect.fail({ _tag: "LeftOver", message: "2 replies left" })
        })
      )
      const error = yield* Effect.flip(Loop.run({ toolset, messages: opening }).pipe(Effect.provide(layer)))
      assert.instanceOf(error, Model.ModelError)
      expect(error.reason).toEqual({ _tag: "LeftOver", message: "2 replies left" })
    })
  )

  it.effect("onTurn sees each turn's outcomes before the model does", () =>
    Effect.gen(function* () {
      const { toolset } = makeFiles({ "a.txt": "alpha" })
      const model = scripted([[toolUse("r1", "read", { path: "a.txt" }), toolUse("r2", "read", {})], [text("ok")]])
      const seen: Array<[number, ReadonlyArray<string>, number]> = []
      yield* Loop.run({
        toolset,
        messages: opening,
        onTurn: (turn) =>
          Effect.sync(() => {
            seen.push([turn.turn, turn.outcomes.map((o: Outcome.Outcome) => o.content), model.requests.length])
          })
      }).pipe(Effect.provide(model.layer))
      expect(seen).toEqual([[1, ["alpha", "not executed: missing field 'path'"], 1]])
    })
  )

  it.effect("concurrency 'unbounded': calls overlap, results stay in call order", () =>
    Effect.gen(function* () {
      const finished: Array<string> = []
      const Sleep = Tool.make("sleep", {
        description: "Sleeps",
        parameters: Schema.Struct({ ms: Schema.Int }),
        run: ({ ms }, { id }) =>
          Effect.as(
            Effect.tap(Effect.sleep(ms), () => Effect.sync(() => finished.push(id))),
            `slept ${ms}`
          )
      })
      const toolset = Toolset.make(Sleep)
      const model = scripted([
        [toolUse("s1", "sleep", { ms: 30 }), toolUse("s2", "sleep", { ms: 10 }), toolUse("s3", "sleep", { ms: 20 })],
        [text("rested")]
      ])
      const fiber = yield* Effect.forkChild(
        Loop.run({ toolset, messages: opening, concurrency: "unbounded" }).pipe(Effect.provide(model.layer))
      )
      // 30 ms is enough only if the three sleeps overlap
      yield* TestClock.adjust("30 millis")
      expect(fiber.pollUnsafe()).toBeDefined()
      const result = yield* Fiber.join(fiber)
      expect(finished).toEqual(["s2", "s3", "s1"])
      expect(model.requests[1]?.messages.at(-1)).toEqual(
        Message.user([
          toolResult("s1", "slept 30", false),
          toolResult("s2", "slept 10", false),
          toolResult("s3", "slept 20", false)
        ])
      )
      expect(result.turns[0]?.outcomes.map((o) => o.id)).toEqual(["s1", "s2", "s3"])
    })
  )

  it.effect("the default concurrency is 1: calls run one after the other", () =>
    Effect.gen(function* () {
      const finished: Array<string> = []
      const Sleep = Tool.make("sleep", {
        description: "Sleeps",
        parameters: Schema.Struct({ ms: Schema.Int }),
        run: ({ ms }, { id }) => Effect.tap(Effect.sleep(ms), () => Effect.sync(() => finished.push(id)))
      })
      const model = scripted([
        [toolUse("s1", "sleep", { ms: 30 }), toolUse("s2", "sleep", { ms: 10 })],
        [text("rested")]
      ])
      const fiber = yield* Effect.forkChild(
        Loop.run({ toolset: Toolset.make(Sleep), messages: opening }).pipe(Effect.provide(model.layer))
      )
      yield* TestClock.adjust("30 millis")
      expect(finished).toEqual(["s1"])
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("10 millis")
      const result = yield* Fiber.join(fiber)
      expect(finished).toEqual(["s1", "s2"])
      expect(result.stop).toBe("end")
    })
  )

  it.effect("the timeout option reaches every call", () =>
    Effect.gen(function* () {
      const Slow = Tool.make("slow", {
        description: "",
        parameters: Schema.Struct({}),
        run: () => Effect.as(Effect.sleep("10 seconds"), "late")
      })
      const model = scripted([[toolUse("w1", "slow", {})], [text("gave up")]])
      const fiber = yield* Effect.forkChild(
        Loop.run({ toolset: Toolset.make(Slow), messages: opening, timeout: "1 second" }).pipe(
          Effect.provide(model.layer)
        )
      )
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      expect(model.requests[1]?.messages.at(-1)).toEqual(
        Message.user([toolResult("w1", "timed out after 1000 ms; the call may have partly run", true)])
      )
      expect(result.text).toBe("gave up")
    })
  )

  it.effect("interrupting the loop interrupts it: no result", () =>
    Effect.gen(function* () {
      const Never = Tool.make("never", { description: "", parameters: Schema.Struct({}), run: () => Effect.never })
      const model = scripted([[toolUse("n1", "never", {})], [text("unreachable")]])
      const fiber = yield* Effect.forkChild(
        Loop.run({ toolset: Toolset.make(Never), messages: opening }).pipe(Effect.provide(model.layer))
      )
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(fiber)
      const exit = yield* Fiber.await(fiber)
      expect(Exit.hasInterrupts(exit)).toBe(true)
      expect(model.requests.length).toBe(1)
      expect(model.completed).toEqual([])
    })
  )
})

describe("the seed's salmorejo conversation, in Spanish", () => {
  const ENTORNO: Record<string, string> = {
    "lista.txt": "pan, leche, patatas",
    "nota.txt": "Cena el viernes con Ana.",
    "recetas/gazpacho.txt": "tomates, pepino, pimiento, ajo",
    "recetas/tortilla.txt": "huevos, patatas, cebolla"
  }
  const Leer = Tool.make("leer", {
    description: "Lee un fichero",
    parameters: Schema.Struct({ ruta: Schema.String }),
    annotations: { readOnly: true },
    run: ({ ruta }) => {
      const contenido = ENTORNO[ruta]
      if (contenido === undefined) throw new Error(`no existe el fichero '${ruta}'`)
      return contenido
    }
  })
  const Listar = Tool.make("listar", {
    description: "Lista una carpeta",
    parameters: Schema.Struct({ carpeta: Schema.String }),
    annotations: { readOnly: true },
    run: ({ carpeta }) =>
      Object.keys(ENTORNO)
        .filter((p) => p.startsWith(carpeta))
        .sort()
        .join("\n")
  })

  it.effect("every error comes back as an observation and the model decides", () =>
    Effect.gen(function* () {
      const final = "No hay receta de salmorejo, sólo de gazpacho y de tortilla. No he cambiado lista.txt."
      const model = scripted([
        [text("Leo la receta y la lista."), toolUse("t1", "leer", { rutas: ["recetas/salmorejo.txt", "lista.txt"] })],
        [toolUse("t2", "leer", { ruta: "recetas/salmorejo.txt" }), toolUse("t3", "leer", { ruta: "lista.txt" })],
        [toolUse("t4", "listar", { carpeta: "recetas/" })],
        [text(final)]
      ])
      const result = yield* Loop.run({
        toolset: Toolset.make(Leer, Listar),
        messages: [
          Message.system("Trabajas con los ficheros del usuario mediante tus herramientas."),
          Message.user("Añade a lista.txt lo que falta para el salmorejo.")
        ]
      }).pipe(Effect.provide(model.layer), Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish))
      const seen = model.requests.map((r) => r.messages.at(-1))
      expect(seen.slice(1)).toEqual([
        Message.user([toolResult("t1", "no se ha ejecutado: falta el campo 'ruta'", true)]),
        Message.user([
          toolResult("t2", "no existe el fichero 'recetas/salmorejo.txt'", true),
          toolResult("t3", "pan, leche, patatas", false)
        ]),
        Message.user([toolResult("t4", "recetas/gazpacho.txt\nrecetas/tortilla.txt", false)])
      ])
      expect(result.stop).toBe("end")
      expect(result.text).toBe(final)
      expect(result.turns.length).toBe(4)
    })
  )
})
