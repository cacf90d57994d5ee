import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { ScenarioFile } from "../src/index.ts"
import { at, type Json, load, salmorejoEn, salmorejoEs, shipped } from "./fixtures/files.ts"

const FILE = "cases/broken.json"

/** Decodes an edited copy of the Spanish salmorejo scenario and gives why it is invalid. */
const invalid = (
  edit: (json: Json) => void
): { readonly file: string; readonly path: string; readonly problem: string } => {
  const json = load(salmorejoEs)
  edit(json)
  const result = ScenarioFile.decode(FILE, json)
  assert.isTrue(Result.isFailure(result), "the edited file should be invalid")
  if (Result.isSuccess(result)) throw new Error("unreachable")
  const error = result.failure
  assert.instanceOf(error, ScenarioFile.InvalidScenario)
  assert.strictEqual(error.message, `${error.file}: ${error.path}: ${error.problem}`)
  return { file: error.file, path: error.path, problem: error.problem }
}

const parseInvalid = (text: string) => {
  const result = ScenarioFile.parse(FILE, text)
  if (Result.isSuccess(result)) throw new Error("the text should be invalid")
  return { file: result.failure.file, path: result.failure.path, problem: result.failure.problem }
}

/** Schema's own messages start with a capital; compare them without the first letter's case. */
const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1)

describe("ScenarioFile.parse: the shipped scenarios", () => {
  const files = shipped()

  it("include both salmorejo files", () => {
    assert.include(files, salmorejoEs)
    assert.include(files, salmorejoEn)
  })

  for (const file of files) {
    it(`decodes ${file.slice(file.indexOf("scenarios"))}`, () => {
      const result = ScenarioFile.parse(file, readFileSync(file, "utf8"))
      assert.strictEqual(Result.isSuccess(result) ? "valid" : result.failure.message, "valid")
    })
  }

  it("the Spanish salmorejo decodes to its name, kind, locale and four turns", () => {
    const result = ScenarioFile.parse(salmorejoEs, readFileSync(salmorejoEs, "utf8"))
    if (Result.isFailure(result)) throw new Error(result.failure.message)
    const scenario = result.success
    if (scenario.kind !== "conversation") throw new Error("not a conversation")
    assert.strictEqual(scenario.kind, "conversation")
    assert.strictEqual(scenario.name, "salmorejo (es)")
    assert.strictEqual(scenario.reserved, false)
    assert.strictEqual(scenario.file.locale, "es")
    assert.strictEqual(scenario.file.maxTurns, 10)
    assert.strictEqual(scenario.file.turns.length, 4)
    assert.deepStrictEqual(scenario.file.turns[1]?.expect?.[0], {
      type: "tool_result",
      tool_use_id: "t2",
      is_error: true,
      content: "no existe el fichero 'recetas/salmorejo.txt'"
    })
    assert.deepStrictEqual(scenario.file.outcome.stop, "end")
  })
})

describe("ScenarioFile.parse: defaults", () => {
  it("the name defaults to the file name without .json, reserved to false", () => {
    const json = load(salmorejoEs)
    delete json.name
    const result = ScenarioFile.parse("some/dir/my-case.json", JSON.stringify(json))
    if (Result.isFailure(result)) throw new Error(result.failure.message)
    assert.strictEqual(result.success.name, "my-case")
    assert.strictEqual(result.success.reserved, false)
    const windows = ScenarioFile.decode("C:\\cases\\other.json", json)
    if (Result.isFailure(windows)) throw new Error(windows.failure.message)
    assert.strictEqual(windows.success.name, "other")
  })

  it("reserved: true is kept", () => {
    const json = load(salmorejoEs)
    json.reserved = true
    const result = ScenarioFile.decode(FILE, json)
    if (Result.isFailure(result)) throw new Error(result.failure.message)
    assert.strictEqual(result.success.reserved, true)
    assert.strictEqual(result.success.name, "salmorejo (es)")
  })

  it("a minimal file: no locale, files, maxTurns, system or user", () => {
    const result = ScenarioFile.parse(
      "minimal.json",
      JSON.stringify({
        format: 1,
        kind: "conversation",
        turns: [{ reply: [{ type: "text", text: "hi" }] }],
        outcome: { stop: "end" }
      })
    )
    if (Result.isFailure(result)) throw new Error(result.failure.message)
    if (result.success.kind !== "conversation") throw new Error("not a conversation")
    assert.strictEqual(result.success.name, "minimal")
    assert.strictEqual(result.success.file.locale, undefined)
    assert.strictEqual(result.success.file.maxTurns, undefined)
    assert.strictEqual(result.success.file.files, undefined)
  })
})

describe("ScenarioFile.parse: invalid files name the file, the JSON path and the problem", () => {
  it("a deleted tool_use id: turns[2].reply[0].id: missing", () => {
    const error = invalid((json) => {
      delete at(json, "turns", 2, "reply", 0).id
    })
    assert.deepStrictEqual(error, { file: FILE, path: "turns[2].reply[0].id", problem: "missing" })
  })

  it("a deleted tool_use input is missing too", () => {
    const error = invalid((json) => {
      delete at(json, "turns", 0, "reply", 1).input
    })
    assert.deepStrictEqual(error, { file: FILE, path: "turns[0].reply[1].input", problem: "missing" })
  })

  it('wrong type: maxTurns: "3"', () => {
    const error = invalid((json) => {
      json.maxTurns = "3"
    })
    assert.deepStrictEqual(error, { file: FILE, path: "maxTurns", problem: `expected number, got "3"` })
  })

  it("maxTurns: 0 is below the minimum", () => {
    const error = invalid((json) => {
      json.maxTurns = 0
    })
    assert.strictEqual(error.path, "maxTurns")
    assert.strictEqual(lowerFirst(error.problem), "expected a value greater than or equal to 1, got 0")
  })

  it("maxTurns: 1.5 is not an integer", () => {
    const error = invalid((json) => {
      json.maxTurns = 1.5
    })
    assert.strictEqual(error.path, "maxTurns")
    assert.strictEqual(lowerFirst(error.problem), "expected an integer, got 1.5")
  })

  it("an unexpected top-level field", () => {
    const error = invalid((json) => {
      json.extra = true
    })
    assert.deepStrictEqual(error, { file: FILE, path: "extra", problem: "unexpected field" })
  })

  it("an unexpected field inside a block", () => {
    const error = invalid((json) => {
      at(json, "turns", 0, "reply", 1).arguments = {}
    })
    assert.deepStrictEqual(error, { file: FILE, path: "turns[0].reply[1].arguments", problem: "unexpected field" })
  })

  it("an unknown kind", () => {
    const error = invalid((json) => {
      json.kind = "chat"
    })
    assert.deepStrictEqual(error, {
      file: FILE,
      path: "kind",
      problem: `expected one of "conversation", "plan", "response-cases", "live", got "chat"`
    })
  })

  it("a conversation file marked kind plan is checked as a plan, and its first problem named", () => {
    const error = invalid((json) => {
      json.kind = "plan"
    })
    assert.deepStrictEqual(error, { file: FILE, path: "locale", problem: "unexpected field" })
  })

  it("a conversation file marked kind response-cases is checked as response cases", () => {
    const error = invalid((json) => {
      json.kind = "response-cases"
    })
    assert.deepStrictEqual(error, { file: FILE, path: "locale", problem: "unexpected field" })
  })

  it("a missing kind", () => {
    const error = invalid((json) => {
      delete json.kind
    })
    assert.deepStrictEqual(error, { file: FILE, path: "kind", problem: "missing" })
  })

  it("format: 2", () => {
    const error = invalid((json) => {
      json.format = 2
    })
    assert.deepStrictEqual(error, { file: FILE, path: "format", problem: "expected 1, got 2" })
  })

  it('format: "1" is not the number 1', () => {
    const error = invalid((json) => {
      json.format = "1"
    })
    assert.deepStrictEqual(error, { file: FILE, path: "format", problem: `expected 1, got "1"` })
  })

  it("a missing format", () => {
    const error = invalid((json) => {
      delete json.format
    })
    assert.deepStrictEqual(error, { file: FILE, path: "format", problem: "missing" })
  })

  it("a missing outcome", () => {
    const error = invalid((json) => {
      delete json.outcome
    })
    assert.deepStrictEqual(error, { file: FILE, path: "outcome", problem: "missing" })
  })

  it("a wrong outcome stop", () => {
    const error = invalid((json) => {
      at(json, "outcome").stop = "done"
    })
    assert.strictEqual(error.path, "outcome.stop")
    assert.strictEqual(
      lowerFirst(error.problem),
      `expected "end" | "turn_cap" | "context_window" | "repeated_call", got "done"`
    )
  })

  it("a file content that is not a string names the file's key", () => {
    const error = invalid((json) => {
      at(json, "files")["lista.txt"] = 3
    })
    assert.deepStrictEqual(error, { file: FILE, path: `files["lista.txt"]`, problem: "expected string, got 3" })
  })

  it("a turn with a tool_use but no expect: turns[0].expect", () => {
    const error = invalid((json) => {
      delete at(json, "turns", 0).expect
    })
    assert.deepStrictEqual(error, {
      file: FILE,
      path: "turns[0].expect",
      problem: "missing: the reply has 1 tool_use block(s), so the turn must list the results the model must be shown"
    })
  })

  it("a turn with two tool_use blocks and no expect counts them", () => {
    const error = invalid((json) => {
      delete at(json, "turns", 1).expect
    })
    assert.strictEqual(error.path, "turns[1].expect")
    assert.strictEqual(
      error.problem,
      "missing: the reply has 2 tool_use block(s), so the turn must list the results the model must be shown"
    )
  })

  it("an invalid regex pattern names its path", () => {
    const error = invalid((json) => {
      at(json, "turns", 2, "expect", 0).content = { pattern: "recetas/(" }
    })
    assert.deepStrictEqual(error, {
      file: FILE,
      path: "turns[2].expect[0].content.pattern",
      problem: "invalid regular expression: /recetas/(/: Unterminated group"
    })
  })

  it("an expected content that is neither text nor a pattern", () => {
    const error = invalid((json) => {
      at(json, "turns", 2, "expect", 0).content = 7
    })
    assert.strictEqual(error.path, "turns[2].expect[0].content")
    assert.strictEqual(lowerFirst(error.problem), `expected a string or { "pattern": regex }, got 7`)
  })

  it("a block of an unknown type", () => {
    const error = invalid((json) => {
      at(json, "turns", 3, "reply", 0).type = "thinking"
    })
    assert.strictEqual(error.path, "turns[3].reply[0]")
    assert.isTrue(
      lowerFirst(error.problem).startsWith(
        `expected a block { "type": "text", "text" }, { "type": "tool_use", "id", "name", "input" } or { "type": "reasoning", "text" }, got `
      ),
      error.problem
    )
  })

  it("the root is not an object", () => {
    for (const text of ["[]", "null", '"conversation"', "1"]) {
      assert.deepStrictEqual(parseInvalid(text), { file: FILE, path: "(root)", problem: "expected an object" }, text)
    }
  })

  it("invalid JSON text gives its line and column", () => {
    const error = parseInvalid('{\n  "format": 1,\n  "kind" "conversation"\n}')
    assert.strictEqual(error.path, "(root)")
    assert.strictEqual(
      error.problem,
      "invalid JSON (line 3, column 10): Expected ':' after property name in JSON at position 26 (line 3 column 10)"
    )
  })

  it("a trailing comma on line 1", () => {
    const error = parseInvalid('{"format": 1,}')
    assert.isTrue(error.problem.startsWith("invalid JSON (line 1, column 14): "), error.problem)
  })

  it("an empty file is invalid JSON", () => {
    assert.deepStrictEqual(parseInvalid(""), {
      file: FILE,
      path: "(root)",
      problem: "invalid JSON: Unexpected end of JSON input"
    })
  })

  it("problems read as one style: each starts with a lower-case letter", () => {
    const problems = [
      invalid((json) => {
        json.maxTurns = 0
      }).problem,
      invalid((json) => {
        json.maxTurns = "3"
      }).problem,
      invalid((json) => {
        at(json, "outcome").stop = "done"
      }).problem,
      invalid((json) => {
        at(json, "turns", 2, "expect", 0).content = 7
      }).problem
    ]
    // ScenarioFile.ts lowers the first letter in its leafHook/checkHook, but the formatter's
    // fallbacks for filters (checkHook returns undefined) and for unions bypass both hooks.
    assert.deepStrictEqual(
      problems.map((p) => p.charAt(0)),
      ["e", "e", "e", "e"],
      problems.join(" | ")
    )
  })
})

describe("ScenarioFile.pathText", () => {
  it("renders indexes, identifiers and other keys", () => {
    assert.strictEqual(ScenarioFile.pathText([]), "(root)")
    assert.strictEqual(ScenarioFile.pathText(["turns", 2, "reply", 0, "id"]), "turns[2].reply[0].id")
    assert.strictEqual(ScenarioFile.pathText(["files", "lista.txt"]), `files["lista.txt"]`)
  })
})
