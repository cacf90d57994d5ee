/**
 * Seed 000's salmorejo conversation, played through the library: the Spanish script of the seed
 * (RESPUESTAS and VISTO), `leer`/`listar`/`escribir` over the seed's environment, the Spanish
 * message catalogue, the real loop.
 */
import { Loop, Message, Model } from "@agent-harness/executor"
import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Data, Effect, Ref, Schema } from "effect"
import { Script, ScriptedModel } from "../src/index.ts"

const ENTORNO: Readonly<Record<string, string>> = {
  "lista.txt": "pan, leche, huevos",
  "nota.txt": "Cena del viernes: somos cuatro. Gazpacho de primero y tortilla de segundo.",
  "recetas/gazpacho.txt": "tomates, pepino, pimiento, ajo, aceite, vinagre, sal",
  "recetas/tortilla.txt": "huevos, patatas, cebolla, aceite, sal"
}

class NoExiste extends Data.TaggedError("NoExiste")<{ readonly message: string }> {}

const herramientas = (entorno: Ref.Ref<Readonly<Record<string, string>>>) =>
  Toolset.make(
    Tool.make("leer", {
      description: "Lee un fichero.",
      parameters: Schema.Struct({ ruta: Schema.String }),
      run: ({ ruta }): Effect.Effect<string, NoExiste> =>
        Effect.flatMap(Ref.get(entorno), (e) => {
          const contenido = e[ruta]
          return contenido === undefined
            ? Effect.fail(new NoExiste({ message: `no existe el fichero '${ruta}'` }))
            : Effect.succeed(contenido)
        })
    }),
    Tool.make("listar", {
      description: "Lista las rutas que empiezan por la carpeta.",
      parameters: Schema.Struct({ carpeta: Schema.String }),
      run: ({ carpeta }) =>
        Effect.map(Ref.get(entorno), (e) =>
          Object.keys(e)
            .filter((ruta) => ruta.startsWith(carpeta))
            .sort()
            .join("\n")
        )
    }),
    Tool.make("escribir", {
      description: "Escribe un fichero.",
      parameters: Schema.Struct({ ruta: Schema.String, contenido: Schema.String }),
      run: ({ ruta, contenido }) =>
        Effect.as(
          Ref.update(entorno, (e) => ({ ...e, [ruta]: contenido })),
          `escritos ${contenido.length} caracteres en ${ruta}`
        )
    })
  )

const INICIO = [
  Message.system("Trabajas con los ficheros del usuario mediante tus herramientas."),
  Message.user("Añade a lista.txt lo que falta para el salmorejo.")
]

const RESPUESTAS: ReadonlyArray<ReadonlyArray<Message.ReplyBlock>> = [
  [
    Message.text("Leo la receta y la lista."),
    Message.toolUse("t1", "leer", { rutas: ["recetas/salmorejo.txt", "lista.txt"] })
  ],
  [
    Message.toolUse("t2", "leer", { ruta: "recetas/salmorejo.txt" }),
    Message.toolUse("t3", "leer", { ruta: "lista.txt" })
  ],
  [Message.toolUse("t4", "listar", { carpeta: "recetas/" })],
  [Message.text("No hay receta de salmorejo, sólo de gazpacho y de tortilla. No he cambiado lista.txt.")]
]

const VISTO: ReadonlyArray<ReadonlyArray<Script.ExpectedResult> | undefined> = [
  [Script.expected("t1", true, "no se ha ejecutado: falta el campo 'ruta'")],
  [
    Script.expected("t2", true, "no existe el fichero 'recetas/salmorejo.txt'"),
    Script.expected("t3", false, ENTORNO["lista.txt"] ?? "")
  ],
  [Script.expected("t4", false, "recetas/gazpacho.txt\nrecetas/tortilla.txt")],
  undefined
]

const guion: Script.Script = {
  messages: INICIO,
  turns: RESPUESTAS.map((reply, i) => ({ reply, expect: VISTO[i] }))
}

describe("the salmorejo conversation of seed 000", () => {
  it.effect("passes with the seed's observations verbatim, errors marked, files unchanged", () =>
    Effect.gen(function* () {
      const entorno = yield* Ref.make<Readonly<Record<string, string>>>({ ...ENTORNO })
      const result = yield* Loop.run({ toolset: herramientas(entorno), messages: INICIO, maxTurns: 10 }).pipe(
        Effect.provide(ScriptedModel.layer(guion)),
        Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
      )
      const observations = result.messages.flatMap((m) =>
        m.role === "user" && typeof m.content !== "string"
          ? m.content.filter((b): b is Message.ToolResultBlock => b.type === "tool_result")
          : []
      )
      assert.deepStrictEqual(observations, [
        Message.toolResult("t1", "no se ha ejecutado: falta el campo 'ruta'", true),
        Message.toolResult("t2", "no existe el fichero 'recetas/salmorejo.txt'", true),
        Message.toolResult("t3", "pan, leche, huevos", false),
        Message.toolResult("t4", "recetas/gazpacho.txt\nrecetas/tortilla.txt", false)
      ])
      // t2 and t3 come back together, in one message, in call order.
      assert.deepStrictEqual(result.messages[5], {
        role: "user",
        content: [
          Message.toolResult("t2", "no existe el fichero 'recetas/salmorejo.txt'", true),
          Message.toolResult("t3", "pan, leche, huevos", false)
        ]
      })
      assert.strictEqual(result.stop, "end")
      assert.strictEqual(
        result.text,
        "No hay receta de salmorejo, sólo de gazpacho y de tortilla. No he cambiado lista.txt."
      )
      assert.strictEqual(result.turns.length, 4)
      assert.deepStrictEqual(
        result.turns.map((t) => t.outcomes.map((o) => o._tag)),
        [["NotExecuted"], ["Failed", "Succeeded"], ["Succeeded"], []]
      )
      assert.deepStrictEqual(yield* Ref.get(entorno), ENTORNO)
    })
  )

  it.effect("with the English catalogue the scripted model refuses the first observation", () =>
    Effect.gen(function* () {
      const entorno = yield* Ref.make<Readonly<Record<string, string>>>({ ...ENTORNO })
      const error = yield* Effect.flip(
        Loop.run({ toolset: herramientas(entorno), messages: INICIO, maxTurns: 10 }).pipe(
          Effect.provide(ScriptedModel.layer(guion))
        )
      )
      assert.instanceOf(error, Model.ModelError)
      assert.strictEqual(error.turn, 2)
      assert.strictEqual(
        error.reason.message,
        `turn 1, tool_use_id t1: a different observation\n` +
          `  expected: t1 is_error=true "no se ha ejecutado: falta el campo 'ruta'"\n` +
          `  seen:     t1 is_error=true "not executed: missing field 'ruta'"`
      )
    })
  )
})
