/**
 * The salmorejo walkthrough in-process (no spawn): `Demo.walkthrough` over a scenario, with the
 * console captured by `it.effect`'s TestConsole.
 */
import { ScenarioFile } from "@agent-harness/scenario"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { TestConsole } from "effect/testing"
import * as Demo from "../src/walkthroughs/Salmorejo.ts"
import { at, type Json, salmorejo, salmorejoEn, salmorejoEs } from "./fixtures/scenarios.ts"

const decode = (json: Json, file: string): ScenarioFile.Conversation => {
  const decoded = ScenarioFile.decode(file, json)
  if (Result.isFailure(decoded)) throw new Error(decoded.failure.message)
  if (decoded.success.kind !== "conversation") throw new Error(`${file}: not a conversation`)
  return decoded.success
}

/** Everything captured from Console.log (each argument of a call is its own item). */
const printed = Effect.map(TestConsole.logLines, (lines) => lines.map(String))

describe("Demo", () => {
  it("salmorejoFile points at the shipped scenarios", () => {
    assert.strictEqual(Demo.salmorejoFile("es"), salmorejoEs)
    assert.strictEqual(Demo.salmorejoFile("en"), salmorejoEn)
  })

  it.effect("the Spanish walkthrough, turn by turn", () =>
    Effect.gen(function* () {
      const verdict = yield* Demo.walkthrough(decode(salmorejo(), salmorejoEs), salmorejoEs, "es")
      assert.strictEqual(verdict.passed, true)
      assert.deepStrictEqual(yield* printed, [
        "[system]",
        "Trabajas con los ficheros del usuario mediante tus herramientas.",
        "[user]",
        "Añade a lista.txt lo que falta para el salmorejo.",
        "",
        "— turno 1 —",
        "modelo: Leo la receta y la lista.",
        `modelo llama a t1 leer({"rutas":["recetas/salmorejo.txt","lista.txt"]})`,
        "el modelo lee:",
        "  error t1: no se ha ejecutado: falta el campo 'ruta'",
        "",
        "— turno 2 —",
        `modelo llama a t2 leer({"ruta":"recetas/salmorejo.txt"})`,
        `modelo llama a t3 leer({"ruta":"lista.txt"})`,
        "el modelo lee:",
        "  error t2: no existe el fichero 'recetas/salmorejo.txt'",
        "  ok    t3: pan, leche, huevos",
        "",
        "— turno 3 —",
        `modelo llama a t4 listar({"carpeta":"recetas/"})`,
        "el modelo lee:",
        "  ok    t4: recetas/gazpacho.txt\n          recetas/tortilla.txt",
        "",
        "— turno 4 —",
        "respuesta final: No hay receta de salmorejo, sólo de gazpacho y de tortilla. No he cambiado lista.txt. ¿Añado lo que falta para el gazpacho, que es lo más parecido?",
        "fin: end",
        "ficheros tras la ejecución: sin cambios",
        "",
        "PASS salmorejo (es) (end, 4 model calls)"
      ])
    })
  )

  it.effect("files the run did not touch are reported unchanged, whatever order the file lists them in", () =>
    Effect.gen(function* () {
      const json = salmorejo()
      const files = at(json, "files")
      // The same four files, listed in another order than sorted.
      json.files = Object.fromEntries(Object.entries(files).reverse())
      const verdict = yield* Demo.walkthrough(decode(json, "reordered.json"), "reordered.json", "es")
      assert.strictEqual(verdict.passed, true)
      // Demo.ts compares JSON.stringify of the sorted snapshot with JSON.stringify of the file's
      // own `files`, so a mere difference in key order reads as a change.
      const line = (yield* printed).find((l) => l.startsWith("ficheros tras la ejecución: "))
      assert.strictEqual(line, "ficheros tras la ejecución: sin cambios")
    })
  )

  it.effect("a run that changes a file prints the files after it", () =>
    Effect.gen(function* () {
      const json = salmorejo()
      json.turns = [
        {
          reply: [{ type: "tool_use", id: "w1", name: "escribir", input: { ruta: "lista.txt", contenido: "pan" } }],
          expect: [
            { type: "tool_result", tool_use_id: "w1", is_error: false, content: "escritos 3 caracteres en lista.txt" }
          ]
        },
        { reply: [{ type: "text", text: "Hecho." }] }
      ]
      json.outcome = { stop: "end", text: "Hecho." }
      const verdict = yield* Demo.walkthrough(decode(json, "write.json"), "write.json", "es")
      assert.strictEqual(verdict.passed, true)
      const lines = yield* printed
      assert.include(
        lines,
        `ficheros tras la ejecución: {"lista.txt":"pan","nota.txt":"Cena del viernes: somos cuatro. Gazpacho de primero y tortilla de segundo.","recetas/gazpacho.txt":"tomates, pepino, pimiento, ajo, aceite, vinagre, sal","recetas/tortilla.txt":"huevos, patatas, cebolla, aceite, sal"}`
      )
      assert.strictEqual(lines.at(-1), "PASS salmorejo (es) (end, 2 model calls)")
    })
  )
})
