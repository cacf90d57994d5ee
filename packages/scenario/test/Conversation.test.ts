import type { Loop } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Conversation, Pattern, ScenarioFile } from "../src/index.ts"
import { at, type Json, load, salmorejoEn, salmorejoEs, spanishFiles, spanishFinalText } from "./fixtures/files.ts"

const FILE = "scenarios/es/salmorejo.json"

/** The Spanish salmorejo scenario, edited, decoded (it must stay valid). */
const scenario = (edit?: (json: Json) => void, file: string = salmorejoEs): ScenarioFile.Conversation => {
  const json = load(file)
  edit?.(json)
  const decoded = ScenarioFile.decode(FILE, json)
  if (Result.isFailure(decoded)) throw new Error(decoded.failure.message)
  if (decoded.success.kind !== "conversation") throw new Error(`${file}: not a conversation`)
  return decoded.success
}

const wrongT2 = "no existe la receta 'recetas/salmorejo.txt'"

describe("Conversation.run: verdicts", () => {
  it.effect("the shipped Spanish salmorejo passes with the seed's outcome", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(scenario(), FILE)
      assert.deepStrictEqual(verdict, {
        name: "salmorejo (es)",
        file: FILE,
        kind: "conversation",
        variant: "fixed",
        reserved: false,
        passed: true,
        outcome: { stop: "end", text: spanishFinalText, files: spanishFiles, turns: 4 },
        failures: []
      })
    })
  )

  it.effect("the shipped English salmorejo passes too", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(scenario(undefined, salmorejoEn), "en.json")
      assert.strictEqual(verdict.passed, true)
      assert.strictEqual(verdict.name, "salmorejo (en)")
      assert.deepStrictEqual(verdict.failures, [])
      assert.strictEqual(verdict.outcome.turns, 4)
    })
  )

  it.effect("a wrong expected observation: a divergence naming turn 2 and t2, expected and seen", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(
        scenario((json) => {
          at(json, "turns", 1, "expect", 0).content = wrongT2
        }),
        FILE
      )
      const expected = `t2 is_error=true "${wrongT2}"`
      const seen = `t2 is_error=true "no existe el fichero 'recetas/salmorejo.txt'"`
      assert.strictEqual(verdict.passed, false)
      assert.deepStrictEqual(verdict.failures, [
        {
          kind: "divergence",
          turn: 2,
          tool_use_id: "t2",
          expected,
          seen,
          message: `turn 2, tool_use_id t2: a different observation\n  expected: ${expected}\n  seen:     ${seen}`
        }
      ])
      assert.deepStrictEqual(verdict.outcome, { stop: "diverged", files: spanishFiles, turns: 3 })
    })
  )

  it.effect("a wrong is_error flag is a divergence too", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(
        scenario((json) => {
          at(json, "turns", 0, "expect", 0).is_error = false
        }),
        FILE
      )
      assert.strictEqual(verdict.passed, false)
      assert.strictEqual(verdict.failures.length, 1)
      const failure = verdict.failures[0]
      assert.strictEqual(failure?.kind, "divergence")
      assert.strictEqual(failure?.turn, 1)
      assert.strictEqual(failure?.tool_use_id, "t1")
      assert.strictEqual(failure?.expected, `t1 is_error=false "no se ha ejecutado: falta el campo 'ruta'"`)
      assert.strictEqual(failure?.seen, `t1 is_error=true "no se ha ejecutado: falta el campo 'ruta'"`)
    })
  )

  it.effect("a pattern expectation passes when it matches", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(
        scenario((json) => {
          at(json, "turns", 2, "expect", 0).content = { pattern: "^recetas/gazpacho\\.txt\\nrecetas/" }
        }),
        FILE
      )
      assert.strictEqual(verdict.passed, true)
      assert.deepStrictEqual(verdict.failures, [])
    })
  )

  it.effect("a wrong outcome stop", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(
        scenario((json) => {
          at(json, "outcome").stop = "turn_cap"
        }),
        FILE
      )
      assert.strictEqual(verdict.passed, false)
      assert.deepStrictEqual(verdict.failures, [
        {
          kind: "stop",
          expected: "turn_cap",
          seen: "end",
          message: "the run stopped with 'end', the scenario expects 'turn_cap'"
        }
      ])
      assert.deepStrictEqual(verdict.outcome, { stop: "end", text: spanishFinalText, files: spanishFiles, turns: 4 })
    })
  )

  it.effect("a wrong outcome text", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(
        scenario((json) => {
          at(json, "outcome").text = "Hecho."
        }),
        FILE
      )
      assert.strictEqual(verdict.passed, false)
      assert.deepStrictEqual(verdict.failures, [
        {
          kind: "text",
          expected: `"Hecho."`,
          seen: JSON.stringify(spanishFinalText),
          message: `the final text differs\n  expected: "Hecho."\n  seen:     ${JSON.stringify(spanishFinalText)}`
        }
      ])
    })
  )

  it.effect("an expected text at the turn cap, where there is none", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(
        scenario((json) => {
          json.maxTurns = 3
          json.turns = (json.turns as ReadonlyArray<unknown>).slice(0, 3)
          at(json, "outcome").stop = "turn_cap"
        }),
        FILE
      )
      assert.strictEqual(verdict.passed, false)
      assert.deepStrictEqual(verdict.failures, [
        {
          kind: "text",
          expected: JSON.stringify(spanishFinalText),
          seen: "(no final text)",
          message: `the final text differs\n  expected: ${JSON.stringify(spanishFinalText)}\n  seen:     (no final text)`
        }
      ])
      assert.deepStrictEqual(verdict.outcome, { stop: "turn_cap", text: undefined, files: spanishFiles, turns: 3 })
    })
  )

  it.effect("a wrong outcome file names its path; a file that should exist shows (no such file)", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(
        scenario((json) => {
          const files = at(json, "outcome", "files")
          files["lista.txt"] = "pan, leche, huevos, tomates"
          files["recetas/salmorejo.txt"] = "tomates, pan, aceite, ajo, sal"
        }),
        FILE
      )
      assert.strictEqual(verdict.passed, false)
      assert.deepStrictEqual(verdict.failures, [
        {
          kind: "files",
          expected: `"pan, leche, huevos, tomates"`,
          seen: `"pan, leche, huevos"`,
          message: `file 'lista.txt' differs after the run\n  expected: "pan, leche, huevos, tomates"\n  seen:     "pan, leche, huevos"`
        },
        {
          kind: "files",
          expected: `"tomates, pan, aceite, ajo, sal"`,
          seen: "(no such file)",
          message: `file 'recetas/salmorejo.txt' differs after the run\n  expected: "tomates, pan, aceite, ajo, sal"\n  seen:     (no such file)`
        }
      ])
    })
  )

  it.effect("stop, text and files failures are all reported, in that order", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(
        scenario((json) => {
          const outcome = at(json, "outcome")
          outcome.stop = "turn_cap"
          outcome.text = "x"
          outcome.files = {}
        }),
        FILE
      )
      assert.deepStrictEqual(
        verdict.failures.map((f) => f.kind),
        ["stop", "text", "files", "files", "files", "files"]
      )
    })
  )

  it.effect("the model called past the script: script_exhausted", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(
        scenario((json) => {
          json.turns = (json.turns as ReadonlyArray<unknown>).slice(0, 3)
        }),
        FILE
      )
      assert.strictEqual(verdict.passed, false)
      assert.deepStrictEqual(verdict.failures, [
        {
          kind: "script_exhausted",
          turn: 4,
          expected: "3 model call(s)",
          seen: "a call 4",
          message: "turn 4: the model was called again, but the script has only 3 turn(s)"
        }
      ])
      assert.strictEqual(verdict.outcome.stop, "diverged")
      assert.strictEqual(verdict.outcome.turns, 4)
    })
  )

  it.effect("turns left over at the turn cap: script_unfinished", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(
        scenario((json) => {
          json.maxTurns = 2
        }),
        FILE
      )
      assert.strictEqual(verdict.passed, false)
      assert.deepStrictEqual(verdict.failures, [
        {
          kind: "script_unfinished",
          expected: "4 model call(s)",
          seen: "2 model call(s)",
          message: "the run stopped after 2 model call(s), but the script has 4 turn(s): 2 left over"
        }
      ])
      assert.strictEqual(verdict.outcome.stop, "diverged")
    })
  )

  it.effect("outcome.turns is the number of model calls made, also when the end check fails", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(
        scenario((json) => {
          json.maxTurns = 2
        }),
        FILE
      )
      // Verdict.Outcome.turns is documented as "Model calls made": two were made here (the
      // failure message itself says "after 2 model call(s)"), but the verdict reports the
      // ModelError's turn, which Loop sets to turns.length + 1 for failures of `complete`.
      assert.strictEqual(verdict.outcome.turns, 2)
    })
  )

  it.effect("reserved scenarios keep their flag in the verdict", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(
        scenario((json) => {
          json.reserved = true
        }),
        FILE
      )
      assert.strictEqual(verdict.reserved, true)
      assert.strictEqual(verdict.passed, true)
    })
  )

  it.effect("the onTurn option sees each turn with calls, in order, with its outcomes", () =>
    Effect.gen(function* () {
      const seen: Array<Loop.Turn> = []
      const verdict = yield* Conversation.run(scenario(), FILE, {
        onTurn: (turn) => Effect.sync(() => void seen.push(turn))
      })
      assert.strictEqual(verdict.passed, true)
      assert.deepStrictEqual(
        seen.map((t) => [t.turn, t.reply.length, t.outcomes.map((o) => [o.id, o._tag, o.content])]),
        [
          [1, 2, [["t1", "NotExecuted", "no se ha ejecutado: falta el campo 'ruta'"]]],
          [
            2,
            2,
            [
              ["t2", "Failed", "no existe el fichero 'recetas/salmorejo.txt'"],
              ["t3", "Succeeded", "pan, leche, huevos"]
            ]
          ],
          [3, 1, [["t4", "Succeeded", "recetas/gazpacho.txt\nrecetas/tortilla.txt"]]]
        ]
      )
    })
  )
})

describe("Conversation.script and opening", () => {
  it("the opening is the system then the user message; patterns become RegExps", () => {
    const s = scenario((json) => {
      at(json, "turns", 2, "expect", 0).content = { pattern: "^recetas/" }
    })
    const script = Conversation.script(s.file)
    assert.deepStrictEqual(script.messages, [
      { role: "system", content: "Trabajas con los ficheros del usuario mediante tus herramientas." },
      { role: "user", content: "Añade a lista.txt lo que falta para el salmorejo." }
    ])
    assert.strictEqual(script.turns.length, 4)
    const expected = script.turns[2]?.expect
    const content = typeof expected === "object" ? expected[0]?.content : undefined
    assert.instanceOf(content, Pattern.LinearRegExp)
    assert.strictEqual(content.source, "^recetas\\/")
    assert.strictEqual(script.turns[3]?.expect, undefined)
  })

  it("no system or user gives no opening messages", () => {
    const s = scenario((json) => {
      delete json.system
      delete json.user
    })
    assert.deepStrictEqual(Conversation.opening(s.file), [])
  })
})
