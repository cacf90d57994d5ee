import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Report, ResponseCases, ScenarioFile, Suite, Variant, type Verdict } from "../src/index.ts"
import { at, catalogo, type Json, load } from "./fixtures/files.ts"

const FILE = "cases/catalogo.json"

const ids = {
  reg: "reg-001-timeout-como-respuesta",
  ctl1: "ctl-001-sin-resultados-es-valido",
  ctl2: "ctl-002-titulo-con-palabra-error",
  res: "res-001-servicio-no-disponible"
} as const

/** The shipped cases, edited, decoded (they must stay valid). */
const scenario = (edit?: (json: Json) => void): ScenarioFile.ResponseCases => {
  const json = load(catalogo)
  edit?.(json)
  const decoded = ScenarioFile.decode(FILE, json)
  if (Result.isFailure(decoded)) throw new Error(decoded.failure.message)
  if (decoded.success.kind !== "response-cases") throw new Error("not response-cases")
  return decoded.success
}

/** Why an edited copy of the shipped cases is invalid. */
const invalid = (edit: (json: Json) => void) => {
  const json = load(catalogo)
  edit(json)
  const result = ScenarioFile.decode(FILE, json)
  if (Result.isSuccess(result)) throw new Error("the edited file should be invalid")
  const error = result.failure
  assert.strictEqual(error.message, `${error.file}: ${error.path}: ${error.problem}`)
  return { path: error.path, problem: error.problem }
}

const perCase = (v: Verdict.Verdict<Verdict.CasesOutcome>) => v.outcome.cases.map((c) => [c.id, c.role, c.passed])

describe("response-cases: decoding", () => {
  it("the shipped file decodes: its name and the seed's four cases, ids and roles in order", () => {
    const result = ScenarioFile.parse(catalogo, readFileSync(catalogo, "utf8"))
    if (Result.isFailure(result)) throw new Error(result.failure.message)
    const s = result.success
    if (s.kind !== "response-cases") throw new Error("not response-cases")
    assert.strictEqual(s.name, "catalogo.buscar: the response contract")
    assert.strictEqual(s.reserved, false)
    assert.deepStrictEqual(
      s.file.cases.map((c) => [c.id, c.role]),
      [
        [ids.reg, "regression"],
        [ids.ctl1, "control"],
        [ids.ctl2, "control"],
        [ids.res, "reserved"]
      ]
    )
    for (const c of s.file.cases) assert.isString(c.purpose)
  })

  it("the shipped cases are those the seed describes", () => {
    const s = scenario()
    const [reg, ctl1, ctl2, res] = s.file.cases
    assert.deepStrictEqual([reg?.response.status, reg?.response.error_code], ["error", "TIMEOUT"])
    assert.deepStrictEqual(ctl1?.response, { status: "ok", content: "" })
    assert.strictEqual(ctl2?.response.status, "ok")
    assert.include(String(ctl2?.response.content), "error")
    assert.deepStrictEqual([res?.response.status, res?.response.error_code], ["unavailable", "SERVICE_UNAVAILABLE"])
    assert.notInclude(String(res?.response.content).toLowerCase(), "error")
  })

  it("a minimal file: one case, no name, purpose or contract", () => {
    const result = ScenarioFile.decode("dir/min.json", {
      format: 1,
      kind: "response-cases",
      cases: [{ id: "a", role: "control", response: { status: "ok" }, expected: { ok: true } }]
    })
    if (Result.isFailure(result)) throw new Error(result.failure.message)
    assert.strictEqual(result.success.name, "min")
  })

  it("a wrong role: cases[2].role", () => {
    assert.deepStrictEqual(
      invalid((json) => {
        at(json, "cases", 2).role = "held-out"
      }),
      { path: "cases[2].role", problem: `expected "regression" | "control" | "reserved", got "held-out"` }
    )
  })

  it("a missing id, response or expected", () => {
    assert.deepStrictEqual(
      invalid((json) => {
        delete at(json, "cases", 0).id
      }),
      { path: "cases[0].id", problem: "missing" }
    )
    assert.deepStrictEqual(
      invalid((json) => {
        delete at(json, "cases", 1).response
      }),
      { path: "cases[1].response", problem: "missing" }
    )
    assert.deepStrictEqual(
      invalid((json) => {
        delete at(json, "cases", 3).expected
      }),
      { path: "cases[3].expected", problem: "missing" }
    )
  })

  it("a response or expected that is not an object", () => {
    assert.deepStrictEqual(
      invalid((json) => {
        at(json, "cases", 1).response = 5
      }),
      { path: "cases[1].response", problem: "expected object, got 5" }
    )
    assert.deepStrictEqual(
      invalid((json) => {
        at(json, "cases", 2).expected = ["ok"]
      }),
      { path: "cases[2].expected", problem: `expected object, got ["ok"]` }
    )
  })

  it("a purpose that is not a string, an unexpected field in a case", () => {
    assert.deepStrictEqual(
      invalid((json) => {
        at(json, "cases", 1).purpose = 3
      }),
      { path: "cases[1].purpose", problem: "expected string, got 3" }
    )
    assert.deepStrictEqual(
      invalid((json) => {
        at(json, "cases", 1).note = "x"
      }),
      { path: "cases[1].note", problem: "unexpected field" }
    )
  })

  it("no cases, an empty list, or not a list", () => {
    assert.deepStrictEqual(
      invalid((json) => {
        delete json.cases
      }),
      { path: "cases", problem: "missing" }
    )
    assert.deepStrictEqual(
      invalid((json) => {
        json.cases = []
      }),
      { path: "cases", problem: "expected a value with a length of at least 1, got []" }
    )
    assert.deepStrictEqual(
      invalid((json) => {
        json.cases = {}
      }),
      { path: "cases", problem: "expected array, got {}" }
    )
  })

  it("two cases with one id: the second names it", () => {
    assert.deepStrictEqual(
      invalid((json) => {
        at(json, "cases", 2).id = ids.reg
      }),
      { path: "cases[2].id", problem: `case id '${ids.reg}' appears twice` }
    )
  })

  it("a bad contract: a wrong ok value type, an unknown field", () => {
    assert.deepStrictEqual(
      invalid((json) => {
        json.contract = { ok: null }
      }),
      { path: "contract.ok", problem: "expected a string, number or boolean, got null" }
    )
    assert.deepStrictEqual(
      invalid((json) => {
        json.contract = { stat: "estado" }
      }),
      { path: "contract.stat", problem: "unexpected field" }
    )
  })

  it("a field of another kind", () => {
    assert.deepStrictEqual(
      invalid((json) => {
        json.turns = []
      }),
      { path: "turns", problem: "unexpected field" }
    )
  })
})

describe("response-cases: per-case verdicts on the shipped file", () => {
  it.effect("fixed (the default): every case passes", () =>
    Effect.gen(function* () {
      const verdict = yield* ResponseCases.run(scenario(), FILE)
      assert.strictEqual(verdict.variant, "fixed")
      assert.strictEqual(verdict.passed, true)
      assert.deepStrictEqual(perCase(verdict), [
        [ids.reg, "regression", true],
        [ids.ctl1, "control", true],
        [ids.ctl2, "control", true],
        [ids.res, "reserved", true]
      ])
      assert.deepStrictEqual(verdict.failures, [])
    })
  )

  it.effect("before: reg-001 FAIL, ctl-001 PASS, ctl-002 PASS, res-001 FAIL", () =>
    Effect.gen(function* () {
      const verdict = yield* ResponseCases.run(scenario(), FILE, { variant: Variant.before })
      assert.strictEqual(verdict.variant, "before")
      assert.strictEqual(verdict.passed, false)
      assert.deepStrictEqual(perCase(verdict), [
        [ids.reg, "regression", false],
        [ids.ctl1, "control", true],
        [ids.ctl2, "control", true],
        [ids.res, "reserved", false]
      ])
      const timeout = "Tiempo de espera agotado: el catálogo no respondió en 5 segundos."
      const reg = verdict.outcome.cases[0]
      assert.deepStrictEqual(reg?.seen, { ok: true, answer: timeout })
      assert.deepStrictEqual(reg?.expected, { ok: false, error_code: "TIMEOUT", message: timeout })
      assert.deepStrictEqual(
        verdict.failures.map((f) => [f.kind, f.case_id]),
        [
          ["case", ids.reg],
          ["case", ids.res]
        ]
      )
      assert.strictEqual(
        verdict.failures[0]?.message,
        `case ${ids.reg} (regression): the parser's reading differs\n  expected: {"ok":false,"error_code":"TIMEOUT","message":"${timeout}"}\n  seen:     {"ok":true,"answer":"${timeout}"}`
      )
    })
  )

  it.effect("Suite.run dispatches to the cases under the variant it is given", () =>
    Effect.gen(function* () {
      const fixed = yield* Suite.run(scenario(), FILE)
      const before = yield* Suite.run(scenario(), FILE, Variant.before)
      assert.deepStrictEqual([fixed.kind, fixed.variant, fixed.passed], ["response-cases", "fixed", true])
      assert.deepStrictEqual([before.variant, before.passed], ["before", false])
    })
  )

  it.effect("a reserved file keeps its flag; every case still counts", () =>
    Effect.gen(function* () {
      const verdict = yield* ResponseCases.run(
        scenario((json) => {
          json.reserved = true
        }),
        FILE,
        { variant: Variant.before }
      )
      assert.deepStrictEqual([verdict.reserved, verdict.passed], [true, false])
    })
  )
})

describe("response-cases: comparison and contract fields", () => {
  it.effect("key order does not matter; an ok answer without content is null (the seed's None)", () =>
    Effect.gen(function* () {
      const verdict = yield* ResponseCases.run(
        scenario((json) => {
          json.cases = [
            {
              id: "order",
              role: "regression",
              response: { content: "x", error_code: "E", status: "error" },
              expected: { message: "x", ok: false, error_code: "E" }
            },
            { id: "no-content", role: "control", response: { status: "ok" }, expected: { ok: true, answer: null } },
            {
              id: "nested",
              role: "control",
              response: { status: "ok", content: { b: [1, { d: 2, c: 3 }], a: null } },
              expected: { ok: true, answer: { a: null, b: [1, { c: 3, d: 2 }] } }
            },
            {
              id: "no-status",
              role: "control",
              response: {},
              expected: { ok: false, error_code: "UNKNOWN", message: "" }
            }
          ]
        }),
        FILE
      )
      assert.deepStrictEqual(perCase(verdict), [
        ["order", "regression", true],
        ["no-content", "control", true],
        ["nested", "control", true],
        ["no-status", "control", true]
      ])
    })
  )

  it.effect("a value that differs fails, with both readings shown", () =>
    Effect.gen(function* () {
      const verdict = yield* ResponseCases.run(
        scenario((json) => {
          json.cases = [
            { id: "x", role: "control", response: { status: "ok", content: 1 }, expected: { ok: true, answer: "1" } }
          ]
        }),
        FILE
      )
      assert.strictEqual(verdict.passed, false)
      assert.deepStrictEqual(
        [verdict.failures[0]?.expected, verdict.failures[0]?.seen],
        [`{"ok":true,"answer":"1"}`, `{"ok":true,"answer":1}`]
      )
    })
  )

  it.effect("the contract's field names and ok value are configurable", () =>
    Effect.gen(function* () {
      const edit = (json: Json) => {
        json.contract = { status: "estado", ok: 200, error_code: "codigo", content: "contenido" }
        json.cases = [
          {
            id: "ok-200",
            role: "control",
            response: { estado: 200, contenido: "disponible" },
            expected: { ok: true, answer: "disponible" }
          },
          {
            id: "status-ok-is-not-the-ok-value",
            role: "regression",
            response: { estado: "ok", codigo: "E503", contenido: "caído" },
            expected: { ok: false, error_code: "E503", message: "caído" }
          },
          {
            id: "default-names-are-ignored",
            role: "reserved",
            response: { status: "ok", content: "x", estado: 500 },
            expected: { ok: false, error_code: "UNKNOWN", message: "" }
          }
        ]
      }
      const fixed = yield* ResponseCases.run(scenario(edit), FILE)
      assert.deepStrictEqual(perCase(fixed), [
        ["ok-200", "control", true],
        ["status-ok-is-not-the-ok-value", "regression", true],
        ["default-names-are-ignored", "reserved", true]
      ])
      const before = yield* ResponseCases.run(scenario(edit), FILE, { variant: Variant.before })
      assert.deepStrictEqual(perCase(before), [
        ["ok-200", "control", true],
        ["status-ok-is-not-the-ok-value", "regression", false],
        ["default-names-are-ignored", "reserved", true]
      ])
    })
  )

  it("fields maps the file's contract onto the parser's fields", () => {
    assert.deepStrictEqual(ResponseCases.fields(undefined), {})
    assert.deepStrictEqual(ResponseCases.fields({ ok: true, error_code: "code" }), { ok: true, errorCode: "code" })
  })

  it("a parser that throws fails its case instead of the run", () => {
    const c = ResponseCases.runCase(
      () => {
        throw new Error("boom")
      },
      { id: "t", role: "control", response: {}, expected: {} }
    )
    assert.deepStrictEqual([c.passed, c.seen], [false, "the parser threw: boom"])
  })
})

describe("response-cases: reports", () => {
  const run = (variant: Variant.Variant) => Effect.runSync(ResponseCases.run(scenario(), FILE, { variant }))

  it("fixed: the head line, then a line per case, the reserved case on its own reserved: line", () => {
    assert.strictEqual(
      Report.verdict(run(Variant.fixed)),
      [
        "PASS catalogo.buscar: the response contract (4 cases, 0 failed)",
        `    PASS ${ids.reg} regression`,
        `    PASS ${ids.ctl1} control`,
        `    PASS ${ids.ctl2} control`,
        `    reserved: PASS ${ids.res}`
      ].join("\n")
    )
  })

  it("before: failures show expected and seen under their case", () => {
    const lines = Report.verdict(run(Variant.before)).split("\n")
    assert.strictEqual(lines[0], "FAIL catalogo.buscar: the response contract (4 cases, 2 failed)")
    assert.strictEqual(lines[1], `    FAIL ${ids.reg} regression`)
    assert.match(lines[2] ?? "", /^ {6}expected: \{"ok":false,"error_code":"TIMEOUT",/)
    assert.match(lines[3] ?? "", /^ {6}seen: {5}\{"ok":true,"answer":/)
    assert.deepStrictEqual(lines.slice(4, 7), [
      `    PASS ${ids.ctl1} control`,
      `    PASS ${ids.ctl2} control`,
      `    reserved: FAIL ${ids.res}`
    ])
    assert.match(lines[7] ?? "", /^ {6}expected: \{"ok":false,"error_code":"SERVICE_UNAVAILABLE",/)
    assert.strictEqual(lines.length, 9)
  })

  it("the ansi style colours each case's mark; plain has no escapes", () => {
    assert.notInclude(Report.verdict(run(Variant.before), Report.plain), "\u001b[")
    assert.include(Report.verdict(run(Variant.before), Report.ansi), `\u001b[31mFAIL\u001b[39m ${ids.reg}`)
  })

  it("totals count reserved cases of a case file on the reserved line; the file counts once", () => {
    const t = Report.totals([run(Variant.before)], 0)
    assert.deepStrictEqual(t, { passed: 0, failed: 1, invalid: 0, reservedPassed: 0, reservedFailed: 1, skipped: 0 })
    assert.deepStrictEqual(Report.closing(Report.totals([run(Variant.fixed)], 0)), [
      "reserved: 1 passed, 0 failed",
      "1 passed, 0 failed"
    ])
  })

  it("the JSON verdict has the variant and every case", () => {
    const parsed = JSON.parse(Report.json(run(Variant.before)))
    assert.strictEqual(parsed.variant, "before")
    assert.strictEqual(parsed.kind, "response-cases")
    assert.deepStrictEqual(
      parsed.outcome.cases.map((c: Verdict.CaseVerdict) => c.passed),
      [false, true, true, false]
    )
  })
})
